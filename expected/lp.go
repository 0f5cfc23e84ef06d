package expected

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

// solveModel solves an expected-utility model with slv and audits the
// optimum, polished (step 4) if it exceeds the budget by more than
// polishTol or fails the audit. The model is first solved as built:
// scaling from the start would slow the pure-Go backend (its optimum is
// exact here anyway) and gonum's Simplex finds the scaled basis singular.
//
// A polished ε-PML optimum that still fails the audit is solved again
// (up to margRounds times) with the marg row of each output of mass q_j below
// margMass at the last optimum multiplied by about 1/q_j as well (a power
// of 2: exact; a row keeps the largest factor of the rounds). An
// engine meets that row to 1e-9 in its units, so an output used only by
// letters of mass below 1e-9 can take any mass there, and its pairs any
// ratio (pml 36 at a budget of 30 on a binomial(63, 0.5) prior); scaled,
// the row is met to 1e-9 of the output's mass. polytope scales these rows
// only where a zero pattern bounds the output's mass before the solve.
func solveModel(ctx context.Context, pi mech.Prior, b mech.Budget, mod *polytope.Model, slv solver.Solver) (Result, error) {
	res, basis, err := solveFrom(ctx, slv, mod.LP, nil)
	if err := optimal(slv, res, err); err != nil {
		return Result{}, err
	}
	sol, x, auditErr := assess(pi, b, mod, res, 1)
	sol.LPSolves = 1
	if auditErr == nil && x <= polishTol {
		return sol, nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	scaled := mod.LP.ScaledRows(polytope.RowScale)
	res, basis2, err := solveFrom(ctx, slv, scaled, basis)
	solves := 2
	polished := optimal(slv, res, err) == nil
	if polished {
		// Both are optima of the same LP: keep the one nearer the budget.
		if sol2, x2, err2 := assess(pi, b, mod, res, polytope.RowScale); err2 == nil && (auditErr != nil || x2 < x) {
			sol, auditErr = sol2, nil
		}
		if basis2 != nil {
			basis = basis2
		}
	}
	last, exp := sol.Mechanism, make(map[int]int)
	for range margRounds {
		if auditErr == nil || !polished || b.Measure != mech.PML || last == nil {
			break
		}
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		raiseMarg(exp, mod.Marg, last.Marginal(pi))
		res, basis2, err = solveFrom(ctx, slv, scaleRows(scaled, exp), basis)
		if optimal(slv, res, err) != nil {
			break
		}
		solves++
		if basis2 != nil {
			basis = basis2
		}
		next, _, err := assess(pi, b, mod, res, polytope.RowScale)
		if err == nil {
			sol, auditErr = next, nil
		}
		last = next.Mechanism
	}
	if auditErr != nil {
		return Result{}, auditErr
	}
	sol.LPSolves = solves
	return sol, nil
}

// raiseMarg raises exp[r], for the marg row r = marg[j] of each output of
// mass 0 < q_j < margMass, to the power of 2 that brings q_j into
// [1/2, 1), at most maxMargExp. A row keeps the largest exponent any
// round asked of it.
func raiseMarg(exp map[int]int, marg []int, q []float64) {
	for j, r := range marg {
		if r < 0 || j >= len(q) || !(q[j] > 0 && q[j] < margMass) {
			continue
		}
		_, e := math.Frexp(q[j])
		exp[r] = max(exp[r], min(-e, maxMargExp))
	}
}

// scaleRows returns a copy of l with each row r of exp multiplied by
// 2^exp[r].
func scaleRows(l *lp.Model, exp map[int]int) *lp.Model {
	out := *l
	out.ConstMatrix = slices.Clone(l.ConstMatrix)
	out.RowLower, out.RowUpper = slices.Clone(l.RowLower), slices.Clone(l.RowUpper)
	for k, e := range out.ConstMatrix {
		if x, ok := exp[e.Row]; ok {
			out.ConstMatrix[k].Val = math.Ldexp(e.Val, x)
		}
	}
	for r, x := range exp {
		out.RowLower[r] = math.Ldexp(out.RowLower[r], x)
		out.RowUpper[r] = math.Ldexp(out.RowUpper[r], x)
	}
	return &out
}

// optimal turns a solve that did not end optimal into an error: every
// polytope holds the independent mechanism, so that is an engine failure,
// not a property of the problem.
func optimal(slv solver.Solver, res *solver.Solution, err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("solver %s: %w", slv.Name(), err)
	case res.Status != solver.Optimal:
		return fmt.Errorf("solver %s: %s on a feasible problem", slv.Name(), res.Status)
	}
	return nil
}

