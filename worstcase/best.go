package worstcase

import (
	"context"
	"fmt"
	"math"
	"math/bits"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// family is a chain of zero patterns indexed 0..k−1, each forbidding at least
// what the previous one forbids, so that ε* is non-decreasing along it
// (Song & Oechtering (2026), Lemma 1). Pattern 0 forbids nothing that matters: some output is
// allowed for every input, so ε*(0) = 0.
type family struct {
	k       int
	pattern func(k int) mech.Pattern
}

// orderFamily is the chain of thresholds h = 1..M of an order.
func orderFamily(pi mech.Prior, o mech.Order) (family, error) {
	if _, err := mech.NewPrior(pi); err != nil {
		return family{}, err
	}
	if _, err := mech.NewOrder(o); err != nil {
		return family{}, err
	}
	if len(o) != len(pi) {
		return family{}, &mech.FieldError{Field: "order", Row: -1, Col: -1,
			Msg: fmt.Sprintf("has %d rows but the prior has %d letters", len(o), len(pi))}
	}
	_, m := o.Dims()
	return family{k: m, pattern: func(k int) mech.Pattern { return o.Pattern(k + 1) }}, nil
}

// valueFamily is the chain of reachable distinct utility values
// (mech.Utility.ReachableValues).
func valueFamily(pi mech.Prior, u mech.Utility) (family, []float64, error) {
	if _, err := mech.NewPrior(pi); err != nil {
		return family{}, nil, err
	}
	if _, err := mech.NewUtility(u); err != nil {
		return family{}, nil, err
	}
	if len(u) != len(pi) {
		return family{}, nil, &mech.FieldError{Field: "utility", Row: -1, Col: -1,
			Msg: fmt.Sprintf("has %d rows but the prior has %d letters", len(u), len(pi))}
	}
	vs := u.ReachableValues()
	return family{k: len(vs), pattern: func(k int) mech.Pattern { return u.Pattern(vs[k]) }}, vs, nil
}

// BestOrder solves problem (1) of Song & Oechtering (2026) for the budget eps: the largest
// order threshold h with ε*(h) ≤ eps, so that an eps-PML mechanism with
// worst-case order at least h exists, and then the least ε for that h, so
// that r.Mechanism has the least PML among the mechanisms reaching h.
//
// ε* is non-decreasing in h (Lemma 1), so h is found by binary search. Each
// decision is free when the utility-safe mechanism is already eps-PML (yes)
// or the pruning bound exceeds eps (no); otherwise it is one feasibility LP
// at eps. eps is compared with a relative tolerance of 1e-12, so a budget
// typed as a breakpoint (e.g. log 2) selects it. r.LPSolves counts every LP,
// including the decisions.
func BestOrder(ctx context.Context, pi mech.Prior, o mech.Order, eps float64, opt Options) (h int, r Result, err error) {
	return bestOrder(ctx, pi, o, eps, opt, true)
}

// bestOrder is BestOrder, with the decisions asking the patterns' covers
// first when covers is set (tests leave them out to test the probes' own
// path).
func bestOrder(ctx context.Context, pi mech.Prior, o mech.Order, eps float64, opt Options, covers bool) (h int, r Result, err error) {
	if err := checkContext(ctx); err != nil {
		return 0, Result{}, err
	}
	fam, err := orderFamily(pi, o)
	if err != nil {
		return 0, Result{}, err
	}
	// Pattern h of o is the pattern of the value h of o read as a utility,
	// so the order's search folds by that utility's symmetries and decides
	// by the same covers as the value search.
	u := orderUtility(o)
	if opt.sym, err = symmetryFor(pi, u, opt); err != nil {
		return 0, Result{}, err
	}
	k, r, err := best(ctx, pi, fam, eps, opt, coverFor(pi, u, opt, covers))
	return k + 1, r, err
}

// orderUtility returns o's ranks as a utility: its pattern of the value h
// is o.Pattern(h), and a permutation that preserves the ranks preserves it.
func orderUtility(o mech.Order) mech.Utility {
	u := make(mech.Utility, len(o))
	for i, row := range o {
		u[i] = make([]float64, len(row))
		for j, r := range row {
			u[i][j] = float64(r)
		}
	}
	return u
}

// BestValue is BestOrder for thresholds on the utility values: the largest
// reachable distinct value v of u such that an eps-PML mechanism exists that
// never releases a pair with u'_ij < v, and the least-PML such mechanism.
// The worst-case value of r.Mechanism (u.WorstCaseValue) is at least v.
func BestValue(ctx context.Context, pi mech.Prior, u mech.Utility, eps float64, opt Options) (v float64, r Result, err error) {
	return bestValue(ctx, pi, u, eps, opt, true)
}

// bestValue is BestValue, with the covers as bestOrder's.
func bestValue(ctx context.Context, pi mech.Prior, u mech.Utility, eps float64, opt Options, covers bool) (v float64, r Result, err error) {
	if err := checkContext(ctx); err != nil {
		return 0, Result{}, err
	}
	fam, vs, err := valueFamily(pi, u)
	if err != nil {
		return 0, Result{}, err
	}
	if opt.sym, err = symmetryFor(pi, u, opt); err != nil {
		return 0, Result{}, err
	}
	k, r, err := best(ctx, pi, fam, eps, opt, coverFor(pi, u, opt, covers))
	if err != nil {
		return 0, r, err
	}
	return vs[k], r, nil
}

// best returns the largest index k of fam with ε*(k) ≤ eps and the least-ε
// result for it. With a coverer, every decision the free bounds leave
// open asks the pattern's cover first, and the final search starts from
// what the cover of its pattern gives.
func best(ctx context.Context, pi mech.Prior, fam family, eps float64, opt Options, cov *coverer) (int, Result, error) {
	cfg, err := opt.config()
	if err != nil {
		return 0, Result{}, err
	}
	if math.IsNaN(eps) || eps < 0 {
		return 0, Result{}, fmt.Errorf("worstcase: budget ε = %g is not a non-negative number", eps)
	}
	limit := eps + budgetSlack*max(1, eps)
	cfg.inner = cfg.workers
	// The decisions' own searches are not the final one: only that one
	// tells its bracket, with the decisions taken.
	stand := cfg.stand
	cfg.stand = nil

	// Invariant: ε*(yes) ≤ eps, with yesMech an eps-PML mechanism of
	// pattern yes (nil for yes = 0, whose ε* = 0 is proven), and
	// ε*(no) > eps, with no = fam.k standing for "beyond the chain".
	yes, no := 0, fam.k
	var (
		yesMech mech.Mechanism
		yesPML  float64
		solves  int
		probes  int // pure-Go probes and covers (coverer)
		// seed holds the basic columns of the last master: the next
		// decision's pattern is a neighbour in the chain, whose master
		// starts from them instead of the slacks.
		// yesSeed those of the last master that found pattern yes
		// feasible: the final search is on that pattern.
		seed, yesSeed *colgen.Seed
	)
	decided := 0
	tell := func() {
		if stand != nil {
			stand(Stand{Decided: decided, Decisions: decided + DecisionsLeft(no-yes), Lower: math.NaN(), Upper: math.NaN()})
		}
	}
	for ; no-yes > 1; decided++ {
		tell()
		if err := ctx.Err(); err != nil {
			return 0, Result{}, err
		}
		mid := yes + (no-yes)/2
		pat := fam.pattern(mid)
		c, all := columnBounds(pi, pat)
		if all >= 0 {
			yes, yesMech, yesSeed = mid, nil, nil
			continue
		}
		if pruningBound(pat, c) > limit {
			no = mid
			continue
		}
		if safe := closedform.UniformOnAllowed(pat); leakage.PML(pi, safe) <= limit {
			yes, yesMech, yesPML, yesSeed = mid, safe, leakage.PML(pi, safe), nil
			continue
		}
		var o outcome
		byCover := false
		if cov != nil {
			o, byCover = cov.decide(fam, mid, limit)
			probes++
		}
		var last *colgen.Seed
		if !byCover {
			var err error
			if o, last, err = probeDecision(ctx, pi, pat, c, cfg, limit, &seed, &solves, &probes); err != nil {
				return 0, Result{}, err
			}
		}
		if o.v == feasible {
			yes, yesMech, yesPML, yesSeed = mid, o.Mechanism, o.PML, last
			// The mechanism may keep a stricter pattern of the chain
			// than the one it was found for: those are yes as well.
			yes = furthest(yes, no, func(k int) bool { return fam.pattern(k).Holds(yesMech) })
		} else {
			no = mid
			if o.Alpha != nil && o.Lower > limit {
				// The proof holds for every stricter pattern, and may
				// still prove more than the budget on weaker ones.
				// Mirrored (k ↦ lo + hi − k): the least k in (yes, mid]
				// whose pattern the proof still refutes.
				alpha, lo, hi := o.Alpha, yes, mid
				no = lo + hi - furthest(lo, hi, func(k int) bool {
					lb, ok := certify.DualBound(pi, fam.pattern(lo+hi-k), alpha)
					return ok && lb > limit
				})
			}
		}
	}

	h := hint{seed: seed}
	if yesSeed != nil {
		h.seed = yesSeed
	}
	if yesMech != nil {
		h.hiMech, h.hi = yesMech, yesPML
	}
	if cov != nil && yes > 0 {
		h = cov.hint(fam, yes, limit, h, cfg.tol)
		probes++
	}
	tell()
	if stand != nil {
		cfg.stand = func(s Stand) {
			s.Decided, s.Decisions = decided, decided
			stand(s)
		}
	}
	r, err := search(ctx, pi, fam.pattern(yes), cfg, cfg.tol, h)
	r.LPSolves += solves
	r.GoProbes += probes
	return yes, r, err
}

// DecisionsLeft is the most decisions a binary search needs to settle
// which of w candidates is the last one to hold (the first is known to
// hold, and those past them not to): ⌈log₂ w⌉.
func DecisionsLeft(w int) int {
	if w <= 1 {
		return 0
	}
	return bits.Len(uint(w - 1))
}

// furthest returns the largest k in [lo, hi) with ok(k), given ok(lo) and
// ok monotone (true up to some point of [lo, hi), false beyond), by binary
// search.
func furthest(lo, hi int, ok func(k int) bool) int {
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// decide brackets ε* of pat until the bracket lies on one side of limit: an
// audited mechanism within limit (OptimalEpsilon ≤ limit) or a proof above it
// (OptimalEpsilonLower > limit). A budget typed as a breakpoint lies within the search
// tolerance of ε*, where a bracket closed to cfg.tol straddles it; narrowing
// the bracket past the budget, instead of calling the threshold unreachable,
// keeps the answer from depending on the tolerance. Should the engines not
// resolve the bracket that finely, the result still straddles limit and the
// threshold counts as unreachable, as a bracket can not prove more.
func decide(ctx context.Context, pi mech.Prior, pat mech.Pattern, cfg config, limit float64, seed *colgen.Seed) (Result, error) {
	r, err := search(ctx, pi, pat, cfg, cfg.tol, hint{seed: seed})
	solves, probes := r.LPSolves, r.GoProbes
	for k := 0; k < settleRounds && err == nil && r.OptimalEpsilonLower <= limit && r.OptimalEpsilon > limit; k++ {
		tol := (limit - r.OptimalEpsilonLower) / 4
		if tol <= 0 || tol >= r.OptimalEpsilon-r.OptimalEpsilonLower {
			tol = (r.OptimalEpsilon - r.OptimalEpsilonLower) / 4
		}
		h := hint{lo: r.OptimalEpsilonLower, loKind: r.Lower, proof: r.Proof, hiMech: r.Mechanism, hi: r.OptimalEpsilon}
		next, e := search(ctx, pi, pat, cfg, tol, h)
		solves, probes, err = solves+next.LPSolves, probes+next.GoProbes, e
		if next.OptimalEpsilon-next.OptimalEpsilonLower >= r.OptimalEpsilon-r.OptimalEpsilonLower {
			break // no progress: the engines' accuracy is reached
		}
		r = next
	}
	r.LPSolves, r.GoProbes = solves, probes
	return r, err
}

// probeDecision asks the probes whether pattern pat's least ε is within
// limit, as a decision of best: the column generation (or the interior
// point, or the LP) at limit, and the least-ε search of the pattern when
// their verdict has no evidence. seed is the last master's basic columns,
// carried from one decision to the next, and last the basic columns of
// this decision's master (nil if it had none); the LPs and probes spent
// are added to solves and probes.
func probeDecision(ctx context.Context, pi mech.Prior, pat mech.Pattern, c []float64, cfg config, limit float64, seed **colgen.Seed, solves, probes *int) (o outcome, last *colgen.Seed, err error) {
	p := newProber(ctx, pi, pat, c, cfg)
	p.decide, p.seed = true, *seed
	o, err = p.probe(limit, limit, true)
	if p.master != nil {
		if last = p.master.Seed(); last != nil {
			*seed = last
		}
	}
	p.close()
	*solves += p.solves
	*probes += p.probes
	if err != nil {
		return outcome{}, nil, err
	}
	if o.v == inconclusive || o.v == unproven {
		// A verdict without evidence (a point that audits a little
		// above the budget, an infeasibility without proof): the
		// least-ε search decides. Only a mechanism within the budget
		// makes a yes.
		r, err := decide(ctx, pi, pat, cfg, limit, *seed)
		*solves += r.LPSolves
		*probes += r.GoProbes
		if err != nil {
			return outcome{}, nil, err
		}
		o = outcome{v: infeasible}
		if r.OptimalEpsilon <= limit {
			o = outcome{v: feasible, Evidence: certify.Evidence{Mechanism: r.Mechanism, PML: r.OptimalEpsilon}}
		}
	}
	return o, last, nil
}
