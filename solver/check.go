package solver

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/lp"
)

// checkModel reports the first defect of m that no backend can solve: slices
// of the wrong length, NaN anywhere, infinite costs or coefficients, a lower
// bound of +Inf or an upper bound of −Inf, a non-zero out of range or given
// twice, names that are not one per row or column (lp.Model.Validate). A
// lower bound above the upper bound is not a defect here, although Validate
// calls it one: a Session may cross bounds while it branches, so backends
// report such a model as Infeasible.
func checkModel(m *lp.Model) error {
	if err := checkStructure(m); err != nil {
		return err
	}
	if boundsConsistent(m) {
		if err := m.Validate(); err != nil {
			return fmt.Errorf("solver: %w", err)
		}
	}
	return nil
}

// checkStructure is the part of checkModel that does not depend on bounds
// being consistent.
func checkStructure(m *lp.Model) error {
	if m == nil {
		return fmt.Errorf("solver: nil model")
	}
	n, r := m.NumCols(), m.NumRows()
	if len(m.ColLower) != n || len(m.ColUpper) != n {
		return fmt.Errorf("solver: model has %d costs but %d column lower and %d column upper bounds", n, len(m.ColLower), len(m.ColUpper))
	}
	if len(m.RowUpper) != r {
		return fmt.Errorf("solver: model has %d row lower but %d row upper bounds", r, len(m.RowUpper))
	}
	if math.IsNaN(m.Offset) || math.IsInf(m.Offset, 0) {
		return fmt.Errorf("solver: objective offset is %v", m.Offset)
	}
	for j := 0; j < n; j++ {
		if c := m.ColCosts[j]; math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("solver: cost of column %d is %v", j, c)
		}
		if err := checkBounds("column", j, m.ColLower[j], m.ColUpper[j]); err != nil {
			return err
		}
	}
	for i := 0; i < r; i++ {
		if err := checkBounds("row", i, m.RowLower[i], m.RowUpper[i]); err != nil {
			return err
		}
	}
	seen := make(map[[2]int]struct{}, len(m.ConstMatrix))
	for k, e := range m.ConstMatrix {
		if e.Row < 0 || e.Row >= r || e.Col < 0 || e.Col >= n {
			return fmt.Errorf("solver: non-zero %d at (%d, %d) is outside the %d×%d matrix", k, e.Row, e.Col, r, n)
		}
		if math.IsNaN(e.Val) || math.IsInf(e.Val, 0) {
			return fmt.Errorf("solver: coefficient at (%d, %d) is %v", e.Row, e.Col, e.Val)
		}
		key := [2]int{e.Row, e.Col}
		if _, dup := seen[key]; dup {
			return fmt.Errorf("solver: coefficient at (%d, %d) is given twice", e.Row, e.Col)
		}
		seen[key] = struct{}{}
	}
	return nil
}

func checkBounds(what string, k int, lower, upper float64) error {
	switch {
	case math.IsNaN(lower) || math.IsNaN(upper):
		return fmt.Errorf("solver: %s %d has bounds [%v, %v]", what, k, lower, upper)
	case math.IsInf(lower, 1):
		return fmt.Errorf("solver: %s %d has lower bound +Inf", what, k)
	case math.IsInf(upper, -1):
		return fmt.Errorf("solver: %s %d has upper bound -Inf", what, k)
	}
	return nil
}

// boundsConsistent reports whether every lower bound of m is at most its
// upper bound.
func boundsConsistent(m *lp.Model) bool {
	for j := range m.ColLower {
		if m.ColLower[j] > m.ColUpper[j] {
			return false
		}
	}
	for i := range m.RowLower {
		if m.RowLower[i] > m.RowUpper[i] {
			return false
		}
	}
	return true
}

// cloneModel returns a deep copy of m.
func cloneModel(m *lp.Model) *lp.Model {
	c := *m
	c.ColCosts = append([]float64(nil), m.ColCosts...)
	c.ColLower = append([]float64(nil), m.ColLower...)
	c.ColUpper = append([]float64(nil), m.ColUpper...)
	c.RowLower = append([]float64(nil), m.RowLower...)
	c.RowUpper = append([]float64(nil), m.RowUpper...)
	c.ConstMatrix = append([]lp.Nonzero(nil), m.ConstMatrix...)
	c.ColNames = append([]string(nil), m.ColNames...)
	c.RowNames = append([]string(nil), m.RowNames...)
	return &c
}

// rowActivity returns A x.
func rowActivity(m *lp.Model, x []float64) []float64 {
	act := make([]float64, m.NumRows())
	for _, e := range m.ConstMatrix {
		act[e.Row] += e.Val * x[e.Col]
	}
	return act
}

// objective returns ColCosts·x + Offset.
func objective(m *lp.Model, x []float64) float64 {
	f := m.Offset
	for j, c := range m.ColCosts {
		f += c * x[j]
	}
	return f
}

// FarkasGap measures how well y, one multiplier per row of m, proves that m
// is infeasible. With z = Aᵀy, every x within the column bounds and inside
// the row bounds satisfies
//
//	Σ_i min(y_i·RowLower_i, y_i·RowUpper_i) ≤ yᵀAx = zᵀx ≤ Σ_j max(z_j·ColLower_j, z_j·ColUpper_j),
//
// so a positive gap (left side minus right side) proves that no such x
// exists. Products with an infinite bound count as 0 when the multiplier is
// zero; entries of z below 1e-9 of the magnitude of the terms that make them
// count as zero. The result is −Inf when the right side is +Inf or the left
// side −Inf, that is when y proves nothing.
func FarkasGap(m *lp.Model, y []float64) float64 {
	if m == nil || len(y) != m.NumRows() {
		return math.Inf(-1)
	}
	z := make([]float64, m.NumCols())
	mag := make([]float64, m.NumCols())
	for _, e := range m.ConstMatrix {
		z[e.Col] += e.Val * y[e.Row]
		mag[e.Col] += math.Abs(e.Val * y[e.Row])
	}
	var left, right float64
	for i, v := range y {
		switch {
		case v > 0:
			left += v * m.RowLower[i]
		case v < 0:
			left += v * m.RowUpper[i]
		}
	}
	for j, v := range z {
		if math.Abs(v) <= 1e-9*mag[j] {
			continue
		}
		if v > 0 {
			right += v * m.ColUpper[j]
		} else {
			right += v * m.ColLower[j]
		}
	}
	gap := left - right
	if math.IsNaN(gap) {
		return math.Inf(-1)
	}
	return gap
}
