package pmlopt

import (
	"context"
	"fmt"

	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
)

// ExpectedPoint is one point of an expected-utility curve: the optimum for
// one budget.
type ExpectedPoint struct {
	Budget mech.Budget
	// Epsilon is the budget's level on the curve's axis: Budget.Epsilon,
	// or Budget.EpsilonUpper for ALIP.
	Epsilon float64
	// Audited is the level of the budget's measure the mechanism reaches
	// (ε_u for ALIP).
	Audited float64
	// ExpectedUtility is the optimum's expected utility; the true optimum
	// lies in [ExpectedUtility, ExpectedUtilityBound] (the bound is NaN
	// when the method proves none; the interior point proves one under
	// every measure).
	ExpectedUtility, ExpectedUtilityBound float64
	WorstCaseValue                        float64
	WorstCaseOrder                        int
	Mechanism                             mech.Mechanism
	Solver                                string
	// Certificate is the point's certificate (package verify), with its
	// mechanism.
	Certificate *verify.Certificate
}

// ALIPBudget returns the (ε_l, ε_u)-ALIP budget on a curve's axis at ε:
// ε_u = ε and ε_l = ratio·ε.
func ALIPBudget(eps, ratio float64) mech.Budget { return expected.ALIPBudget(eps, ratio) }

// ExpectedCurve computes the best expected utility of p's utility for every
// budget in budgets, in order (expected.Curve; each mechanism audited
// against its budget). If ctx is cancelled, it returns the points computed
// so far with ctx.Err(). opt.Progress, if set, is told after each point.
func ExpectedCurve(ctx context.Context, p *problem.Problem, budgets []mech.Budget, opt Options) ([]ExpectedPoint, error) {
	if err := ready(ctx, p); err != nil {
		return nil, err
	}
	u, err := p.RequireUtilityContext(ctx)
	if err != nil {
		return nil, err
	}
	for k, b := range budgets {
		if err := problem.CheckBudget(b); err != nil {
			return nil, fmt.Errorf("budget %d: %w", k+1, err)
		}
	}
	if p.PriorSet != nil {
		return expectedCurveOverSet(ctx, p, budgets, opt)
	}
	pts := make([]ExpectedPoint, 0, len(budgets))
	err = expected.Curve(ctx, p.Prior, u, budgets, expectedOptions(opt), func(k int, b mech.Budget, r expected.Result) {
		r = expected.DustFree(p.Prior, u, b, r, nil) // no dust, as in Solve
		pt := ExpectedPoint{Budget: b, Epsilon: axis(b), Audited: r.Epsilon, ExpectedUtility: r.Value,
			ExpectedUtilityBound: r.Bound, WorstCaseValue: u.WorstCaseValue(r.Mechanism), Mechanism: r.Mechanism, Solver: r.Solver}
		if p.Order != nil {
			pt.WorstCaseOrder = p.Order.WorstCaseOrder(r.Mechanism)
		}
		pt.Certificate = certificate.Expected(b, certificate.Answer{Epsilon: r.Epsilon, ALIPLower: r.ALIPLower,
			Value: r.Value, Bound: r.Bound, Alpha: r.Alpha})
		pt.Certificate.Mechanism = r.Mechanism
		pts = append(pts, pt)
		if opt.Progress != nil {
			opt.Progress(k+1, len(budgets))
		}
	})
	return pts, err
}

// axis is a budget's level on a curve's axis (expected.Axis).
func axis(b mech.Budget) float64 { return expected.Axis(b) }
