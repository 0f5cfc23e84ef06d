package overset

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

// levelOver returns the level of b's measure that m reaches over every
// prior of the set: (ε_u, ε_l) for ALIP, (level, 0) otherwise.
func levelOver(s *mech.PriorSet, m mech.Mechanism, b mech.Budget) (level, lower float64) {
	level, lower, _ = leakage.LevelOver(s, m, b)
	return level, lower
}

// withinOver reports whether m keeps b over the set, up to
// certify.AuditTol.
func withinOver(s *mech.PriorSet, m mech.Mechanism, b mech.Budget) bool {
	_, _, excess := leakage.LevelOver(s, m, b)
	return excess <= certify.AuditTol
}

// solveLP solves the LP of s over the set with the LP backend and returns
// its audited mechanism, or nil when the backend finds no point (a status
// other than Optimal: not a proof), the status and the number of LPs
// solved. LIP and ALIP, whose dualised model carries two mass bounds per
// output, and the ε-PML expected utility over an L1 ball, whose dual adds
// 3N rows per output, go to the cutting planes (solveCuts), which keep
// the LPs at the size of the LP at one prior and reach the same optimum; so does a problem with a start
// (Spec.Start, the point the interior points stalled at), whose worst
// priors are often every cut the rounds need. The rest goes to
// BuildRobust's dualised model, solved once (docs/performance.md,
// "Guarantees over a set of priors", has the measurements behind the
// split).
func solveLP(ctx context.Context, s polytope.Spec, set *mech.PriorSet, slv solver.Solver) (mech.Mechanism, solver.Status, int, error) {
	return solveLPFrom(ctx, s, set, slv, false)
}

// solveLPFrom is solveLP, on BuildRobust's model whatever the measure and
// set when dualise is set (lpStart).
func solveLPFrom(ctx context.Context, s polytope.Spec, set *mech.PriorSet, slv solver.Solver, dualise bool) (mech.Mechanism, solver.Status, int, error) {
	m, status, lps, _, err := solveLPProof(ctx, s, set, slv, dualise)
	return m, status, lps, err
}

