package lp

import (
	"fmt"
	"math"
	"slices"
)

// Clone returns a deep copy of m: changing the copy never changes m.
func (m *Model) Clone() *Model {
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
// violation of x. It panics if len(x) != NumCols(), and needs the non-zeros
// in range (see Validate).
func (m *Model) Eval(x []float64) Evaluation {
	if len(x) != m.NumCols() {
		panic(fmt.Sprintf("lp: point has %d entries, model has %d columns", len(x), m.NumCols()))
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
	return math.Max(0, math.Max(lo-v, v-up))
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

// Activity returns A x. It panics if len(x) != NumCols().
func (m *Model) Activity(x []float64) []float64 { return m.Eval(x).Activity }

// Objective returns ColCosts·x + Offset. It panics if len(x) != NumCols().
func (m *Model) Objective(x []float64) float64 { return m.Eval(x).Objective }

// MaxViolation returns the largest amount by which x violates a row or a
// column bound of m, 0 for a feasible point. It panics if
// len(x) != NumCols().
func (m *Model) MaxViolation(x []float64) float64 { return m.Eval(x).MaxViolation }