// assess extracts and audits the mechanism of an optimal solution, and
// returns how far it exceeds the budget. The solution's duals of the rows
// Σ_j p_ij = 1, multiplied by scale (the factor those rows were
// multiplied by), are kept for dualBound.
func assess(pi mech.Prior, b mech.Budget, mod *polytope.Model, res *solver.Solution, scale float64) (Result, float64, error) {
	m, err := mod.Mechanism(res.X)
	if err != nil {
		return Result{}, 0, err
	}
	a, err := certify.Audit(pi, m, b)
	r := Result{Mechanism: m, Epsilon: a.Level, ALIPLower: a.ALIPLower, Bound: math.NaN()}
	if len(res.RowDuals) >= len(pi) {
		r.duals = make([]float64, len(pi))
		for i := range r.duals {
			r.duals[i] = res.RowDuals[i] * scale
		}
	}
	return r, a.Excess, err
}

// dualBound is the upper bound that certify.UpperBound proves on the
// expected utility of every ε-PML mechanism with the pattern pat (nil:
// every pair) from an LP's duals of the rows Σ_j p_ij = 1. The bound
// holds for any multipliers, whatever the engine's tolerances; both signs
// are tried, as backends differ in their sign convention. It is +Inf
// without duals.
//
// The duals of letters of tiny mass are rounding, and with them the bound
// can stand far above the optimum; it is capped by the bound of the
// multipliers α_i = π_i·max_j u_ij (Σ_i π_i max_j u_ij, which holds for
// every mechanism whatever its budget), and that cap is exact where the
// budget lets every letter take its best allowed output.
func dualBound(pi mech.Prior, u mech.Utility, pat mech.Pattern, eps float64, duals []float64) float64 {
	bound, _ := dualBoundAlpha(pi, u, pat, eps, duals)
	return bound
}

// dualBoundAlpha is dualBound with the multipliers that prove it.
func dualBoundAlpha(pi mech.Prior, u mech.Utility, pat mech.Pattern, eps float64, duals []float64) (float64, []float64) {
	if len(duals) < len(pi) {
		return math.Inf(1), nil
	}
	best := slices.Clone(duals[:len(pi)])
	bound := certify.UpperBound(pi, u, pat, eps, best)
	alpha := slices.Clone(best)
	for i := range alpha {
		alpha[i] = -alpha[i]
	}
	if b2 := certify.UpperBound(pi, u, pat, eps, alpha); b2 < bound {
		bound, best = b2, alpha
		alpha = make([]float64, len(pi))
	}
	for i, row := range u {
		top := math.Inf(-1)
		for j, v := range row {
			if pat == nil || pat[i][j] {
				top = max(top, v)
			}
		}
		alpha[i] = pi[i] * top
	}
	if b2 := certify.UpperBound(pi, u, pat, eps, alpha); b2 < bound {
		bound, best = b2, alpha
	}
	return bound, best
}

// solveFrom solves lpm with slv, starting from basis start when the backend
// takes one (row scaling changes no basis status), and returns the final
// basis when the backend gives one; it returns ctx.Err() as soon as ctx is
// done (solver.SolveContext).
func solveFrom(ctx context.Context, slv solver.Solver, lpm *lp.Model, start *lp.Basis) (*solver.Solution, *lp.Basis, error) {
	return solver.SolveContext(ctx, slv, lpm, solver.Start{Basis: start})
}
