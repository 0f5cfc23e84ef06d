package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// TestFamiliesQuick runs the families study's -quick subset in this
// process and checks every run: curves closed to the tolerance, brackets
// that contain the least ε found by plain bisection over the full LP
// (pure-Go backend) at N = 8, and expected-utility optima within budget
// and equal to the full LP's.
func TestFamiliesQuick(t *testing.T) {
	if testlong.Short() {
		t.Skip("runs every family's curves and solves")
	}
	dir := t.TempDir()
	cfg, err := parseFlags([]string{"-out", dir, "-quick", "-isolate=false", "-studies", "families"}, os.Stderr)
	require.NoError(t, err)
	res, err := families(context.Background(), cfg)
	require.NoError(t, err)
	ref, err := solver.Get("revised")
	require.NoError(t, err)

	fams := map[string]instance.Family{}
	for _, f := range instance.Families() {
		fams[f.Name] = f
	}
	full := map[string]float64{} // family → expected utility of the full ε-PML LP at N = 8
	checked := 0
	for _, r := range res.Runs {
		if r.Status == "skipped" {
			continue
		}
		require.Equal(t, "ok", r.Status, "%s N=%d %s %s: %s", r.Family, r.N, r.Backend, r.Task, r.Note)
		in, err := fams[r.Family].New(r.N, cfg.Seed)
		require.NoError(t, err)
		switch r.Task {
		case "order", "value":
			assert.Zero(t, r.Open)
			if r.N != 8 {
				continue
			}
			o := in.Order()
			for _, p := range r.Curve {
				pat := o.Pattern(p.H)
				if r.Task == "value" {
					pat = in.Utility.Pattern(p.Threshold)
				}
				want, err := plainLeast(ref, in.Prior, pat, math.Max(p.SafeEpsilon, 1e-3))
				require.NoError(t, err)
				assert.GreaterOrEqual(t, want, p.OptimalEpsilonLower-refTol, "%s %s %s h=%d", r.Family, r.Backend, r.Task, p.H)
				assert.LessOrEqual(t, want, p.OptimalEpsilon+refTol, "%s %s %s h=%d", r.Family, r.Backend, r.Task, p.H)
				checked++
			}
		default:
			assert.LessOrEqual(t, r.Excess, 1e-7, "%s N=%d %s %s", r.Family, r.N, r.Backend, r.Task)
			if r.Task != "eu-pml" || r.N != 8 {
				continue
			}
			v, ok := full[r.Family]
			if !ok {
				b := mech.Budget{Measure: mech.PML, Epsilon: famEpsilon}
				sol, err := pmlopt.Solve(context.Background(), &problem.Problem{Prior: in.Prior, Utility: in.Utility,
					Privacy: &b, Objective: problem.ExpectedUtility}, pmlopt.Options{Solver: ref, FullLP: true})
				require.NoError(t, err)
				v, full[r.Family] = sol.ExpectedUtility, sol.ExpectedUtility
			}
			assert.InDelta(t, v, r.Value, 1e-7*math.Max(1, math.Abs(v)), "%s %s", r.Family, r.Backend)
		}
	}
	assert.Len(t, full, len(fams), "every family's ε-PML optimum was compared")
	assert.Greater(t, checked, 10*len(fams))

	require.NoError(t, res.write(dir))
	rep := &Report{Config: cfg, Families: res}
	require.NoError(t, rep.write())
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "## Instance families")
	assert.Contains(t, string(md), "| counting-binomial | 8 | revised |")

	// The reference comparisons at N = 8 (-quick) are made with every
	// backend the study ran, and every one agrees.
	require.NotEmpty(t, res.Refs)
	for _, r := range res.Refs {
		assert.True(t, r.OK(), "%s N=%d %s %s: %d compared, deviation %g %s", r.Family, r.N, r.Backend, r.Task, r.Checked, r.MaxDev, r.Note)
	}
	assert.Contains(t, string(md), fmt.Sprintf("%d of %d comparisons agree.", len(res.Refs), len(res.Refs)))
}

