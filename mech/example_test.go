package mech_test

import (
	"fmt"
	"log"

	"github.com/pmlopt/pmlopt/mech"
)

// The eye-colour channel of Fernandes et al. (2022), Example 1: output marginal, posterior
// and the utility order of a row with ties.
func Example() {
	pi, err := mech.NewPrior([]float64{1.0 / 4, 1.0 / 2, 1.0 / 4})
	if err != nil {
		log.Fatal(err)
	}
	p, err := mech.NewMechanism([][]float64{{3.0 / 4, 1.0 / 4}, {1.0 / 4, 3.0 / 4}, {19.0 / 20, 1.0 / 20}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("p(Y) = %.4g\n", p.Marginal(pi))
	post := p.Posterior(pi)
	fmt.Printf("P(X | Y=blue) = (%.4f, %.4f, %.4f)\n", post[0][0], post[1][0], post[2][0])

	// Tied utilities share the larger rank.
	u, err := mech.NewUtility([][]float64{{1, 1, 2}, {0, -1, -4}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("order:", u.Order())

	_, err = mech.NewOrder([][]int{{1, 2, 2}})
	fmt.Println(err != nil)
	// Output:
	// p(Y) = [0.55 0.45]
	// P(X | Y=blue) = (0.3409, 0.2273, 0.4318)
	// order: [[2 2 3] [3 2 1]]
	// true
}

func ExampleNewPrior_error() {
	_, err := mech.NewPrior([]float64{0.5, 0.5, 0})
	fmt.Println(err)
	// Output:
	// prior entry 3: is zero; pmlopt needs a prior with full support
}
