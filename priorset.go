package pmlopt

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/internal/overset"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/verify"
)

// VerifyPriorSet is s in the certificate's form (package verify); nil for
// a problem without a prior set.
func VerifyPriorSet(s *mech.PriorSet) *verify.PriorSet {
	return certificate.PriorSet(s)
}

// RobustSolver is the LP backend that solves a problem over a prior set
// with options o: the one named in o, else the pure-Go revised simplex. Clp stops on numerical
// errors (its status 4) on the dualised robust models of the tests, while
// the revised simplex solves them, so auto does not pick Clp here.
func RobustSolver(o Options) solver.Solver {
	if o.Solver != nil {
		return o.Solver
	}
	if s, err := solver.Get("revised"); err == nil {
		return s
	}
	return solver.Auto()
}

// overSet is o as the routes over a prior set take it.
func (o Options) overSet() overset.Options {
	return overset.Options{Solver: RobustSolver(o), PointSolver: o.solver(), Tol: o.Tol, Stand: o.Stand, Expected: expectedOptions(o)}
}

// solveOverPriorSet is Solve for a problem with a prior set: the budget
// must hold for every prior of p.PriorSet (package internal/overset finds
// the answers and their proofs).
//
// Certificates: the upper ends are audited over the set (leakage.PMLOver
// and friends). A robust mechanism is feasible for every prior of the set,
// so the least ε over the set is at least the least ε at any one prior of
// it, and OptimalEpsilonLower is proven at priors of the set (one for
// all outputs, or one per output). In the same way the robust
// expected-utility optimum is at most the certified optimum at any one
// prior of the set: valid, possibly loose.
func solveOverPriorSet(ctx context.Context, p *problem.Problem, b mech.Budget, opt Options) (*Solution, error) {
	sol, err := solveOverPriorSetUnchecked(ctx, p, b, opt)
	if err == nil && ctx.Err() != nil {
		// A step that ended with the context (a bound's solves) left the
		// answer short of what it claims: the context's error instead.
		return nil, ctx.Err()
	}
	return sol, err
}

// solveOverPriorSetUnchecked is solveOverPriorSet without its last check
// of the context.
func solveOverPriorSetUnchecked(ctx context.Context, p *problem.Problem, b mech.Budget, opt Options) (*Solution, error) {
	switch p.Objective {
	case problem.ExpectedUtility:
		u, err := p.RequireUtilityContext(ctx)
		if err != nil {
			return nil, err
		}
		o := opt.overSet()
		r, err := overset.MaximizeExpected(ctx, p, u, b, o)
		if err != nil {
			return nil, err
		}
		return expectedOverSetSolution(p, u, b, r, o.Solver), nil
	case problem.WorstCaseOrder, problem.WorstCaseValue:
		if b.Measure != mech.PML {
			return nil, fmt.Errorf("objective: %s is defined for pml budgets (Song & Oechtering 2026), the budget's measure is %s", p.Objective, b.Measure)
		}
		return solveWorstCaseOverSet(ctx, p, b.Epsilon, opt)
	case "":
		return nil, ErrNoObjective
	}
	return nil, fmt.Errorf("objective: unknown %q", p.Objective)
}

