package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// The eye-colour example of Fernandes et al. (2022) with a box around its
// prior: audit reports the levels over the box, and the budget verdict
// uses them.
func TestAuditOverPriorSet(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "set.yaml")
	const body = `prior: [0.25, 0.5, 0.25]
mechanism: [[0.75, 0.25], [0.25, 0.75], [0.95, 0.05]]
privacy: {measure: pml, epsilon: 0.6}
prior_set: {lower: [0.2, 0.4, 0.2], upper: [0.3, 0.6, 0.3]}
`
	require.NoError(t, os.WriteFile(f, []byte(body), 0o644))
	pi := mech.Prior{0.25, 0.5, 0.25}
	m := mech.Mechanism{{0.75, 0.25}, {0.25, 0.75}, {0.95, 0.05}}
	// The least mass of column 1 over the box starts from the lower
	// bounds and gives the remaining 0.2 to x_2, its cheapest letter:
	// π = (0.2, 0.6, 0.2), mass 0.15 + 0.15 + 0.19 = 0.49. Column 2 fills
	// x_3 (0.05) then x_1 (0.25) to their upper bounds: π = (0.3, 0.4,
	// 0.3), mass 0.075 + 0.3 + 0.015 = 0.39.
	want := math.Max(math.Log(0.95/0.49), math.Log(0.75/0.39))
	// The file's budget holds at the prior (PML log 19/11 = 0.547) but
	// not over the set (0.662): audit exits 3.
	out, _, code := cli(t, "audit", "--json", f)
	assert.Equal(t, 3, code)
	j := runJSONText(t, out)
	assert.InDelta(t, math.Log(19.0/11), j["pml"].(float64), 1e-12)
	assert.InDelta(t, want, j["pml_over_prior_set"].(float64), 1e-12)
	set, err := mech.NewBoxSet(pi, []float64{0.2, 0.4, 0.2}, []float64{0.3, 0.6, 0.3})
	require.NoError(t, err)
	l, u := leakage.ALIPOver(set, m)
	assert.InDelta(t, math.Max(l, u), j["lip_over_prior_set"].(float64), 1e-12)
	assert.Equal(t, false, j["within_budget"])
	assert.InDelta(t, want-0.6, j["budget_excess"].(float64), 1e-12)

	text, _, _ := cli(t, "audit", f)
	assert.Contains(t, text, "PML over the prior set")
	assert.Contains(t, text, "exceeds the budget by")
	assert.Contains(t, text, "over the prior set against the budget pml ε = 0.6")

	// Under an LDP budget the verdict's level is the same at every prior
	// (the largest ratio of two entries of one column: 0.95/0.25 in the
	// first, 0.75/0.05 = 15 in the second, so log 15), and the words say
	// no set.
	ldp := filepath.Join(dir, "ldp.yaml")
	require.NoError(t, os.WriteFile(ldp, []byte(strings.Replace(body, "{measure: pml, epsilon: 0.6}", "{measure: ldp, epsilon: 3}", 1)), 0o644))
	text, serr, code := cli(t, "audit", ldp)
	require.Equal(t, 0, code, serr)
	assert.Contains(t, text, "within budget: ldp "+num(math.Log(15))+" against the budget ldp ε = 3")

	// sample refuses the mechanism for the same reason, and writes nothing.
	out, stderr, code := cli(t, "sample", f, "--input", td+"records.csv", "--column", "count", "--seed", "1")
	assert.Equal(t, 3, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "over the prior set")

	// compare judges the budget over the set as well.
	v := runJSON(t, "compare", f, "--json")
	mj := v["mechanisms"].([]any)[0].(map[string]any)
	assert.Equal(t, false, mj["within_budget"])
	assert.InDelta(t, want-0.6, mj["budget_excess"].(float64), 1e-12)
}

