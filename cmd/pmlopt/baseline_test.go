package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/guarantee"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// TestBaselineClosedForms: randomized response calibrated to ε-LDP has
// ε̄ = ε (its LDP is ε̄), calibrated to ε-PML has ε̄ = LDPForPML(ε, p_min)
// (Song & Oechtering (2026), Prop 1: its PML is then exactly ε); the
// extremal mechanism's PML is its parameter; the utility-safe schedule of
// the counting query at ε = 1.3 is M*(5) (§IV-A).
func TestBaselineClosedForms(t *testing.T) {
	f := td + "counting-query.yaml"
	pmin := 1.0 / 7
	for _, c := range []struct {
		kind, measure, eps string
		want               float64
	}{
		{"randomized-response", "ldp", "1.3", 1.3},
		{"randomized-response", "pml", "1.3", guarantee.LDPForPML(1.3, pmin)},
		{"randomized-response", "pml", "0.4", guarantee.LDPForPML(0.4, pmin)},
		{"extremal", "pml", "0.1", 0.1},
		{"extremal", "pml", "1.3", closedform.ExtremalLimit(mech.Uniform(7))},
		{"utility-safe", "pml", "1.3", 5},
	} {
		v := runJSON(t, "baseline", f, "--mechanism", c.kind, "--measure", c.measure, "--epsilon", c.eps, "--json")
		assert.InDelta(t, c.want, v["parameter"].(float64), 1e-9*math.Max(1, c.want), "%s %s %s", c.kind, c.measure, c.eps)
		assert.Equal(t, c.kind, v["baseline"])
	}
}

// TestBaselineIsTight: for every family and measure, the returned
// mechanism is within the budget by the audit, and a slightly larger
// parameter is not (checked with package closedform and leakage directly):
// the calibration is tight, not only safe.
func TestBaselineIsTight(t *testing.T) {
	p := loadTD(t, "counting-query.yaml")
	pi := p.Prior
	level := func(measure string, q mech.Mechanism) float64 {
		switch measure {
		case "pml":
			return leakage.PML(pi, q)
		case "lip":
			return leakage.LIP(pi, q)
		}
		return leakage.LDP(pi, q)
	}
	fam := map[string]func(float64) (mech.Mechanism, error){
		"randomized-response": func(x float64) (mech.Mechanism, error) { return closedform.RandomizedResponse(7, x) },
		"exponential": func(x float64) (mech.Mechanism, error) {
			return closedform.Exponential(p.Utility, x, closedform.Sensitivity(p.Utility))
		},
		"extremal": func(x float64) (mech.Mechanism, error) { return closedform.Extremal(pi, x) },
	}
	for kind, family := range fam {
		for _, measure := range []string{"pml", "lip", "ldp"} {
			budget := 0.9
			if kind == "extremal" && measure == "pml" {
				budget = 0.1 // below the family's limit log 7/6
			}
			v := runJSON(t, "baseline", td+"counting-query.yaml", "--mechanism", kind, "--measure", measure,
				"--epsilon", strconv.FormatFloat(budget, 'g', -1, 64), "--json")
			theta := v["parameter"].(float64)
			q := toMechanism(t, v["mechanism"])
			assert.LessOrEqual(t, level(measure, q), budget, "%s %s", kind, measure)
			assert.InDelta(t, level(measure, q), v["epsilon"].(float64), 1e-15)
			above, err := family(theta * (1 + 1e-9))
			require.NoError(t, err)
			assert.Greater(t, level(measure, above), budget, "%s %s: θ = %v is not the largest", kind, measure, theta)
			if start, ok := v["parameter_start"].(float64); ok {
				assert.GreaterOrEqual(t, theta, start-1e-12, "%s %s", kind, measure)
			}
		}
	}
}

// TestBaselineErrors: a family that needs N = M, and an unknown family.
func TestBaselineErrors(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "wide.yaml")
	require.NoError(t, os.WriteFile(f, []byte("prior: [0.5, 0.5]\nutility: [[1, 0, 0], [0, 1, 0]]\nprivacy: {measure: pml, epsilon: 0.5}\n"), 0o644))
	_, stderr, code := cli(t, "baseline", f, "--mechanism", "randomized-response")
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "as many outputs as inputs")
	v := runJSON(t, "baseline", f, "--mechanism", "exponential", "--json")
	assert.LessOrEqual(t, v["epsilon"].(float64), 0.5)
	_, stderr, code = cli(t, "baseline", f, "--mechanism", "laplace")
	assert.Equal(t, exitUsage, code, "an unknown family is a wrong command line")
	assert.Contains(t, stderr, `--mechanism: unknown mechanism "laplace"`)
	_, _, code = cli(t, "baseline", f)
	assert.Equal(t, exitUsage, code)
}
