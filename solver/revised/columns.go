package revised

import (
	"math"
	"slices"
)

// Column is a structural column for Simplex.AddCols: its cost (in the sense
// of the loaded model), its bounds and its non-zeros.
type Column struct {
	Cost         float64
	Lower, Upper float64
	Rows         []int
	Vals         []float64
}

// AddCols appends columns to the loaded model and returns the index of the
// first one. The new columns are nonbasic at their resting bound (the
// finite lower bound, else the finite upper one, else 0) and the basis is
// kept, so the next Solve continues from it: the step of column generation,
// where a restricted master LP gains the columns that price out. Nothing
// is changed when a column is invalid.
func (s *Simplex) AddCols(cols []Column) (int, error) {
	first := s.n
	for k, c := range cols {
		if err := s.checkColumn(first+k, first+len(cols), c); err != nil {
			return 0, err
		}
	}
	k := len(cols)
	if k == 0 {
		return first, nil
	}
	for _, c := range cols {
		for e, i := range c.Rows {
			s.rowIdx = append(s.rowIdx, i)
			s.val = append(s.val, c.Vals[e]*s.rs[i])
		}
		s.colStart = append(s.colStart, len(s.rowIdx))
		s.cost = append(s.cost, s.internalCost(c.Cost))
	}
	lb, ub := make([]float64, k), make([]float64, k)
	ftol, x, d := make([]float64, k), make([]float64, k), make([]float64, k)
	for j, c := range cols {
		lb[j], ub[j], ftol[j] = c.Lower, c.Upper, s.opt.FeasTol
	}
	s.lb = slices.Insert(s.lb, first, lb...)
	s.ub = slices.Insert(s.ub, first, ub...)
	s.ftol = slices.Insert(s.ftol, first, ftol...)
	s.x = slices.Insert(s.x, first, x...)
	s.d = slices.Insert(s.d, first, d...)
	s.state = slices.Insert(s.state, first, make([]int8, k)...)
	for p, v := range s.head {
		if v >= first {
			s.head[p] = v + k
		}
	}
	s.n += k
	for j := first; j < s.n; j++ {
		s.state[j] = s.restState(j)
	}
	s.priceFrom = 0
	return first, nil
}

// RemoveCols deletes the given structural columns, which must be nonbasic;
// the others keep their order (and shift down to fill the gaps). It is how
// a column generation keeps its restricted master small.
func (s *Simplex) RemoveCols(cols []int) error {
	gone := make([]bool, s.n)
	for _, j := range cols {
		if j < 0 || j >= s.n {
			return invalid("column %d out of range [0, %d)", j, s.n)
		}
		if s.state[j] == basic {
			return invalid("column %d is basic and can not be removed", j)
		}
		gone[j] = true
	}
	newIdx := make([]int, s.n+s.m)
	w, nz := 0, 0
	for j := 0; j < s.n; j++ {
		newIdx[j] = -1
		if gone[j] {
			continue
		}
		newIdx[j] = w
		start, end := s.colStart[j], s.colStart[j+1]
		s.colStart[w] = nz
		nz += copy(s.rowIdx[nz:], s.rowIdx[start:end])
		copy(s.val[s.colStart[w]:], s.val[start:end])
		s.cost[w] = s.cost[j]
		w++
	}
	s.colStart[w] = nz
	s.colStart = s.colStart[:w+1]
	s.rowIdx, s.val, s.cost = s.rowIdx[:nz], s.val[:nz], s.cost[:w]
	removed := s.n - w
	for i := 0; i < s.m; i++ {
		newIdx[s.n+i] = w + i
	}
	compact := func(a []float64) []float64 {
		for v, nv := range newIdx {
			if nv >= 0 {
				a[nv] = a[v]
			}
		}
		return a[:len(a)-removed]
	}
	s.lb, s.ub, s.ftol = compact(s.lb), compact(s.ub), compact(s.ftol)
	s.x, s.d = compact(s.x), compact(s.d)
	for v, nv := range newIdx {
		if nv >= 0 {
			s.state[nv] = s.state[v]
		}
	}
	s.state = s.state[:len(s.state)-removed]
	for p, v := range s.head {
		s.head[p] = newIdx[v]
	}
	s.n = w
	s.priceFrom = 0
	return nil
}

// ReplaceCols gives the columns idx[k] the non-zeros of cols[k] (their
// costs and bounds too) and keeps every variable's basis status, so the
// next Solve refactorises the same basis with the new entries: a family of
// columns that depends on a parameter is moved to another value of it.
func (s *Simplex) ReplaceCols(idx []int, cols []Column) error {
	if len(idx) != len(cols) {
		return invalid("%d column indices for %d columns", len(idx), len(cols))
	}
	repl := make(map[int]int, len(idx))
	for k, j := range idx {
		if j < 0 || j >= s.n {
			return invalid("column %d out of range [0, %d)", j, s.n)
		}
		if err := s.checkColumn(j, s.n, cols[k]); err != nil {
			return err
		}
		repl[j] = k
	}
	s.valid = false
	start := make([]int, 1, s.n+1)
	var rows []int
	var vals []float64
	for j := 0; j < s.n; j++ {
		if k, ok := repl[j]; ok {
			c := cols[k]
			for e, i := range c.Rows {
				rows = append(rows, i)
				vals = append(vals, c.Vals[e]*s.rs[i])
			}
			s.cost[j] = s.internalCost(c.Cost)
			s.lb[j], s.ub[j] = c.Lower, c.Upper
			if s.state[j] != basic {
				s.state[j] = s.restState(j)
			}
		} else {
			rows = append(rows, s.rowIdx[s.colStart[j]:s.colStart[j+1]]...)
			vals = append(vals, s.val[s.colStart[j]:s.colStart[j+1]]...)
		}
		start = append(start, len(rows))
	}
	s.colStart, s.rowIdx, s.val = start, rows, vals
	return nil
}

// IsBasic reports whether structural column j is in the current basis.
func (s *Simplex) IsBasic(j int) bool { return j >= 0 && j < s.n && s.state[j] == basic }

// checkColumn validates c as column j of a model with width columns.
func (s *Simplex) checkColumn(j, width int, c Column) error {
	if math.IsNaN(c.Cost) || math.IsInf(c.Cost, 0) {
		return invalid("cost of column %d is %v", j, c.Cost)
	}
	if err := checkBounds("column", j, c.Lower, c.Upper); err != nil {
		return err
	}
	if len(c.Rows) != len(c.Vals) {
		return invalid("column %d has %d rows and %d values", j, len(c.Rows), len(c.Vals))
	}
	for e, i := range c.Rows {
		if i < 0 || i >= s.m {
			return invalid("entry (%d, %d) is outside the %d×%d matrix", i, j, s.m, width)
		}
		if v := c.Vals[e]; math.IsNaN(v) || math.IsInf(v, 0) {
			return invalid("entry (%d, %d) is %v", i, j, v)
		}
		if slices.Contains(c.Rows[:e], i) {
			return invalid("entry (%d, %d) is given twice", i, j)
		}
	}
	return nil
}
