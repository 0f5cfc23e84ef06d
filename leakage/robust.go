package leakage

import (
	"math"

	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// column returns column j of p.
func column(p mech.Mechanism, j int) []float64 {
	c := make([]float64, len(p))
	for i := range p {
		c[i] = p[i][j]
	}
	return c
}

// PMLOver returns the largest PML of p over the priors of the set,
//
//	max_j log( max_i p_ij / min_{π∈Π} Σ_k π_k p_kj )
//
// over the columns that are not all zero (docs/theory.md, "When the prior
// is estimated"). A column that some prior of the set gives mass 0 while
// it has a positive entry makes the value +Inf. For the set {π̂} it is
// PML(π̂, p); for the whole simplex it is LDP(p).
func PMLOver(s *mech.PriorSet, p mech.Mechanism) float64 {
	if p.CheckPrior(s.Center) != nil {
		return math.NaN()
	}
	_, m := p.Dims()
	best := 0.0
	for j := range m {
		c := column(p, j)
		mx := 0.0
		for _, v := range c {
			mx = max(mx, v)
		}
		if mx <= 0 {
			continue
		}
		best = max(best, mathx.LogRatio(mx, s.MinMass(c)))
	}
	return best
}

// PMCOver returns the largest PMC of p over the priors of the set: the
// largest log( max_{π∈Π} Σ_k π_k p_kj / p_ij ) over the columns that are
// not all zero, +Inf when such a column has a zero entry. It is the lower
// level ε_l of ALIP over the set.
func PMCOver(s *mech.PriorSet, p mech.Mechanism) float64 {
	if p.CheckPrior(s.Center) != nil {
		return math.NaN()
	}
	_, m := p.Dims()
	best := 0.0
	for j := range m {
		c := column(p, j)
		mn, mx := math.Inf(1), 0.0
		for _, v := range c {
			mn = min(mn, v)
			mx = max(mx, v)
		}
		switch {
		case mx <= 0:
		case mn <= 0:
			return math.Inf(1)
		default:
			best = max(best, mathx.LogRatio(s.MaxMass(c), mn))
		}
	}
	return best
}

// ALIPOver returns the ALIP levels (ε_l, ε_u) of p over the set:
// (PMCOver, PMLOver).
func ALIPOver(s *mech.PriorSet, p mech.Mechanism) (lower, upper float64) {
	return PMCOver(s, p), PMLOver(s, p)
}

// LIPOver returns the LIP level of p over the set, max(ε_l, ε_u) of
// ALIPOver.
func LIPOver(s *mech.PriorSet, p mech.Mechanism) float64 {
	l, u := ALIPOver(s, p)
	return max(l, u)
}
