package lp

// BasisStatus is the status of a column, or of a row's logical variable, in
// a simplex basis.
type BasisStatus int8

const (
	// AtLower: non-basic at its lower bound (the zero value, what a column
	// new to a model starts as).
	AtLower BasisStatus = iota
	// Basic: in the basis.
	Basic
	// AtUpper: non-basic at its upper bound.
	AtUpper
	// Free: non-basic and free or between its bounds (superbasic).
	Free
)

// Basis is a simplex basis: one status per column and one per row.
type Basis struct {
	Cols, Rows []BasisStatus
}
