package lp

import (
	"math"
	"slices"
)

// Clone returns a deep copy of m: changing the copy never changes m. The
// copy of nil is nil.
func (m *Model) Clone() *Model {
	if m == nil {
		return nil
	}
	return &Model{
		Maximize:    m.Maximize,
		ColCosts:    slices.Clone(m.ColCosts),
		Offset:      m.Offset,
		ColLower:    slices.Clone(m.ColLower),
		ColUpper:    slices.Clone(m.ColUpper),
		RowLower:    slices.Clone(m.RowLower),
		RowUpper:    slices.Clone(m.RowUpper),
		ConstMatrix: slices.Clone(m.ConstMatrix),
		ColNames:    slices.Clone(m.ColNames),
		RowNames:    slices.Clone(m.RowNames),
	}
}

// Evaluation is the state of the model at a point x, as computed by Eval.
type Evaluation struct {
	Objective float64   // ColCosts·x + Offset
	Activity  []float64 // A x, one entry per row

	// MaxViolation is the largest amount by which x violates a row or
	// column bound (0 when x is feasible). Row and Col locate it: exactly
	// one of them is ≥ 0 when MaxViolation > 0, both are −1 otherwise.
	// A NaN in x or in the activity counts as an infinite violation.
	MaxViolation float64
	Row, Col     int
}

// Eval computes the objective, the row activities and the largest bound
// violation of x. A point that is not one of m's (len(x) != NumCols(), or
// m's slices inconsistent: see Validate) is no solution: its evaluation has
// objective NaN, no activity and an infinite violation located nowhere.
func (m *Model) Eval(x []float64) Evaluation {
	if len(x) != m.NumCols() || !m.consistent() {
		return Evaluation{Objective: math.NaN(), MaxViolation: math.Inf(1), Row: -1, Col: -1}
	}
	ev := Evaluation{Objective: m.Offset, Activity: make([]float64, m.NumRows()), Row: -1, Col: -1}
	for j, c := range m.ColCosts {
		ev.Objective += c * x[j]
	}
	for _, e := range m.ConstMatrix {
		ev.Activity[e.Row] += e.Val * x[e.Col]
	}
	for j, v := range x {
		if d := violation(v, m.ColLower[j], m.ColUpper[j]); d > ev.MaxViolation {
			ev.MaxViolation, ev.Row, ev.Col = d, -1, j
		}
	}
	for i, a := range ev.Activity {
		if d := violation(a, m.RowLower[i], m.RowUpper[i]); d > ev.MaxViolation {
			ev.MaxViolation, ev.Row, ev.Col = d, i, -1
		}
	}
	return ev
}

// violation is how far v lies outside [lo, up]; +Inf for NaN.
func violation(v, lo, up float64) float64 {
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	return max(0, max(lo-v, v-up))
}

// Where describes the location of the largest violation, e.g.
// "row 3 (pml[1,2])", or "" for a feasible point.
func (m *Model) Where(ev Evaluation) string {
	switch {
	case ev.Row >= 0:
		return m.rowLabel(ev.Row)
	case ev.Col >= 0:
		return m.colLabel(ev.Col)
	}
	return ""
}

// Activity returns A x; nil for a point that is not one of m's (see Eval).
func (m *Model) Activity(x []float64) []float64 { return m.Eval(x).Activity }

// Objective returns ColCosts·x + Offset; NaN for a point that is not one
// of m's (see Eval).
func (m *Model) Objective(x []float64) float64 { return m.Eval(x).Objective }

// MaxViolation returns the largest amount by which x violates a row or a
// column bound of m, 0 for a feasible point; +Inf for a point that is not
// one of m's (see Eval).
func (m *Model) MaxViolation(x []float64) float64 { return m.Eval(x).MaxViolation }

// consistent reports whether m's slices agree in length and its non-zeros
// are in range: what Eval and CSC index by. Validate checks this and the
// values.
func (m *Model) consistent() bool {
	if m == nil {
		return false
	}
	n, r := len(m.ColCosts), len(m.RowLower)
	if len(m.ColLower) != n || len(m.ColUpper) != n || len(m.RowUpper) != r {
		return false
	}
	for _, e := range m.ConstMatrix {
		if e.Row < 0 || e.Row >= r || e.Col < 0 || e.Col >= n {
			return false
		}
	}
	return true
}
