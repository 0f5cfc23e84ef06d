package overset

import (
	"context"
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// lpStart is what the interior points leave the LP route when they give
// no answer: the point their cutting planes stalled at, or the one that
// failed its audit or its proof (point, which starts the LP's cutting
// planes: polytope.Spec.Start), or, under PML,
// word that their rounds ran out without one (dualise): the LP's own
// rounds, which add the same worst priors, then run out too, and
// BuildRobust's model, solved once, is quicker (docs/performance.md).
type lpStart struct {
	point   mech.Mechanism
	dualise bool
	// robust is the interior points' result that was not accepted, whose
	// multipliers may still prove a bound (under LIP and ALIP, BoundTwo:
	// a value short of the optimum leaves them closer to it than the LP
	// route's bounds at the set's priors).
	robust *ipm.RobustResult
}

// byInteriorPoint maximises the expected utility under the estimate over
// the mechanisms that keep b (PML, LIP or ALIP) for every prior of p's
// set by ipm.SolveRobust: the constraints over the set dualised inside
// one interior point specialised to the set's rows; where it stalls,
// cutting planes over the set's extreme priors, each round an interior
// point with a few priors per output, and where they keep cutting, the
// dualised constraints inside a generic interior point. Its mechanism is
// audited over the whole set (the greedy worst prior of each output,
// leakage.PMLOver and friends), and its bound
// is proven by the multipliers of the rows and one prior of the set per
// output (ipm.RobustBound, the proof package verify checks), the priors
// first raised above the set in exact arithmetic (certificate.AboveSet).
// ok is false, with no error, when the route does not apply (a backend or
// the full LP asked for, LDP) or does not answer; the LP route then
// decides, from what the interior points leave it (lpStart).
func byInteriorPoint(ctx context.Context, p *problem.Problem, u mech.Utility, b mech.Budget, o Options) (r Expected, ok bool, start lpStart, err error) {
	set := p.PriorSet
	if o.Expected.Solver != nil || o.Expected.FullLP || (b.Measure != mech.PML && b.Measure != mech.LIP && b.Measure != mech.ALIP) {
		return r, false, lpStart{}, nil
	}
	rr, err := ipm.SolveRobust(ipm.RobustProblem{Utility: u, Budget: b, Set: set}, ipm.Options{Context: ctx})
	if err != nil {
		if ctx.Err() != nil {
			return r, false, lpStart{}, ctx.Err()
		}
		if rr != nil && rr.Mechanism != nil {
			start.point, start.robust = rr.Mechanism, rr
		} else {
			start.dualise = b.Measure == mech.PML
		}
		return r, false, start, nil
	}
	m := rr.Mechanism
	// The answer's levels are leakage.LevelOver's of its mechanism
	// already: the audit over the set is not run again.
	level, lower := rr.Level, rr.LevelLower
	excess := leakage.Excess(b, level, lower)
	if !(excess <= certify.AuditTol) {
		return r, false, lpStart{point: m, robust: rr}, nil
	}
	cands := make([][][]float64, len(rr.Priors))
	priors := make([][]float64, len(rr.Priors))
	for j, v := range rr.Priors {
		w, ok := certificate.AboveSet(set, p.Prior, v)
		if !ok {
			return r, false, lpStart{point: m, robust: rr}, nil
		}
		priors[j], cands[j] = w, [][]float64{w}
	}
	bound, _ := ipm.RobustBound(p.Prior, u, b, rr.Alpha, cands)
	value := u.ExpectedUtility(p.Prior, m)
	if math.IsInf(bound, 0) || math.IsNaN(bound) || bound < value-ipm.RobustBudgetSlack*max(1, math.Abs(value)) {
		return r, false, lpStart{point: m, robust: rr}, nil
	}
	r = Expected{Route: InteriorPoint, Mechanism: m, Level: level, ALIPLower: lower, Bound: max(bound, value), Robust: rr, Priors: priors}
	return r, true, lpStart{}, nil
}
