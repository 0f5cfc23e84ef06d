package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/solver"
)

// symmetricFile writes the 2×2 problem: a uniform prior and the
// utility [[u, −u], [−u, u]].
func symmetricFile(t *testing.T, u float64, rest string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "u.yaml")
	src := fmt.Sprintf("prior: [0.5, 0.5]\nutility: [[%g, %g], [%g, %g]]\n%s", u, -u, -u, u, rest)
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

// TestUtilitiesOfAnyMagnitude solves the 2×2 symmetric problem under 1-LIP
// at magnitudes beyond what Clp accepts (1e26: it asserts
// fabs(obj[i]) < 1.0e25), below the LP engines' absolute tolerances (1e-12,
// 1e-300) and near the largest float64 (5e307). The optimum is
// u(1 − e^{−1}): rows (e/(1+e), 1/(1+e)) reach LIP 1 exactly, and by
// symmetry and linearity no 1-LIP mechanism does better.
func TestUtilitiesOfAnyMagnitude(t *testing.T) {
	backends := []string{"auto"}
	if slices.Contains(solver.Names(), "clp") {
		backends = append(backends, "clp")
	}
	for _, u := range []float64{1e-300, 1e-12, 1, 1e26, 5e307, 9e307, 1e308} {
		path := symmetricFile(t, u, "privacy: {measure: lip, epsilon: 1}\nobjective: expected-utility\n")
		for _, b := range backends {
			v := runJSON(t, "solve", path, "--solver", b, "--json")
			assert.Equal(t, "optimal", v["status"])
			assert.InEpsilon(t, u*(1-math.Exp(-1)), v["expected_utility"].(float64), 1e-8, "u = %g, %s", u, b)
		}
		// Under 0.3-PML the symmetric optimum keeps x with probability
		// a = e^0.3/2 (PML log 2a), so the optimum is (2a − 1)u = (e^0.3 − 1)u
		// (the constraints p_ij ≤ e^ε q_j are linear and the problem is
		// symmetric, so symmetrising any optimum keeps it optimal).
		path = symmetricFile(t, u, "privacy: {measure: pml, epsilon: 0.3}\nobjective: expected-utility\n")
		for _, b := range backends {
			v := runJSON(t, "solve", path, "--solver", b, "--json")
			assert.InEpsilon(t, u*math.Expm1(0.3), v["expected_utility"].(float64), 1e-8, "pml, u = %g, %s", u, b)
		}
	}
}

// TestHugeThresholdsPlot draws the worst-case-value curve of utilities
// ±9e307, whose range overflowed the plot's tick search, which then never
// returned.
func TestHugeThresholdsPlot(t *testing.T) {
	path := symmetricFile(t, 9e307, "")
	plot := filepath.Join(t.TempDir(), "c.svg")
	out, stderr, code := cli(t, "curve", path, "--objective", "worst-case-value", "--plot", plot, "--quiet", "--csv")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3)
	assert.True(t, strings.HasPrefix(lines[1], "-9e+307,-9e+307,0,"), lines[1]) // threshold, what the step reaches, ε_S
	assert.True(t, strings.HasPrefix(lines[2], "9e+307,"), lines[2])
	svg, err := os.ReadFile(plot)
	require.NoError(t, err)
	assert.Contains(t, string(svg), "(× 1e307)")
}

func TestHugeEpsilonNamesTheField(t *testing.T) {
	path := symmetricFile(t, 1, "privacy: {measure: pml, epsilon: 1e308}\nobjective: expected-utility\n")
	_, stderr, code := cli(t, "solve", path)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "privacy.epsilon: is 1e+308, beyond the largest budget 700 nats")
	_, stderr, code = cli(t, "solve", td+"expected-utility.yaml", "--epsilon", "1e308")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--epsilon must be a number in [0, 700], got 1e+308")
}
