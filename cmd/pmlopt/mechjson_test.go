package main

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

// randomSparse is an n×m row-stochastic matrix with k non-zero entries a
// row at random places, each an arbitrary float64 (all 53 bits used), so
// that a round trip through text must keep every bit.
func randomSparse(rng *rand.Rand, n, m, k int) mech.Mechanism {
	q := mech.Zeros(n, m)
	for i := range q {
		for _, j := range rng.Perm(m)[:k] {
			q[i][j] = rng.Float64() / float64(k)
		}
	}
	return q
}

// sameBits asserts that a and b are the same matrix, entry by entry, bit
// for bit.
func sameBits(t *testing.T, want, got [][]float64) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.Len(t, got[i], len(want[i]), "row %d", i)
		for j := range want[i] {
			if math.Float64bits(want[i][j]) != math.Float64bits(got[i][j]) {
				t.Fatalf("row %d, column %d: %v read back as %v", i, j, want[i][j], got[i][j])
			}
		}
	}
}

// TestMechanismJSONRoundTrip: a large sparse mechanism is written as sparse
// rows and read back (by jmech and by verify's decoding of any document)
// bit for bit; a small one, or a dense large one, is written exactly as the
// plain matrix of jfloat.
func TestMechanismJSONRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	q := randomSparse(rng, 70, 90, 5) // 6 300 entries, 350 non-zero
	require.True(t, q.WriteSparse())
	b, err := json.MarshalIndent(struct {
		M jmech `json:"mechanism"`
	}{jmatrix(q)}, "", "  ")
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	obj := doc["mechanism"].(map[string]any)
	assert.Equal(t, []any{70.0, 90.0}, obj["shape"])
	rows := obj["sparse_rows"].([]any)
	require.Len(t, rows, 70)
	assert.Len(t, rows[0], 10, "five pairs j, p")

	var back struct {
		M jmech `json:"mechanism"`
	}
	require.NoError(t, json.Unmarshal(b, &back))
	sameBits(t, q, back.M.mechanism())
	got, err := decodedMechanism(doc["mechanism"], 0, 0)
	require.NoError(t, err)
	sameBits(t, q, got)

	// Small, and large but dense: the matrix as it always was.
	small := randomSparse(rng, 10, 10, 2)
	dense := randomSparse(rng, 70, 70, 30)
	for _, m := range []mech.Mechanism{small, dense} {
		require.False(t, m.WriteSparse())
		want, err := json.Marshal(jmatrix(m))
		require.NoError(t, err)
		got, err := json.Marshal(jmech(jmatrix(m)))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	}
	nothing, err := json.Marshal(jmech(nil))
	require.NoError(t, err)
	assert.Equal(t, "null", string(nothing))
}

// TestMechanismJSONBadSparse: a sparse form that does not describe a
// matrix is refused in one line naming what is wrong.
func TestMechanismJSONBadSparse(t *testing.T) {
	for _, c := range []struct{ doc, msg string }{
		{`{"shape": [2, 3], "sparse_rows": [[0, 1]]}`, "mechanism: shape [2, 3], but 1 sparse rows"},
		{`{"shape": [1, 3], "sparse_rows": [[3, 1]]}`, "mechanism: sparse_rows row 1: pair 1: output index 3 is not an integer in 0..2"},
		{`{"shape": [1, 3], "sparse_rows": [[1, 0.5, 0, 0.5]]}`, "mechanism: sparse_rows row 1: pair 2: output index 0 is not above the one before (1); give each output once, in increasing order"},
		{`{"shape": [1, 3], "sparse_rows": [[1]]}`, "mechanism: sparse_rows row 1: has 1 numbers; want pairs j, p (the 0-based output and its probability)"},
		{`{"shape": [0, 3], "sparse_rows": []}`, "mechanism: shape [0, 3]: want positive numbers of rows and columns"},
		{`{"shape": [100000, 100000], "sparse_rows": []}`, "mechanism: shape [100000, 100000]: its dense matrix of 100000·100000 numbers is beyond the 2³¹ entries a mechanism may have"},
	} {
		var m jmech
		err := json.Unmarshal([]byte(c.doc), &m)
		require.Error(t, err, c.doc)
		assert.Equal(t, c.msg, err.Error())
		var v any
		require.NoError(t, json.Unmarshal([]byte(c.doc), &v))
		_, err = decodedMechanism(v, 0, 0)
		require.Error(t, err, c.doc)
		assert.Equal(t, c.msg, "mechanism: "+err.Error())
	}
}

// TestSparseCSV: --mechanism-out's CSV of a large sparse mechanism is its
// non-zero entries as row,col,value under that header, and reads back bit
// for bit.
func TestSparseCSV(t *testing.T) {
	q := randomSparse(rand.New(rand.NewPCG(3, 4)), 80, 60, 4)
	var b bytes.Buffer
	require.NoError(t, writeMatrixCSV(&b, q))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Equal(t, "row,col,value", lines[0])
	require.Len(t, lines, 1+80*4)
	back := mech.Zeros(80, 60)
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		require.Len(t, f, 3, l)
		i, err := strconv.Atoi(f[0])
		require.NoError(t, err)
		j, err := strconv.Atoi(f[1])
		require.NoError(t, err)
		v, err := strconv.ParseFloat(f[2], 64)
		require.NoError(t, err)
		require.NotZero(t, v, l)
		back[i][j] = v
	}
	sameBits(t, q, back)
}