// From a CSV with a confidence level to a mechanism that keeps its budget
// for every prior of the set: new, solve, audit and sample.
func TestPriorSetFromData(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range []string{"box", "l1"} {
		f := filepath.Join(dir, kind+".yaml")
		_, stderr, code := cli(t, "new", "--prior-from", td+"survey.csv", "--column", "children", "--utility", "abs",
			"--confidence", "0.9", "--prior-set", kind, "--objective", "expected-utility", "--epsilon", "0.8", "-o", f)
		require.Equal(t, 0, code, stderr)
		p, err := problem.Load(f)
		require.NoError(t, err)
		require.NotNil(t, p.PriorSet)
		require.NotNil(t, p.PriorSetSource)
		assert.Equal(t, 40, p.PriorSetSource.Samples)
		assert.Equal(t, 0.9, p.PriorSetSource.Confidence)
		assert.Equal(t, kind == "box", p.PriorSet.IsBox())
		if kind == "box" {
			// 9 of the 40 answers are 0: the Clopper–Pearson interval at
			// level 1 − 0.1/5.
			lo, hi := instance.ClopperPearson(9, 40, 0.02)
			assert.InDelta(t, lo, p.PriorSet.Lower[0], 1e-15)
			assert.InDelta(t, hi, p.PriorSet.Upper[0], 1e-15)
		}

		solved := filepath.Join(dir, kind+"-solved.yaml")
		_, stderr, code = cli(t, "solve", f, "--out", solved)
		require.Equal(t, 0, code, stderr)
		s, err := problem.Load(solved)
		require.NoError(t, err)
		assert.LessOrEqual(t, leakage.PMLOver(s.PriorSet, s.Mechanism), 0.8+1e-7)
		// The robust optimum is at most the one at the estimate.
		nominal := filepath.Join(dir, kind+"-nominal.yaml")
		_, _, code = cli(t, "new", "--prior-from", td+"survey.csv", "--column", "children", "--utility", "abs",
			"--objective", "expected-utility", "--epsilon", "0.8", "-o", nominal)
		require.Equal(t, 0, code)
		vn := runJSON(t, "solve", nominal, "--json")
		vr := runJSON(t, "solve", f, "--json")
		assert.LessOrEqual(t, vr["expected_utility"].(float64), vn["expected_utility"].(float64)+1e-9)

		out, stderr, code := cli(t, "audit", solved)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, out, "over the prior set against the budget pml ε = 0.8")
		_, stderr, code = cli(t, "sample", solved, "--input", td+"survey.csv", "--column", "children", "--seed", "2")
		require.Equal(t, 0, code, stderr)
	}
	// The same mechanism judged at the estimate only would pass; over the
	// set it is the set's levels that count (TestAuditOverPriorSet).

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--confidence", "1.5"}, "--confidence must be strictly between 0 and 1"},
		{[]string{"--confidence", "0"}, "--confidence must be strictly between 0 and 1"},
		{[]string{"--confidence", "0.9", "--prior-set", "ball"}, `--prior-set must be box or l1, got "ball"`},
		{[]string{"--prior-set", "l1"}, "--prior-set is for --confidence"},
	} {
		args := append([]string{"new", "--prior-from", td + "survey.csv", "--column", "children", "--utility", "abs"}, c.args...)
		out, stderr, code := cli(t, args...)
		assert.Equal(t, exitUsage, code, "%v", c.args)
		assert.Contains(t, stderr, c.want)
		assert.Empty(t, out)
	}
	_, stderr, code := cli(t, "new", "--letters", "3", "--utility", "abs", "--confidence", "0.9")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--confidence is for --prior-from")

	// A worst-case curve over the set: every point's mechanism keeps its
	// level over the set.
	f := filepath.Join(dir, "box.yaml")
	v := runJSON(t, "curve", f, "--objective", "worst-case-order", "--json")
	pts := v["points"].([]any)
	require.Len(t, pts, 5)
	for _, x := range pts {
		pt := x.(map[string]any)
		assert.LessOrEqual(t, pt["optimal_epsilon_lower"].(float64), pt["optimal_epsilon"].(float64))
		assert.GreaterOrEqual(t, pt["safe_epsilon"].(float64), 0.0)
	}
	// export writes the LP over the set: solved, it gives solve's optimum.
	mps := filepath.Join(dir, "box.mps")
	_, stderr, code = cli(t, "export", f, "--mps", mps)
	require.Equal(t, 0, code, stderr)
	data, err := os.Open(mps)
	require.NoError(t, err)
	model, err := lp.ReadMPS(data)
	data.Close()
	require.NoError(t, err)
	lsol, err := solver.Revised().Solve(model)
	require.NoError(t, err)
	sv := runJSON(t, "solve", f, "--json")
	assert.InDelta(t, sv["expected_utility"].(float64), lsol.Objective, 1e-7)
	// safe works at one prior and says so.
	_, stderr, code = cli(t, "safe", f, "--h", "2")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "prior_set: safe works at one prior")

	// Baselines are calibrated over the set.
	bv := runJSON(t, "baseline", f, "--mechanism", "utility-safe", "--json")
	bp, err := problem.Load(f)
	require.NoError(t, err)
	assert.LessOrEqual(t, leakage.PMLOver(bp.PriorSet, toMechanism(t, bv["mechanism"])), 0.8+1e-9)
}
