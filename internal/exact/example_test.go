package exact_test

import (
	"context"
	"fmt"
	"math/big"

	"github.com/pmlopt/pmlopt/internal/exact"
	"github.com/pmlopt/pmlopt/mech"
)

// Example 1 of Song & Oechtering (2026): with π = (3/5, 1/4, 3/20) and
// worst-case order 2, ε* = log 2 exactly, reached by their mechanism (9).
func ExampleLeastT() {
	pi := []*big.Rat{big.NewRat(3, 5), big.NewRat(1, 4), big.NewRat(3, 20)}
	o := mech.Order{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}}
	r, err := exact.LeastT(context.Background(), pi, o.Pattern(2), 0.69, 0.70, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("ε* = log(%s), rational %v\n", r.TUpper.RatString(), r.Rational)
	for _, row := range r.Mechanism {
		fmt.Println(row[0].RatString(), row[1].RatString(), row[2].RatString())
	}
	// Output:
	// ε* = log(2), rational true
	// 7/12 5/12 0
	// 0 1 0
	// 1 0 0
}
