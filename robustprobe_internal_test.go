package pmlopt

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// The loaded model re-solved at each ε answers as the model built afresh
// at that ε: on random boxes and balls and the patterns of a random order,
// the probes of a search in both directions agree with solveRobustLP away
// from the least ε (found by bisection from scratch), and every mechanism
// keeps the budget over the set.
func TestRobustProberAgreesWithFreshLP(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 31))
	slv := solver.Revised()
	tested := 0
	for trial := range 12 {
		n := 3 + r.IntN(4)
		pi := make(mech.Prior, n)
		for i := range pi {
			pi[i] = 0.05 + r.Float64()
		}
		mech.Normalise(pi)
		u := make(mech.Utility, n)
		for i := range u {
			u[i] = make([]float64, n)
			for j := range u[i] {
				u[i][j] = r.Float64()
			}
		}
		var set *mech.PriorSet
		if trial%2 == 0 {
			lo, up := make([]float64, n), make([]float64, n)
			for k := range n {
				lo[k], up[k] = pi[k]*(0.5+0.5*r.Float64()), math.Min(1, pi[k]*(1+r.Float64()))
			}
			set, _ = mech.NewBoxSet(pi, lo, up)
		} else {
			set, _ = mech.NewL1Set(pi, 0.3*r.Float64())
		}
		pat := u.Order().Pattern(2 + r.IntN(n-1))
		failed := false
		fresh := func(e float64) mech.Mechanism {
			m, _, _, err := solveRobustLP(mechSpec(pi, pat, e), set, slv)
			failed = failed || err != nil // a point that fails the audit: no reference
			return m
		}
		lo, hi := 0.0, 8.0
		if fresh(hi) == nil {
			continue // no mechanism with this pattern over the set
		}
		for range 40 {
			if mid := (lo + hi) / 2; fresh(mid) != nil {
				hi = mid
			} else {
				lo = mid
			}
		}
		if failed {
			continue
		}
		tested++
		rp := &robustProber{prior: pi, pat: pat, set: set, slv: slv}
		for _, d := range []float64{2, 0.5, -0.5, 0.1, -0.1, 0.01, -0.01, 1, -0.3, 0.002, -0.002, 3} {
			e := hi + d
			if e < 0 {
				continue
			}
			m, _, err := rp.probe(e)
			if err != nil {
				t.Fatal(err)
			}
			if (m != nil) != (d > 0) {
				t.Fatalf("trial %d: least ε %.9g, the loaded model at %.9g says feasible %v", trial, hi, e, m != nil)
			}
			if m != nil && leakage.PMLOver(set, m) > e+1e-7 {
				t.Fatalf("trial %d: PML over the set %g above %g", trial, leakage.PMLOver(set, m), e)
			}
		}
		rp.close()
	}
	if tested < 6 {
		t.Fatalf("only %d of 12 trials had a reference", tested)
	}
}
