package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/problem"
)

// loadTD loads a problem of testdata.
func loadTD(t *testing.T, name string) *problem.Problem {
	t.Helper()
	p, err := problem.Load(td + name)
	require.NoError(t, err)
	return p
}

// TestSolveJointCLI: keeping order 6 of the counting query at ε = 1.3
// costs expected utility against the unconstrained optimum, gains against
// the least-PML worst-case optimum, keeps the order, and the least ε of
// order 6 is log 7/2 (Song & Oechtering (2026), §IV-A).
func TestSolveJointCLI(t *testing.T) {
	p := loadTD(t, "counting-query.yaml")
	f := td + "counting-query.yaml"
	joint := runJSON(t, "solve", f, "--objective", "expected-utility", "--epsilon", "1.3", "--min-order", "6", "--json")
	free := runJSON(t, "solve", f, "--objective", "expected-utility", "--epsilon", "1.3", "--json")
	wc := runJSON(t, "solve", f, "--epsilon", "1.3", "--json")
	require.Equal(t, 6.0, wc["worst_case_order"])
	m := toMechanism(t, joint["mechanism"])
	assert.GreaterOrEqual(t, p.Order.WorstCaseOrder(m), 6)
	assert.LessOrEqual(t, leakage.PML(p.Prior, m), 1.3+1e-7)
	eu := joint["expected_utility"].(float64)
	assert.InDelta(t, p.Utility.ExpectedUtility(p.Prior, m), eu, 1e-12)
	assert.Less(t, eu, free["expected_utility"].(float64)-1e-3, "keeping order 6 costs utility here")
	assert.GreaterOrEqual(t, eu, wc["expected_utility"].(float64)-1e-9)
	assert.GreaterOrEqual(t, joint["expected_utility_bound"].(float64), eu)
	assert.InDelta(t, math.Log(3.5), joint["least_epsilon_upper"].(float64), 1e-8)
	assert.LessOrEqual(t, joint["least_epsilon_lower"].(float64), math.Log(3.5))

	_, stderr, code := cli(t, "solve", f, "--objective", "expected-utility", "--epsilon", "1", "--min-order", "6")
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "below the least ε for worst-case order 6")
	assert.Contains(t, stderr, "1.252762969")
	_, _, code = cli(t, "solve", f, "--epsilon", "1", "--min-order", "6")
	assert.Equal(t, exitUsage, code, "a worst case to keep needs the expected-utility objective")
	_, _, code = cli(t, "solve", f, "--objective", "expected-utility", "--min-order", "6", "--min-value", "-2")
	assert.Equal(t, exitUsage, code)
}

// curvePoints returns the points of one measure of curve --json.
func curvePoints(t *testing.T, v map[string]any, measure string) []map[string]any {
	t.Helper()
	for _, c := range v["curves"].([]any) {
		c := c.(map[string]any)
		if c["measure"] == measure {
			var pts []map[string]any
			for _, p := range c["points"].([]any) {
				pts = append(pts, p.(map[string]any))
			}
			return pts
		}
	}
	t.Fatalf("no curve for %s", measure)
	return nil
}

