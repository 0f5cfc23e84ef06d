package pmlopt

import (
	"context"
	"math"

	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// lpStart is what the interior points leave the LP route when they give
// no answer: the point their cutting planes stalled at, or the one that
// failed its audit or its proof (point, which
// starts the LP's cutting planes: polytope.Spec.Start), or, under PML,
// word that their rounds ran out without one (dualise): the LP's own
// rounds, which add the same worst priors, then run out too, and
// BuildRobust's model, solved once, is quicker (docs/performance.md).
type lpStart struct {
	point   mech.Mechanism
	dualise bool
}

// solveExpectedOverSetIPM maximises the expected utility under the
// estimate over the mechanisms that keep b (PML, LIP or ALIP) for every
// prior of p's set by ipm.SolveRobust: cutting planes over the set's
// extreme priors, each round an interior point with a few priors per
// output, and where they keep cutting, the constraints over the set
// dualised inside one interior point. Its mechanism is audited over the
// whole set (the greedy worst prior of each output, leakage.PMLOver and
// friends), and its bound is proven by the multipliers of the rows and
// one prior of the set per output (ipm.RobustBound, the proof package
// verify checks), the priors first raised above the set in exact
// arithmetic (certificate.AboveSet). ok is false, with no error, when the route does
// not apply (a backend or the full LP asked for, LDP) or does not
// answer; the LP route then decides, from what the interior points leave
// it (lpStart).
func solveExpectedOverSetIPM(ctx context.Context, p *problem.Problem, u mech.Utility, b mech.Budget, opt Options) (sol *Solution, ok bool, start lpStart, err error) {
	set := p.PriorSet
	if opt.Solver != nil || opt.FullLP || (b.Measure != mech.PML && b.Measure != mech.LIP && b.Measure != mech.ALIP) {
		return nil, false, lpStart{}, nil
	}
	r, err := ipm.SolveRobust(ipm.RobustProblem{Utility: u, Budget: b, Set: set}, ipm.Options{Context: ctx})
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, lpStart{}, ctx.Err()
		}
		if r != nil && r.Mechanism != nil {
			start.point = r.Mechanism
		} else {
			start.dualise = b.Measure == mech.PML
		}
		return nil, false, start, nil
	}
	m := r.Mechanism
	if !withinOver(set, m, b) {
		return nil, false, lpStart{point: m}, nil
	}
	cands := make([][][]float64, len(r.Priors))
	priors := make([][]float64, len(r.Priors))
	for j, v := range r.Priors {
		w, ok := certificate.AboveSet(set, p.Prior, v)
		if !ok {
			return nil, false, lpStart{point: m}, nil
		}
		priors[j], cands[j] = w, [][]float64{w}
	}
	bound, _ := ipm.RobustBound(p.Prior, u, b, r.Alpha, cands)
	value := u.ExpectedUtility(p.Prior, m)
	if math.IsInf(bound, 0) || math.IsNaN(bound) || bound < value-ipm.RobustBudgetSlack*math.Max(1, math.Abs(value)) {
		return nil, false, lpStart{point: m}, nil
	}
	level, lower := levelOver(set, m, b)
	sol = &Solution{Mechanism: m, Epsilon: level, OptimalEpsilonLower: level, ALIPLower: lower, Solver: "ipm",
		ExpectedUtilityBound: math.Max(bound, value), Objective: p.Objective, Measure: b.Measure}
	describe(p, sol)
	c := certificate.ExpectedOver(p, b, sol.answer(), certificate.Hint{})
	if c.Utility.Bound != nil {
		c.Utility.Alpha, c.Utility.Priors = r.Alpha, priors
	}
	sol.Certificate = c
	if b.Measure == mech.LIP || b.Measure == mech.ALIP {
		if bound, ok := certificate.TwoPriorBound(p, u, b, r, sol.Mechanism, sol.ExpectedUtility, c); ok {
			sol.ExpectedUtilityBound = bound
		}
	}
	return sol, true, lpStart{}, nil
}