// TestFamiliesFlags: the study's flags are parsed and checked.
func TestFamiliesFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"-studies", "families,eulp", "-family-sizes", "8,16", "-families", "grid,hamming",
		"-tasks", "order,eu-ldp", "-cpu-budget", "3s", "-isolate=false"}, os.Stderr)
	require.NoError(t, err)
	assert.Equal(t, []string{"families", "eulp"}, cfg.Studies)
	assert.Equal(t, []int{8, 16}, cfg.FamilySizes)
	assert.Equal(t, []string{"grid", "hamming"}, cfg.Families)
	assert.Equal(t, []string{"order", "eu-ldp"}, cfg.FamilyTasks)
	assert.Equal(t, 3*time.Second, cfg.CPUBudget)
	assert.Empty(t, cfg.Exe)
	for _, bad := range [][]string{{"-studies", "nope"}, {"-families", "nope"}, {"-tasks", "nope"},
		{"-family-sizes", "1"}, {"-cpu-budget", "-1s"}} {
		_, err := parseFlags(bad, io.Discard)
		assert.Error(t, err, "%v", bad)
	}
	cfg, err = parseFlags(nil, os.Stderr)
	require.NoError(t, err)
	assert.NotEmpty(t, cfg.Exe, "runs are isolated by default")
	assert.Equal(t, []int{64, 128, 256}, famSizes(cfg))
}

// TestFamWireRoundTrip: a child's outcome, NaN and infinities included,
// reaches the parent unchanged.
func TestFamWireRoundTrip(t *testing.T) {
	r := FamRun{FamJob: FamJob{Family: "grid", N: 8, Task: "eu-pml", Backend: "revised"}, Status: "ok", Seconds: 1.5,
		CPU: math.NaN(), PMin: 0.125, MaxOpen: math.Inf(1), Value: -2.25, Excess: -1e-12, Method: "ipm", LPs: 1}
	b, err := json.Marshal(r.wire())
	require.NoError(t, err)
	var w famWire
	require.NoError(t, json.Unmarshal(b, &w))
	got := w.run()
	assert.True(t, math.IsNaN(got.CPU))
	got.CPU, r.CPU = 0, 0
	assert.Equal(t, r, got)
}

// TestFamRatio: a run's ratio to the random family's, each time counted as
// at least famRatioFloor, bounded above when the random run stopped at its
// budget and below when the run itself did, and flagged beyond famRatioMax.
func TestFamRatio(t *testing.T) {
	run := func(fam, status string, cpu float64) FamRun {
		return FamRun{FamJob: FamJob{Family: fam}, Status: status, CPU: cpu, Seconds: 2 * cpu}
	}
	for _, c := range []struct {
		r, ref        FamRun
		cell          string
		within, known bool
	}{
		{run("grid", "ok", 3), run("random", "ok", 2), ", ×1.50", true, true},
		{run("grid", "ok", 7), run("random", "ok", 2), ", **×3.50**", false, true},
		{run("grid", "ok", 0.01), run("random", "ok", 0.05), ", ×1.00", true, true}, // both at the floor
		{run("grid", "ok", 30), run("random", "budget", 100), ", ×≤0.30", true, true},
		{run("grid", "budget", 100), run("random", "ok", 10), ", **×≥10.00**", false, true},
		{run("grid", "budget", 20), run("random", "ok", 10), "", true, false}, // at least 2×: not known
		{run("random", "ok", 2), run("random", "ok", 2), "", true, false},
		{run("grid", "error", 2), run("random", "ok", 2), "", true, false},
	} {
		cell, within, known := famRatio(c.r, c.ref)
		assert.Equal(t, c.cell, cell, "%+v", c)
		assert.Equal(t, c.within, within, "%+v", c)
		assert.Equal(t, c.known, known, "%+v", c)
	}
	// Without a CPU time the wall time counts.
	r, ref := run("grid", "ok", math.NaN()), run("random", "ok", math.NaN())
	r.Seconds, ref.Seconds = 4, 2
	cell, _, _ := famRatio(r, ref)
	assert.Equal(t, ", ×2.00", cell)
}
