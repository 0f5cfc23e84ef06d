package solver

import (
	"errors"
	"fmt"

	"github.com/pmlopt/pmlopt/lp"
)

// ColdSession returns a Session that keeps its own copy of m, applies the
// changes to it and solves it from scratch with s at every Solve. It gives a
// backend without warm starts the WarmSolver code path, and it is a reference
// against which a warm backend can be tested.
//
// Changes with an index out of range are not applied; the first such change
// is reported as the error of the next Solve. SetCoef on an entry absent from
// the model adds it.
func ColdSession(s Solver, m *lp.Model) (Session, error) {
	if s == nil {
		return nil, errors.New("solver: ColdSession needs a Solver, got nil")
	}
	if err := checkModel(m); err != nil {
		return nil, err
	}
	c := cloneModel(m)
	idx := make(map[[2]int]int, len(c.ConstMatrix))
	for k, e := range c.ConstMatrix {
		idx[[2]int{e.Row, e.Col}] = k
	}
	return &coldSession{s: s, m: c, idx: idx}, nil
}

type coldSession struct {
	s      Solver
	m      *lp.Model
	idx    map[[2]int]int
	err    error // first bad change since the last Solve
	closed bool
}

func (c *coldSession) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("solver: "+format, args...)
	}
}

func (c *coldSession) SetColBounds(col int, lower, upper float64) {
	if col < 0 || col >= c.m.NumCols() {
		c.fail("SetColBounds: column %d out of range [0, %d)", col, c.m.NumCols())
		return
	}
	c.m.ColLower[col], c.m.ColUpper[col] = lower, upper
}

func (c *coldSession) SetRowBounds(row int, lower, upper float64) {
	if row < 0 || row >= c.m.NumRows() {
		c.fail("SetRowBounds: row %d out of range [0, %d)", row, c.m.NumRows())
		return
	}
	c.m.RowLower[row], c.m.RowUpper[row] = lower, upper
}

func (c *coldSession) SetCoef(row, col int, val float64) {
	if row < 0 || row >= c.m.NumRows() || col < 0 || col >= c.m.NumCols() {
		c.fail("SetCoef: (%d, %d) outside the %d×%d matrix", row, col, c.m.NumRows(), c.m.NumCols())
		return
	}
	key := [2]int{row, col}
	if k, ok := c.idx[key]; ok {
		c.m.ConstMatrix[k].Val = val
		return
	}
	c.idx[key] = len(c.m.ConstMatrix)
	c.m.ConstMatrix = append(c.m.ConstMatrix, lp.Nonzero{Row: row, Col: col, Val: val})
}

func (c *coldSession) SetColCost(col int, cost float64) {
	if col < 0 || col >= c.m.NumCols() {
		c.fail("SetColCost: column %d out of range [0, %d)", col, c.m.NumCols())
		return
	}
	c.m.ColCosts[col] = cost
}

func (c *coldSession) Solve() (*Solution, error) {
	if c.closed {
		return nil, fmt.Errorf("solver: Solve on a closed session")
	}
	if err := c.err; err != nil {
		c.err = nil
		return nil, err
	}
	return c.s.Solve(c.m)
}

func (c *coldSession) Close() { c.closed = true }
