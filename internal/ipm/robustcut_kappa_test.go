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

// Where base_k/c_k or the pieces' sums overflow (magnitudes from 1e-308 to
// 1e308, some c_k = 0), no crossing solved on a piece may hold and
// leastKappa falls back on doubling steps from the piece's start (about
// one output in eight of these reaches it): whatever it returns must
// still be a κ whose count is within R, or +Inf (no bound), never a κ
// that proves too much. Its exact inputs from one draw that reaches the
// fallback and ends finite are checked first.
func TestLeastKappaOverflowKeepsTheCount(t *testing.T) {
	base := []float64{-2.1590437085680875e-177, 1.5436386571346384e-87, -2.667563356160928e+251}
	c := []float64{4.297228599688611e-61, 1.7586647665870524e+263, 4.3952811637309365e-121}
	T, R := 7.207485999251156e-284, 3.363703883252772e-225
	if k, free := leastKappa(base, c, T, R, nil); free || math.IsInf(k, 0) || math.IsNaN(k) || kappaNeed(base, c, T, R, k) > 0 {
		t.Errorf("κ = %v (free %v), count less R %v", k, free, kappaNeed(base, c, T, R, k))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	mag := func() float64 { return math.Pow(10, float64(rng.IntN(616)-308)) }
	finite := 0
	for trial := range 20000 {
		n := 1 + rng.IntN(4)
		base, c := make([]float64, n), make([]float64, n)
		for i := range base {
			base[i] = rng.NormFloat64() * mag()
			if rng.IntN(4) > 0 {
				c[i] = rng.Float64() * mag()
			}
		}
		T, R := rng.Float64()*mag(), rng.Float64()*mag()
		k, free := leastKappa(base, c, T, R, nil)
		if free && kappaNeed(base, c, T, R, 0) > 0 {
			t.Fatalf("trial %d: free, yet the count at κ = 0 is %v above R", trial, kappaNeed(base, c, T, R, 0))
		}
		if free || math.IsInf(k, 1) {
			continue
		}
		finite++
		if math.IsNaN(k) || kappaNeed(base, c, T, R, k) > 0 {
			t.Fatalf("trial %d: κ = %v leaves the count %v above R", trial, k, kappaNeed(base, c, T, R, k))
		}
	}
	if finite < 10000 {
		t.Errorf("%d of 20000 draws with a finite κ: the test no longer reaches the crossings", finite)
	}
}
