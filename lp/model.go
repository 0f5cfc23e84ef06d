package lp

import "math"

// Inf is the bound that means "no bound".
var Inf = math.Inf(1)

// Nonzero is one entry of the constraint matrix A.
type Nonzero struct {
	Row, Col int
	Val      float64
}

// Model is a linear program in the bounded form HiGHS and Clp take:
//
//	min (or max)  ColCosts·x + Offset
//	subject to    RowLower ≤ A x ≤ RowUpper
//	              ColLower ≤ x ≤ ColUpper
//
// A is given by its non-zeros in ConstMatrix, in any order, each (Row, Col)
// at most once. Infinite bounds are ±Inf. Names are optional: when non-nil
// they have one entry per column or row and are used in MPS export.
//
// The fields mirror lanl/highs' Model so that a HiGHS backend can take a
// Model as it is.
type Model struct {
	Maximize    bool
	ColCosts    []float64
	Offset      float64
	ColLower    []float64
	ColUpper    []float64
	RowLower    []float64
	RowUpper    []float64
	ConstMatrix []Nonzero

	ColNames []string
	RowNames []string
}

// NumCols returns the number of variables.
func (m *Model) NumCols() int {
	if m == nil {
		return 0
	}
	return len(m.ColCosts)
}

// NumRows returns the number of constraints.
func (m *Model) NumRows() int {
	if m == nil {
		return 0
	}
	return len(m.RowLower)
}

// NumNonzeros returns the number of entries of A.
func (m *Model) NumNonzeros() int {
	if m == nil {
		return 0
	}
	return len(m.ConstMatrix)
}

// AddCol appends a variable with the given cost and bounds and returns its
// index. name may be empty.
func (m *Model) AddCol(cost, lower, upper float64, name string) int {
	j := len(m.ColCosts)
	m.ColCosts = append(m.ColCosts, cost)
	m.ColLower = append(m.ColLower, lower)
	m.ColUpper = append(m.ColUpper, upper)
	m.ColNames = appendName(m.ColNames, j, name)
	return j
}

// AddRow appends the constraint lower ≤ Σ entries ≤ upper and returns its
// index. The Row field of each entry is ignored and set to the new row.
func (m *Model) AddRow(lower, upper float64, name string, entries ...Nonzero) int {
	i := len(m.RowLower)
	m.RowLower = append(m.RowLower, lower)
	m.RowUpper = append(m.RowUpper, upper)
	m.RowNames = appendName(m.RowNames, i, name)
	for _, e := range entries {
		m.ConstMatrix = append(m.ConstMatrix, Nonzero{Row: i, Col: e.Col, Val: e.Val})
	}
	return i
}

// appendName keeps names either nil (no name given so far) or complete.
func appendName(names []string, k int, name string) []string {
	if name == "" && names == nil {
		return nil
	}
	if names == nil {
		names = make([]string, k, k+1)
	}
	return append(names, name)
}

// Entry is a shorthand for a non-zero in column col, for AddRow.
func Entry(col int, val float64) Nonzero { return Nonzero{Col: col, Val: val} }

// ScaledRows returns a copy of m with every row multiplied by f > 0: the
// same feasible set and objective, and row activities and duals scaled by f
// and 1/f. Engines check rows against an absolute tolerance, so scaling the
// rows of a well-scaled model by a power of two (exact in floating point)
// tightens the tolerance the solution meets by that factor. The column
// data is shared with m. The scaled copy of nil is nil.
func (m *Model) ScaledRows(f float64) *Model {
	if m == nil {
		return nil
	}
	s := *m
	s.ConstMatrix = make([]Nonzero, len(m.ConstMatrix))
	for k, e := range m.ConstMatrix {
		s.ConstMatrix[k] = Nonzero{Row: e.Row, Col: e.Col, Val: e.Val * f}
	}
	s.RowLower = make([]float64, len(m.RowLower))
	s.RowUpper = make([]float64, len(m.RowUpper))
	for i := range m.RowLower {
		s.RowLower[i] = m.RowLower[i] * f
		s.RowUpper[i] = m.RowUpper[i] * f
	}
	return &s
}
