package problem

import (
	"math"

	"github.com/pmlopt/pmlopt/mech"
)

// A mechanism of a large problem is mostly zeros: the optimum of a grid uses
// a few outputs of each row. mechanism_sparse writes row i as the flat list
// [j₁, p₁, j₂, p₂, ...] of its non-zero entries, j the 0-based index of the
// output in increasing order and p = P(y_j | x_i); the other entries are 0:
//
//	outputs: [a, b, c, d]
//	mechanism_sparse:
//	  - [0, 0.75, 2, 0.25]
//	  - [1, 1]
//
// Each row is a list of numbers so that the readers of yamlmatrix.go and
// json.go read it straight into floats, whatever its size.

// readSparse reads the rows of mechanism_sparse.
func (rs *ruleSource) readSparse(v *node) error {
	rows, err := matrix("mechanism_sparse", v)
	if err != nil {
		return err
	}
	rs.sparse = rows
	if rs.sparse == nil {
		rs.sparse = [][]float64{}
	}
	return nil
}

// finishSparse turns the rows of mechanism_sparse into p.Mechanism, once
// the number of outputs M is known from the other keys.
func (rs *ruleSource) finishSparse(p *Problem) error {
	if rs.sparse == nil {
		return nil
	}
	if rs.givenMechanism {
		return fieldErr("mechanism_sparse", -1, -1, "is given with mechanism; give one of them")
	}
	if len(rs.sparse) == 0 {
		return fieldErr("mechanism_sparse", -1, -1, "has no rows")
	}
	m := p.M()
	if m == 0 {
		return fieldErr("mechanism_sparse", -1, -1, "needs the number of outputs: give outputs, a utility, an order or a utility_rule")
	}
	n := len(rs.sparse)
	if len(p.Prior) > 0 && n != len(p.Prior) {
		return fieldErr("mechanism_sparse", -1, -1, "has %d rows, but the prior has %d letters", n, len(p.Prior))
	}
	// Checked before the dense matrix is allocated.
	if float64(n)*float64(m) > 1<<31 {
		return fieldErr("mechanism_sparse", -1, -1, "is %d×%d: its dense matrix of %d·%d numbers is beyond the 2³¹ entries a mechanism may have", n, m, n, m)
	}
	if limit, what := memoryBound(rs.memoryLimit); limit > 0 && 8*float64(n)*float64(m) > float64(limit) {
		return fieldErr("mechanism_sparse", -1, -1, "its dense %d×%d matrix needs %s, beyond %s (%s)", n, m, bytesText(8*float64(n)*float64(m)), what, bytesText(float64(limit)))
	}
	flat := make([]float64, n*m)
	q := make(mech.Mechanism, n)
	for i, row := range rs.sparse {
		q[i] = flat[i*m : (i+1)*m : (i+1)*m]
		if len(row)%2 != 0 {
			return fieldErr("mechanism_sparse", i, -1, "has %d numbers; want pairs j, p (the 0-based output and its probability)", len(row))
		}
		last := -1
		for k := 0; k < len(row); k += 2 {
			jf, v := row[k], row[k+1]
			if jf != math.Trunc(jf) || jf < 0 || jf >= float64(m) {
				return fieldErr("mechanism_sparse", i, -1, "pair %d: output index %v is not an integer in 0..%d", k/2+1, jf, m-1)
			}
			j := int(jf)
			if j <= last {
				return fieldErr("mechanism_sparse", i, -1, "pair %d: output index %d is not above the one before (%d); give each output once, in increasing order", k/2+1, j, last)
			}
			last = j
			q[i][j] = v
		}
	}
	rs.sparse = nil // the rows are not needed any more
	p.Mechanism = q
	return nil
}

// sparseMinEntries is the size of a mechanism below which Marshal writes it
// dense whatever its zeros: a small matrix reads best as a matrix.
const sparseMinEntries = 4096

// mechanismEntry returns the mechanism's entry of a file: mechanism_sparse
// when the matrix has at least sparseMinEntries entries and fewer than a
// quarter of them are non-zero (a pair costs about twice a dense entry),
// mechanism otherwise.
func mechanismEntry(q mech.Mechanism) entry {
	n, m := q.Dims()
	if n*m < sparseMinEntries {
		return entry{"mechanism", [][]float64(q)}
	}
	nnz := 0
	for _, row := range q {
		for _, v := range row {
			if v != 0 {
				nnz++
			}
		}
	}
	if 4*nnz >= n*m {
		return entry{"mechanism", [][]float64(q)}
	}
	rows := make([][]float64, n)
	for i, row := range q {
		var r []float64
		for j, v := range row {
			if v != 0 {
				r = append(r, float64(j), v)
			}
		}
		rows[i] = r
	}
	return entry{"mechanism_sparse", rows}
}
