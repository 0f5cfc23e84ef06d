package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// refTol is how far a curve's bracket may lie from the plain bisection's
// least ε: the plain LP decides feasibility to about 1e-9 per row.
const refTol = 1e-7

// plainLeast is the least ε at which the pattern admits an ε-PML
// mechanism, by plain bisection on [0, hi] over the full feasibility LP
// solved by s, to a bracket of width 1e-10.
func plainLeast(t *testing.T, s solver.Solver, pi mech.Prior, pat mech.Pattern, hi float64) float64 {
	t.Helper()
	feasible := func(eps float64) bool {
		m, err := polytope.Build(polytope.Spec{Prior: pi, Budget: mech.Budget{Measure: mech.PML, Epsilon: eps}, Pattern: pat})
		require.NoError(t, err)
		// Rows scaled as the searches scale them: unscaled, the
		// engine's 1e-9 row tolerance moves ε* by 1e-9/q for an output
		// of mass q (2.6e-7 on counting-binomial at N = 8, h = 14).
		res, err := s.Solve(m.LP.ScaledRows(polytope.RowScale))
		require.NoError(t, err)
		require.Contains(t, []solver.Status{solver.Optimal, solver.Infeasible}, res.Status)
		return res.Status == solver.Optimal
	}
	if feasible(0) {
		return 0
	}
	lo := 0.0
	for !feasible(hi) {
		lo, hi = hi, 2*hi+1
	}
	for hi-lo > 1e-10 {
		mid := (lo + hi) / 2
		if feasible(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// TestFamiliesQuick runs the families study's -quick subset in this
// process and checks every run: curves closed to the tolerance, brackets
// that contain the least ε found by plain bisection over the full LP
// (pure-Go backend) at N = 8, and expected-utility optima within budget
// and equal to the full LP's.
func TestFamiliesQuick(t *testing.T) {
	if testing.Short() {
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
				want := plainLeast(t, ref, in.Prior, pat, math.Max(p.SafeEpsilon, 1e-3))
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
}
