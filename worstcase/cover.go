package worstcase

import (
	"errors"
	"math"
	"slices"
	"sync"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// coverer decides the patterns of a value search by their fractional
// covers (colgen.Cover) before any probe: the cover's packing proves
// ε* ≥ log τ* for every prior (checked by certify.DualBound on the whole
// pattern), and a flow of the prior's mass along the cover
// (colgen.Flow) gives a mechanism, audited on every pair. On location
// grids at thresholds near half the side both meet at ε* (docs/performance.md),
// so that most decisions of the best value's binary search, and the final
// bracket, need no master.
type coverer struct {
	pi  mech.Prior
	sym *colgen.Symmetry // a symmetry of the utility (not necessarily of the prior) that folds the covering LP, or nil
	// noCuts leaves the cuts (cut) out of hint: where a symmetry of the
	// prior folds the master, its probes settle what the cover leaves
	// open for less than the cuts' unfolded LPs.
	noCuts bool

	// mu guards what follows: a curve's thresholds ask from several
	// goroutines.
	mu sync.Mutex
	// covers counts the covering LPs solved, gens those of them solved
	// unfolded by generation (colgen.SolveCoverGen).
	covers, gens int
	// last is the cover of the pattern of index lastK, or nil.
	last      *coverBound
	lastK     int
	lastLevel float64
}

// coverBound is what a pattern's cover gives: the bound its packing
// proves (ok false if none), the cover it comes from, and the covers the
// flows route along, best first (the same one unless the prior breaks the
// symmetry that folds the LP: see colgen.SolveCover's whole).
type coverBound struct {
	cv     *colgen.Cover
	routes []*colgen.Cover
	lb     float64
	alpha  []float64
	ok     bool
}

// coverFor is newCoverer where covers is set, nil otherwise.
func coverFor(pi mech.Prior, u mech.Utility, opt Options, covers bool) *coverer {
	if !covers {
		return nil
	}
	return newCoverer(pi, u, opt)
}

// newCoverer returns the coverer of a value search of pi and u, or nil
// when its probes are not the pure-Go ones (the LP and interior-point
// searches keep their own steps). It folds the covering LP by opt's
// symmetry when one is given, else by a symmetry DetectSymmetry finds of
// u alone: the cover does not depend on the prior, so the reflections of
// a grid fold it under a clustered prior too.
func newCoverer(pi mech.Prior, u mech.Utility, opt Options) *coverer {
	if opt.Probes != ProbesAuto && opt.Probes != ProbesColumns {
		return nil
	}
	c := &coverer{pi: pi, lastK: -1}
	s := opt.Symmetry
	if s == nil {
		flat := make(mech.Prior, len(pi))
		for i := range flat {
			flat[i] = 1 / float64(len(pi))
		}
		s = DetectSymmetry(flat, u)
	}
	if s != nil && len(s.In) > 0 {
		c.sym = &colgen.Symmetry{In: s.In, Out: s.Out}
	}
	return c
}

// bound returns the cover of pattern k of fam without the outputs that no
// mechanism at ε ≤ level can use (the pruning bound c_j above level; a
// mechanism routed along them could not carry their weight), solving its
// covering LP unless it was the last one asked; the packing's proof
// still holds for the whole pattern, as certify.DualBound checks it there
// (a left-out output's allowed inputs hold less than e^{−level}). An
// unfolded LP too large for the whole model is generated
// (colgen.SolveCoverGen). nil when the LP fails. Safe for concurrent use.
func (c *coverer) bound(fam family, k int, level float64) *coverBound {
	c.mu.Lock()
	if c.last != nil && c.lastK == k && c.lastLevel == level {
		defer c.mu.Unlock()
		return c.last
	}
	c.mu.Unlock()
	b, covers, gens := c.solve(fam.pattern(k), level)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.covers += covers
	c.gens += gens
	c.last, c.lastK, c.lastLevel = b, k, level
	if b == nil {
		c.lastK = -1
	}
	return b
}

// solve is bound's work for pattern pat: the cover (nil if none), and the
// covering LPs solved, and of them generated.
func (c *coverer) solve(pat mech.Pattern, level float64) (b *coverBound, covers, gens int) {
	cb, _ := columnBounds(c.pi, pat)
	drop := make([]bool, len(cb))
	for j, v := range cb {
		drop[j] = v > level+pruneSlack
	}
	cv, err := colgen.SolveCover(pat, c.sym, drop, true)
	covers++
	if errors.Is(err, colgen.ErrCoverTooLarge) {
		// Unfolded and too large for the whole LP: generated.
		covers++
		gens++
		cv, err = colgen.SolveCoverGen(pat, drop)
	}
	if err != nil {
		return nil, covers, gens
	}
	b = &coverBound{cv: cv, routes: []*colgen.Cover{cv}}
	b.lb, b.alpha, b.ok = cv.Proof(c.pi, pat)
	if cv.Mixed {
		// The prior leaves out only some outputs of an orbit: the
		// folded LPs bracket the cover of the outputs kept, one keeping
		// the mixed orbits whole (a weaker proof), the other leaving
		// them out (a costlier route). The unfolded cover of exactly the
		// outputs kept, generated from both, is the proof and the route
		// in between; the folded route stays as a fall-back.
		b.routes = nil
		covers++
		route, err := colgen.SolveCover(pat, c.sym, drop, false)
		if err != nil {
			route = nil
		}
		start := []*colgen.Cover{cv}
		if route != nil {
			start = append(start, route)
		}
		covers++
		gens++
		if gen, err := colgen.SolveCoverGen(pat, drop, start...); err == nil {
			b.routes = append(b.routes, gen)
			if lb, alpha, ok := gen.Proof(c.pi, pat); ok && (!b.ok || lb > b.lb) {
				b.lb, b.alpha, b.ok = lb, alpha, true
			}
		}
		if route != nil {
			b.routes = append(b.routes, route)
		}
	}
	return b, covers, gens
}

// flow returns the mechanism that routes the prior along the cover at
// ratio lambda (route, without the flow's cuts) and its audited PML (+Inf
// if none).
func (c *coverer) flow(pat mech.Pattern, cv *colgen.Cover, lambda float64) (mech.Mechanism, float64) {
	p, a, _ := c.route(pat, cv, lambda, 0)
	return p, a
}

// flowWithoutDust is colgen.Flow, routed again without the pairs where the
// flow left dust (entries below certify.DustEntry, which the searches
// clean off: moving them raises the PML by about their mass, past a
// bracket closed at the cover's bound): the pairs are forbidden and the
// prior routed anew at the same ratio, up to dustRoutes times. It returns
// the last mechanism with the pattern (possibly with dust) and the violated
// sets of the first flow that fell short (colgen.Flow).
func flowWithoutDust(pi mech.Prior, pat mech.Pattern, q []float64, lambda float64, sets int) (mech.Mechanism, [][]int) {
	p, cut := colgen.FlowSets(pi, pat, q, lambda, sets)
	sub, cloned := pat, false
	for range dustRoutes {
		if p == nil {
			return nil, cut
		}
		dust := false
		for i, row := range p {
			for j, v := range row {
				if v > 0 && v < certify.DustEntry {
					if !cloned {
						sub, cloned = clonePattern(pat), true
					}
					dust = true
					sub[i][j] = false
				}
			}
		}
		if !dust {
			return p, nil
		}
		next, _ := colgen.Flow(pi, sub, q, lambda)
		if next == nil {
			return cleanDust(p), nil
		}
		p = next
	}
	return cleanDust(p), nil
}

// cleanDust returns p without its dust (clean.WithoutDust: a sub-pattern,
// rows renormalised) when a flow routed without those pairs is not found:
// the searches return no mechanism with dust, and a caller audits the
// copy it gets, so the level it reports is the cleaned mechanism's.
func cleanDust(p mech.Mechanism) mech.Mechanism {
	if c, err := clean.WithoutDust(p); err == nil && c != nil {
		return c
	}
	return p
}

func clonePattern(pat mech.Pattern) mech.Pattern {
	out := make(mech.Pattern, len(pat))
	for i, row := range pat {
		out[i] = slices.Clone(row)
	}
	return out
}

// decide settles pattern k of fam at the budget limit by its cover when
// it can: infeasible with the packing's proof when that exceeds limit,
// feasible with the flow's mechanism when it audits within limit (the
// flow at τ*, whose mechanism is often at ε* itself, else at a ratio a
// hair below e^limit, where it has the most room); ok false otherwise.
func (c *coverer) decide(fam family, k int, limit float64) (outcome, bool) {
	b := c.bound(fam, k, limit)
	if b == nil {
		return outcome{}, false
	}
	if b.ok && b.lb > limit {
		return outcome{v: infeasible, Evidence: certify.Evidence{Lower: b.lb, Alpha: b.alpha}}, true
	}
	pat := fam.pattern(k)
	for _, route := range b.routes {
		for _, lambda := range []float64{route.Tau * tightRatio, math.Exp(limit) * (1 - budgetRoom)} {
			if p, a := c.flow(pat, route, lambda); a <= limit {
				return outcome{v: feasible, Evidence: certify.Evidence{Mechanism: p, PML: a}}, true
			}
		}
	}
	return outcome{}, false
}

// hint adds to h what pattern k's cover gives its least-ε search: the
// packing's proof as the lower end, and the flow's mechanism at τ* when
// it audits below h's.
func (c *coverer) hint(fam family, k int, limit float64, h hint, tol float64) hint {
	b := c.bound(fam, k, limit)
	if b == nil {
		return h
	}
	if b.ok && b.lb > h.lo {
		h.lo, h.loKind, h.proof = b.lb, BoundInfeasible, b.alpha
	}
	pat := fam.pattern(k)
	for _, route := range b.routes {
		for _, r := range tightRatios {
			if p, a := c.flow(pat, route, route.Tau*r); p != nil && (h.hiMech == nil || a < h.hi) {
				h.hiMech, h.hi = p, a
			}
		}
	}
	if !c.noCuts && (h.hiMech == nil || h.hi-h.lo > tol) {
		h = c.cut(pat, h, tol, b.routes)
	}
	return h
}

// cut closes the bracket of h for pattern pat, where the cover left it
// open (a prior far from uniform), by the covering LPs with the prior's
// cuts (colgen.SolveCuts) at a ratio λ: at each λ, either the LP's
// optimum τ(λ) exceeds λ, and its multipliers, checked by
// certify.DualBound on the whole pattern, prove a bound above log λ; or
// the flow of the prior along its cover at λ gives a mechanism, audited;
// or the flow falls short, and the sets of inputs it leaves short
// (colgen.Flow) are cuts its cover violates, added to the LP. The cuts
// found at one λ hold at every other.
//
// ε* is the fixed point τ(λ) = λ once the LP has the cuts that matter,
// and the proofs alone approach it from below about as fast as τ(λ) − λ
// shrinks, by a factor near 1 per LP where τ's slope is near 1. So the
// next λ is the secant step through the last two ratios proven below ε*
// (a step past ε* is no loss: there the flow routes, an upper bound),
// and after a flow routed above a proven ratio, the secant between the
// two sides (regula falsi) when it lies well inside the bracket, else its
// middle. It stops when the
// bracket is within tol, when no step moves λ, when a flow falls short on
// no new cut, after cutStall LPs at one λ or after cutRounds LPs; whatever
// it proved or found stands.
func (c *coverer) cut(pat mech.Pattern, h hint, tol float64, start []*colgen.Cover) hint {
	// The pruning bound is proven too: below it some input has no
	// output usable at all.
	cb, _ := columnBounds(c.pi, pat)
	if lb := pruningBound(pat, cb); lb > h.lo && (h.hiMech == nil || lb <= h.hi) {
		h.lo, h.loKind, h.proof = lb, BoundPruning, nil
	}
	lam := max(1, math.Exp(h.lo)*(1+cutSlack))
	var cuts [][]int
	// below: the last ratio whose LP's optimum exceeded it, with that
	// optimum (lam 0 if none).
	var below struct{ lam, tau float64 }
	n, stall := 0, 0
	for ; n < cutRounds; n++ {
		if h.hiMech != nil && h.hi-h.lo <= tol || stall == cutStall {
			break
		}
		stall++
		cv, err := colgen.SolveCuts(c.pi, pat, lam, cuts, start...)
		if err != nil {
			break
		}
		start = []*colgen.Cover{cv}
		if lb, alpha, ok := cv.Proof(c.pi, pat); ok && lb > h.lo {
			h.lo, h.loKind, h.proof = lb, BoundInfeasible, alpha
			if h.hiMech != nil {
				h.lo = min(h.lo, h.hi)
			}
		}
		if cv.Tau > lam*(1+cutGap) {
			// λ is below ε* for the cuts so far.
			next := max(math.Exp(h.lo), c.secant(below.lam, below.tau, lam, cv.Tau, h))
			below.lam, below.tau = lam, cv.Tau
			if next > lam*(1+cutSlack) {
				lam, stall = next, 0
				continue
			}
			break
		}
		var violated [][]int
		routed := false
		for _, r := range tightRatios {
			p, a, sets := c.route(pat, cv, max(lam, cv.Tau)*r, flowSets)
			if p != nil {
				if h.hiMech == nil || a < h.hi {
					h.hiMech, h.hi = p, a
				}
				routed = true
				break
			}
			if violated == nil {
				violated = sets
			}
		}
		if routed {
			// Routed at λ above the proven bound: the next ratio lies
			// between the two sides, at the secant's root when it lies
			// well inside the bracket, else in the middle (the LP's
			// optimum can equal λ over a range of ratios, where the
			// secant does not move).
			if h.hiMech == nil || h.hi-h.lo <= tol {
				break
			}
			lo, hi := math.Exp(h.lo), math.Exp(h.hi)
			next := math.Sqrt(lo * hi)
			if below.lam > 0 && below.lam < lam {
				if s := c.secant(below.lam, below.tau, lam, cv.Tau, h); s > lo+(hi-lo)*inside && s < hi-(hi-lo)*inside {
					next = s
				}
			}
			lam, stall = next, 0
			continue
		}
		added := 0
		for _, set := range violated {
			if !slices.ContainsFunc(cuts, func(c []int) bool { return slices.Equal(c, set) }) {
				cuts = append(cuts, set)
				added++
			}
		}
		if added == 0 {
			// The flow falls short on cuts the LP already covers (by
			// its rounding): no further cut.
			break
		}
	}
	c.mu.Lock()
	c.covers += n
	c.mu.Unlock()
	return h
}

// secant returns the ratio where the line through (l0, t0 − l0) and
// (l1, t1 − l1), the LP's excess over its ratio at two ratios, meets
// zero, kept below the bracket's upper end and within secantReach excesses
// of l1; 0 when there is no such line (l0 ≤ 0, the same ratios or
// excesses).
func (c *coverer) secant(l0, t0, l1, t1 float64, h hint) float64 {
	g0, g1 := t0-l0, t1-l1
	if !(l0 > 0) || l0 == l1 || g0 == g1 {
		return 0
	}
	s := l1 - g1*(l1-l0)/(g1-g0)
	if !(s > 0) || math.IsInf(s, 0) {
		return 0
	}
	if g1 > 0 {
		s = min(s, l1+secantReach*g1)
	}
	if h.hiMech != nil {
		s = min(s, math.Exp(h.hi))
	}
	return s
}

// route is flow along cover cv at ratio lambda, with the sets of inputs
// the flow leaves short when it falls short (colgen.FlowSets: the minimum
// cut's, then up to sets more).
func (c *coverer) route(pat mech.Pattern, cv *colgen.Cover, lambda float64, sets int) (mech.Mechanism, float64, [][]int) {
	sum := 0.0
	for _, x := range cv.X {
		sum += x
	}
	if !(sum > 0) {
		return nil, math.Inf(1), nil
	}
	q := make([]float64, len(cv.X))
	for j, x := range cv.X {
		q[j] = x / sum
	}
	p, cut := flowWithoutDust(c.pi, pat, q, lambda, sets)
	if p == nil || !pat.Holds(p) {
		if len(cut) == 0 {
			return nil, math.Inf(1), nil
		}
		return nil, math.Inf(1), cut
	}
	return p, leakage.PML(c.pi, p), nil
}
