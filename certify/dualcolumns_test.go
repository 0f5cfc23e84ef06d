package certify

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/mech"
)

// One prior given for every output proves what DualCertificate proves at
// that prior, multipliers and all.
func TestDualCertificateColumnsOnePrior(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for trial := range 50 {
		n, m := 2+r.IntN(4), 2+r.IntN(4)
		pi := make(mech.Prior, n)
		for i := range pi {
			pi[i] = 0.1 + r.Float64()
		}
		mech.Normalise(pi)
		pat := make(mech.Pattern, n)
		for i := range pat {
			pat[i] = make([]bool, m)
			for j := range pat[i] {
				pat[i][j] = r.Float64() < 0.6
			}
			pat[i][r.IntN(m)] = true
		}
		alpha := make([]float64, n)
		for i := range alpha {
			alpha[i] = r.NormFloat64()
		}
		a, okA := DualCertificate(pi, pat, alpha)
		b, okB := DualCertificateColumns([][]float64{pi}, pat, alpha)
		if okA != okB || a.Epsilon != b.Epsilon {
			t.Fatalf("trial %d: one prior %v %g, DualCertificate %v %g", trial, okB, b.Epsilon, okA, a.Epsilon)
		}
	}
}

// Pruning with a prior per output: α = e_0, and letter 0 allowed on
// outputs 0 and 1 only, whose priors give the allowed letters masses 0.3
// and 0.4: no mechanism is below −log 0.4, whatever the other outputs'
// priors; zeros in a prior are allowed.
func TestDualCertificateColumnsPruning(t *testing.T) {
	pat := mech.Pattern{{true, true, false}, {true, false, true}, {false, true, true}}
	priors := [][]float64{{0.1, 0.2, 0.7}, {0.4, 0, 0.6}, {0.9, 0.05, 0.05}}
	c, ok := DualCertificateColumns(priors, pat, []float64{1, 0, 0})
	// output 0: allowed {0, 1}, mass 0.3; output 1: allowed {0, 2}, mass 1.0
	// with the prior (0.4, 0, 0.6); the bound is −log max = 0 — nothing.
	if ok {
		t.Fatalf("a mass of 1 proves nothing, got %g", c.Epsilon)
	}
	priors[1] = []float64{0.4, 0.6, 0} // output 1: allowed {0, 2}, mass 0.4
	c, ok = DualCertificateColumns(priors, pat, []float64{1, 0, 0})
	if !ok || math.Abs(c.Epsilon+math.Log(0.4)) > 1e-13 || c.Epsilon > -math.Log(0.4) {
		t.Fatalf("want −log 0.4 = %g from below, got %g (%v)", -math.Log(0.4), c.Epsilon, ok)
	}
	if _, ok := DualCertificateColumns(priors[:2], pat, []float64{1, 0, 0}); ok {
		t.Fatal("two priors for three outputs accepted")
	}
	if _, ok := DualCertificateColumns([][]float64{{0.5, -0.1, 0.6}}, pat, []float64{1, 0, 0}); ok {
		t.Fatal("a negative prior entry accepted")
	}
}
