package main

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/testlong"
)

// sameForAnyWorkers runs args with --workers 1, 2 and 0 (every CPU) and
// requires the three outputs to be the same bytes.
func sameForAnyWorkers(t *testing.T, args ...string) string {
	t.Helper()
	var first string
	for k, w := range []string{"1", "2", "0"} {
		out, stderr, code := cli(t, append(append([]string(nil), args...), "--workers", w)...)
		require.Equal(t, 0, code, "--workers %s: %s", w, stderr)
		if k == 0 {
			first = out
			continue
		}
		require.Equal(t, first, out, "%v: --workers %s differs from --workers 1", args, w)
	}
	return first
}

// newGrid writes a W×H grid problem (Euclidean utility_rule) to a
// temporary file.
func newGrid(t *testing.T, size, prior string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "grid.yaml")
	_, stderr, code := cli(t, "new", "--grid", size, "--utility", "euclid", "--prior", prior, "--epsilon", "1", "-o", path)
	require.Equal(t, 0, code, stderr)
	return path
}

// TestWorkersSameResult: solve, its floor, curve and compare print the
// same bytes whatever --workers says, and give the cores back.
func TestWorkersSameResult(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	g := newGrid(t, "6x6", "zipf:1")
	out := sameForAnyWorkers(t, "solve", g, "--objective", "expected-utility", "--json")
	assert.Contains(t, out, `"expected_utility"`)
	sameForAnyWorkers(t, "solve", g, "--objective", "worst-case-value", "--json")
	sameForAnyWorkers(t, "solve", g, "--objective", "expected-utility", "--min-order", "8", "--json")
	sameForAnyWorkers(t, "solve", g, "--objective", "expected-utility", "--measure", "ldp", "--epsilon", "1", "--json")
	sameForAnyWorkers(t, "curve", td+"counting-query.yaml", "--json")
	sameForAnyWorkers(t, "curve", g, "--objective", "expected-utility", "--epsilons", "0.5,1", "--measure", "pml,lip", "--json")
	sameForAnyWorkers(t, "compare", g, "--optimum", "--json")
	assert.Equal(t, procs, runtime.GOMAXPROCS(0), "the commands give the cores back")
}

// TestWorkersSameResultGrid16: on 256 cells the worst-case search's column
// generation is large enough to split its vector work over the workers
// (colgen's parallelWork), so the bytes compared come from split passes.
func TestWorkersSameResultGrid16(t *testing.T) {
	if testlong.Short() {
		t.Skip("a 16×16 worst-case-value solve takes seconds per run")
	}
	g := newGrid(t, "16x16", "uniform")
	out := sameForAnyWorkers(t, "solve", g, "--objective", "worst-case-value", "--json")
	assert.Contains(t, out, `"worst_case_value"`)
}

// TestWorkersFlagErrors: --workers is an integer ≥ 0, refused in one line
// naming the flag with exit status 2 on every command that has it.
func TestWorkersFlagErrors(t *testing.T) {
	for _, cmd := range []string{"solve", "curve", "compare", "plot"} {
		for _, bad := range []string{"-1", "x", "1.5", ""} {
			args := []string{cmd, td + "counting-query.yaml", "--workers", bad}
			if cmd == "plot" {
				args = append(args, "--heatmap", filepath.Join(t.TempDir(), "h.svg"))
			}
			out, stderr, code := cli(t, args...)
			assert.Equal(t, exitUsage, code, "%v: %s", args, stderr)
			assert.Contains(t, stderr, "workers", "%v", args)
			assert.Empty(t, out, "%v", args)
		}
	}
}

// TestLimitCores: a positive count below GOMAXPROCS lowers it until the
// restore; 0 and counts at or above it leave it alone.
func TestLimitCores(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for _, n := range []int{0, procs, procs + 3} {
		restore := limitCores(n)
		assert.Equal(t, procs, runtime.GOMAXPROCS(0), "n = %d", n)
		restore()
	}
	if procs > 1 {
		restore := limitCores(1)
		assert.Equal(t, 1, runtime.GOMAXPROCS(0))
		restore()
	}
	assert.Equal(t, procs, runtime.GOMAXPROCS(0))
}
