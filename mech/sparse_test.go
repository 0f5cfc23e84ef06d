package mech

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSparseRowsRoundTrip: FromSparseRows(SparseRows(q)) is q bit for bit,
// and the rule keeps small or dense matrices dense.
func TestSparseRowsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	q := Zeros(64, 100)
	for i := range q {
		for _, j := range rng.Perm(100)[:7] {
			q[i][j] = math.Float64frombits(rng.Uint64()>>12 | 0x3fb0000000000000) // [1/16, 1/8), every mantissa bit
		}
	}
	require.True(t, q.WriteSparse(), "6 400 entries, 448 non-zero")
	rows := q.SparseRows()
	require.Len(t, rows, 64)
	for i, r := range rows {
		require.Len(t, r, 14, "row %d: seven pairs", i)
		for k := 0; k+2 < len(r); k += 2 {
			assert.Less(t, r[k], r[k+2], "indices increase")
		}
	}
	back, err := FromSparseRows("mechanism_sparse", rows, 100)
	require.NoError(t, err)
	for i := range q {
		for j := range q[i] {
			require.Equal(t, math.Float64bits(q[i][j]), math.Float64bits(back[i][j]), "row %d, column %d", i, j)
		}
	}

	// The rule's edges: 4 096 entries and a quarter non-zero.
	assert.True(t, SparseForm(64, 64, 1023))
	assert.False(t, SparseForm(64, 64, 1024))
	assert.False(t, SparseForm(63, 64, 1), "below 4 096 entries")
	small := Zeros(10, 10)
	small[0][0] = 1
	assert.False(t, small.WriteSparse())
}

// TestFromSparseRowsRefuses: a malformed row is refused naming the field,
// the row and the pair.
func TestFromSparseRowsRefuses(t *testing.T) {
	for _, c := range []struct {
		rows [][]float64
		m    int
		want string
	}{
		{[][]float64{{0, 1}, {1}}, 2, "f row 2: has 1 numbers; want pairs j, p (the 0-based output and its probability)"},
		{[][]float64{{0.5, 1}}, 2, "f row 1: pair 1: output index 0.5 is not an integer in 0..1"},
		{[][]float64{{-1, 1}}, 2, "f row 1: pair 1: output index -1 is not an integer in 0..1"},
		{[][]float64{{0, 0.5, 0, 0.5}}, 2, "f row 1: pair 2: output index 0 is not above the one before (0); give each output once, in increasing order"},
		{[][]float64{{0, 1}}, 0, "f: needs a positive number of outputs, not 0"},
	} {
		_, err := FromSparseRows("f", c.rows, c.m)
		require.Error(t, err)
		assert.Equal(t, c.want, err.Error())
	}
}

// TestJSONMatrix: both forms of pmlopt's JSON output read into the same
// matrix, and a sparse form that describes no matrix is refused.
func TestJSONMatrix(t *testing.T) {
	var d, s JSONMatrix
	require.NoError(t, json.Unmarshal([]byte(`[[0.25, 0, 0.75], [0, 1, 0]]`), &d))
	require.NoError(t, json.Unmarshal([]byte(`{"shape": [2, 3], "sparse_rows": [[0, 0.25, 2, 0.75], [1, 1]]}`), &s))
	assert.Equal(t, JSONMatrix{{0.25, 0, 0.75}, {0, 1, 0}}, d)
	assert.Equal(t, d, s)
	for doc, want := range map[string]string{
		`{"shape": [2, 3], "sparse_rows": [[0, 1]]}`:           "mechanism: shape [2, 3], but 1 sparse rows",
		`{"shape": [2, 3], "rows": []}`:                        `mechanism: not the sparse form {"shape": [N, M], "sparse_rows": [...]}: json: unknown field "rows"`,
		`{"shape": [70000, 70000], "sparse_rows": []}`:         "mechanism: shape [70000, 70000]: its dense matrix of 70000·70000 numbers is beyond the 2³¹ entries a mechanism may have",
		`{"shape": [1, 2], "sparse_rows": [[1, 0.5, 1, 0.5]]}`: "mechanism: sparse_rows row 1: pair 2: output index 1 is not above the one before (1); give each output once, in increasing order",
	} {
		var q JSONMatrix
		err := json.Unmarshal([]byte(doc), &q)
		require.Error(t, err, doc)
		assert.Equal(t, want, err.Error())
	}
}
