package certificate

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/mech"
)

// aboveExact reports whether w lies above a prior of the set, in exact
// rationals: box, w ≥ l and Σ min(u, w) ≥ S; ball, w ≥ 0, Σ w ≥ S and
// Σ max(0, π̂ − w) ≤ r/2 (S = Σ π̂).
func aboveExact(set *mech.PriorSet, pi, w []float64) bool {
	S, sum, def := new(big.Rat), new(big.Rat), new(big.Rat)
	r := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	for k := range pi {
		S.Add(S, r(pi[k]))
		if set.IsBox() {
			if w[k] < set.Lower[k] {
				return false
			}
			sum.Add(sum, r(math.Min(w[k], set.Upper[k])))
			continue
		}
		if w[k] < 0 {
			return false
		}
		sum.Add(sum, r(w[k]))
		if w[k] < pi[k] {
			def.Add(def, new(big.Rat).Sub(r(pi[k]), r(w[k])))
		}
	}
	if sum.Cmp(S) < 0 {
		return false
	}
	if !set.IsBox() {
		half := new(big.Rat).Mul(r(set.Radius), big.NewRat(1, 2))
		return def.Cmp(half) <= 0
	}
	return true
}

// AboveSet raises a vector just off the set's edge (a box's least mass or
// a ball's sum and deficit missed by a few 1e-17) onto it: the result is
// above a prior of the set in exact arithmetic, at least the vector
// entrywise, and within 1e-15 of it; a vector already above comes back
// unchanged.
func TestAboveSetRaisesOntoTheEdge(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	raised := 0
	for trial := range 2000 {
		n := 2 + rng.IntN(14)
		pi := make([]float64, n)
		tot := 0.0
		for k := range pi {
			pi[k] = 0.1 + rng.Float64()
			tot += pi[k]
		}
		for k := range pi {
			pi[k] /= tot
		}
		v := make([]float64, n)
		var set *mech.PriorSet
		var err error
		if trial%2 == 0 {
			lo, up := make([]float64, n), make([]float64, n)
			for k := range pi {
				lo[k], up[k] = 0.8*pi[k], math.Min(1, 1.25*pi[k])
			}
			set, err = mech.NewBoxSet(pi, lo, up)
			copy(v, pi)
		} else {
			set, err = mech.NewL1Set(pi, 0.3*pi[0])
			copy(v, pi)
			v[0] -= 0.15 * pi[0]
			v[1] += 0.15 * pi[0]
		}
		if err != nil {
			t.Fatal(err)
		}
		for k := range v {
			v[k] -= 3e-17 * rng.Float64()
		}
		was := aboveExact(set, pi, v)
		w, ok := AboveSet(set, pi, v)
		if !ok {
			t.Fatalf("trial %d: no raise found for %v", trial, v)
		}
		if !aboveExact(set, pi, w) {
			t.Fatalf("trial %d: %v is not above the set", trial, w)
		}
		for k := range w {
			if w[k] < v[k] || w[k]-v[k] > 1e-15 {
				t.Fatalf("trial %d: entry %d moved from %v to %v", trial, k, v[k], w[k])
			}
			if was && w[k] != v[k] {
				t.Fatalf("trial %d: a vector above the set changed at %d", trial, k)
			}
		}
		if !was {
			raised++
		}
	}
	if raised < 500 {
		t.Errorf("only %d of 2000 vectors needed a raise", raised)
	}
}
