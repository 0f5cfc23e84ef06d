package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/testlong"
)

// TestQuickReport runs the whole benchmark in -quick mode and checks its
// files, that ipm and every LP backend of the expected-utility study find
// the same optimum within the budget, and the scaling study's CSV.
func TestQuickReport(t *testing.T) {
	if testlong.Short() {
		t.Skip("the whole quick report runs every study; TestQuickFigures checks the figures without -tags long")
	}
	dir := t.TempDir()
	cfg, err := parseFlags([]string{"-out", dir, "-quick", "-isolate=false", "-problem", "../testdata/counting-query.yaml"}, os.Stderr)
	require.NoError(t, err)
	require.NoError(t, run(context.Background(), cfg))

	files := []string{"report.md", "fig1.csv", "fig2.csv", "fig3.csv", "scaling.csv"}
	for _, plot := range []string{"fig1-counting-query-minimum-utility", "fig2-least-pml-one-low-three-high",
		"fig3-least-pml-three-low-one-high", "scaling-time-against-size"} {
		files = append(files, plot+".svg", plot+".png", plot+".pdf")
	}
	for _, f := range files {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
		assert.Positive(t, st.Size(), f)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "![Figure 1](fig1-counting-query-minimum-utility.png)")
	assert.Contains(t, string(md), "data: [fig1.csv](fig1.csv)")
	assert.Contains(t, string(md), "### Targets")

	eu, err := euLP(context.Background(), cfg)
	require.NoError(t, err)
	require.NotEmpty(t, eu.Rows)
	first := map[int]EURow{}
	for _, r := range eu.Rows {
		if r.Skipped != "" {
			continue
		}
		assert.LessOrEqual(t, r.PML, euEpsilon+1e-9, "N = %d, %s: the optimum meets the budget", r.N, r.Backend)
		// ipm and every LP backend, on the support or the full LP, find
		// the same optimum.
		if f, ok := first[r.N]; ok {
			assert.InDelta(t, f.Objective, r.Objective, 1e-7, "N = %d: %s vs %s", r.N, f.Backend, r.Backend)
		} else {
			first[r.N] = r
		}
	}
	assert.Contains(t, first, 32, "the quick study solves N = 32")

	csv, err := os.ReadFile(filepath.Join(dir, "scaling.csv"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(csv), "N,"))
}

// TestQuickFigures checks the paper's statements on the figures' data in
// the quick configuration: S jumps at the grid points just above log 7/3,
// log 7/2 and log 7 (Song and Oechtering, "Worst-Case Utility Privacy
// Mechanism via Pointwise Maximal Leakage", 2024, §IV-A), the optimal worst
// case never loses to S, Figure 2's curves coincide and Figure 3's h = 2
// gap grows as p_min falls.
func TestQuickFigures(t *testing.T) {
	cfg, err := parseFlags([]string{"-out", t.TempDir(), "-quick", "-problem", "../testdata/counting-query.yaml"}, os.Stderr)
	require.NoError(t, err)
	f1, err := figure1(context.Background(), cfg)
	require.NoError(t, err)
	require.Len(t, f1.JumpsAt, 3)
	for k, want := range []float64{0.85, 1.30, 1.95} {
		assert.InDelta(t, want, f1.JumpsAt[k], 1e-12)
	}
	for k, b := range []float64{math.Log(7.0 / 3), math.Log(3.5), math.Log(7)} {
		assert.InDelta(t, b, f1.Breaks[k], 1e-12)
	}
	for _, r := range f1.Rows {
		assert.GreaterOrEqual(t, r.OWorst, r.SWorst, "ε = %v: the optimum never loses to S", r.Eps)
		assert.LessOrEqual(t, r.OEps, r.Eps+1e-9, "ε = %v: O is within budget", r.Eps)
		assert.LessOrEqual(t, r.SEps, r.Eps+1e-12)
		assert.GreaterOrEqual(t, r.SMin, r.SWorst, "a sample minimum is never below the exact worst case")
	}

	f23, err := figures23(context.Background(), cfg)
	require.NoError(t, err)
	for _, r := range f23.Rows {
		assert.LessOrEqual(t, r.OptUpper, r.Safe+1e-9)
		assert.LessOrEqual(t, r.OptUpper-r.OptLower, 1e-9)
		if r.Pattern == "one-low-three-high" || r.H == 3 {
			assert.InDelta(t, r.Safe, r.OptUpper, 1e-9, "%s p_min %v h %d: S is optimal", r.Pattern, r.PMin, r.H)
		}
	}
	gaps := f23.sel("three-low-one-high", 2)
	require.GreaterOrEqual(t, len(gaps), 2)
	for k := 1; k < len(gaps); k++ {
		require.Less(t, gaps[k-1].PMin, gaps[k].PMin)
		assert.Greater(t, gaps[k-1].Gap, gaps[k].Gap, "Fig. 3: the h = 2 gap grows as p_min falls")
	}
	assert.Greater(t, gaps[len(gaps)-1].Gap, 0.05)
}

// TestTargets: the report compares the scaling study with the performance
// targets and splits a curve's time into LPs.
func TestTargets(t *testing.T) {
	r := &Report{Scaling: &Scaling{Workers: 2, Budget: 30 * time.Second, Backends: []string{"clp", "revised"},
		Rows: []ScaleRow{
			{N: 32, Curves: []CurveRun{{Backend: "clp", Time: 349 * time.Millisecond, LPSolves: 217}, {Backend: "revised", Time: 4416 * time.Millisecond, LPSolves: 231}}},
			{N: 64, Curves: []CurveRun{{Backend: "clp", Time: 7402 * time.Millisecond, LPSolves: 500, Probes: 64}, {Backend: "revised", Skipped: "exceeded the 30s budget"}}},
			{N: 128, Curves: []CurveRun{{Backend: "clp", Skipped: "exceeded the 30s budget (5 of 128 thresholds resolved, 49 LPs)"}}},
		},
		Big: &ScaleRow{N: 1000, SafeTime: 11866 * time.Microsecond}}}
	var b strings.Builder
	r.writeTargets(&b)
	out := b.String()
	assert.Contains(t, out, "| clp, N = 64, < 3s | 7.402s | no (2.5× the target) | 500 + 64 | 7.8 + 1.0 | 26.25ms |")
	assert.Contains(t, out, "| clp, N = 128, < 30s | not finished: exceeded the 30s budget (5 of 128 thresholds resolved, 49 LPs) | no |")
	assert.Contains(t, out, "| clp, N = 256, < 5m0s | not run |")
	assert.Contains(t, out, "| revised, N = 32, < 1m0s | 4.416s | yes | 231 + 0 | 7.2 + 0.0 | 38.23ms |")
	assert.Contains(t, out, "| closed-form curve, N = 1000, < 50ms | 11.866ms | yes |")
}
