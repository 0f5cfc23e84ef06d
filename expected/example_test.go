package expected_test

import (
	"context"
	"fmt"

	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// The most useful ε-PML mechanism for guessing a three-letter secret, with
// utility 1 for a right guess and 0 otherwise: the interior point alone
// (Solver nil) brackets the optimum, and a backend finds the optimal vertex.
func ExampleMaximize() {
	pi := mech.Prior{0.5, 0.3, 0.2}
	u := mech.Utility{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	b := mech.Budget{Measure: mech.PML, Epsilon: 0.5}

	r, err := expected.Maximize(context.Background(), pi, u, b, expected.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: utility in [%.6f, %.6f], PML %.6f\n", r.Solver, r.Value, r.Bound, r.Epsilon)

	r, err = expected.Maximize(context.Background(), pi, u, b, expected.Options{Solver: solver.Revised()})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: utility %.6f, PML %.6f\n", r.Solver, r.Value, r.Epsilon)
	for _, row := range r.Mechanism {
		fmt.Printf("%.4f\n", row)
	}
	// Output:
	// ipm: utility in [0.659489, 0.659489], PML 0.500000
	// revised: utility 0.659489, PML 0.500000
	// [0.8244 0.1756 0.0000]
	// [0.1756 0.8244 0.0000]
	// [0.1756 0.8244 0.0000]
}
