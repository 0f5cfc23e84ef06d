package ipm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// leastKappa's crossing against plain bisection of kappaNeed on random
// outputs (2 to 40 letters, some with c_k = 0, T = 0 on a third): the
// count is within R at its κ and above R a relative 1e-12 below it, and
// the two agree to 1e-12 of the scale; an output whose letters with
// c_k = 0 alone exceed R has none, one without any c_k > 0 within R is
// free.
func TestLeastKappaMatchesBisection(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := range 3000 {
		n := 2 + rng.IntN(39)
		base, c := make([]float64, n), make([]float64, n)
		for i := range base {
			base[i] = rng.NormFloat64()
			if rng.IntN(8) > 0 {
				c[i] = rng.Float64() / float64(n)
			}
		}
		T, R := rng.Float64(), 0.5+rng.Float64()
		if trial%3 == 0 {
			T = 0
		}
		k, free := leastKappa(base, c, T, R, nil)
		tail, anyC := -R, false
		for i := range c {
			if c[i] == 0 && base[i] > 0 {
				tail += base[i]
			}
			anyC = anyC || c[i] > 0
		}
		switch {
		case !anyC:
			if free != (kappaNeed(base, c, T, R, 0) <= 0) {
				t.Fatalf("trial %d: no c_k > 0, free %v", trial, free)
			}
			continue
		case tail > 0:
			if !math.IsInf(k, 1) || free {
				t.Fatalf("trial %d: the letters with c_k = 0 exceed R, yet κ = %v (free %v)", trial, k, free)
			}
			continue
		}
		if free || math.IsInf(k, 0) || math.IsNaN(k) {
			t.Fatalf("trial %d: κ = %v, free %v", trial, k, free)
		}
		// Plain bisection from a wide bracket.
		l, h := -1e6, 1e6
		for range 200 {
			mid := l + (h-l)/2
			if kappaNeed(base, c, T, R, mid) > 0 {
				l = mid
			} else {
				h = mid
			}
		}
		if kappaNeed(base, c, T, R, k) > 0 {
			t.Fatalf("trial %d: the count at κ = %v exceeds R", trial, k)
		}
		if math.Abs(k-h) > 1e-12*math.Max(1, math.Abs(h)) {
			t.Fatalf("trial %d: κ = %.17g, bisection %.17g", trial, k, h)
		}
	}
}
