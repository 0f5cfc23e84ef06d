package closedform_test

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// The utility-safe schedule of the counting query of Song & Oechtering (2026), §IV-A.
func ExampleSafeSchedule() {
	o := mech.Order{
		{7, 6, 5, 4, 3, 2, 1},
		{5, 7, 6, 4, 3, 2, 1},
		{3, 5, 7, 6, 4, 2, 1},
		{1, 3, 5, 7, 6, 4, 2},
		{1, 2, 3, 5, 7, 6, 4},
		{1, 2, 3, 4, 5, 7, 6},
		{1, 2, 3, 4, 5, 6, 7},
	}
	pi := mech.Uniform(7)
	curve, _ := closedform.SafeCurve(pi, o)
	fmt.Printf("ε_S(h): %.4f\n", curve)
	for _, eps := range []float64{0.5, 1.0, 1.3, 2.0} {
		h, epsS := closedform.SafeSchedule(pi, o, eps)
		fmt.Printf("ε = %.1f: M*(%d), PML %.4f\n", eps, h, epsS)
	}
	// Output:
	// ε_S(h): [0.0000 0.8473 0.8473 1.2528 1.2528 1.9459 1.9459]
	// ε = 0.5: M*(1), PML 0.0000
	// ε = 1.0: M*(3), PML 0.8473
	// ε = 1.3: M*(5), PML 1.2528
	// ε = 2.0: M*(7), PML 1.9459
}

func ExampleUtilitySafe() {
	o := mech.Order{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}}
	pi := mech.Prior{0.6, 0.25, 0.15}
	p, _ := closedform.UtilitySafe(o, 2)
	eps, _ := closedform.SafeEpsilon(pi, o, 2)
	fmt.Println(p)
	fmt.Printf("ε_S(2) = %.4f = −log(π_2+π_3) = %.4f; audited PML %.4f\n", eps, -math.Log(0.4), leakage.PML(pi, p))
	// Output:
	// [[0.5 0.5 0] [0 0.5 0.5] [0.5 0 0.5]]
	// ε_S(2) = 0.9163 = −log(π_2+π_3) = 0.9163; audited PML 0.9163
}

func ExampleExtremal() {
	pi := mech.Prior{0.5, 0.3, 0.2}
	p, _ := closedform.Extremal(pi, 0.1)
	fmt.Printf("%.4f\n", p)
	fmt.Printf("marginal %.4f, PML %.4f\n", p.Marginal(pi), leakage.PML(pi, p))
	// Output:
	// [[0.4474 0.3316 0.2210] [0.5526 0.2264 0.2210] [0.5526 0.3316 0.1159]]
	// marginal [0.5000 0.3000 0.2000], PML 0.1000
}

// Randomized response calibrated to a PML budget through Song & Oechtering (2026), Prop 1
// leaks exactly the budget.
func ExampleLDPForPML() {
	pi := mech.Prior{0.5, 0.3, 0.2}
	eps := 0.5
	epsBar := closedform.LDPForPML(eps, pi.Min())
	p, _ := closedform.RandomizedResponse(3, epsBar)
	fmt.Printf("ε̄ = %.4f, PML %.4f, PMC %.4f\n", epsBar, leakage.PML(pi, p), closedform.RandomizedResponsePMC(pi, epsBar))
	// Output:
	// ε̄ = 0.6770, PML 0.5000, PMC 0.3947
}

func ExampleExponential() {
	u := mech.Utility{{0, -1, -4}, {-1, 0, -1}, {-4, -1, 0}}
	p, _ := closedform.Exponential(u, 1, closedform.Sensitivity(u))
	fmt.Printf("Δ = %g\n%.4f\n", closedform.Sensitivity(u), p)
	// Output:
	// Δ = 4
	// [[0.4018 0.3546 0.2437] [0.3192 0.3617 0.3192] [0.2437 0.3546 0.4018]]
}
