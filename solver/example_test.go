package solver_test

import (
	"fmt"

	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/solver"
)

// Example solves max 3x + 5y subject to x ≤ 4, 2y ≤ 12, 3x + 2y ≤ 18 with
// the gonum backend, then tightens a bound in a Session.
func Example() {
	m := &lp.Model{Maximize: true}
	x := m.AddCol(3, 0, lp.Inf, "x")
	y := m.AddCol(5, 0, lp.Inf, "y")
	m.AddRow(-lp.Inf, 4, "", lp.Entry(x, 1))
	m.AddRow(-lp.Inf, 12, "", lp.Entry(y, 2))
	m.AddRow(-lp.Inf, 18, "", lp.Entry(x, 3), lp.Entry(y, 2))

	s := solver.Gonum()
	sol, err := s.Solve(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v %.4g at x=%.4g y=%.4g, shadow prices %.4g\n", sol.Status, sol.Objective, sol.X[0], sol.X[1], sol.RowDuals)

	sess, err := s.(solver.WarmSolver).Load(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sess.Close()
	sess.SetColBounds(x, 0, 1)
	sol, err = sess.Solve()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("with x ≤ 1: %.4g\n", sol.Objective)
	// Output:
	// optimal 36 at x=2 y=6, shadow prices [0 1.5 1]
	// with x ≤ 1: 33
}

// ExampleAuto picks the best backend built in.
func ExampleAuto() {
	s := solver.Auto()
	m := &lp.Model{}
	m.AddCol(1, 0, lp.Inf, "")
	m.AddRow(2, lp.Inf, "", lp.Entry(0, 1))
	sol, err := s.Solve(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sol.Status, sol.Objective)
	// Output: optimal 2
}
