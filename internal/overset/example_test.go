package overset_test

import (
	"context"
	"fmt"

	"github.com/pmlopt/pmlopt/internal/overset"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// The least PML over a box of priors of the mechanism that releases the
// letter itself (the only one whose worst case keeps utility 1): its PML
// at a prior is −log of the least mass, so over the box it is −log of the
// least lower bound, log 10 here. The bracket closes on it; its lower end
// is the pruning bound over the set, which needs no multipliers (Proofs
// empty): a certificate proves it by pruning.
func ExampleLeastEpsilon() {
	pi := mech.Prior{0.5, 0.3, 0.2}
	set, err := mech.NewBoxSet(pi, []float64{0.4, 0.2, 0.1}, []float64{0.6, 0.4, 0.3})
	if err != nil {
		panic(err)
	}
	u := mech.Utility{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	p := &problem.Problem{Prior: pi, Utility: u, PriorSet: set}
	o := overset.Options{Solver: solver.Revised(), PointSolver: solver.Revised()}
	r, err := overset.LeastEpsilon(context.Background(), p, u.Pattern(1), nil, o)
	if err != nil {
		panic(err)
	}
	fmt.Printf("ε* over the box in [%.6f, %.6f], proofs %d\n", r.Lower, r.Upper, len(r.Proofs))
	// Output:
	// ε* over the box in [2.302585, 2.302585], proofs 0
}