// expectedOverSetSolution is the Solution of r, the optimum of u over p's
// set at b, with its certificate; slv is the LP backend of the LP route.
func expectedOverSetSolution(p *problem.Problem, u mech.Utility, b mech.Budget, r overset.Expected, slv solver.Solver) *Solution {
	var sol *Solution
	switch r.Route {
	case overset.AtEstimate:
		sol = expectedSolution(*r.Estimate)
	case overset.InteriorPoint:
		sol = &Solution{Mechanism: r.Mechanism, Solver: "ipm", ExpectedUtilityBound: r.Bound}
	default:
		sol = &Solution{Mechanism: r.Mechanism, Solver: slv.Name(), LPSolves: r.LPs, FullLP: true, ExpectedUtilityBound: r.Bound}
	}
	sol.Epsilon, sol.ALIPLower = r.Level, r.ALIPLower
	sol.OptimalEpsilonLower = sol.Epsilon
	sol.Objective, sol.Measure = p.Objective, b.Measure
	describe(p, sol)
	switch r.Route {
	case overset.AtEstimate:
		sol.Certificate = certificate.ExpectedOver(p, b, sol.answer(), r.Proof)
	case overset.InteriorPoint:
		c := certificate.ExpectedOver(p, b, sol.answer(), certificate.Hint{})
		if c.Utility.Bound != nil {
			c.Utility.Alpha, c.Utility.Priors = r.Robust.Alpha, r.Priors
		}
		sol.Certificate = c
		if b.Measure == mech.LIP || b.Measure == mech.ALIP {
			if bound, ok := certificate.TwoPriorBound(p, u, b, r.Robust, sol.Mechanism, sol.ExpectedUtility, c); ok {
				sol.ExpectedUtilityBound = bound
			}
		}
		closeTwoPriorBound(p, u, b, sol)
		closeOnePriorBound(p, u, b, sol)
	default:
		sol.Certificate = certificate.ExpectedOver(p, b, sol.answer(), r.Proof)
		certificate.ProvenBound(p, u, sol.Mechanism, sol.Certificate)
		sol.ExpectedUtilityBound = certificate.TightenExpectedOver(p, u, b, nil, sol.Mechanism, sol.Certificate)
		if (b.Measure == mech.LIP || b.Measure == mech.ALIP) && r.Robust != nil {
			if bound, ok := certificate.TwoPriorBound(p, u, b, r.Robust, sol.Mechanism, sol.ExpectedUtility, sol.Certificate); ok {
				sol.ExpectedUtilityBound = bound
			}
		}
		if bound, ok := certificate.MultipliersBound(p, u, b, r.Duals, sol.Mechanism, sol.ExpectedUtility, sol.Certificate); ok {
			sol.ExpectedUtilityBound = bound
		}
		closeTwoPriorBound(p, u, b, sol)
	}
	return sol
}

// closeTwoPriorBound replaces the bound of a LIP or ALIP answer over a
// set that its engine's proof leaves further than the accepted gap above
// the value (or unproven) by the one of the LP for two priors per output
// (certificate.TwoPriorBoundLP), on problems small enough for it.
func closeTwoPriorBound(p *problem.Problem, u mech.Utility, b mech.Budget, sol *Solution) {
	if b.Measure != mech.LIP && b.Measure != mech.ALIP {
		return
	}
	v, B := sol.ExpectedUtility, sol.ExpectedUtilityBound
	if B-v <= ipm.AcceptedGap*max(1, math.Abs(v)) {
		return
	}
	if bound, ok := certificate.TwoPriorBoundLP(p, u, b, sol.Mechanism, v, sol.Certificate); ok {
		sol.ExpectedUtilityBound = bound
	}
}

// closeOnePriorBound replaces the bound of a PML answer over a set that its
// interior point leaves more than closeGap above the value by the one of
// the LP for one prior per output (certificate.TightenExpectedOver, which
// keeps the bound it has where that LP proves no less), on problems small
// enough for it. An interior point stops within ipm.AcceptedGap where
// rounding stops its progress first, at large budgets most often.
func closeOnePriorBound(p *problem.Problem, u mech.Utility, b mech.Budget, sol *Solution) {
	v, B := sol.ExpectedUtility, sol.ExpectedUtilityBound
	if b.Measure != mech.PML || !(B-v > closeGap*max(1, math.Abs(v))) {
		return
	}
	if bound := certificate.TightenExpectedOver(p, u, b, nil, sol.Mechanism, sol.Certificate); bound < B {
		sol.ExpectedUtilityBound = bound
	}
}

// closeGap is the relative width of an expected-utility bracket over a set
// above which closeOnePriorBound asks the LP for one prior per output: the
// 1e-9 pmlopt's answers are held to.
const closeGap = 1e-9

// solveWorstCaseOverSet is the strongest worst case that keeps ε-PML over
// p's set, bracketed by overset.BestWorstCase, with its certificate.
func solveWorstCaseOverSet(ctx context.Context, p *problem.Problem, eps float64, opt Options) (*Solution, error) {
	o := opt.overSet()
	r, err := overset.BestWorstCase(ctx, p, eps, o)
	if err != nil {
		return nil, err
	}
	r = dustFreeOver(p.PriorSet, r, eps, opt.Tol)
	sol := &Solution{Mechanism: r.Mechanism, Epsilon: r.Upper, OptimalEpsilonLower: r.Lower, Solver: o.Solver.Name(), LPSolves: r.LPs,
		ExpectedUtilityBound: math.NaN(), Objective: p.Objective, Measure: mech.PML}
	describe(p, sol)
	sol.Certificate = certificate.WorstCaseOver(p, p.Objective, certificate.Answer{Mechanism: r.Mechanism, Epsilon: r.Upper, Lower: r.Lower}, r.Proofs, &mech.Budget{Measure: mech.PML, Epsilon: eps})
	if sol.Certificate != nil && sol.Certificate.Lower.Alpha != nil {
		sol.OptimalEpsilonLower = sol.Certificate.Lower.OptimalEpsilonLower // what the certificate proves
	}
	return sol, nil
}

