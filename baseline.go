package pmlopt

import (
	"context"
	"math"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// Baseline names a closed-form mechanism family of package closedform.
type Baseline string

// The baselines SolveBaseline calibrates.
const (
	RandomizedResponse = Baseline(closedform.FamilyRandomizedResponse) // k-ary randomized response, parameter ε̄ (N = M)
	Exponential        = Baseline(closedform.FamilyExponential)        // exponential mechanism, parameter ε̄, Δ = closedform.Sensitivity
	Extremal           = Baseline(closedform.FamilyExtremal)           // PML-extremal mechanism, parameter ε ≤ log 1/(1−p_min) (N = M)
	UtilitySafe        = Baseline(closedform.FamilyUtilitySafe)        // utility-safe M*(h), parameter h
)

// Baselines lists the baselines in the order the CLI's help gives them.
var Baselines = []Baseline{RandomizedResponse, Exponential, Extremal, UtilitySafe}

// BaselineSolution is a closed-form mechanism calibrated to a budget. Its
// OptimalEpsilonLower is 0 for the worst-case objectives (a closed form certifies
// no least ε) and Epsilon for expected utility, as for Solve.
type BaselineSolution struct {
	Solution
	Kind Baseline
	// Parameter is the family's parameter (ε̄, ε or h; +Inf for ε̄ means
	// the family's limit, every level of the budget being met there), the
	// largest whose audited level is within the budget.
	Parameter float64
	// ParameterName is "ε̄", "ε" or "h".
	ParameterName string
	// Start is the parameter the conversions of package guarantee give
	// (safe without an audit), NaN when there is none; Parameter ≥ Start.
	Start float64
	// Audits counts the mechanisms audited by the calibration.
	Audits int
}

// SolveBaseline calibrates the baseline kind tightly to p's budget: the
// largest parameter whose mechanism's audited level of the budget's
// measure is within the budget (closedform.Calibrate, audited over p's
// prior set when it has one).
func SolveBaseline(ctx context.Context, p *problem.Problem, kind Baseline) (*BaselineSolution, error) {
	if err := ready(ctx, p); err != nil {
		return nil, err
	}
	b, err := p.RequirePrivacy()
	if err != nil {
		return nil, err
	}
	within := func(q mech.Mechanism) bool { return excessFor(p, q, b) <= 0 }
	c, err := closedform.Calibrate(ctx, closedform.Family(kind), p.Prior, p.PriorSet, p, b, within)
	if err != nil {
		return nil, err
	}
	sol := &BaselineSolution{Kind: kind, Parameter: c.Parameter, ParameterName: c.ParameterName, Start: c.Start, Audits: c.Audits}
	return finishBaseline(p, b, sol, c.Mechanism), nil
}

// finishBaseline audits q and fills sol.
func finishBaseline(p *problem.Problem, b mech.Budget, sol *BaselineSolution, q mech.Mechanism) *BaselineSolution {
	sol.Mechanism, sol.Measure, sol.Objective = q, b.Measure, p.Objective
	sol.Epsilon, sol.ALIPLower, _ = leakage.Level(p.Prior, q, b)
	if p.PriorSet != nil {
		sol.Epsilon, sol.ALIPLower, _ = leakage.LevelOver(p.PriorSet, q, b)
	}
	sol.OptimalEpsilonLower, sol.ExpectedUtilityBound, sol.Solver = sol.Epsilon, math.NaN(), "closed form"
	if sol.Objective == problem.WorstCaseOrder || sol.Objective == problem.WorstCaseValue {
		// A closed form proves nothing about the least ε of its worst
		// case (randomized response reaches order 1, whose ε* is 0, at
		// its ε̄-dependent level): the only certified lower end is 0.
		sol.OptimalEpsilonLower = 0
	}
	describe(p, &sol.Solution)
	return sol
}

// excess is how far q exceeds b at the prior pi (≤ 0 when within; for
// ALIP the larger of the two excesses).
func excess(pi mech.Prior, q mech.Mechanism, b mech.Budget) float64 {
	_, _, e := leakage.Level(pi, q, b)
	return e
}
