package worstcase

import (
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/mech"
)

// Exact values of ε*.
//
// ε* is often a value the search can name. Output j can be used at all
// only from its opening c_j = −log π(A_j) (A_j: the inputs allowed for j;
// mech.Pattern.OutputBounds), and the optimum often needs output j right
// there, its column then being 1_{A_j} scaled; with a uniform prior the
// openings are logarithms of rationals, log(N/|A_j|), and other breakpoints
// are too (log 3 on a 128-cell grid).
//
// Just above such a point the feasible set is a sliver: the columns of
// the binding outputs are within a relative 1e-10 of each other, and the
// probes' bases, made of nearly parallel columns, return points that audit
// 1e-9 above their ε (the LP's as well as the column generation's), where
// the search needs 1e-10. At the point itself the sliver closes to a ray
// and the same probes return a point that audits within rounding of it.
// So once a mechanism was found and the proven lower end lo is within tol
// of a candidate (an opening, the log of a rational p/q with q ≤
// maxDenominator, and after near misses lo itself), the search probes the
// candidate, then a hair above it (where rounding in e^{−ε} could leave it
// just infeasible); an audited mechanism there closes the bracket. The
// constants that say when and how far (lazyExact, exactHair, lowerAsExact,
// lowerHair, maxDenominator) are in policy.go.

// openings returns the distinct finite positive openings of pat's outputs,
// in increasing order.
func openings(pi mech.Prior, pat mech.Pattern) []float64 {
	var out []float64
	for _, c := range pat.OutputBounds(pi) {
		if c > 0 && !math.IsInf(c, 1) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// rationalNear returns log(p/q) for the least q ≤ maxDenominator whose
// p = round(q e^{lo}) puts log(p/q) within tol of lo, and whether there is
// one.
func rationalNear(lo, tol float64) (float64, bool) {
	lambda := math.Exp(lo)
	if lo <= 0 || math.IsInf(lambda, 1) {
		return 0, false
	}
	for q := 1.0; q <= maxDenominator; q++ {
		p := math.Round(q * lambda)
		if p <= q {
			continue
		}
		if c := math.Log(p / q); math.Abs(c-lo) <= tol {
			return c, true
		}
	}
	return 0, false
}

// candidates returns the exact values worth a probe near the proven lower
// end lo, lowest first: the openings within tol of lo, the log of a
// rational within tol of it, and lo itself after lowerAsExact near misses
// (a probe at every new proof's bound pays on no family and costs the
// random one as much again).
func (st *steer) candidates(lo, tol float64) []float64 {
	var cs []float64
	for _, c := range st.openings {
		if math.Abs(c-lo) <= tol {
			cs = append(cs, c)
		}
	}
	if c, ok := rationalNear(lo, tol); ok {
		cs = append(cs, c)
	}
	if st.nearMisses >= lowerAsExact {
		cs = append(cs, lo)
	}
	slices.Sort(cs)
	return slices.Compact(cs)
}

// exactProbe returns the next probe the search owes a candidate exact
// value (see candidates): the candidate c, then c a hair above it unless a
// proof put ε* above c. It is owed once the steering interval's upper end
// is within lazyExact of c, and, unless lazyExact is set, as soon as the
// last probe found a mechanism; never for a candidate at or above the
// upper end.
func (st *steer) exactProbe(b *bracket, tol float64) (float64, bool) {
	for _, c := range st.candidates(b.lo, tol) {
		if c >= b.hi || c < b.sl-tol || st.tried[c] >= 2 {
			continue
		}
		if near := b.hv-c <= lazyExact*max(1, c); !near && (st.lazyExact || !st.above) {
			continue
		}
		if st.tried == nil {
			st.tried = map[float64]int{}
		}
		t := c
		if st.tried[c] == 1 {
			t = c + exactHair*max(1, c)
			if c == b.lo {
				t = c + lowerHair*tol
			}
		}
		st.tried[c]++
		st.exactAt = c
		return t, true
	}
	return 0, false
}

// atExact probes t, a candidate or a hair above it, for its evidence
// alone: by the pure-Go probe when the search has one (an LP would cost
// more than the candidate saves), else by the LP.
func (p *prober) atExact(t, level float64) (outcome, error) {
	if !p.ipm && !p.cols {
		return p.lpProbe(t, level, false)
	}
	o, ev := p.goProbe(t)
	if o.v == unproven && ev != nil {
		o.Evidence = ev.Evidence
	}
	return o, nil
}

// takeExact takes the evidence of a probe at a candidate (or a hair above
// it) t into the bracket: an audited mechanism lowers the upper end, a
// proof raises the lower one. A verdict without evidence does not steer:
// the probe was not placed by the search's placement.
func (b *bracket) takeExact(o outcome, t float64, pat mech.Pattern, st *steer) {
	// A proof of the candidate itself (ε* ≥ c − 1e-14, which the verdict
	// counts as infeasible within proofMargin) says nothing about c.
	above := o.v == infeasible && o.Lower > t
	if above {
		st.tried[st.exactAt] = 2 // proven: ε* is above this candidate
	}
	if o.Mechanism != nil && o.PML < b.hi && pat.Holds(o.Mechanism) {
		b.mech, b.hi, b.exact = o.Mechanism, o.PML, true
		b.hv = min(b.hv, b.hi)
	}
	if o.Alpha != nil {
		b.raise(o.Lower, o.Alpha)
		b.sl = max(b.sl, b.lo)
		if above {
			b.sl = max(b.sl, t)
		}
	}
}
