package revised_test

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/internal/revised"
	"github.com/pmlopt/pmlopt/lp"
)

// Maximise 3x + 5y subject to x ≤ 4, 2y ≤ 12, 3x + 2y ≤ 18, x, y ≥ 0.
func ExampleSolve() {
	m := &lp.Model{Maximize: true}
	x := m.AddCol(3, 0, lp.Inf, "x")
	y := m.AddCol(5, 0, lp.Inf, "y")
	m.AddRow(math.Inf(-1), 4, "", lp.Entry(x, 1))
	m.AddRow(math.Inf(-1), 12, "", lp.Entry(y, 2))
	m.AddRow(math.Inf(-1), 18, "", lp.Entry(x, 3), lp.Entry(y, 2))
	r, err := revised.Solve(m, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Status, r.Objective, r.X, r.RowDuals)
	// Output:
	// optimal 36 [2 6] [0 1.5 1]
}

// A warm session: tighten a bound and re-solve from the previous basis.
func ExampleSimplex_Solve() {
	m := &lp.Model{Maximize: true}
	x := m.AddCol(3, 0, lp.Inf, "x")
	y := m.AddCol(5, 0, lp.Inf, "y")
	m.AddRow(math.Inf(-1), 4, "", lp.Entry(x, 1))
	m.AddRow(math.Inf(-1), 12, "", lp.Entry(y, 2))
	m.AddRow(math.Inf(-1), 18, "", lp.Entry(x, 3), lp.Entry(y, 2))
	s, err := revised.New(m, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, up := range []float64{lp.Inf, 1, 0} {
		if err := s.SetColBounds(x, 0, up); err != nil {
			fmt.Println(err)
			return
		}
		r, err := s.Solve()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("x ≤ %v: %v %.4g\n", up, r.Status, r.Objective)
	}
	// Output:
	// x ≤ +Inf: optimal 36
	// x ≤ 1: optimal 33
	// x ≤ 0: optimal 30
}
