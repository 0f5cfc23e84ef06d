package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlan(t *testing.T) {
	specs, err := plan("4x4, 3x2", "uniform,clustered", "pml,ldp", "expected,worst,baselines", "3x3", 1, 0)
	require.NoError(t, err)
	// per size and prior: 2 expected, 1 worst, 2×2 baselines; then 2 curves.
	require.Len(t, specs, 2*2*7+2)
	assert.Equal(t, spec{Size: "4x4", Prior: "uniform", Objective: objExpected, Measure: "pml", Epsilon: 1}, specs[0])
	assert.Equal(t, spec{Size: "3x3", Prior: "clustered", Objective: objCurve, Measure: "pml"}, specs[len(specs)-1])
	for _, bad := range [][5]string{
		{"0x4", "uniform", "pml", "expected", ""},
		{"4x4", "zipf", "pml", "expected", ""},
		{"4x4", "uniform", "dp", "expected", ""},
		{"4x4", "uniform", "pml", "median", ""},
		{"4x4", "uniform", "pml", "expected", "4"},
	} {
		_, err := plan(bad[0], bad[1], bad[2], bad[3], bad[4], 1, 0)
		assert.Error(t, err, "%v", bad)
	}
	sp, err := speedupPlan("4x4", "1,2,3", 1)
	require.NoError(t, err)
	require.Len(t, sp, 3)
	assert.Equal(t, 3, sp[2].Workers)
	_, err = speedupPlan("4x4", "0", 1)
	assert.Error(t, err)
}

// TestSolveRuns: every objective on a 4×4 grid. The optima are at least
// as good as the baselines calibrated to the same budget (which are
// feasible there), and their certificates are closed.
func TestSolveRuns(t *testing.T) {
	ctx := context.Background()
	for _, prior := range []string{"uniform", "clustered"} {
		for _, m := range []string{"pml", "lip", "alip", "ldp"} {
			base := spec{Size: "4x4", Prior: prior, Measure: m, Epsilon: 1, Workers: 1}
			s := base
			s.Objective = objExpected
			opt, err := solve(ctx, s)
			require.NoError(t, err, "%v", s)
			require.NotNil(t, opt.Gap, "%v", s)
			assert.InDelta(t, 0, *opt.Gap, 1e-6, "%v", s)
			assert.LessOrEqual(t, opt.OutputsUsed, 16)
			assert.Greater(t, opt.OutputsUsed, 0)
			for _, o := range []string{objSafe, objRR} {
				s := base
				s.Objective = o
				bl, err := solve(ctx, s)
				require.NoError(t, err, "%v", s)
				assert.GreaterOrEqual(t, *opt.ExpectedUtility, *bl.ExpectedUtility-1e-9, "%v", s)
				assert.NotEmpty(t, bl.Parameter)
			}
		}
		s := spec{Size: "4x4", Prior: prior, Objective: objWorst, Measure: "pml", Epsilon: 1, Workers: 1}
		worst, err := solve(ctx, s)
		require.NoError(t, err)
		assert.LessOrEqual(t, *worst.Gap, 1e-9)
		s.Objective = objSafe
		safe, err := solve(ctx, s)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, *worst.WorstCaseValue, *safe.WorstCaseValue)
		s.Objective = objCurve
		c, err := solve(ctx, s)
		require.NoError(t, err)
		assert.Equal(t, 0, c.Open)
		assert.Greater(t, c.Steps, 1)
	}
}

func TestMarkdown(t *testing.T) {
	g, v := 1e-12, -1.5
	rep := report{Date: "2026-11-28", Command: "grids", Machine: "m", CPUs: 2,
		Runs: []result{
			{spec: spec{Size: "4x4", Prior: "uniform", Objective: objExpected, Measure: "pml"}, Cells: 16, Status: "ok", Gap: &g, ExpectedUtility: &v, WorstCaseValue: &v, OutputsUsed: 3},
			{spec: spec{Size: "4x4", Prior: "uniform", Objective: objCurve, Measure: "pml"}, Cells: 16, Status: "ok", Gap: &g, Steps: 5},
		},
		Speedup: []result{{spec: spec{Size: "4x4", Workers: 1}, Wall: 2}, {spec: spec{Size: "4x4", Workers: 2}, Wall: 1}},
	}
	var b bytes.Buffer
	writeMarkdown(&b, rep)
	out := b.String()
	assert.Contains(t, out, "| 4x4 | uniform | expected-utility | pml | ok | -1.500000 | -1.5000 | 1e-12 | 0 | 0 | 3/16 |")
	assert.Contains(t, out, "| 2 |  | 0.00 | 1.00 | 2.00× |")
	// Every table row has as many cells as its header.
	var cols int
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "|") {
			cols = 0
			continue
		}
		n := strings.Count(line, "|")
		if cols == 0 {
			cols = n
		}
		assert.Equal(t, cols, n, line)
	}
}