// solveLPProof is solveLPFrom that also returns what the duals of its
// last LP prove (ExpectedUtility; nil where the backend gave none).
func solveLPProof(ctx context.Context, s polytope.Spec, set *mech.PriorSet, slv solver.Solver, dualise bool) (mech.Mechanism, solver.Status, int, *polytope.Multipliers, error) {
	cuts := len(s.Start) == len(s.Prior) || s.Budget.Measure == mech.LIP || s.Budget.Measure == mech.ALIP || (!set.IsBox() && s.Objective == polytope.ExpectedUtility)
	var r *cutResult
	var err error
	if cuts && !dualise {
		r, err = solveCuts(ctx, s, set, slv)
	} else {
		r, err = solveDualised(ctx, s, set, slv, &cutResult{})
	}
	if err != nil {
		return nil, 0, 0, nil, err
	}
	m, status, lps, proof := r.Mechanism, r.Status, r.LPs, r.Proof
	// Beyond lpReach the mechanism keeps the budget only within the
	// engine's tolerance. One at lpReach keeps every larger budget (the
	// polytope grows with ε); the caller's bound, proven at the budget,
	// says what that costs.
	beyondReach := s.Objective == polytope.ExpectedUtility && s.Budget.Measure == mech.PML && s.Budget.Epsilon > lpReach
	atReach := func() (mech.Mechanism, solver.Status, int, error) {
		r := s
		r.Budget.Epsilon = lpReach
		q, status, more, err := solveLPFrom(ctx, r, set, slv, dualise)
		return q, status, lps + more, err
	}
	if status == solver.Limit && beyondReach {
		// The engine stalled, where its point could keep the budget
		// only within its tolerance anyway.
		q, status, lps, err := atReach()
		return q, status, lps, nil, err
	}
	if status != solver.Optimal {
		return nil, status, lps, nil, nil
	}
	if s.Pattern != nil && !s.Pattern.Holds(m) {
		return nil, status, lps, nil, fmt.Errorf("prior_set: the %s backend returned a mechanism that breaks the zero pattern", slv.Name())
	}
	if !withinOver(set, m, s.Budget) {
		// An engine holds every row to an absolute tolerance, so a LIP
		// or ALIP column at a large budget can end with entries at 0
		// where its lower caps, e^{−ε} times a mass, ask for 1e-18 or
		// less: its ratio is then infinite. The least mixture with the
		// outputs' marginal that keeps the budget mends such rounding at
		// a cost in utility of about that mixture's weight, and is kept
		// first where that cost is within mixValueTol of the LP's value;
		// it must keep the zero pattern (it fills every zero of a used
		// output: a pattern that allows every pair there).
		// The weight is solved for the budget itself, not for the
		// audit's slack: a mixture at the edge of that slack can read
		// above it in the certificate checker's own arithmetic, at 40
		// nats where the caps are 1e-18 of a mass.
		within := func(q mech.Mechanism) bool { return withinOver(set, q, s.Budget) }
		q := clean.MixOver(s.Prior, m, set, s.Budget, within)
		mended := within(q) && (s.Pattern == nil || s.Pattern.Holds(q))
		if mended && mixCostsLittle(s, m, q) {
			return q, status, lps, proof, nil
		}
		if beyondReach {
			q2, status2, lps2, err := atReach()
			if (err == nil && q2 != nil) || !mended {
				return q2, status2, lps2, proof, err
			}
			lps = lps2
		}
		if mended {
			// A mixture that costs more than mixValueTol still keeps
			// the budget, and the bound, proven at the budget, says what
			// it costs: an answer whose bracket is that much wider, where
			// a refusal would leave none (LIP's floors of e^−40 of a
			// mass, which the engine rounds to 0).
			return q, status, lps, proof, nil
		}
		level, _ := levelOver(set, m, s.Budget)
		return nil, status, lps, nil, fmt.Errorf("prior_set: the %s backend returned a mechanism at %s %.10g over the prior set, above the budget", slv.Name(), s.Budget.Measure, level)
	}
	return m, status, lps, proof, nil
}

// lpReach is the largest PML budget at which an LP backend's mechanism
// over a set keeps the budget as written: the engines hold each row to
// about 1e-9, which e^ε magnifies past 1 above ε ≈ 20.7, so that a column
// on letters the set lets fall to 0 can keep a budget above it only
// within that tolerance (its least mass 0, its level infinite).
const lpReach = 20

// mixValueTol is the relative loss of expected utility within which
// solveLPFrom keeps a mixture that mends an LP mechanism's rounding
// before it tries anything else: the 1e-9 pmlopt's answers are held to.
// A costlier mixture is kept only where nothing else answers, its cost
// then in the answer's bracket.
const mixValueTol = 1e-9

// mixCostsLittle reports whether the mixture q of s's LP mechanism m loses
// at most mixValueTol of m's expected utility (always, for the worst-case
// objectives, which a mixture does not change beyond the pattern).
func mixCostsLittle(s polytope.Spec, m, q mech.Mechanism) bool {
	if s.Objective != polytope.ExpectedUtility {
		return true
	}
	v := s.Utility.ExpectedUtility(s.Prior, m)
	return v-s.Utility.ExpectedUtility(s.Prior, q) <= mixValueTol*max(1, math.Abs(v))
}

// setPriors returns the estimate and the extreme priors of the set that
// put the least and the most mass on each letter, those with full support:
// the priors at which the bounds at one prior of the set are proven.
func setPriors(pi mech.Prior, set *mech.PriorSet) []mech.Prior {
	priors := []mech.Prior{pi}
	n := len(pi)
	for k := range n {
		c := make([]float64, n)
		c[k] = 1
		for _, hi := range []bool{false, true} {
			x := set.Extreme(c, hi)
			if _, err := mech.NewPrior(x); err == nil {
				priors = append(priors, x)
			}
		}
	}
	return priors
}
