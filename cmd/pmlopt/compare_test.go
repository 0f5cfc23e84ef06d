package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// writeFile writes a problem file into dir and returns its path.
func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	return path
}

// TestCompareFiles: two mechanisms of one problem, audited against the
// first file's budget; the levels are the leakage package's, the verdicts
// follow them, and a file with another prior is refused.
func TestCompareFiles(t *testing.T) {
	dir := t.TempDir()
	head := "prior: [0.5, 0.3, 0.2]\nutility: [[0, -1, -2], [-1, 0, -1], [-2, -1, 0]]\nprivacy: {measure: pml, epsilon: 0.8}\n"
	a := writeFile(t, dir, "a.yaml", head+"mechanism: [[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]]\n")
	b := writeFile(t, dir, "b.yaml", head+"mechanism: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\n")
	v := runJSON(t, "compare", a, b, "--json")
	pi := mech.Prior{0.5, 0.3, 0.2}
	mechs := []mech.Mechanism{{{0.6, 0.2, 0.2}, {0.2, 0.6, 0.2}, {0.2, 0.2, 0.6}}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}
	got := v["mechanisms"].([]any)
	require.Len(t, got, 2)
	for k, m := range mechs {
		g := got[k].(map[string]any)
		pml := leakage.PML(pi, m)
		assert.InDelta(t, pml, g["pml"].(float64), 1e-15)
		assert.InDelta(t, leakage.LIP(pi, m), jsonNum(g["lip"]), 1e-15)
		assert.Equal(t, pml <= 0.8, g["within_budget"].(bool), "mechanism %d", k)
		assert.InDelta(t, -(0.5*0.6+0.3*0.4+0.2*0.6)*float64(1-k), g["expected_utility"].(float64), 1e-12)
	}
	// The identity leaks log 1/0.2 > 0.8.
	assert.InDelta(t, math.Log(5)-0.8, got[1].(map[string]any)["budget_excess"].(float64), 1e-12)
	assert.Equal(t, "a", got[0].(map[string]any)["name"])

	other := writeFile(t, dir, "c.yaml", "prior: [0.4, 0.4, 0.2]\nmechanism: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\n")
	_, stderr, code := cli(t, "compare", a, other)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "not the same problem")

	out, _, code := cli(t, "compare", a, b)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "exceeds by")
	assert.Contains(t, out, "within")
}

// jsonNum reads a JSON number or "inf".
func jsonNum(v any) float64 {
	if s, ok := v.(string); ok && s == "inf" {
		return math.Inf(1)
	}
	return v.(float64)
}

// TestCompareOptimumAndBaselines: --optimum is solve's mechanism, and
// --baseline's randomized response is the baseline command's; both are
// within the budget, and the optimum's expected utility is the larger.
func TestCompareOptimumAndBaselines(t *testing.T) {
	f := td + "expected-utility.yaml"
	v := runJSON(t, "compare", f, "--optimum", "--baseline", "randomized-response,utility-safe", "--json")
	got := v["mechanisms"].([]any)
	require.Len(t, got, 3)
	sol := runJSON(t, "solve", f, "--json")
	rr := runJSON(t, "baseline", f, "--mechanism", "randomized-response", "--json")
	opt, base := got[0].(map[string]any), got[1].(map[string]any)
	assert.InDelta(t, sol["expected_utility"].(float64), opt["expected_utility"].(float64), 1e-12)
	assert.InDelta(t, rr["expected_utility"].(float64), base["expected_utility"].(float64), 1e-12)
	assert.True(t, strings.HasPrefix(base["name"].(string), "randomized-response (ε̄ = "))
	for _, g := range got {
		assert.True(t, g.(map[string]any)["within_budget"].(bool))
		assert.LessOrEqual(t, g.(map[string]any)["expected_utility"].(float64), opt["expected_utility"].(float64)+1e-9)
	}
	dir := t.TempDir()
	for ext, magic := range map[string]string{".svg": "<?xml", ".png": "\x89PNG", ".pdf": "%PDF"} {
		path := filepath.Join(dir, "cmp"+ext)
		_, stderr, code := cli(t, "compare", f, "--optimum", "--baseline", "randomized-response", "--plot", path)
		require.Equal(t, 0, code, stderr)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(b), magic), ext)
	}
	_, _, code := cli(t, "compare", f)
	assert.Equal(t, exitError, code, "a file without a mechanism and nothing to add")
	// The worst-case optimum of the counting query reaches order 6 at 1.3
	// (Song & Oechtering (2026), §IV-A); its expected-utility optimum is
	// solve's.
	v = runJSON(t, "compare", td+"counting-query.yaml", "--optimum", "--objective", "expected-utility", "--json")
	eu := runJSON(t, "solve", td+"counting-query.yaml", "--objective", "expected-utility", "--json")
	assert.InDelta(t, eu["expected_utility"].(float64), v["mechanisms"].([]any)[0].(map[string]any)["expected_utility"].(float64), 1e-12)
	v = runJSON(t, "compare", td+"counting-query.yaml", "--optimum", "--json")
	assert.Equal(t, 6.0, v["mechanisms"].([]any)[0].(map[string]any)["worst_case_order"])
}
