package lp

import (
	"fmt"
	"math"
)

// Validate reports the first problem that makes m unusable by a backend:
// slices whose lengths disagree, name slices that are neither nil nor
// complete, non-zeros whose row or column is out of range, a (row, column)
// pair given twice, NaN anywhere, a coefficient or cost that is infinite, a
// lower bound of +Inf or an upper bound of −Inf, or a lower bound above its
// upper bound. Rows and columns are named by their 0-based index and, when
// the model has names, by name.
func (m *Model) Validate() error {
	if m == nil {
		return fmt.Errorf("lp: no model (nil)")
	}
	n := len(m.ColCosts)
	if len(m.ColLower) != n || len(m.ColUpper) != n {
		return fmt.Errorf("lp: %d column costs, %d lower and %d upper column bounds", n, len(m.ColLower), len(m.ColUpper))
	}
	r := len(m.RowLower)
	if len(m.RowUpper) != r {
		return fmt.Errorf("lp: %d lower and %d upper row bounds", r, len(m.RowUpper))
	}
	if m.ColNames != nil && len(m.ColNames) != n {
		return fmt.Errorf("lp: %d column names for %d columns", len(m.ColNames), n)
	}
	if m.RowNames != nil && len(m.RowNames) != r {
		return fmt.Errorf("lp: %d row names for %d rows", len(m.RowNames), r)
	}
	if math.IsNaN(m.Offset) || math.IsInf(m.Offset, 0) {
		return fmt.Errorf("lp: objective offset is %v", m.Offset)
	}
	for j := range n {
		c, lo, up := m.ColCosts[j], m.ColLower[j], m.ColUpper[j]
		if err := checkEntry(c, lo, up); err != "" {
			return fmt.Errorf("lp: %s: %s", m.colLabel(j), err)
		}
	}
	for i := range r {
		if err := checkEntry(0, m.RowLower[i], m.RowUpper[i]); err != "" {
			return fmt.Errorf("lp: %s: %s", m.rowLabel(i), err)
		}
	}
	for _, e := range m.ConstMatrix {
		switch {
		case e.Row < 0 || e.Row >= r:
			return fmt.Errorf("lp: non-zero at row %d, column %d: row out of range [0,%d)", e.Row, e.Col, r)
		case e.Col < 0 || e.Col >= n:
			return fmt.Errorf("lp: non-zero at row %d, column %d: column out of range [0,%d)", e.Row, e.Col, n)
		case math.IsNaN(e.Val):
			return fmt.Errorf("lp: coefficient of %s in %s is NaN", m.colLabel(e.Col), m.rowLabel(e.Row))
		case math.IsInf(e.Val, 0):
			return fmt.Errorf("lp: coefficient of %s in %s is infinite", m.colLabel(e.Col), m.rowLabel(e.Row))
		}
	}
	// Duplicates: walk each column's entries, marking the rows seen with
	// the column index. Linear in the size of the model.
	start, rows, _ := m.CSC()
	mark := make([]int, r)
	for i := range mark {
		mark[i] = -1
	}
	for j := range n {
		for k := start[j]; k < start[j+1]; k++ {
			if mark[rows[k]] == j {
				return fmt.Errorf("lp: %s has two coefficients in %s", m.colLabel(j), m.rowLabel(rows[k]))
			}
			mark[rows[k]] = j
		}
	}
	return nil
}

// checkEntry returns a description of what is wrong with a cost and bounds,
// or "" when they are usable.
func checkEntry(cost, lo, up float64) string {
	switch {
	case math.IsNaN(cost):
		return "cost is NaN"
	case math.IsInf(cost, 0):
		return "cost is infinite"
	case math.IsNaN(lo):
		return "lower bound is NaN"
	case math.IsNaN(up):
		return "upper bound is NaN"
	case math.IsInf(lo, 1):
		return "lower bound is +Inf"
	case math.IsInf(up, -1):
		return "upper bound is -Inf"
	case lo > up:
		return fmt.Sprintf("lower bound %g exceeds upper bound %g", lo, up)
	}
	return ""
}

// colLabel names column j for messages: its index and, if any, its name.
func (m *Model) colLabel(j int) string {
	if j < len(m.ColNames) && m.ColNames[j] != "" {
		return fmt.Sprintf("column %d (%s)", j, m.ColNames[j])
	}
	return fmt.Sprintf("column %d", j)
}

// rowLabel names row i for messages: its index and, if any, its name.
func (m *Model) rowLabel(i int) string {
	if i < len(m.RowNames) && m.RowNames[i] != "" {
		return fmt.Sprintf("row %d (%s)", i, m.RowNames[i])
	}
	return fmt.Sprintf("row %d", i)
}
