package clean_test

import (
	"fmt"

	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/mech"
)

// A mechanism whose first row carries 1e-12 of rounding on the third
// output: the copy without it audits within the budget and is returned.
func ExampleDustFree() {
	pi := mech.Prior{0.5, 0.5}
	m := mech.Mechanism{{0.7 - 1e-12, 0.3, 1e-12}, {0.2, 0.8, 0}}
	c, r, ok := clean.DustFree(pi, m, mech.Budget{Measure: mech.PML, Epsilon: 1})
	fmt.Println(ok, c[0][2], c[1])
	fmt.Printf("PML %.6f\n", r.Level)
	// Output:
	// true 0 [0.2 0.8 0]
	// PML 0.441833
}
