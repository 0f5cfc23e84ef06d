package certificate_test

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
)

// The certificate of a worst-case answer that releases the letter itself:
// only the diagonal keeps the worst case at utility 1, so the least PML is
// that of the identity, −log of the least prior mass. No engine's proof
// is given: the certificate proves that lower end by pruning, and package
// verify checks every claim in exact arithmetic.
func ExampleWorstCase() {
	p := &problem.Problem{
		Prior:   mech.Prior{0.5, 0.3, 0.2},
		Utility: mech.Utility{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
	}
	m := mech.Mechanism{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	eps := -math.Log(0.2)
	c := certificate.WorstCase(p, problem.WorstCaseValue, certificate.Answer{Mechanism: m, Epsilon: eps, Lower: eps}, nil)
	fmt.Printf("worst case %g, ε* in [%.4f, %.4f], multipliers %d\n", *c.WorstCaseValue, c.Lower.OptimalEpsilonLower, c.Epsilon, len(c.Lower.Alpha))
	claims := verify.Check(verify.Problem{Prior: p.Prior, Utility: p.Utility, Mechanism: m}, *c)
	fmt.Println("verified:", verify.AllOK(claims))
	// Output:
	// worst case 1, ε* in [1.6094, 1.6094], multipliers 3
	// verified: true
}
