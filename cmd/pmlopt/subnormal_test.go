package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// log10To310 is −log 1e-310 = 310·log 10; the float 1e-310 differs from
// 10^-310 by a relative 2.5e-14 at most.
const log10To310 = 310 * 2.302585092994045684017991454684364

// subnormalFile writes a problem whose third letter has prior mass 1e-310,
// below the smallest normal float64 (2^-1022), where Go's amd64 math.Log
// gave −709.085 for log 1e-310.
func subnormalFile(t *testing.T) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "subnormal.yaml")
	require.NoError(t, os.WriteFile(f, []byte(`name: subnormal
inputs: ["a", "b", "c"]
outputs: ["a", "b", "c"]
prior: [0.6, 0.4, 1e-310]
utility:
  - [2, 1, 0]
  - [1, 2, 1]
  - [0, 1, 2]
mechanism:
  - [1, 0, 0]
  - [0, 1, 0]
  - [0, 0, 1]
objective: worst-case-order
`), 0o644))
	return f
}

// impliedLevel returns the level of measure m in convert's JSON.
func impliedLevel(t *testing.T, v map[string]any, m string) float64 {
	t.Helper()
	for _, x := range v["implied"].([]any) {
		im := x.(map[string]any)
		if im["measure"] == m {
			return im["epsilon"].(float64)
		}
	}
	t.Fatalf("no %s in %v", m, v)
	return 0
}

// TestConvertSubnormalPMin: issue 33 §3. ε-LDP with p_min = 1e-310
// implies ε2-PML with ε2 = −log(p_min + e^{−ε}(1 − p_min)) = ε up to 1e-309
// (not 0-pml); ε-PMC implies −log p_min + log(1 − e^{−ε}(1 − p_min));
// at p_min = 5e-324 and ε = 700, e^{−700} ≈ 1e-304 ≫ p_min gives ε2 = 700
// (ε = 800 is refused as above 700, where e^{−ε} would underflow).
func TestConvertSubnormalPMin(t *testing.T) {
	v := runJSON(t, "convert", "--from", "ldp", "--epsilon", "0.2877", "--pmin", "1e-310", "--json")
	assert.InDelta(t, 0.2877, impliedLevel(t, v, "pml"), 1e-14)
	out, stderr, code := cli(t, "convert", "--from", "ldp", "--epsilon", "0.2877", "--pmin", "1e-310")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "0.2877-pml")

	v = runJSON(t, "convert", "--from", "pmc", "--epsilon", "5", "--pmin", "1e-310", "--json")
	assert.InDelta(t, log10To310+math.Log1p(-math.Exp(-5)), impliedLevel(t, v, "pml"), 1e-9)

	v = runJSON(t, "convert", "--from", "ldp", "--epsilon", "700", "--pmin", "5e-324", "--json")
	assert.InDelta(t, 700, impliedLevel(t, v, "pml"), 1e-9)
	for _, p := range []string{"1e-310", "5e-324"} {
		for _, m := range []string{"pml", "pmc", "lip", "ldp"} {
			out, stderr, code := cli(t, "convert", "--from", m, "--epsilon", "700", "--pmin", p)
			require.Equal(t, exitOK, code, stderr)
			assert.NotContains(t, out, "NaN", "%s at p_min %s", m, p)
		}
	}
}

// TestSubnormalPriorMass: the identity mechanism on a prior with a mass
// of 1e-310 has PML −log 1e-310 (output c), which overflowed to +Inf; the
// utility-safe M*(3) is that identity, ε_S(3) = 713.80 (709.085 before).
func TestSubnormalPriorMass(t *testing.T) {
	f := subnormalFile(t)
	v := runJSON(t, "audit", f, "--json")
	assert.InDelta(t, log10To310, v["pml"].(float64), 1e-9)

	v = runJSON(t, "safe", f, "--h", "3", "--json")
	assert.InDelta(t, log10To310, v["safe_epsilon"].(float64), 1e-9)
	assert.InDelta(t, log10To310, v["epsilon"].(float64), 1e-9)

	v = runJSON(t, "curve", f, "--json")
	pts := v["points"].([]any)
	last := pts[len(pts)-1].(map[string]any)
	assert.Equal(t, 3.0, last["h"])
	assert.InDelta(t, log10To310, last["safe_epsilon"].(float64), 1e-9)
	assert.InDelta(t, log10To310, last["optimal_epsilon"].(float64), 1e-9)
	assert.InDelta(t, log10To310, last["optimal_epsilon_lower"].(float64), 1e-9)

	for _, args := range [][]string{{"audit", f}, {"safe", f, "--h", "3"}, {"curve", f}} {
		out, stderr, code := cli(t, args...)
		require.Equal(t, exitOK, code, "%v: %s", args, stderr)
		assert.False(t, strings.Contains(out, "NaN") || strings.Contains(out, "709.08"), "%v: %s", args, out)
	}
}
