package worstcase_test

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/worstcase"
)

// Example 1 of Song & Oechtering (2026): with π_2 + π_3 < 1/2 the least PML at which no
// input gets its worst output is log 2, below the utility-safe −log(π_2+π_3).
func ExampleLeastEpsilon() {
	pi := mech.Prior{0.6, 0.25, 0.15}
	o := mech.Order{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}}
	r, err := worstcase.LeastEpsilon(context.Background(), pi, o.Pattern(2), worstcase.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	safe, _ := closedform.SafeEpsilon(pi, o, 2)
	fmt.Printf("ε* = %.9f (log 2 = %.9f), utility-safe %.9f\n", r.OptimalEpsilon, math.Log(2), safe)
	fmt.Printf("bracket within 1e-9: %v\n", r.OptimalEpsilon-r.OptimalEpsilonLower <= 1e-9)
	// Output:
	// ε* = 0.693147181 (log 2 = 0.693147181), utility-safe 0.916290732
	// bracket within 1e-9: true
}

func ExampleBestOrder() {
	pi := mech.Prior{0.6, 0.25, 0.15}
	o := mech.Order{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}}
	h, r, err := worstcase.BestOrder(context.Background(), pi, o, 0.8, worstcase.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("budget 0.8: worst-case order %d at PML %.6f\n", h, r.OptimalEpsilon)
	// Output:
	// budget 0.8: worst-case order 2 at PML 0.693147
}