// TestExpectedCurveCLI: the curves of the four measures are
// non-decreasing in ε, ordered as the measures' sets are nested (an ε-LDP
// or ε-LIP mechanism is ε-PML; (ε/2, ε)-ALIP is stricter than ε-LIP), equal
// solve's optimum at each budget, and each point's mechanism is within its
// budget and has the reported expected utility.
func TestExpectedCurveCLI(t *testing.T) {
	p := loadTD(t, "counting-query.yaml")
	f := td + "counting-query.yaml"
	eps := []string{"0.3", "0.8", "1.3"}
	v := runJSON(t, "curve", f, "--objective", "expected-utility", "--measure", "pml,lip,alip,ldp",
		"--epsilons", strings.Join(eps, ","), "--json", "--mechanisms")
	curves := map[string][]map[string]any{}
	for _, m := range []string{"pml", "lip", "alip", "ldp"} {
		curves[m] = curvePoints(t, v, m)
		require.Len(t, curves[m], len(eps))
	}
	for k, e := range eps {
		budget, err := strconv.ParseFloat(e, 64)
		require.NoError(t, err)
		get := func(m string) float64 { return curves[m][k]["expected_utility"].(float64) }
		assert.GreaterOrEqual(t, get("pml"), get("lip")-1e-9)
		assert.GreaterOrEqual(t, get("pml"), get("ldp")-1e-9)
		assert.GreaterOrEqual(t, get("lip"), get("alip")-1e-9)
		if k > 0 {
			for m := range curves {
				assert.GreaterOrEqual(t, get(m), curves[m][k-1]["expected_utility"].(float64)-1e-9, "%s", m)
			}
		}
		for _, m := range []string{"pml", "ldp"} {
			sol := runJSON(t, "solve", f, "--objective", "expected-utility", "--measure", m, "--epsilon", e, "--json")
			assert.InDelta(t, sol["expected_utility"].(float64), get(m), 1e-7, "%s at %s", m, e)
		}
		for m, pts := range curves {
			pm := toMechanism(t, pts[k]["mechanism"])
			assert.InDelta(t, p.Utility.ExpectedUtility(p.Prior, pm), pts[k]["expected_utility"].(float64), 1e-12)
			assert.Equal(t, p.Utility.WorstCaseValue(pm), pts[k]["worst_case_value"].(float64))
			switch m {
			case "pml":
				assert.LessOrEqual(t, leakage.PML(p.Prior, pm), budget+1e-7)
			case "lip":
				assert.LessOrEqual(t, leakage.LIP(p.Prior, pm), budget+1e-7)
			case "ldp":
				assert.LessOrEqual(t, leakage.LDP(p.Prior, pm), budget+1e-7)
			case "alip":
				lo, up := leakage.ALIP(p.Prior, pm)
				assert.LessOrEqual(t, lo, budget/2+1e-7)
				assert.LessOrEqual(t, up, budget+1e-7)
			}
		}
	}
	// PML points carry a proven bound.
	for _, pt := range curves["pml"] {
		assert.GreaterOrEqual(t, pt["expected_utility_bound"].(float64), pt["expected_utility"].(float64))
	}
}

// TestExpectedCurveOutputs: --from/--to/--steps, CSV, and the plot in the
// three formats (checked by their magic bytes).
func TestExpectedCurveOutputs(t *testing.T) {
	f := td + "expected-utility.yaml"
	out, stderr, code := cli(t, "curve", f, "--objective", "expected-utility", "--measure", "pml,ldp", "--from", "0", "--to", "1", "--steps", "5", "--csv")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assert.Len(t, lines, 1+2*5)
	assert.True(t, strings.HasPrefix(lines[0], "measure,epsilon,"))
	assert.True(t, strings.HasPrefix(lines[5], "pml,1,"), lines[5])
	dir := t.TempDir()
	for ext, magic := range map[string]string{".svg": "<?xml", ".png": "\x89PNG", ".pdf": "%PDF"} {
		path := filepath.Join(dir, "eu"+ext)
		_, stderr, code := cli(t, "curve", f, "--objective", "expected-utility", "--measure", "pml,lip,alip,ldp", "--steps", "3", "--plot", path)
		require.Equal(t, 0, code, stderr)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(b), magic), ext)
	}
	_, _, code = cli(t, "curve", f, "--objective", "expected-utility", "--epsilons", "1", "--steps", "3")
	assert.Equal(t, exitUsage, code)
	_, _, code = cli(t, "curve", f, "--objective", "expected-utility", "--measure", "pmc")
	assert.Equal(t, exitUsage, code)
	_, stderr, code = cli(t, "curve", f, "--objective", "worst-case-order", "--measure", "ldp")
	assert.Equal(t, exitUsage, code, "a worst-case curve has no --measure")
	assert.Contains(t, stderr, "--measure is for --objective expected-utility")
}

// TestCurveMechanisms: curve --json --mechanisms gives each threshold's
// mechanism, which reaches the threshold within the point's ε.
func TestCurveMechanisms(t *testing.T) {
	p := loadTD(t, "counting-query.yaml")
	v := runJSON(t, "curve", td+"counting-query.yaml", "--json", "--mechanisms")
	for _, pt := range v["points"].([]any) {
		pt := pt.(map[string]any)
		m := toMechanism(t, pt["mechanism"])
		assert.GreaterOrEqual(t, p.Order.WorstCaseOrder(m), int(pt["h"].(float64)))
		assert.LessOrEqual(t, leakage.PML(p.Prior, m), pt["optimal_epsilon"].(float64)+1e-9)
	}
	v = runJSON(t, "curve", td+"counting-query.yaml", "--json")
	assert.NotContains(t, v["points"].([]any)[0].(map[string]any), "mechanism")
}
