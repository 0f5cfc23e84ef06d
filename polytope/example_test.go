package polytope_test

import (
	"fmt"
	"math"
	"os"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

func Example() {
	// Song & Oechtering (2026), Example 1: the utility order U, a prior with π_2 + π_3 ≤ 1/2
	// and the pattern of order h = 2. Is there a log(2)-PML mechanism?
	pi := mech.Prior{0.6, 0.25, 0.15}
	order := mech.Order{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}}
	mod, err := polytope.Build(polytope.Spec{
		Prior:   pi,
		Budget:  mech.Budget{Measure: mech.PML, Epsilon: math.Log(2)},
		Pattern: order.Pattern(2),
		Prune:   true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("columns", mod.LP.NumCols(), "rows", mod.LP.NumRows(), "dropped", mod.Dropped)

	// The mechanism of eq. (9) is a point of the polytope.
	p9 := mech.Mechanism{{7.0 / 12, 5.0 / 12, 0}, {0, 1, 0}, {1, 0, 0}}
	fmt.Println("eq. (9) feasible:", mod.LP.MaxViolation(must(mod.Point(p9))) <= 1e-12)

	res, err := solver.Auto().Solve(mod.LP)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := mod.Mechanism(res.X)
	fmt.Println(res.Status, "PML within budget:", leakage.PML(pi, p) <= math.Log(2)+1e-9)
	// Output:
	// columns 6 rows 9 dropped [false false true]
	// eq. (9) feasible: true
	// optimal PML within budget: true
}

func ExampleModel_SetBudget() {
	mod, err := polytope.Build(polytope.Spec{
		Prior:   mech.Uniform(2),
		Budget:  mech.Budget{Measure: mech.LDP, Epsilon: math.Log(3)},
		Outputs: 2,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Randomized response with e^ε = 3 is log(3)-LDP but not log(2)-LDP.
	rr := mech.Mechanism{{0.75, 0.25}, {0.25, 0.75}}
	fmt.Println("log 3 feasible:", mod.LP.MaxViolation(must(mod.Point(rr))) <= 1e-12)
	if err := mod.SetBudget(nil, mech.Budget{Measure: mech.LDP, Epsilon: math.Log(2)}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("log 2: %.3g\n", mod.LP.MaxViolation(must(mod.Point(rr))))
	// Output:
	// log 3 feasible: true
	// log 2: 0.25
}

func Example_export() {
	// `pmlopt export FILE --mps out.mps` is Build followed by WriteMPS.
	mod, err := polytope.Build(polytope.Spec{
		Prior:   mech.Prior{0.5, 0.5},
		Budget:  mech.Budget{Measure: mech.PML, Epsilon: 0.5},
		Pattern: mech.Pattern{{true, true}, {false, true}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := mod.LP.WriteMPS(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// NAME
	// ROWS
	//  N  obj
	//  E  sum[1]
	//  E  sum[2]
	//  E  marg[1]
	//  L  up[1,1]
	//  E  marg[2]
	//  L  up[1,2]
	//  L  up[2,2]
	// COLUMNS
	//     p[1,1]  sum[1]  1
	//     p[1,1]  marg[1]  -0.5
	//     p[1,1]  up[1,1]  1
	//     p[1,2]  sum[1]  1
	//     p[1,2]  marg[2]  -0.5
	//     p[1,2]  up[1,2]  1
	//     p[2,2]  sum[2]  1
	//     p[2,2]  marg[2]  -0.5
	//     p[2,2]  up[2,2]  1
	//     t[1]  marg[1]  0.6065306597126334
	//     t[1]  up[1,1]  -1
	//     t[2]  marg[2]  0.6065306597126334
	//     t[2]  up[1,2]  -1
	//     t[2]  up[2,2]  -1
	// RHS
	//     RHS  sum[1]  1
	//     RHS  sum[2]  1
	// BOUNDS
	// ENDATA
}

// must returns x, the result of a call whose error is known to be nil.
func must(x []float64, _ error) []float64 { return x }
