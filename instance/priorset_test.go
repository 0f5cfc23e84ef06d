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
