package ipm

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/mech"
)

// robustOnce is an interior point over the set that answers in one run,
// no rounds: the dualised routes (dualIPM and the lean routes). runTo
// leaves it at the best point its iterations saw, whose gap measure
// heldGap returns, and reading gives what its result is read from.
type robustOnce interface {
	runTo(ctx context.Context, maxIter int, tol float64) (iters int, done bool, err error)
	reading() *robustReading
	heldGap() float64
}

// solveOnce runs x towards target within maxIter iterations and
// certifies its answer by settle: one round, no cut.
func solveOnce(ctx context.Context, x robustOnce, p RobustProblem, pi mech.Prior, maxIter int, target, accept float64) (*RobustResult, error) {
	out, _, err := solveOnceCounting(ctx, x, p, pi, maxIter, target, accept, false)
	return out, err
}

// solveOnceCounting is solveOnce that also returns the iterations run,
// whether or not they answer. With an error the result is nil, but for a
// run that settle refused with errStalledWithinGap, or, with later set, a
// stalled run whose check settleLater left for resolve.
func solveOnceCounting(ctx context.Context, x robustOnce, p RobustProblem, pi mech.Prior, maxIter int, target, accept float64, later bool) (*RobustResult, int, error) {
	iters, _, err := x.runTo(ctx, maxIter, target)
	if err != nil {
		return nil, iters, err
	}
	out := x.reading().result(p, pi)
	held := x.heldGap()
	out.Rounds, out.Iterations = 1, iters
	out.Converged = held <= target
	verdict := settle
	if later {
		verdict = settleLater
	}
	if err := verdict(out, p, held, target, accept); err != nil {
		if errors.Is(err, errStalledWithinGap) || errors.Is(err, errStalledPending) {
			return out, iters, err // certified, for SolveRobust to fall back on
		}
		return nil, iters, err
	}
	return out, iters, nil
}

// keptIterand is an interior point whose best point runKeepingBest
// keeps: its gap measure and its test of a gap.
type keptIterand interface {
	iterand
	measureRel() float64
	converged(tol float64) bool
}

// leanBlownUp is the growth of a lean run's gap measure past its least at
// which a run never near-optimal counts as diverging (iterateWatched):
// such a run does not come back, and would spend its iterations up to
// the limit. A lean run whose best point is within robustAcceptGap, where
// settle takes a stalled run's answer, ends after stallRuns iterations
// that do not improve on it: one that jumps away from there crawls back
// by a fraction of a percent an iteration. The price is the run that
// would have come back to its target after a longer recovery: it answers
// at the accepted gap instead (or its next run does).
const leanBlownUp = 1e3

// runKeepingBest runs x's iterations (iterate) and leaves x at the best
// point they saw by measureRel, keep's slices (what a reading needs)
// restored to their values there; held is that point's measure and done
// reports it within tol. A breakdown or a failed step ends the run at
// that point, not in an error; a run that came near no point is
// ErrRobustNotConverged.
func runKeepingBest(ctx context.Context, x keptIterand, maxIter int, tol float64, keep [][]float64) (iters int, done bool, held float64, err error) {
	held = math.Inf(1)
	save := make([][]float64, len(keep))
	for i, v := range keep {
		save[i] = make([]float64, len(v))
	}
	iters, _ = iterateWatched(ctx, x, maxIter, robustLooseTol, func(int) (bool, bool) {
		g := x.measureRel()
		if !(g < held) {
			return false, false
		}
		held = g
		for i, v := range keep {
			copy(save[i], v)
		}
		done = x.converged(tol)
		return true, done
	}, newStallWatch(leanBlownUp, robustAcceptGap))
	if cerr := ctx.Err(); cerr != nil {
		return iters, false, held, cerr
	}
	if math.IsInf(held, 1) {
		return iters, false, held, fmt.Errorf("%w (the iterations came within %g of no point)", ErrRobustNotConverged, robustLooseTol)
	}
	for i, v := range keep {
		copy(v, save[i])
	}
	return iters, done, held, nil
}
