package pmlopt

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/decimal"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// Floor is the worst case a joint solve must keep: every used pair (x, y)
// has utility order at least Order (1..M), or, with ByValue, utility at
// least Value.
type Floor struct {
	Order   int
	Value   float64
	ByValue bool
}

func (f Floor) String() string {
	if f.ByValue {
		return fmt.Sprintf("worst-case value %g", f.Value)
	}
	return fmt.Sprintf("worst-case order %d", f.Order)
}

// pattern returns the zero pattern of f for p (expected.ValueFloor,
// expected.OrderFloor), an error naming the flag of f's kind.
func (f Floor) pattern(ctx context.Context, p *problem.Problem) (mech.Pattern, error) {
	if f.ByValue {
		u, err := p.RequireUtilityContext(ctx)
		if err != nil {
			return nil, err
		}
		pat, err := expected.ValueFloor(u, f.Value)
		if err != nil {
			return nil, fmt.Errorf("min-value: %w", err)
		}
		return pat, nil
	}
	o, err := p.RequireOrderContext(ctx)
	if err != nil {
		return nil, err
	}
	pat, err := expected.OrderFloor(o, f.Order)
	if err != nil {
		return nil, fmt.Errorf("min-order: %w", err)
	}
	return pat, nil
}

// JointSolution is the answer of SolveJoint: the best expected utility
// over the ε-PML mechanisms that keep a worst case, and the certified
// bracket [LeastEpsilonLower, LeastEpsilonUpper] on the least ε at which
// that worst case is reachable at all.
type JointSolution struct {
	Solution
	LeastEpsilonLower, LeastEpsilonUpper float64
}

// BelowLeastEpsilonError is SolveJoint's error when the budget is below the
// least ε that reaches the requested worst case: that least ε lies in
// [Lower, Upper] (certified), and a budget of Upper is enough; both are
// +Inf when no budget is (over a prior set).
type BelowLeastEpsilonError struct {
	Epsilon      float64
	Floor        Floor
	Lower, Upper float64
}

func (e *BelowLeastEpsilonError) Error() string {
	if math.IsInf(e.Lower, 1) {
		return fmt.Sprintf("no budget reaches %s for every prior of the prior set: some input may only use outputs that a prior of the set never produces", e.Floor)
	}
	// The ends printed outward: the budget named must be enough.
	lo, hi := decimal.Down(e.Lower, 10), decimal.Up(e.Upper, 10)
	return fmt.Sprintf("ε = %.10g is below the least ε for %s, which lies in [%s, %s]: give a budget of at least %s",
		e.Epsilon, e.Floor, lo, hi, hi)
}

// SolveJoint maximises the expected utility of p's utility over the ε-PML
// mechanisms (ε the file's budget) whose worst case is at least floor: the
// expected-utility LP over the ε-PML polytope with the zero pattern of
// floor (expected.Joint). It first brackets the least ε of that pattern
// (worstcase.LeastEpsilon) and refuses a budget below the bracket, naming it.
// The mechanism is audited (budget, zero pattern); ExpectedUtilityBound is
// proven by the LP's row multipliers (certify.UpperBound), so the optimum lies in
// [ExpectedUtility, ExpectedUtilityBound].
func SolveJoint(ctx context.Context, p *problem.Problem, floor Floor, opt Options) (*JointSolution, error) {
	if err := ready(ctx, p); err != nil {
		return nil, err
	}
	if p.PriorSet != nil {
		return solveJointOverSet(ctx, p, floor, opt)
	}
	b, u, pat, err := jointParts(ctx, p, floor)
	if err != nil {
		return nil, err
	}
	r, least, err := expected.Joint(ctx, p.Prior, u, b, pat, expected.Options{Solver: opt.Solver, Notify: opt.Notify, Workers: opt.workers()}, opt.worstCase())
	if errors.Is(err, expected.ErrBelowLeastEpsilon) {
		return nil, &BelowLeastEpsilonError{Epsilon: b.Epsilon, Floor: floor, Lower: least.OptimalEpsilonLower, Upper: least.OptimalEpsilon}
	}
	if err != nil {
		return nil, err
	}
	sol := *expectedSolution(expected.DustFree(p.Prior, u, b, r, pat))
	sol.Objective, sol.Measure, sol.LPSolves = problem.ExpectedUtility, b.Measure, r.LPSolves+least.LPSolves
	describe(p, &sol)
	sol.Certificate = certificate.Joint(p.Prior, b, sol.answer(), certificate.Floor(floor), pat, least.Proof, least.OptimalEpsilonLower)
	return &JointSolution{Solution: sol, LeastEpsilonLower: least.OptimalEpsilonLower, LeastEpsilonUpper: least.OptimalEpsilon}, nil
}

// jointParts reads what a joint solve needs from p: its budget, which
// must be ε-PML, its utility, and the zero pattern of floor.
func jointParts(ctx context.Context, p *problem.Problem, floor Floor) (mech.Budget, mech.Utility, mech.Pattern, error) {
	b, err := p.RequirePrivacy()
	if err != nil {
		return b, nil, nil, err
	}
	if b.Measure != mech.PML {
		return b, nil, nil, fmt.Errorf("privacy.measure: a worst case to keep is defined for pml budgets (Song & Oechtering 2026), the budget is %s", b.Measure)
	}
	u, err := p.RequireUtilityContext(ctx)
	if err != nil {
		return b, nil, nil, err
	}
	pat, err := floor.pattern(ctx, p)
	return b, u, pat, err
}
