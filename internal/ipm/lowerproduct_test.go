package ipm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAddLowerProduct: on sizes around the blocks of two and four rows,
// addLowerProduct adds the plain dot products a_k · b_q to the lower
// triangle (to rounding: the sums run in another order) and leaves the
// strict upper triangle as it was.
func TestAddLowerProduct(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 9, 13} {
		for _, l := range []int{1, 3, 6, 12, 37} {
			a, b := make([]float64, n*l), make([]float64, n*l)
			for i := range a {
				a[i], b[i] = r.NormFloat64(), r.NormFloat64()
			}
			s := make([]float64, n*n)
			for i := range s {
				s[i] = r.NormFloat64()
			}
			before := append([]float64(nil), s...)
			addLowerProduct(s, n, a, b, l)
			for k := range n {
				for q := range n {
					want := before[k*n+q]
					if q <= k {
						for e := range l {
							want += a[k*l+e] * b[q*l+e]
						}
					}
					if math.Abs(s[k*n+q]-want) > 1e-12*float64(l) {
						t.Fatalf("n %d, l %d: s[%d][%d] = %.17g, want %.17g", n, l, k, q, s[k*n+q], want)
					}
				}
			}
		}
	}
}
