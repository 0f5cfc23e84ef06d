package overset

import (
	"context"
	"math"

	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

// cutResult is the outcome of solveCuts.
type cutResult struct {
	// Status is the status of the last LP: Optimal when Mechanism is set.
	// Infeasible means the relaxation was infeasible, which (by the
	// backend's word) rules out the robust polytope too, since it holds it.
	Status solver.Status
	// Mechanism is the last LP's mechanism, cleaned as
	// polytope.RobustModel.Mechanism cleans it; nil unless Status is
	// Optimal.
	Mechanism mech.Mechanism
	// Objective is the last LP's objective: for ExpectedUtility an
	// optimum of a relaxation of the robust LP, so at least its optimum up
	// to the backend's tolerances.
	Objective float64
	// LPs is the number of LP solves, Cuts the number of priors added to
	// the columns' lists beyond those every problem starts with: the
	// start's (Spec.Start) and the rounds'.
	LPs, Cuts int
	// Converged reports that the last mechanism keeps the budget for every
	// prior of the set up to the cut model's tolerance (the caller still
	// audits it).
	Converged bool
	// Dualised reports that the answer is that of BuildRobust's model.
	Dualised bool
	// Proof is what the last LP's duals prove (ExpectedUtility), nil
	// where the backend gave none.
	Proof *polytope.Multipliers
}

// maxCutRounds bounds the rounds of solveCuts before it gives the
// problem to BuildRobust's model. The loop would end without it (the set
// has finitely many extreme points), but on outputs with many tied
// entries (the Hamming utility) every round finds another worst prior of
// the same value, and tens of rounds cost more than the dualised LP.
const maxCutRounds = 24

// A round takes about as many simplex iterations as the first, since each
// adds a few rows to an LP of the same size, but the simplex can stall
// on the degenerate vertices the cuts leave, for minutes
// (docs/performance.md): a round past roundIterFactor times the first
// round's iterations, and at least roundIterFloor, hands the problem to
// the dualised model.
const (
	roundIterFactor = 4
	roundIterFloor  = 5000
)

// stallRounds is the number of rounds in a row whose objective moves by
// less than stallTol (relative) after which solveCuts gives the problem
// to BuildRobust's model: the cuts then only move among tied worst
// priors (the Hamming utility).
const (
	stallRounds = 3
	stallTol    = 1e-9
)

// solveCuts solves the LP of polytope.BuildRobust for s over set without
// the dual variables: by cutting planes over the extreme priors of the
// set (polytope.CutModel). After each solve the worst prior of every
// output whose constraint the point breaks over the set joins that
// output's list, and the LP is solved again, from the last basis where
// the backend keeps one.
//
// After maxCutRounds rounds without convergence, or stallRounds rounds
// whose objective stays put, the answer is that of BuildRobust's model,
// solved once. LDP does not depend on the prior: its model is
// BuildRobust's, solved once.
func solveCuts(ctx context.Context, s polytope.Spec, set *mech.PriorSet, slv solver.Solver) (*cutResult, error) {
	if s.Budget.Measure == mech.LDP {
		return solveDualised(ctx, s, set, slv, &cutResult{})
	}
	c, err := polytope.BuildCuts(s, set)
	if err != nil {
		return nil, err
	}
	r := &cutResult{Cuts: c.Seeded}
	var basis *lp.Basis
	stalled, last := 0, math.NaN()
	firstIters := 0
	for round := 0; round < maxCutRounds && stalled < stallRounds; round++ {
		limit := 0
		if round > 0 {
			limit = max(roundIterFactor*firstIters, roundIterFloor)
		}
		sol, nb, err := solver.SolveContext(ctx, slv, c.LP, solver.Start{Basis: basis, IterationLimit: limit})
		if err != nil {
			return nil, err
		}
		r.LPs++
		r.Status, r.Objective = sol.Status, sol.Objective
		if round == 0 {
			firstIters = sol.Iterations
		}
		if sol.Status == solver.Limit {
			// A round stalling on degenerate vertices, or the engine's
			// own limit: the dualised model decides.
			return solveDualised(ctx, s, set, slv, r)
		}
		if sol.Status != solver.Optimal {
			r.Mechanism = nil
			return r, nil
		}
		basis = nb
		r.Proof = nil
		if pr, ok := c.Proof(sol.X, sol.RowDuals, sol.ColDuals); ok {
			r.Proof = &pr
		}
		if math.Abs(sol.Objective-last) <= stallTol*max(1, math.Abs(last)) {
			stalled++
		} else {
			stalled = 0
		}
		last = sol.Objective
		r.Mechanism = c.Mechanism(sol.X)
		added, uncut := c.Separate(sol.X)
		r.Cuts += added
		if added == 0 {
			r.Converged = uncut == 0
			return r, nil
		}
		if basis != nil {
			// The new rows' slacks join the basis: the old point keeps
			// its place and the engine repairs the cuts it breaks.
			for len(basis.Rows) < c.LP.NumRows() {
				basis.Rows = append(basis.Rows, lp.Basic)
			}
		}
	}
	return solveDualised(ctx, s, set, slv, r)
}

// solveDualised solves BuildRobust's model of s over set and records the
// outcome in r, whose LPs and Cuts count the rounds before.
func solveDualised(ctx context.Context, s polytope.Spec, set *mech.PriorSet, slv solver.Solver, r *cutResult) (*cutResult, error) {
	mod, err := polytope.BuildRobust(s, set)
	if err != nil {
		return nil, err
	}
	sol, _, err := solver.SolveContext(ctx, slv, mod.LP, solver.Start{CostScale: mod.CostScale()})
	if err != nil {
		return nil, err
	}
	r.LPs++
	r.Status, r.Objective, r.Converged, r.Dualised, r.Mechanism, r.Proof = sol.Status, sol.Objective, true, true, nil, nil
	if sol.Status == solver.Optimal {
		r.Mechanism = mod.Mechanism(sol.X)
		if pr, ok := mod.Proof(sol.X, sol.RowDuals, sol.ColDuals); ok {
			r.Proof = &pr
		}
	}
	return r, nil
}
