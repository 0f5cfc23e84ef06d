package ipm_test

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/mech"
)

// A uniform binary secret released under ε = log 1.5: the best mechanism
// for guessing it keeps the secret with probability 3/4, and the row
// multipliers prove that nothing does better.
func ExampleSolve() {
	r, err := ipm.Solve(ipm.Problem{
		Prior:   mech.Prior{0.5, 0.5},
		Utility: mech.Utility{{1, 0}, {0, 1}},
		Epsilon: math.Log(1.5),
	}, ipm.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("expected utility %.6f, optimum at most %.6f\n", r.Value, r.Bound)
	for _, row := range r.Mechanism {
		fmt.Printf("%.6f\n", row)
	}
	// Output:
	// expected utility 0.750000, optimum at most 0.750000
	// [0.750000 0.250000]
	// [0.250000 0.750000]
}

// The expected-utility problem of testdata/expected-utility.yaml (5
// letters, utility −|x−y|) at ε = 1: Solve's interior point uses every
// pair, SolveVertex returns an optimal vertex of the same value, with
// exact zeros.
func ExampleSolveVertex() {
	u := mech.Utility{{0, -1, -2, -3, -4}, {-1, 0, -1, -2, -3}, {-2, -1, 0, -1, -2}, {-3, -2, -1, 0, -1}, {-4, -3, -2, -1, 0}}
	r, err := ipm.SolveVertex(ipm.Problem{Prior: mech.Prior{0.3, 0.25, 0.2, 0.15, 0.1}, Utility: u, Epsilon: 1}, ipm.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("expected utility %.6f, worst-case order %d\n", r.Value, u.Order().WorstCaseOrder(r.Mechanism))
	for _, row := range r.Mechanism {
		fmt.Printf("%.4f\n", row)
	}
	// Output:
	// expected utility -0.371130, worst-case order 4
	// [0.9860 0.0140 0.0000 0.0000 0.0000]
	// [0.2677 0.7323 0.0000 0.0000 0.0000]
	// [0.0000 0.4106 0.0000 0.5894 0.0000]
	// [0.0000 0.0000 0.0000 1.0000 0.0000]
	// [0.0000 0.0000 0.0000 1.0000 0.0000]
}

// A uniform binary secret under ε-LDP with ε = log 3: randomized response,
// which keeps the secret with probability e^ε/(1 + e^ε) = 3/4, is optimal.
func ExampleSolveRatio() {
	r, err := ipm.SolveRatio(ipm.RatioProblem{
		Prior:   mech.Prior{0.5, 0.5},
		Utility: mech.Utility{{1, 0}, {0, 1}},
		Budget:  mech.Budget{Measure: mech.LDP, Epsilon: math.Log(3)},
	}, ipm.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("expected utility %.6f, optimum at most %.6f\n", r.Value, r.Bound)
	// Output:
	// expected utility 0.750000, optimum at most 0.750000
}
