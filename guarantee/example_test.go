package guarantee_test

import (
	"fmt"

	"github.com/pmlopt/pmlopt/guarantee"
	"github.com/pmlopt/pmlopt/mech"
)

func ExampleImplied() {
	imps, err := guarantee.Implied(mech.Budget{Measure: mech.PML, Epsilon: 0.1}, 0.25)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, im := range imps {
		fmt.Printf("%v %s %.6f %.6f %.6f\n", im.Holds, im.Implied.Measure, im.Implied.Epsilon, im.Implied.EpsilonLower, im.Implied.EpsilonUpper)
	}
	// Output:
	// true pmc 0.379085 0.000000 0.000000
	// true alip 0.000000 0.379085 0.100000
	// true lip 0.379085 0.000000 0.000000
	// true ldp 0.479085 0.000000 0.000000
}

func ExampleLDPForPML() {
	// Calibrate an LDP baseline to 1-PML for a uniform prior on 7 letters
	// (Song & Oechtering (2026), Prop 1).
	fmt.Printf("%.6f\n", guarantee.LDPForPML(1, 1./7))
	// Output:
	// 1.337405
}
