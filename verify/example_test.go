package verify_test

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/verify"
)

// Randomized response with p = 3/4 over the box of priors with π_1 in
// [0.4, 0.6]: its least column mass over the box is 0.45, so its PML over
// the box is log(0.75/0.45) = log 5/3, which the certificate claims.
func ExampleCheck() {
	box := &verify.PriorSet{Lower: []float64{0.4, 0.4}, Upper: []float64{0.6, 0.6}}
	p := verify.Problem{Prior: []float64{0.5, 0.5}, Utility: [][]float64{{1, 0}, {0, 1}},
		Mechanism: [][]float64{{0.75, 0.25}, {0.25, 0.75}}, PriorSet: box}
	c := verify.Certificate{Objective: "expected-utility", Measure: "pml", Epsilon: math.Log(5.0/3) + 1e-12,
		PriorSet: box, Utility: &verify.Utility{ExpectedUtility: 0.75}}
	for _, cl := range verify.Check(p, c) {
		fmt.Println(cl.Name, cl.OK)
	}
	// Output:
	// shape true
	// prior true
	// prior set true
	// rows true
	// level true
	// expected utility true
}
