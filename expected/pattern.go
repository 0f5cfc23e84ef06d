package expected

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

// ErrInfeasible is returned by Maximize when no mechanism within the budget
// respects Options.Pattern (the backend found the LP infeasible).
var ErrInfeasible = errors.New("expected: no mechanism within the budget respects the zero pattern")

// maximizePattern solves the expected-utility LP restricted to
// opt.Pattern: the interior point of step 1 knows no zero pattern, so the
// LP is solved whole (steps 3 and 4).
//
//  1. Build the polytope with the pattern (for PML, outputs no ε-PML
//     mechanism can use are pruned) and solve it.
//  2. For ε-PML, turn the duals of the rows Σ_j p_ij = 1 into a proven
//     upper bound (dualBound), which holds for every mechanism with the
//     pattern whatever the engine's tolerances.
//  3. Audit the optimum; polish it (solveModel) if it exceeds the budget
//     by more than polishTol.
func maximizePattern(ctx context.Context, pi mech.Prior, u mech.Utility, b mech.Budget, opt Options) (Result, error) {
	if err := opt.Pattern.Check(len(pi)); err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	slv := opt.Solver
	if slv == nil {
		slv = solver.Auto()
	}
	mod, err := polytope.Build(polytope.Spec{Prior: pi, Budget: b, Objective: polytope.ExpectedUtility, Utility: u,
		Pattern: opt.Pattern, Prune: b.Measure == mech.PML})
	if err != nil {
		return Result{}, err
	}
	if mod.LP.NumCols() >= longLP {
		opt.notify("solving the %s LP with a zero pattern (%d rows × %d columns) with %s", b.Measure, mod.LP.NumRows(), mod.LP.NumCols(), slv.Name())
	}
	res, _, err := solveFrom(ctx, slv, mod.LP, nil)
	if err == nil && res.Status == solver.Infeasible {
		return Result{}, fmt.Errorf("%w (solver %s)", ErrInfeasible, slv.Name())
	}
	if err := optimal(slv, res, err); err != nil {
		return Result{}, err
	}
	bound, alpha := math.NaN(), []float64(nil)
	if b.Measure == mech.PML {
		bound, alpha = dualBoundAlpha(pi, u, opt.Pattern, b.Epsilon, res.RowDuals)
	}
	sol, x, auditErr := assess(pi, b, mod, res, 1)
	sol.LPSolves = 1
	if auditErr != nil || x > polishTol {
		if sol, err = solveModel(ctx, pi, b, mod, slv); err != nil {
			return Result{}, err
		}
		sol.LPSolves++
	}
	if !opt.Pattern.Holds(sol.Mechanism) {
		return Result{}, errors.New("audit: the solver's mechanism breaks the zero pattern")
	}
	sol = sol.finish(pi, u)
	if !math.IsInf(bound, 1) {
		sol.Bound, sol.Alpha = max(bound, sol.Value), alpha
	}
	sol.Solver, sol.FullLP = slv.Name(), true
	return sol, nil
}
