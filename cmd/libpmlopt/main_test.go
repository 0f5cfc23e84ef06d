package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// decoded is a call's JSON: its result, or its error.
type decoded struct {
	Result map[string]any `json:"result"`
	Shapes [][2]int       `json:"shapes"`
	Error  string         `json:"error"`
}

func call(t *testing.T, ctx context.Context, op string, params string, in input) (decoded, *result) {
	t.Helper()
	r := run(ctx, op, []byte(params), in)
	var d decoded
	require.NoError(t, json.Unmarshal(r.json, &d), string(r.json))
	return d, r
}

// counting is Song & Oechtering (2026), §IV-A: the counting query over 7
// letters, read from testdata.
func counting(t *testing.T) input {
	t.Helper()
	d, r := call(t, context.Background(), "load", `{"path":"../../testdata/counting-query.yaml"}`, input{})
	require.Empty(t, d.Error)
	prior := r.matrices[int(d.Result["prior"].(float64))][0]
	u := r.matrices[int(d.Result["utility"].(float64))]
	n := len(prior)
	flat := make([]float64, 0, n*n)
	for _, row := range u {
		flat = append(flat, row...)
	}
	return input{N: n, M: len(u[0]), Prior: prior, Utility: flat}
}

func TestSolveCountingQuery(t *testing.T) {
	in := counting(t)
	d, r := call(t, context.Background(), "solve", `{"epsilon":1.3}`, in)
	require.Empty(t, d.Error)
	assert.Equal(t, 6.0, d.Result["worst_case_order"], "§IV-A: order 6 at ε = 1.3")
	require.Len(t, r.matrices, 1)
	assert.Equal(t, [2]int{7, 7}, d.Shapes[0])
	m := mech.Mechanism(r.matrices[0])
	// The level reported is the mechanism's PML, measured here.
	assert.InDelta(t, leakage.PML(mech.Prior(in.Prior), m), d.Result["epsilon"].(float64), 1e-12)
	assert.InDelta(t, math.Log(3.5), d.Result["epsilon"].(float64), 1e-8)
}

func TestErrorsAreOneLine(t *testing.T) {
	in := counting(t)
	for params, want := range map[string]string{
		`{"epsilon":800}`:                  "epsilon must be a number in [0, 700], got 800",
		`{"epsilon":1,"measure":"dp"}`:     "measure: ",
		`{"epsilon":1,"solver":"nope"}`:    `solver: unknown backend "nope"`,
		`{"epsilon":1,"objective":"best"}`: "objective: ",
		`{}`:                               "epsilon: missing",
		`{"epsilon":"x"}`:                  "bad parameters for solve",
		`{"epsilon":1,"measure":3}`:        "bad parameters for solve: measure: want a string, got number",
		`{"epsilon":1,"min_order":2.5}`:    "bad parameters for solve: min_order: want an integer, got number 2.5",
		`{"epsilon":1,"workers":true}`:     "bad parameters for solve: workers: want an integer, got bool",
		`{"epsilon":1,"inputs":3}`:         "bad parameters for solve: inputs: want a list, got number",
		`{"epsilon":1,"objective":"worst-case-value","min_order":2}`: `min_order and min_value keep a worst case while maximising the expected utility: give objective="expected-utility" (the objective is "worst-case-value")`,
	} {
		d, _ := call(t, context.Background(), "solve", params, in)
		assert.Contains(t, d.Error, want, params)
		assert.NotContains(t, d.Error, "\n")
	}
	d, _ := call(t, context.Background(), "nope", `{}`, in)
	assert.Equal(t, `pmlopt: unknown operation "nope"`, d.Error)
	bad := in
	bad.Prior = []float64{0.5, 0.5, 0.1, 0.1, 0.1, 0.1, 0.1}
	d, _ = call(t, context.Background(), "solve", `{"epsilon":1}`, bad)
	assert.Contains(t, d.Error, "prior: sums to 1.5")
}

func TestPanicBecomesError(t *testing.T) {
	ops["panic-for-test"] = func(context.Context, args, input) (any, [][][]float64, error) { panic("boom") }
	defer delete(ops, "panic-for-test")
	d, _ := call(t, context.Background(), "panic-for-test", `{}`, input{})
	assert.Equal(t, "pmlopt: internal error in panic-for-test: boom", d.Error)
}

func TestCancelledCurveLeavesNothing(t *testing.T) {
	in := counting(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d, r := call(t, ctx, "curve", `{}`, in)
	assert.Equal(t, "interrupted", d.Error)
	assert.Nil(t, r.matrices)
}

func TestInfinitiesCrossAsStrings(t *testing.T) {
	// The identity mechanism: LIP and LDP are infinite.
	in := input{N: 2, M: 2, Prior: []float64{0.25, 0.75}, Mechanism: []float64{1, 0, 0, 1}}
	d, _ := call(t, context.Background(), "audit", `{"alpha":"inf"}`, in)
	require.Empty(t, d.Error)
	assert.Equal(t, "inf", d.Result["ldp"])
	assert.Equal(t, "inf", d.Result["alpha"])
	assert.InDelta(t, math.Log(4), d.Result["pml"].(float64), 1e-12)
	var f jf
	require.NoError(t, json.Unmarshal([]byte(`"-inf"`), &f))
	assert.True(t, math.IsInf(float64(f), -1))
	b, err := json.Marshal(jf(math.NaN()))
	require.NoError(t, err)
	assert.Equal(t, "null", string(b))
}

// TestLoadRuleFile: a file whose utility is a utility_rule loads with the
// matrix it defines, u(i, j) = −(Manhattan distance) on a 3×2 grid.
func TestLoadRuleFile(t *testing.T) {
	path := t.TempDir() + "/rule.yaml"
	require.NoError(t, os.WriteFile(path, []byte("prior: uniform\nutility_rule: {metric: manhattan, grid: {width: 3, height: 2}}\n"), 0o644))
	d, r := call(t, context.Background(), "load", `{"path":`+strconv.Quote(path)+`}`, input{})
	require.Empty(t, d.Error)
	u := r.matrices[int(d.Result["utility"].(float64))]
	require.Len(t, u, 6)
	for i := range 6 {
		for j := range 6 {
			want := -math.Abs(float64(i%3-j%3)) - math.Abs(float64(i/3-j/3))
			assert.Equal(t, want, u[i][j], "u[%d][%d]", i, j)
		}
	}
	assert.NotEqual(t, -1.0, d.Result["order"])
}
