package leakage_test

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// The eye-colour channel of Fernandes et al. (2022), Example 1.
func ExampleAudit() {
	pi := mech.Prior{1. / 4, 1. / 2, 1. / 4}
	p := mech.Mechanism{{3. / 4, 1. / 4}, {1. / 4, 3. / 4}, {19. / 20, 1. / 20}}
	r, err := leakage.Audit(pi, p, 2, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("q = %.2f\n", r.Marginal)
	fmt.Printf("LDP = log %.0f\n", math.Exp(r.LDP))
	fmt.Printf("lift = %.4f (19/11 = %.4f)\n", r.Lift, 19./11)
	fmt.Printf("Bayes capacity = %.1f\n", r.BayesCapacity)
	fmt.Printf("ALIP = (%.4f, %.4f)\n", r.ALIPLower, r.ALIPUpper)
	// Output:
	// q = [0.55 0.45]
	// LDP = log 15
	// lift = 1.7273 (19/11 = 1.7273)
	// Bayes capacity = 1.7
	// ALIP = (2.1972, 0.5465)
}

func ExampleMaximalAlphaBetaLeakage() {
	pi := mech.Uniform(2)
	p := mech.Mechanism{{0.9, 0.1}, {0.2, 0.8}}
	ldp, _ := leakage.MaximalAlphaBetaLeakage(pi, p, math.Inf(1), math.Inf(1))
	ml, _ := leakage.MaximalAlphaBetaLeakage(pi, p, math.Inf(1), 1)
	fmt.Printf("α=β=∞: %.6f = LDP %.6f\n", ldp, leakage.LDP(pi, p))
	fmt.Printf("α=∞, β=1: %.6f = maximal leakage %.6f\n", ml, leakage.MaximalLeakage(pi, p))
	// Output:
	// α=β=∞: 2.079442 = LDP 2.079442
	// α=∞, β=1: 0.530628 = maximal leakage 0.530628
}
