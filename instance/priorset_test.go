package instance_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
)

// Clopper–Pearson at the ends has closed forms: for k = 0 the upper end
// solves (1 − p)^n = δ/2, for k = n the lower end solves p^n = δ/2, and for
// k = 1 the lower end solves 1 − (1 − p)^n = δ/2. The middle case is the
// textbook interval for 5 of 10 at 95%, (0.1871, 0.8129).
func TestClopperPearsonKnownValues(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		delta  float64
		lo, hi float64
		tol    float64
	}{
		{0, 10, 0.05, 0, 1 - math.Pow(0.025, 0.1), 1e-9},
		{10, 10, 0.05, math.Pow(0.025, 0.1), 1, 1e-9},
		{1, 20, 0.05, 1 - math.Pow(0.975, 0.05), math.NaN(), 1e-9},
		{5, 10, 0.05, 0.1871, 0.8129, 1e-4},
	} {
		lo, hi := instance.ClopperPearson(tc.k, tc.n, tc.delta)
		if math.Abs(lo-tc.lo) > tc.tol || (!math.IsNaN(tc.hi) && math.Abs(hi-tc.hi) > tc.tol) {
			t.Errorf("k=%d n=%d: (%.10g, %.10g), want (%.10g, %.10g)", tc.k, tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
	r := instance.WeissmanRadius(40, 4, 0.05)
	if got := 14 * math.Exp(-40*r*r/2); math.Abs(got-0.05) > 1e-12 {
		t.Errorf("Weissman radius %g gives the bound %g, want 0.05", r, got)
	}
	// One letter: the simplex is a point (2^N − 2 = 0 priors to miss).
	if r := instance.WeissmanRadius(3, 1, 0.05); r != 0 {
		t.Errorf("Weissman radius on one letter %g, want 0", r)
	}
}

// logBinomialTail is log P(X ≥ k) (up) or log P(X ≤ k) for X ~
// Binomial(n, p), summed term by term in log space from the pmf at k, the
// terms beyond 60 nats below the largest left out (an independent
// computation of ClopperPearson's tails).
func logBinomialTail(n, k int, p float64, up bool) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	l0 := lg(n) - lg(k) - lg(n-k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p)
	r := math.Log(p) - math.Log1p(-p)
	terms, cur, top := []float64{0}, 0.0, 0.0
	for j := k; ; {
		if up {
			if j >= n {
				break
			}
			cur += math.Log(float64(n-j)) - math.Log(float64(j+1)) + r
			j++
		} else {
			if j <= 0 {
				break
			}
			cur += math.Log(float64(j)) - math.Log(float64(n-j+1)) - r
			j--
		}
		terms = append(terms, cur)
		top = math.Max(top, cur)
		if cur < top-60 {
			break
		}
	}
	sum := 0.0
	for _, v := range terms {
		sum += math.Exp(v - top)
	}
	return l0 + top + math.Log(sum)
}

// Clopper–Pearson ends at tails from 0.025 down to 1e-17 (a Bonferroni
// split over many letters at a high level; large samples with a few rare
// letters) hold the exact interval and lie within 1e-9 of its ends: the
// tail at each end is at most delta/2 and, a relative 1e-9 further in,
// above it, by an independent sum of the binomial terms. At n = 20 000
// with counts 4 and 10 and a tail of 6.25e-7 the upper ends are 0.0011990
// and 0.0017528.
func TestClopperPearsonSmallTails(t *testing.T) {
	for _, c := range []struct{ k, n int }{{4, 20000}, {10, 20000}, {19968, 20000}, {1, 10000}, {9999, 10000}, {3, 10}, {500, 100000}, {37, 200}} {
		for _, delta := range []float64{0.05, 1.25e-6, 1e-12, 1.1e-16} {
			lo, hi := instance.ClopperPearson(c.k, c.n, delta)
			logTail := math.Log(delta / 2)
			if c.k > 0 {
				if logBinomialTail(c.n, c.k, lo, true) > logTail+1e-9 || logBinomialTail(c.n, c.k, lo*(1+1e-9), true) <= logTail {
					t.Errorf("k = %d, n = %d, delta = %g: lower end %.12g is not the exact one", c.k, c.n, delta, lo)
				}
			}
			if c.k < c.n {
				if logBinomialTail(c.n, c.k, hi, false) > logTail+1e-9 || logBinomialTail(c.n, c.k, hi*(1-1e-9), false) <= logTail {
					t.Errorf("k = %d, n = %d, delta = %g: upper end %.12g is not the exact one", c.k, c.n, delta, hi)
				}
			}
		}
	}
	want := map[int]float64{4: 0.00119898719, 10: 0.001752809249}
	for k, w := range want {
		if _, hi := instance.ClopperPearson(k, 20000, 1.25e-6); math.Abs(hi-w) > 1e-11 {
			t.Errorf("k = %d, n = 20000: upper end %.12g, want %.12g", k, hi, w)
		}
	}
}

// Where the incomplete beta function loses digits (thousands to a million
// trials) the ends still hold the exact interval, within 1e-8 of it. The
// exact ends were computed with mpmath at 50 digits, by bisection on the
// regularised incomplete beta function: a 95% box on 11 letters (tail
// 0.05/22) with counts 10, 1000 and 2549 of 4000; 1000 letters of 3
// samples each (tail 0.05/2000); a million samples on two letters, one
// seen once (tail 0.0125).
func TestClopperPearsonHoldsTheExactEnds(t *testing.T) {
	for _, c := range []struct {
		k, n     int
		delta    float64
		exact    float64
		upperEnd bool
	}{
		{10, 4000, 0.05 / 11, 0.0056820174052327685, true},
		{1000, 4000, 0.05 / 11, 0.23081595231280619, false},
		{2549, 4000, 0.05 / 11, 0.61536835502024971, false},
		{3, 3000, 0.05 / 1000, 0.0058458170552157376, true},
		{1, 1000000, 0.025, 6.3809085312550721e-06, true},
		{999999, 1000000, 0.025, 0.99999361909146874, false},
	} {
		lo, hi := instance.ClopperPearson(c.k, c.n, c.delta)
		end, holds := lo, lo <= c.exact
		if c.upperEnd {
			end, holds = hi, hi >= c.exact
		}
		if !holds || math.Abs(end-c.exact) > 1e-8*c.exact {
			t.Errorf("k = %d, n = %d: end %.17g against the exact %.17g", c.k, c.n, end, c.exact)
		}
	}
}

// 2000 samples of size 40 from a known prior: the sets hold the prior at
// least as often as their level says, up to three binomial standard
// deviations of the simulation.
func TestConfidenceSetCoverage(t *testing.T) {
	truth := mech.Prior{0.5, 0.3, 0.15, 0.05}
	const draws, n = 2000, 40
	r := rand.New(rand.NewPCG(37, 9))
	for _, level := range []float64{0.8, 0.95} {
		for _, method := range []string{instance.MethodClopperPearson, instance.MethodWeissman} {
			held := 0
			for range draws {
				counts := make([]float64, len(truth))
				for range n {
					u, k := r.Float64(), 0
					for k < len(truth)-1 && u >= truth[k] {
						u -= truth[k]
						k++
					}
					counts[k]++
				}
				est, err := instance.FromCounts(counts, 0.5)
				if err != nil {
					t.Fatal(err)
				}
				s, err := instance.ConfidenceSet(counts, est, level, method)
				if err != nil {
					t.Fatal(err)
				}
				if s.Contains(truth, 0) {
					held++
				}
			}
			frac := float64(held) / draws
			margin := 3 * math.Sqrt(level*(1-level)/draws)
			if frac < level-margin {
				t.Errorf("%s at %g: the set held the prior in %.4f of the draws", method, level, frac)
			}
		}
	}
}

func TestConfidenceSetUnseenLetter(t *testing.T) {
	counts := []float64{30, 10, 0}
	est, _ := instance.FromCounts(counts, 0.5)
	s, err := instance.ConfidenceSet(counts, est, 0.95, instance.MethodClopperPearson)
	if err != nil {
		t.Fatal(err)
	}
	_, hi := instance.ClopperPearson(0, 40, 0.05/3)
	if s.Lower[2] != 0 || s.Upper[2] != hi {
		t.Errorf("unseen letter: [%g, %g], want [0, %g]", s.Lower[2], s.Upper[2], hi)
	}
	for _, bad := range []float64{0, 1, math.NaN()} {
		if _, err := instance.ConfidenceSet(counts, est, bad, instance.MethodWeissman); err == nil {
			t.Errorf("level %g accepted", bad)
		}
	}
}
