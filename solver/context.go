package solver

import (
	"context"

	"github.com/pmlopt/pmlopt/lp"
)

// Start says where SolveContext begins and how far it may go. The zero
// value is a cold solve within the engine's own limits.
type Start struct {
	// Basis, if not nil, is the starting basis for a backend that keeps
	// bases (BasisSession); one of the wrong lengths for the model is an
	// error.
	Basis *lp.Basis
	// IterationLimit, if positive, bounds the simplex iterations of a
	// backend that takes a limit (LimitedSession); the solve then ends
	// with Status Limit.
	IterationLimit int
	// CostScale, if positive and not 1, multiplies the costs the engine
	// sees; the solution comes back in the model's own units (objective
	// and duals divided by it). An engine holds reduced costs to an
	// absolute tolerance, and a model whose columns range far beyond 1
	// (polytope.RobustModel.CostScale) needs its costs that much larger
	// for the tolerance to mean as much on those columns as on the others.
	CostScale float64
}

// SolveContext solves m with s from start and returns the solution and,
// where the backend gives one, its final basis.
//
// The engines do not watch a context, and one LP can take minutes: the
// solve runs in its own goroutine, and SolveContext returns ctx.Err() as
// soon as ctx is done. An engine whose session can be stopped
// (StoppableSession: the pure-Go simplex) stops within a few iterations;
// another runs to its end in the background, owning and closing its
// session, and its answer is dropped.
func SolveContext(ctx context.Context, s Solver, m *lp.Model, start Start) (*Solution, *lp.Basis, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	type answer struct {
		sol   *Solution
		basis *lp.Basis
		err   error
	}
	k := start.CostScale
	scaled := k > 0 && k != 1
	if scaled {
		m = withCosts(m, k)
	}
	done := make(chan answer, 1) // buffered: an abandoned solve never blocks
	go func() {
		sol, basis, err := solveStopping(s, m, start, func() bool { return ctx.Err() != nil })
		if scaled && sol != nil {
			unscale(sol, k)
		}
		done <- answer{sol, basis, err}
	}()
	select {
	case a := <-done:
		if a.err != nil && ctx.Err() != nil {
			return nil, nil, ctx.Err() // the engine stopped for the context
		}
		return a.sol, a.basis, a.err
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// solveStopping is SolveContext's solve: stop, polled by an engine that
// can be stopped, says when to give up.
func solveStopping(s Solver, m *lp.Model, start Start, stop func() bool) (*Solution, *lp.Basis, error) {
	ws, ok := s.(WarmSolver)
	if !ok {
		sol, err := s.Solve(m)
		return sol, nil, err
	}
	sess, err := ws.Load(m)
	if err != nil {
		return nil, nil, err
	}
	defer sess.Close()
	if ss, ok := sess.(StoppableSession); ok {
		ss.SetStop(stop)
	}
	if ls, ok := sess.(LimitedSession); ok && start.IterationLimit > 0 {
		ls.SetIterationLimit(start.IterationLimit)
	}
	bs, isBasis := sess.(BasisSession)
	if isBasis && start.Basis != nil {
		if err := bs.SetBasis(*start.Basis); err != nil {
			return nil, nil, err
		}
	}
	sol, err := sess.Solve()
	if err != nil || !isBasis {
		return sol, nil, err
	}
	if b, ok := bs.Basis(); ok {
		return sol, &b, nil
	}
	return sol, nil, nil
}

// withCosts returns a copy of m whose costs and offset are multiplied by
// k; it shares m's other slices, which a solve only reads.
func withCosts(m *lp.Model, k float64) *lp.Model {
	c := *m
	c.ColCosts = make([]float64, len(m.ColCosts))
	for j, v := range m.ColCosts {
		c.ColCosts[j] = v * k
	}
	c.Offset = m.Offset * k
	return &c
}

// unscale reads a solution of withCosts(m, k) in m's units: its
// objective and duals divided by k (its point and rays do not depend on
// the costs' scale).
func unscale(sol *Solution, k float64) {
	sol.Objective /= k
	for i := range sol.RowDuals {
		sol.RowDuals[i] /= k
	}
	for j := range sol.ColDuals {
		sol.ColDuals[j] /= k
	}
}