// dustFreeOver is r with its mechanism replaced by the copy without dust
// (clean.WithoutDust: a sub-pattern, so the worst case is kept) and its
// upper end by that copy's PML over set, as Solve does at one prior: the
// robust master's vertices can end with an output of entries near 1e-16.
// The copy is kept only when its level is within eps and leaves the
// bracket no wider than tol (overset.DefaultTol when 0) or than r's own,
// so that the certified lower end still closes it.
func dustFreeOver(set *mech.PriorSet, r overset.Bracket, eps, tol float64) overset.Bracket {
	if r.Mechanism == nil {
		return r
	}
	c, err := clean.WithoutDust(r.Mechanism)
	if err != nil || c == nil {
		return r
	}
	if tol <= 0 {
		tol = overset.DefaultTol
	}
	level := leakage.PMLOver(set, c)
	if !(level <= eps) || !(level-r.Lower <= max(r.Upper-r.Lower, tol)) {
		return r
	}
	r.Mechanism, r.Upper = c, level
	return r
}

// curveOverSet is Curve over p's prior set: one point per threshold (for
// worst-case-value, per step of reachable utility values with the same
// ε*, ValueSteps), each with the utility-safe ε over the set (for values,
// the PML over the set of the mechanism uniform on each row's allowed
// outputs, as at one prior) and the bracket of overset.LeastEpsilon.
func curveOverSet(ctx context.Context, p *problem.Problem, objective problem.Objective, opt Options) ([]Point, error) {
	q := *p
	q.Objective = objective
	if objective == "" {
		q.Objective = problem.WorstCaseOrder
	}
	if q.Objective != problem.WorstCaseOrder && q.Objective != problem.WorstCaseValue {
		return nil, fmt.Errorf("objective: curves are for worst-case-order or worst-case-value, not %q", objective)
	}
	pats, th, err := overset.Patterns(&q)
	if err != nil {
		return nil, err
	}
	if err := opt.Shard.Check(); err != nil {
		return nil, err
	}
	idx := opt.Shard.Indices(len(pats))
	o := opt.overSet()
	o.Stand = nil // a curve tells Progress
	var pts []Point
	// A value curve is reported by its steps of ε*, as at one prior; a
	// shard's thresholds one by one, for merge to form the steps.
	steps := func(pts []Point) []Point {
		if q.Objective != problem.WorstCaseValue || !opt.Shard.All() {
			return pts
		}
		tol := opt.Tol
		if tol <= 0 {
			tol = overset.DefaultTol
		}
		return ValueSteps(pts, tol)
	}
	for done, k := range idx {
		pat := pats[k]
		if err := checkContext(ctx); err != nil {
			return steps(pts), err
		}
		r, err := overset.LeastEpsilon(ctx, &q, pat, nil, o)
		if err != nil {
			if ctx.Err() != nil {
				return steps(pts), ctx.Err()
			}
			return steps(pts), err
		}
		r = dustFreeOver(p.PriorSet, r, math.Inf(1), opt.Tol)
		safe := closedform.SafeEpsilonOver(p.PriorSet, pat)
		switch {
		case math.IsInf(r.Lower, 1):
			// Proven exactly: no mechanism with the pattern, the
			// utility-safe one included, has a finite level over the
			// set, whatever the float audit rounds a zero mass to.
			safe = math.Inf(1)
		case q.Objective == problem.WorstCaseValue:
			safe = leakage.PMLOver(p.PriorSet, closedform.UniformOnAllowed(pat))
		}
		pt := Point{H: k + 1, Threshold: th[k], ThresholdMax: th[k], SafeEpsilon: safe,
			OptimalEpsilon: r.Upper, OptimalEpsilonLower: r.Lower, Mechanism: r.Mechanism, LPSolves: r.LPs, WorstCaseValue: math.NaN()}
		pt = reached(p.Utility, pt)
		if q.Objective == problem.WorstCaseOrder {
			pt.H = int(th[k])
		}
		if r.Mechanism != nil {
			pt.Certificate = certificate.WorstCaseOver(&q, q.Objective, certificate.Answer{Mechanism: r.Mechanism, Epsilon: r.Upper, Lower: r.Lower}, r.Proofs, nil)
			if pt.Certificate != nil {
				pt.Certificate.Mechanism = r.Mechanism
				if pt.Certificate.Lower.Alpha != nil {
					pt.OptimalEpsilonLower = pt.Certificate.Lower.OptimalEpsilonLower
				}
			}
		}
		pts = append(pts, pt)
		if opt.Settled != nil {
			opt.Settled(pt)
		}
		if opt.Progress != nil {
			opt.Progress(done+1, len(idx))
		}
	}
	return steps(pts), nil
}

