package expected

import (
	"context"
	"fmt"
	"math"

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
func solveModel(ctx context.Context, pi mech.Prior, b mech.Budget, mod *polytope.Model, slv solver.Solver) (Result, error) {
	res, basis, err := solveFrom(ctx, slv, mod.LP, nil)
	if err := optimal(slv, res, err); err != nil {
		return Result{}, err
	}
	sol, x, auditErr := assess(pi, b, mod, res)
	sol.LPSolves = 1
	if auditErr == nil && x <= polishTol {
		return sol, nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	res, _, err = solveFrom(ctx, slv, mod.LP.ScaledRows(polytope.RowScale), basis)
	if optimal(slv, res, err) == nil {
		// Both are optima of the same LP: keep the one nearer the budget.
		if sol2, x2, err2 := assess(pi, b, mod, res); err2 == nil && (auditErr != nil || x2 < x) {
			sol, auditErr = sol2, nil
		}
	}
	if auditErr != nil {
		return Result{}, auditErr
	}
	sol.LPSolves = 2
	return sol, nil
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
// returns how far it exceeds the budget.
func assess(pi mech.Prior, b mech.Budget, mod *polytope.Model, res *solver.Solution) (Result, float64, error) {
	m, err := mod.Mechanism(res.X)
	if err != nil {
		return Result{}, 0, err
	}
	a, err := certify.Audit(pi, m, b)
	return Result{Mechanism: m, Epsilon: a.Level, ALIPLower: a.ALIPLower, Bound: math.NaN()}, a.Excess, err
}

// solveFrom solves lpm with slv, starting from basis start when the backend
// takes one (row scaling changes no basis status), and returns the final
// basis when the backend gives one.
//
// The engines do not watch a context, and one LP can take minutes: the
// solve runs in its own goroutine, and solveFrom returns ctx.Err() as soon
// as ctx is done. An engine whose session can be stopped
// (solver.StoppableSession: the pure-Go simplex) stops within a few
// iterations; another runs to its end in the background (it owns its
// session and closes it). Its answer is dropped.
func solveFrom(ctx context.Context, slv solver.Solver, lpm *lp.Model, start *lp.Basis) (*solver.Solution, *lp.Basis, error) {
	type answer struct {
		res   *solver.Solution
		basis *lp.Basis
		err   error
	}
	done := make(chan answer, 1) // buffered: an abandoned solve never blocks
	go func() {
		res, basis, err := solveWith(slv, lpm, start, func() bool { return ctx.Err() != nil })
		done <- answer{res, basis, err}
	}()
	select {
	case a := <-done:
		return a.res, a.basis, a.err
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// solveWith is solveFrom without the context: stop, polled by an engine
// that can be stopped, says when to give up.
func solveWith(slv solver.Solver, lpm *lp.Model, start *lp.Basis, stop func() bool) (*solver.Solution, *lp.Basis, error) {
	ws, ok := slv.(solver.WarmSolver)
	if !ok {
		res, err := slv.Solve(lpm)
		return res, nil, err
	}
	sess, err := ws.Load(lpm)
	if err != nil {
		return nil, nil, err
	}
	defer sess.Close()
	if ss, ok := sess.(solver.StoppableSession); ok {
		ss.SetStop(stop)
	}
	bs, ok := sess.(solver.BasisSession)
	if ok && start != nil {
		_ = bs.SetBasis(*start) // a refused basis only costs the warm start
	}
	res, err := sess.Solve()
	if err != nil || !ok {
		return res, nil, err
	}
	if b, ok := bs.Basis(); ok {
		return res, &b, nil
	}
	return res, nil, nil
}