// TestSparseMechanismCommands: the expected-utility optimum of an 8×8 grid
// (64 × 64 entries, a few outputs a row) is written as sparse rows by
// solve --json and solve --out, as row,col,value by --mechanism-out .csv
// and dense by .npy, all the same matrix bit for bit; audit, sample, plot
// and verify read what solve wrote.
func TestSparseMechanismCommands(t *testing.T) {
	dir := t.TempDir()
	grid := filepath.Join(dir, "g8.yaml")
	_, stderr, code := cli(t, "new", "--grid", "8x8", "--utility", "euclid", "--prior", "uniform", "--epsilon", "1",
		"--objective", "expected-utility", "-o", grid)
	require.Equal(t, 0, code, stderr)
	out, npy, csvPath := filepath.Join(dir, "out.yaml"), filepath.Join(dir, "m.npy"), filepath.Join(dir, "m.csv")
	jsonOut, stderr, code := cli(t, "solve", grid, "--json", "--out", out, "--mechanism-out", npy)
	require.Equal(t, 0, code, stderr)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(jsonOut), &doc))
	obj, ok := doc["mechanism"].(map[string]any)
	require.True(t, ok, "solve --json writes the 64×64 optimum as sparse rows")
	assert.Equal(t, []any{64.0, 64.0}, obj["shape"])
	m, err := decodedMechanism(obj, 64, 64)
	require.NoError(t, err)
	_, err = mech.NewMechanism(m)
	require.NoError(t, err)
	data, err := os.ReadFile(npy)
	require.NoError(t, err)
	sameBits(t, readNPY(t, data), m)

	_, stderr, code = cli(t, "solve", grid, "--mechanism-out", csvPath)
	require.Equal(t, 0, code, stderr)
	text, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(text), "row,col,value\n"))

	yml, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(yml), "mechanism_sparse:")
	assert.NotContains(t, string(yml), "\nmechanism:")

	// audit reads the file's mechanism_sparse: the audited ε is solve's.
	a := runJSON(t, "audit", out, "--json")
	assert.Equal(t, doc["epsilon"], a["pml"])
	// plot --json prints the file's mechanism, sparse again and the same.
	pl := runJSON(t, "plot", out, "--heatmap", filepath.Join(dir, "h.svg"), "--json")
	back, err := decodedMechanism(pl["mechanism"], 64, 64)
	require.NoError(t, err)
	sameBits(t, m, back)
	// sample draws through it.
	records := filepath.Join(dir, "r.csv")
	require.NoError(t, os.WriteFile(records, []byte("cell\n\"0,0\"\n\"7,7\"\n"), 0o644))
	_, stderr, code = cli(t, "sample", out, "--input", records, "--column", "cell", "--seed", "1")
	require.Equal(t, 0, code, stderr)
	// verify checks the certificate of solve --out's file and of the
	// --json output with --problem.
	v, stderr, code := cli(t, "verify", out, "--quiet")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, v, "claims verified")
	jpath := filepath.Join(dir, "s.json")
	require.NoError(t, os.WriteFile(jpath, []byte(jsonOut), 0o644))
	v, stderr, code = cli(t, "verify", jpath, "--problem", grid, "--quiet")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, v, "claims verified")

	// A sparse mechanism of another shape than the problem's is refused
	// before its dense matrix is built, in one line.
	bad := strings.Replace(jsonOut, "\"shape\": [\n      64,\n      64\n    ]", "\"shape\": [\n      40000,\n      40000\n    ]", 1)
	require.NotEqual(t, jsonOut, bad)
	require.NoError(t, os.WriteFile(jpath, []byte(bad), 0o644))
	v, stderr, code = cli(t, "verify", jpath, "--problem", grid)
	assert.Equal(t, exitError, code)
	assert.Empty(t, v)
	assert.Equal(t, "pmlopt verify: "+jpath+": mechanism: shape [40000, 40000], but the problem is 64×64\n", stderr)
}

// TestCompactSparseRows: writeJSON puts each sparse row on one line and
// changes nothing else: the document reads back the same, and a label
// holding the key's text keeps its bytes.
func TestCompactSparseRows(t *testing.T) {
	q := randomSparse(rand.New(rand.NewPCG(7, 8)), 70, 70, 3)
	label := `"sparse_rows": [1, 2]`
	doc := struct {
		Label string `json:"label"`
		M     jmech  `json:"mechanism"`
		After []int  `json:"after"`
	}{label, jmatrix(q), []int{1, 2}}
	var b bytes.Buffer
	require.NoError(t, writeJSON(&b, doc))
	indented, err := json.MarshalIndent(doc, "", "  ")
	require.NoError(t, err)
	var got, want any
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	require.NoError(t, json.Unmarshal(indented, &want))
	assert.Equal(t, want, got)
	lines := strings.Split(b.String(), "\n")
	assert.Len(t, lines, 70+16, "each of the 70 rows on a line, 16 lines around them")
	assert.Contains(t, b.String(), `  "label": "\"sparse_rows\": [1, 2]",`+"\n")
	assert.Contains(t, b.String(), "\n  \"after\": [\n    1,\n    2\n  ]\n}\n")
	row := lines[0]
	for _, l := range lines {
		if strings.HasPrefix(l, "      [") {
			row = l
			break
		}
	}
	assert.Regexp(t, `^      \[\d+, [0-9.e-]+, \d+, [0-9.e-]+, \d+, [0-9.e-]+\],$`, row)
	// Without sparse rows the output is the encoder's, byte for byte.
	b.Reset()
	small := struct{ M jmech }{jmatrix(randomSparse(rand.New(rand.NewPCG(9, 10)), 5, 5, 2))}
	require.NoError(t, writeJSON(&b, small))
	plain, err := json.MarshalIndent(small, "", "  ")
	require.NoError(t, err)
	assert.Equal(t, string(plain)+"\n", b.String())
}
