package ipm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLowerProducts: on sizes around the blocks of two and four rows,
// addLowerProduct adds the plain dot products a_k · b_q to the lower
// triangle (to rounding: its sums run in another order), setLowerProduct
// sets them there, to the last bit of the plain loop's sums taken term by
// term, and both leave the strict upper triangle as it was.
func TestLowerProducts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 9, 13} {
		for _, l := range []int{0, 1, 3, 6, 12, 37} {
			a, b := make([]float64, n*l), make([]float64, n*l)
			for i := range a {
				a[i], b[i] = r.NormFloat64(), r.NormFloat64()
			}
			s := make([]float64, n*n)
			for i := range s {
				s[i] = r.NormFloat64()
			}
			added, set := append([]float64(nil), s...), append([]float64(nil), s...)
			addLowerProduct(added, n, a, b, l)
			setLowerProduct(set, n, a, b, l)
			for k := range n {
				for q := range n {
					if q > k {
						if added[k*n+q] != s[k*n+q] || set[k*n+q] != s[k*n+q] {
							t.Fatalf("n %d, l %d: the upper entry [%d][%d] moved", n, l, k, q)
						}
						continue
					}
					dot := 0.0
					for e := range l {
						dot += a[k*l+e] * b[q*l+e]
					}
					if want := s[k*n+q] + dot; math.Abs(added[k*n+q]-want) > 1e-12*float64(max(l, 1)) {
						t.Fatalf("n %d, l %d: added [%d][%d] = %.17g, want %.17g", n, l, k, q, added[k*n+q], want)
					}
					if set[k*n+q] != dot {
						t.Fatalf("n %d, l %d: set [%d][%d] = %.17g, want %.17g", n, l, k, q, set[k*n+q], dot)
					}
				}
			}
		}
	}
}
