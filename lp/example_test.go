package lp_test

import (
	"fmt"
	"math"
	"os"

	"github.com/pmlopt/pmlopt/lp"
)

func Example() {
	// maximise x + 2y subject to x + y ≤ 4, x − y ≥ −1, 0 ≤ x, 0 ≤ y ≤ 3.
	m := &lp.Model{Maximize: true}
	x := m.AddCol(1, 0, lp.Inf, "x")
	y := m.AddCol(2, 0, 3, "y")
	m.AddRow(math.Inf(-1), 4, "cap", lp.Entry(x, 1), lp.Entry(y, 1))
	m.AddRow(-1, lp.Inf, "gap", lp.Entry(x, 1), lp.Entry(y, -1))
	if err := m.Validate(); err != nil {
		fmt.Println(err)
		return
	}

	// The optimum is x = 1.5, y = 2.5; check it without a solver.
	ev := m.Eval([]float64{1.5, 2.5})
	fmt.Println("objective", ev.Objective, "activity", ev.Activity, "violation", ev.MaxViolation)
	bad := m.Eval([]float64{2, 2.5})
	fmt.Println("violation", bad.MaxViolation, "at", m.Where(bad))

	if err := m.WriteMPS(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// objective 6.5 activity [4 -1] violation 0
	// violation 0.5 at row 0 (cap)
	// NAME
	// OBJSENSE
	//     MAX
	// ROWS
	//  N  obj
	//  L  cap
	//  G  gap
	// COLUMNS
	//     x  obj  1
	//     x  cap  1
	//     x  gap  1
	//     y  obj  2
	//     y  cap  1
	//     y  gap  -1
	// RHS
	//     RHS  cap  4
	//     RHS  gap  -1
	// BOUNDS
	//  UP BND  y  3
	// ENDATA
}

func ExampleModel_CSC() {
	m := &lp.Model{}
	a := m.AddCol(0, 0, 1, "")
	b := m.AddCol(0, 0, 1, "")
	m.AddRow(0, 1, "", lp.Entry(b, 2), lp.Entry(a, 1))
	m.AddRow(0, 1, "", lp.Entry(a, 3))
	start, rows, vals := m.CSC()
	fmt.Println(start, rows, vals)
	// Output:
	// [0 2 3] [0 1 0] [1 3 2]
}
