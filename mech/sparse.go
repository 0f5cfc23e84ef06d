package mech

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// A mechanism of a large problem is mostly zeros: the expected-utility
// optimum of a location grid uses a few outputs of each row. Its sparse
// rows list the non-zero entries of each row i as the flat list
// [j₁, p₁, j₂, p₂, ...], j the 0-based output in increasing order and
// p = P(y_j | x_i) unchanged (the writers format it as they format a dense
// entry, so that it reads back bit for bit); every other entry is 0. One
// flat list of numbers per row reads straight into floats in YAML, JSON and
// NumPy alike.

// SparseMinEntries is the size N·M of a mechanism below which the writers
// keep it dense whatever its zeros: a small matrix reads best as a matrix.
const SparseMinEntries = 4096

// WriteSparse reports whether the writers give p as sparse rows: when it
// has at least SparseMinEntries entries and fewer than a quarter of them
// are non-zero (a pair costs about twice a dense entry, and the index is
// shorter than the probability).
func (p Mechanism) WriteSparse() bool {
	n, m := p.Dims()
	if n*m < SparseMinEntries {
		return false
	}
	nnz := 0
	for _, row := range p {
		for _, v := range row {
			if v != 0 {
				nnz++
			}
		}
	}
	return SparseForm(n, m, nnz)
}

// SparseForm is WriteSparse's rule for an n×m matrix with nnz non-zero
// entries, for writers that hold the matrix in another type.
func SparseForm(n, m, nnz int) bool {
	return n*m >= SparseMinEntries && 4*nnz < n*m
}

// SparseRows returns p's sparse rows (see above), whatever its size.
func (p Mechanism) SparseRows() [][]float64 {
	rows := make([][]float64, len(p))
	for i, row := range p {
		r := []float64{}
		for j, v := range row {
			if v != 0 {
				r = append(r, float64(j), v)
			}
		}
		rows[i] = r
	}
	return rows
}

// FromSparseRows builds the dense N×m matrix of the sparse rows (N =
// len(rows)), refusing an odd row, an output index that is not an integer
// in 0..m−1 and indices out of increasing order in an error on field,
// naming the row and the pair. The entries are not checked: the reader's
// checks of a dense matrix apply to the result. The caller checks that N·m
// fits in memory before.
func FromSparseRows(field string, rows [][]float64, m int) (Mechanism, error) {
	if m <= 0 {
		return nil, errorf(field, -1, -1, "needs a positive number of outputs, not %d", m)
	}
	q := Zeros(len(rows), m)
	if q == nil {
		return nil, errorf(field, -1, -1, "its dense %d×%d matrix is beyond the integers of this machine", len(rows), m)
	}
	for i, row := range rows {
		if len(row)%2 != 0 {
			return nil, errorf(field, i, -1, "has %d numbers; want pairs j, p (the 0-based output and its probability)", len(row))
		}
		last := -1
		for k := 0; k < len(row); k += 2 {
			jf, v := row[k], row[k+1]
			if jf != math.Trunc(jf) || jf < 0 || jf >= float64(m) {
				return nil, errorf(field, i, -1, "pair %d: output index %v is not an integer in 0..%d", k/2+1, jf, m-1)
			}
			j := int(jf)
			if j <= last {
				return nil, errorf(field, i, -1, "pair %d: output index %d is not above the one before (%d); give each output once, in increasing order", k/2+1, j, last)
			}
			last = j
			q[i][j] = v
		}
	}
	return q, nil
}

// SparseJSON is the form in which pmlopt's --json writes a large sparse
// mechanism (WriteSparse): {"shape": [N, M], "sparse_rows": [...]}, the
// rows as above.
type SparseJSON struct {
	Shape      [2]int      `json:"shape"`
	SparseRows [][]float64 `json:"sparse_rows"`
}

// Dense builds s's N×M matrix, refusing a shape that is not positive, one
// of more than 2³¹ entries (before anything is allocated), a row count
// that is not N and the malformed rows of FromSparseRows, in one line.
func (s SparseJSON) Dense() (Mechanism, error) {
	n, m := s.Shape[0], s.Shape[1]
	if n <= 0 || m <= 0 {
		return nil, fmt.Errorf("shape [%d, %d]: want positive numbers of rows and columns", n, m)
	}
	if float64(n)*float64(m) > 1<<31 {
		return nil, fmt.Errorf("shape [%d, %d]: its dense matrix of %d·%d numbers is beyond the 2³¹ entries a mechanism may have", n, m, n, m)
	}
	if len(s.SparseRows) != n {
		return nil, fmt.Errorf("shape [%d, %d], but %d sparse rows", n, m, len(s.SparseRows))
	}
	return FromSparseRows("sparse_rows", s.SparseRows, m)
}

// JSONMatrix is a mechanism read from pmlopt's JSON output in either form:
// the matrix of numbers, or SparseJSON for a large sparse one.
type JSONMatrix [][]float64

// UnmarshalJSON reads either form.
func (q *JSONMatrix) UnmarshalJSON(b []byte) error {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '{' {
		var dense [][]float64
		if err := json.Unmarshal(t, &dense); err != nil {
			return err
		}
		*q = dense
		return nil
	}
	var s SparseJSON
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return fmt.Errorf("mechanism: not the sparse form {\"shape\": [N, M], \"sparse_rows\": [...]}: %v", err)
	}
	d, err := s.Dense()
	if err != nil {
		return fmt.Errorf("mechanism: %v", err)
	}
	*q = JSONMatrix(d)
	return nil
}
