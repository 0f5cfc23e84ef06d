package mech

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// PriorSet is a closed convex set Π of priors holding an estimate π̂ of sum
// S: either a box {l ≤ π ≤ u, Σπ between 1 and S} or the L1 ball {‖π − π̂‖₁
// ≤ r, π ≥ 0, Σπ = S}. S is 1 but for the rounding a problem file's prior
// may have (within 1e-9): the engines' models read the box with Σπ = 1,
// the audit (MinMass, MaxMass) as the certificate checker does. A guarantee "over Π" holds for every prior of the set
// (docs/theory.md, "When the prior is estimated").
//
// Build one with NewBoxSet or NewL1Set; the zero value is not usable.
type PriorSet struct {
	// Center is the estimate π̂; it lies in the set.
	Center Prior
	// Lower and Upper are the box's bounds, nil for an L1 ball.
	Lower, Upper []float64
	// Radius is the L1 radius of a ball, 0 for a box.
	Radius float64
}

// IsBox reports whether s is a box (as opposed to an L1 ball).
func (s *PriorSet) IsBox() bool { return s.Lower != nil }

// N returns the number of letters.
func (s *PriorSet) N() int { return len(s.Center) }

// NewBoxSet validates and returns the box {lower ≤ π ≤ upper} around
// center (PriorSet says which totals): lower ≤ center ≤ upper entrywise,
// 0 ≤ lower, upper ≤ 1, and Σ lower ≤ 1 ≤ Σ upper within SumTol. Errors
// are *FieldError values naming prior_set.lower or prior_set.upper and
// the entry.
func NewBoxSet(center Prior, lower, upper []float64) (*PriorSet, error) {
	if _, err := NewPrior(center); err != nil {
		return nil, err
	}
	n := len(center)
	for _, b := range []struct {
		field string
		v     []float64
	}{{"prior_set.lower", lower}, {"prior_set.upper", upper}} {
		if len(b.v) != n {
			return nil, errorf(b.field, -1, -1, "has %d entries, but the prior has %d letters", len(b.v), n)
		}
		for i, x := range b.v {
			switch {
			case math.IsNaN(x):
				return nil, errorf(b.field, -1, i, "is NaN")
			case x < 0:
				return nil, errorf(b.field, -1, i, "is negative (%g)", x)
			case x > 1:
				return nil, errorf(b.field, -1, i, "is %g, above 1", x)
			}
		}
	}
	sl, su := 0.0, 0.0
	for i := range n {
		if lower[i] > center[i] {
			return nil, errorf("prior_set.lower", -1, i, "is %g, above the prior's %g (the set must hold the estimate)", lower[i], center[i])
		}
		if upper[i] < center[i] {
			return nil, errorf("prior_set.upper", -1, i, "is %g, below the prior's %g (the set must hold the estimate)", upper[i], center[i])
		}
		sl += lower[i]
		su += upper[i]
	}
	if sl > 1+SumTol {
		return nil, errorf("prior_set.lower", -1, -1, "sums to %.17g, above 1: no prior fits the box", sl)
	}
	if su < 1-SumTol {
		return nil, errorf("prior_set.upper", -1, -1, "sums to %.17g, below 1: no prior fits the box", su)
	}
	return &PriorSet{Center: center, Lower: lower, Upper: upper}, nil
}

// NewL1Set validates and returns the L1 ball of radius r around center cut
// by the simplex, 0 ≤ r ≤ 2 (2 is the diameter of the simplex: r = 2 is the
// whole simplex).
func NewL1Set(center Prior, r float64) (*PriorSet, error) {
	if _, err := NewPrior(center); err != nil {
		return nil, err
	}
	if math.IsNaN(r) || r < 0 || r > 2 {
		return nil, errorf("prior_set.l1_radius", -1, -1, "is %g; want 0 ≤ r ≤ 2", r)
	}
	return &PriorSet{Center: center, Radius: r}, nil
}

