package simplex_test

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/internal/simplex"
)

// A ratio test on three basic values x_p ≥ 0 that the entering column
// lowers at rates a_p: the nearest stop has a tiny pivot; Harris's passes
// take the larger pivot a step further, within the feasibility tolerance.
func Example() {
	const tol = 1e-9
	x := []float64{1e-12, 5e-4, 2}
	a := []float64{1e-6, 1, 1}
	var stops []simplex.Stop
	for p := range x {
		stops = append(stops, simplex.Stop{T: x[p] / a[p], Relaxed: (x[p] + tol) / a[p], Pivot: a[p], P: p, Var: p})
	}
	theta := simplex.Bound(stops, math.Inf(1))
	fmt.Println("Harris:", simplex.Harris(stops, theta))
	fmt.Println("Bland:", simplex.Nearest(stops, theta))
	// Output:
	// Harris: 1
	// Bland: 0
}
