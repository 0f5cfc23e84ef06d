package expected

import (
	"context"

	"github.com/pmlopt/pmlopt/mech"
)

// UsesColumns reports whether Maximize would answer a problem of n inputs
// and m outputs under opt by the active set over outputs (step 0 of the
// package doc), which reads the utility a column at a time: then
// MaximizeColumns needs no N×M utility.
func UsesColumns(n, m int, opt Options) bool {
	return !opt.FullLP && !opt.WholeProblem && opt.Solver == nil && opt.Pattern == nil && n*m >= activeCells
}

// MaximizeColumns is Maximize for a utility read a column at a time, such
// as a mech.UtilityRule, whose N×M matrix need not be held: where
// UsesColumns holds, the active set over outputs runs on u itself and
// holds only the N × |S| columns of its restricted problems (and the
// returned mechanism); for a rule it starts from the outputs of the
// problems with merged inputs (coarseSeed). Elsewhere, or when the active
// set does not certify the optimum, dense gives the matrix (or an error,
// such as one saying it would not fit in memory) and Maximize solves the
// problem on it. The result is an optimum of the same problem as
// Maximize's on the dense utility, certified the same way: the same value
// within the certified gap. Where the active sets start from the same
// outputs (a utility that is not a rule, or a rule too small for a
// merged level) it is the same mechanism, value and bound; otherwise the
// mechanism may be another optimal vertex.
func MaximizeColumns(ctx context.Context, pi mech.Prior, u mech.Columns, dense func() (mech.Utility, error), b mech.Budget, opt Options) (Result, error) {
	if err := checkContext(ctx); err != nil {
		return Result{}, err
	}
	if n, m := u.Dims(); UsesColumns(n, m, opt) {
		start := coarseSeed(ctx, pi, u, b, opt)
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		if start == nil {
			start = seedOutputs(normalised(pi), u, firstOutputs)
		}
		r, err := activeSet(ctx, pi, u, b, start, opt)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Result{}, ctxErr
		}
		if err == nil {
			return r, nil
		}
		opt.notify("%v: solving the whole problem", err)
		opt.WholeProblem = true
	}
	d, err := dense()
	if err != nil {
		return Result{}, err
	}
	return Maximize(ctx, pi, d, b, opt)
}
