package mech_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
)

// ratFill is the least (largest when hi) mass of c over the set in exact
// rationals: a box pours min(1, S) − Σ l (max(1, S) − Σ l when hi), S the
// estimate's sum, from l onto the cheapest letters up to u; a ball moves
// min(r/2, S − π̂_b) onto the cheapest letter b from the dearest others.
func ratFill(s *mech.PriorSet, c []float64, hi bool) *big.Rat {
	n := len(c)
	r := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	order := make([]int, n)
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if hi {
			a, b = b, a
		}
		return r(c[a]).Cmp(r(c[b]))
	})
	total := new(big.Rat)
	for _, v := range s.Center {
		total.Add(total, r(v))
	}
	sum, t := new(big.Rat), new(big.Rat)
	if s.IsBox() {
		// Priors of any total between 1 and S: the least mass pours the
		// smaller, the largest the larger.
		rest := big.NewRat(1, 1)
		if total.Cmp(rest) < 0 != hi {
			rest.Set(total)
		}
		for k, l := range s.Lower {
			rest.Sub(rest, r(l))
			sum.Add(sum, t.Mul(r(l), r(c[k])))
		}
		for _, k := range order {
			if rest.Sign() <= 0 {
				break
			}
			amt := new(big.Rat).Sub(r(s.Upper[k]), r(s.Lower[k]))
			if amt.Cmp(rest) > 0 {
				amt.Set(rest)
			}
			sum.Add(sum, t.Mul(amt, r(c[k])))
			rest.Sub(rest, amt)
		}
		return sum
	}
	for k, v := range s.Center {
		sum.Add(sum, t.Mul(r(v), r(c[k])))
	}
	b := order[0]
	rest := new(big.Rat).Mul(r(s.Radius), big.NewRat(1, 2))
	if other := new(big.Rat).Sub(total, r(s.Center[b])); other.Cmp(rest) < 0 {
		rest = other
	}
	for idx := n - 1; idx > 0 && rest.Sign() > 0; idx-- {
		i := order[idx]
		amt := r(s.Center[i])
		if amt.Cmp(rest) > 0 {
			amt.Set(rest)
		}
		sum.Add(sum, t.Mul(amt, new(big.Rat).Sub(r(c[b]), r(c[i]))))
		rest.Sub(rest, amt)
	}
	return sum
}

// The least and largest masses over a set are the exact fill rounded once
// (read within the column's range) on sets whose estimate sums to 1 within
// 1e-9 but not to 1, boxes whose lower ends reach 0, and columns whose
// entries span 1 to the subnormals: where the float fill's rounding of
// S − Σ l is most of a tiny least mass.
func TestSetMassIsTheExactFill(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	tiny := []float64{0, 1e-18, 3e-200, 5e-324, 1e-300, 0.5, 1}
	for trial := range 3000 {
		n := 2 + rng.IntN(7)
		pi := randinst.Prior(rng, n, 0.05)
		pi[0] *= 1 + (rng.Float64()-0.5)*1e-9 // S within 1e-9 of 1, rarely 1
		var s *mech.PriorSet
		var err error
		if trial%2 == 0 {
			lo, up := make([]float64, n), make([]float64, n)
			for k := range n {
				lo[k] = pi[k] * rng.Float64()
				up[k] = min(1, pi[k]+rng.Float64()*0.7)
				switch rng.IntN(4) {
				case 0:
					lo[k] = 0
				case 1:
					lo[k], up[k] = 0, 1
				}
			}
			s, err = mech.NewBoxSet(pi, lo, up)
		} else {
			s, err = mech.NewL1Set(pi, 2*rng.Float64())
		}
		if err != nil {
			continue // Σ lower or Σ upper out of reach of this estimate
		}
		c := make([]float64, n)
		for k := range c {
			c[k] = rng.Float64()
			if rng.IntN(2) == 0 {
				c[k] = tiny[rng.IntN(len(tiny))]
			}
		}
		for _, hi := range []bool{false, true} {
			got := s.MinMass(c)
			if hi {
				got = s.MaxMass(c)
			}
			want, _ := ratFill(s, c, hi).Float64()
			want = min(max(want, slices.Min(c)), slices.Max(c))
			if got != want {
				t.Fatalf("trial %d (box %v, max %v, c %v): %.17g, exact %.17g", trial, s.IsBox(), hi, c, got, want)
			}
		}
	}
}

// A box whose lower ends are 0 where the column is empty, and whose
// estimate puts 1e-17 on the letter of mass 1: the least mass is the rest
// S − 0.3 − 0.7 = 1e-17 poured there, which a float fill of 1 − Σ l loses
// (it rounds to 0, or to 5.6e-17 with 1e-30 on the first letter: 1.7 nats
// of level).
func TestSetMassOfATinyRest(t *testing.T) {
	s, err := mech.NewBoxSet(mech.Prior{0.3, 0.7, 1e-17}, []float64{0, 0, 0}, []float64{0.3, 0.7, 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.MinMass([]float64{0, 0, 1}); got != 1e-17 {
		t.Errorf("least mass %g, want 1e-17", got)
	}
	c := []float64{1e-30, 0, 1}
	want, _ := new(big.Rat).Add(new(big.Rat).Mul(new(big.Rat).SetFloat64(0.3), new(big.Rat).SetFloat64(1e-30)), new(big.Rat).SetFloat64(1e-17)).Float64()
	if got := s.MinMass(c); got != want {
		t.Errorf("least mass %.17g, want %.17g", got, want)
	}
	if lvl := math.Log(1 / s.MinMass(c)); math.Abs(lvl-math.Log(1/want)) > 1e-15 {
		t.Errorf("level %g", lvl)
	}
}

// A constant column has the mass of its entry under every distribution,
// and keeps it over sets around estimates of sum 1 ± 9e-10: the estimate's
// rounding does not give it a level.
func TestSetMassOfAConstantColumn(t *testing.T) {
	for _, d := range []float64{-9e-10, 9e-10} {
		pi := mech.Prior{0.5, 0.5 + d}
		box, err := mech.NewBoxSet(pi, []float64{0, 1e-7}, []float64{1 - 1e-6, 1})
		if err != nil {
			t.Fatal(err)
		}
		ball, _ := mech.NewL1Set(pi, 0.3)
		for _, s := range []*mech.PriorSet{box, ball} {
			for _, v := range []float64{1, 0.3, 1e-300} {
				c := []float64{v, v}
				if lo, hi := s.MinMass(c), s.MaxMass(c); lo != v || hi != v {
					t.Errorf("drift %g, box %v: masses of (%g, %g) are %g and %g", d, s.IsBox(), v, v, lo, hi)
				}
			}
		}
	}
}
