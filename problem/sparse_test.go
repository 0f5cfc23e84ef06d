package problem

import (
	"strconv"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt/mech"
)

// TestSparseMechanismRoundTrip: a large mechanism with few non-zero
// entries is written as mechanism_sparse, in a fraction of the dense
// file's size, and reads back entry for entry; a small one stays dense.
func TestSparseMechanismRoundTrip(t *testing.T) {
	const n = 80
	q := mech.Zeros(n, n)
	for i := range q {
		// Three outputs a row, with masses that are not round numbers.
		a, b := float64(i+1)/float64(3*n), float64(n-i)/float64(5*n)
		q[i][i] = 1 - a - b
		q[i][(i+7)%n] = a
		q[i][(i*13+1)%n] += b
	}
	p := &Problem{Prior: mech.Uniform(n), Mechanism: q, Outputs: indexLabelsTest(n)}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{YAML, JSON} {
		data, err := Marshal(p, f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "mechanism_sparse") {
			t.Fatalf("%s: a mechanism of %d×%d with 3 entries a row is written dense", f, n, n)
		}
		if len(data) > 20*n*3+10*n+4000 {
			t.Errorf("%s: %d bytes for %d non-zero entries", f, len(data), 3*n)
		}
		back, err := Parse(data, f)
		if err != nil {
			t.Fatal(err)
		}
		for i := range q {
			for j := range q[i] {
				if back.Mechanism[i][j] != q[i][j] {
					t.Fatalf("%s: entry %d,%d reads %v, written %v", f, i, j, back.Mechanism[i][j], q[i][j])
				}
			}
		}
	}
	small := &Problem{Prior: mech.Uniform(2), Mechanism: mech.Mechanism{{1, 0}, {0, 1}}}
	data, err := Marshal(small, YAML)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "sparse") {
		t.Errorf("a 2×2 mechanism is written sparse:\n%s", data)
	}
}

func indexLabelsTest(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}

func TestSparseMechanismBadInput(t *testing.T) {
	head := "prior: [0.5, 0.5]\noutputs: [a, b, c]\n"
	cases := []struct{ doc, want string }{
		{head + "mechanism_sparse: [[0, 1], [1, 0.5, 2]]\n", "mechanism_sparse row 2: has 3 numbers; want pairs j, p"},
		{head + "mechanism_sparse: [[0, 1], [1.5, 1]]\n", "mechanism_sparse row 2: pair 1: output index 1.5 is not an integer in 0..2"},
		{head + "mechanism_sparse: [[0, 1], [3, 1]]\n", "mechanism_sparse row 2: pair 1: output index 3 is not an integer in 0..2"},
		{head + "mechanism_sparse: [[0, 1], [-1, 1]]\n", "mechanism_sparse row 2: pair 1: output index -1 is not an integer in 0..2"},
		{head + "mechanism_sparse: [[1, 0.5, 0, 0.5], [2, 1]]\n", "mechanism_sparse row 1: pair 2: output index 0 is not above the one before (1)"},
		{head + "mechanism_sparse: [[1, 0.5, 1, 0.5], [2, 1]]\n", "mechanism_sparse row 1: pair 2: output index 1 is not above the one before (1)"},
		{head + "mechanism_sparse: [[0, .nan], [2, 1]]\n", "mechanism_sparse row 1, column 2: is NaN"},
		{head + "mechanism_sparse: [[0, 1]]\n", "mechanism_sparse: has 1 rows, but the prior has 2 letters"},
		{head + "mechanism_sparse: []\n", "mechanism_sparse: has no rows"},
		{head + "mechanism_sparse: [[0, 1], [2, 1]]\nmechanism: [[1, 0, 0], [0, 0, 1]]\n", "mechanism_sparse: is given with mechanism"},
		{"prior: [0.5, 0.5]\nmechanism_sparse: [[0, 1], [2, 1]]\n", "mechanism_sparse: needs the number of outputs"},
		{head + "mechanism_sparse: [[0, 0.5], [2, 1]]\n", "mechanism row 1"},
		{head + "mechanism_sparse: {a: 1}\n", "mechanism_sparse: is a mapping, not a list of rows"},
	}
	for _, c := range cases {
		for _, f := range []Format{YAML} {
			_, err := Parse([]byte(c.doc), f)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%q: got %v, want %q", c.doc, err, c.want)
			}
		}
	}
	// The same in JSON.
	_, err := Parse([]byte(`{"prior": [0.5, 0.5], "outputs": ["a", "b", "c"], "mechanism_sparse": [[0, 1], [2.5, 1]]}`), JSON)
	if err == nil || !strings.Contains(err.Error(), "mechanism_sparse row 2: pair 1: output index 2.5") {
		t.Errorf("JSON: got %v", err)
	}
}
