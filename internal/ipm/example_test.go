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