// solveJointOverSet is SolveJoint over p's prior set, by
// overset.MaximizeJoint, with its certificate.
func solveJointOverSet(ctx context.Context, p *problem.Problem, floor Floor, opt Options) (*JointSolution, error) {
	b, u, pat, err := jointParts(ctx, p, floor)
	if err != nil {
		return nil, err
	}
	o := opt.overSet()
	r, err := overset.MaximizeJoint(ctx, p, u, b, pat, o)
	least := r.Least
	if ctx.Err() != nil {
		// A step that ended with the context (the bounds at the set's
		// priors, or an LP that then found no mechanism) leaves the
		// answer, or the refusal, short of what it claims.
		return nil, ctx.Err()
	}
	if errors.Is(err, expected.ErrBelowLeastEpsilon) {
		return nil, &BelowLeastEpsilonError{Epsilon: b.Epsilon, Floor: floor, Lower: least.Lower, Upper: least.Upper}
	}
	if err != nil {
		return nil, err
	}
	sol := Solution{Mechanism: r.Mechanism, Epsilon: r.Level, OptimalEpsilonLower: r.Level, Solver: o.Solver.Name(), LPSolves: r.LPs + least.LPs, FullLP: true,
		Objective: problem.ExpectedUtility, Measure: b.Measure, ExpectedUtilityBound: r.Bound}
	describe(p, &sol)
	sol.Certificate = certificate.JointOver(p, b, sol.answer(), certificate.Floor(floor), pat, least.Lower, least.Upper, least.Proofs, r.Proof)
	certificate.ProvenBound(p, u, sol.Mechanism, sol.Certificate)
	sol.ExpectedUtilityBound = certificate.TightenExpectedOver(p, u, b, pat, sol.Mechanism, sol.Certificate)
	if sol.Certificate.Lower.Alpha != nil {
		least.Lower = sol.Certificate.Lower.OptimalEpsilonLower
	}
	return &JointSolution{Solution: sol, LeastEpsilonLower: least.Lower, LeastEpsilonUpper: least.Upper}, nil
}

// excessFor is how far q exceeds b: over p's prior set when it has one
// (the baselines are calibrated on it), at its prior otherwise.
func excessFor(p *problem.Problem, q mech.Mechanism, b mech.Budget) float64 {
	if p.PriorSet == nil {
		return excess(p.Prior, q, b)
	}
	level, lower, _ := leakage.LevelOver(p.PriorSet, q, b)
	if b.Measure == mech.ALIP {
		return max(lower-b.EpsilonLower, level-b.EpsilonUpper)
	}
	return level - b.Epsilon
}

// expectedCurveOverSet is ExpectedCurve over p's prior set: each budget is
// solved by solveOverPriorSet.
func expectedCurveOverSet(ctx context.Context, p *problem.Problem, budgets []mech.Budget, opt Options) ([]ExpectedPoint, error) {
	pts := make([]ExpectedPoint, 0, len(budgets))
	for k, b := range budgets {
		if err := ctx.Err(); err != nil {
			return pts, err
		}
		q := *p
		q.Privacy, q.Objective = &b, problem.ExpectedUtility
		sol, err := solveOverPriorSet(ctx, &q, b, opt)
		if err != nil {
			if ctx.Err() != nil {
				return pts, ctx.Err()
			}
			return pts, fmt.Errorf("%s budget %g: %w", b.Measure, axis(b), err)
		}
		if sol.Certificate != nil {
			sol.Certificate.Mechanism = sol.Mechanism
		}
		pts = append(pts, ExpectedPoint{Budget: b, Epsilon: axis(b), Audited: sol.Epsilon, ExpectedUtility: sol.ExpectedUtility,
			ExpectedUtilityBound: sol.ExpectedUtilityBound, WorstCaseValue: sol.WorstCaseValue, WorstCaseOrder: sol.WorstCaseOrder,
			Mechanism: sol.Mechanism, Solver: sol.Solver, Certificate: sol.Certificate})
		if opt.Progress != nil {
			opt.Progress(k+1, len(budgets))
		}
	}
	return pts, nil
}
