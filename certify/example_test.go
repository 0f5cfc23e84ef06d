package certify_test

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/mech"
)

// A proof that the mechanism (9) of Song & Oechtering (2026) is optimal:
// for their Example 1 with
// π = (0.6, 0.25, 0.15) and worst case h = 2, mechanism (9) reaches
// ε = log 2, and the multipliers α = (−12, 5, 7) on the rows Σ_j p_ij = 1
// prove that no mechanism with the pattern does better.
func ExampleDualBound() {
	pi := mech.Prior{0.6, 0.25, 0.15}
	pat := mech.Order{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}}.Pattern(2)
	lb, ok := certify.DualBound(pi, pat, []float64{-12, 5, 7})
	fmt.Printf("proved: %v, ε* ≥ %.12f, log 2 = %.12f\n", ok, lb, math.Log(2))
	// Output: proved: true, ε* ≥ 0.693147180560, log 2 = 0.693147180560
}

// An audit of a mechanism against two budgets. Its outputs have masses
// q = (0.425, 0.575) and largest ratios p_ij/q_j of 0.5/0.425 and 1/0.575,
// so its PML is log(1/0.575) ≈ 0.5534.
func ExampleAudit() {
	pi := mech.Prior{0.6, 0.25, 0.15}
	p := mech.Mechanism{{0.5, 0.5}, {0.5, 0.5}, {0, 1}}
	r, err := certify.Audit(pi, p, mech.Budget{Measure: mech.PML, Epsilon: 0.6})
	fmt.Printf("PML %.4f, log(1/0.575) = %.4f, error %v\n", r.Level, math.Log(1/0.575), err)
	_, err = certify.Audit(pi, p, mech.Budget{Measure: mech.PML, Epsilon: 0.5})
	fmt.Println("fails at ε = 0.5:", err != nil)
	// Output:
	// PML 0.5534, log(1/0.575) = 0.5534, error <nil>
	// fails at ε = 0.5: true
}