// Simplex returns the box holding every prior on the letters of center.
func Simplex(center Prior) *PriorSet {
	n := len(center)
	lo, up := make([]float64, n), make([]float64, n)
	for i := range up {
		up[i] = 1
	}
	return &PriorSet{Center: center, Lower: lo, Upper: up}
}

// MinMass returns min over π ∈ Π of Σ_k π_k c_k: the least mass a column c
// of a mechanism can get under a prior of the set, exact to its last bit,
// the box's priors totalling between 1 and the estimate's own sum, read
// within [min c, max c] (setmass.go says why).
func (s *PriorSet) MinMass(c []float64) float64 { return withinCosts(s.massOver(c, false), c) }

// MaxMass returns max over π ∈ Π of Σ_k π_k c_k, as MinMass.
func (s *PriorSet) MaxMass(c []float64) float64 { return withinCosts(s.massOver(c, true), c) }

// withinCosts returns v clamped to [min c, max c], where the mass of every
// distribution lies. Priors of total S ≠ 1 can leave it, by a factor S
// within 1e-9 of 1, and a constant column, whose level is 0 under every
// distribution, would get a level of |log S| (the estimate's rounding):
// above a budget of 0, and 1e-9 above every budget an engine designs for
// with priors of total 1. The certificate checker reads the masses so too.
func withinCosts(v float64, c []float64) float64 {
	if len(c) == 0 {
		return v
	}
	return min(max(v, slices.Min(c)), slices.Max(c))
}

// Extreme returns a prior of the set minimising Σ_k π_k c_k (maximising it
// when maximise is set). Both sets have greedy solutions: a box starts from its
// lower bounds and pours the remaining mass 1 − Σ l into the cheapest
// letters up to their upper bounds; a ball moves up to r/2 of mass from
// the most expensive letters onto the cheapest one (each unit moved costs 2
// of the radius). Ties are broken by letter index, so the answer is
// deterministic.
func (s *PriorSet) Extreme(c []float64, maximise bool) []float64 {
	n := len(s.Center)
	if len(c) != n {
		panic(fmt.Sprintf("mech: PriorSet.Extreme: %d costs for %d letters", len(c), n))
	}
	order := make([]int, n) // cheapest first (most valuable first when max)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if maximise {
			return cmp.Compare(c[b], c[a])
		}
		return cmp.Compare(c[a], c[b])
	})
	pi := make([]float64, n)
	if s.IsBox() {
		rest := 1.0
		for i, l := range s.Lower {
			pi[i] = l
			rest -= l
		}
		for _, k := range order {
			if rest <= 0 {
				break
			}
			add := min(rest, s.Upper[k]-s.Lower[k])
			pi[k] += add
			rest -= add
		}
		return pi
	}
	best := order[0]
	others := 0.0 // the mass that can move onto best
	for k, v := range s.Center {
		if k != best {
			others += v
		}
	}
	if s.Radius/2 >= others {
		pi[best] = 1 // everything moves: the vertex, exactly
		return pi
	}
	copy(pi, s.Center)
	move := s.Radius / 2
	for t := n - 1; t > 0 && move > 0; t-- {
		k := order[t]
		take := min(move, pi[k])
		pi[k] -= take
		pi[best] += take
		move -= take
	}
	return pi
}

// Contains reports whether pi lies in the set up to tol (in each bound,
// and in the L1 distance).
func (s *PriorSet) Contains(pi []float64, tol float64) bool {
	if len(pi) != len(s.Center) {
		return false
	}
	sum, l1 := 0.0, 0.0
	for i, v := range pi {
		if v < -tol {
			return false
		}
		sum += v
		l1 += math.Abs(v - s.Center[i])
		if s.IsBox() && (v < s.Lower[i]-tol || v > s.Upper[i]+tol) {
			return false
		}
	}
	if math.Abs(sum-1) > tol {
		return false
	}
	return s.IsBox() || l1 <= s.Radius+tol
}
