package problem

import "github.com/pmlopt/pmlopt/mech"

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
	q, err := mech.FromSparseRows("mechanism_sparse", rs.sparse, m)
	if err != nil {
		return err
	}
	rs.sparse = nil // the rows are not needed any more
	p.Mechanism = q
	return nil
}

// mechanismEntry returns the mechanism's entry of a file: mechanism_sparse
// when the writers give it as sparse rows (mech.Mechanism.WriteSparse),
// mechanism otherwise.
func mechanismEntry(q mech.Mechanism) entry {
	if q.WriteSparse() {
		return entry{"mechanism_sparse", q.SparseRows()}
	}
	return entry{"mechanism", [][]float64(q)}
}
