package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
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

	// sample refuses the mechanism for the same reason, and writes nothing.
	out, stderr, code := cli(t, "sample", f, "--input", td+"records.csv", "--column", "count", "--seed", "1")
	assert.Equal(t, 3, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "over the prior set")
}
