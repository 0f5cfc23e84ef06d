package solver_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/solver"
)

// TestSolveContextPassesStart: SolveContext solves as the backend does,
// and its iteration limit reaches a session that takes one.
func TestSolveContextPassesStart(t *testing.T) {
	ctx := context.Background()
	sol, _, err := solver.SolveContext(ctx, solver.Revised(), wyndor(), solver.Start{})
	require.NoError(t, err)
	assert.Equal(t, solver.Optimal, sol.Status)
	assert.InDelta(t, 36, sol.Objective, 1e-12)
	assert.InDeltaSlice(t, []float64{2, 6}, sol.X, 1e-12)

	sol, _, err = solver.SolveContext(ctx, solver.Revised(), wyndor(), solver.Start{IterationLimit: 1})
	require.NoError(t, err)
	assert.Equal(t, solver.Limit, sol.Status)
}

// blocking is a backend without sessions whose Solve says it has begun
// and then waits for release: an engine that does not watch the context.
type blocking struct{ entered, release chan struct{} }

func (blocking) Name() string { return "blocking" }

func (b blocking) Solve(*lp.Model) (*solver.Solution, error) {
	close(b.entered)
	<-b.release
	return &solver.Solution{Status: solver.Optimal}, nil
}

// TestSolveContextReturnsOnCancel: a solve that does not stop by itself
// is abandoned as soon as the context ends, with the context's error; a
// context already ended solves nothing.
func TestSolveContextReturnsOnCancel(t *testing.T) {
	b := blocking{entered: make(chan struct{}), release: make(chan struct{})}
	defer close(b.release)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, _, err := solver.SolveContext(ctx, b, wyndor(), solver.Start{})
		done <- err
	}()
	<-b.entered
	cancel()
	// The engine is still blocked: only the cancellation can end the wait.
	err := <-done
	assert.True(t, errors.Is(err, context.Canceled), "error %v", err)
	sol, _, err := solver.SolveContext(ctx, solver.Revised(), wyndor(), solver.Start{})
	assert.Nil(t, sol)
	assert.True(t, errors.Is(err, context.Canceled), "error %v", err)
}

// recording is a backend without sessions that keeps the costs and
// offset it was given and answers as if its optimum had the objective 2
// and the duals 3 (row) and 4 (column), in its own units.
type recording struct {
	costs  []float64
	offset float64
}

func (*recording) Name() string { return "recording" }

func (r *recording) Solve(m *lp.Model) (*solver.Solution, error) {
	r.costs, r.offset = append([]float64(nil), m.ColCosts...), m.Offset
	return &solver.Solution{Status: solver.Optimal, Objective: 2, X: []float64{1, 1}, RowDuals: []float64{3, 3, 3}, ColDuals: []float64{4, 4}}, nil
}

// TestSolveContextAtACostScale: with Start.CostScale the engine sees the
// costs and offset multiplied by it, and the answer comes back in the
// model's own units (objective and duals divided by it, the point as it
// is); the model's costs stay as they were. On every backend, Wyndor at a
// scale of 1e6 has its optimum 36 at (2, 6) and the duals of the unscaled
// solve.
func TestSolveContextAtACostScale(t *testing.T) {
	ctx := context.Background()
	m := wyndor()
	m.Offset = 0.5
	rec := &recording{}
	sol, _, err := solver.SolveContext(ctx, rec, m, solver.Start{CostScale: 8})
	require.NoError(t, err)
	assert.Equal(t, []float64{24, 40}, rec.costs)
	assert.Equal(t, 4.0, rec.offset)
	assert.Equal(t, 0.25, sol.Objective)
	assert.Equal(t, []float64{0.375, 0.375, 0.375}, sol.RowDuals)
	assert.Equal(t, []float64{0.5, 0.5}, sol.ColDuals)
	assert.Equal(t, []float64{1, 1}, sol.X)
	assert.Equal(t, []float64{3, 5}, m.ColCosts)
	assert.Equal(t, 0.5, m.Offset)

	for _, name := range solver.Names() {
		s, err := solver.Get(name)
		require.NoError(t, err)
		m := wyndor()
		plain, _, err := solver.SolveContext(ctx, s, m, solver.Start{})
		require.NoError(t, err)
		sol, _, err := solver.SolveContext(ctx, s, m, solver.Start{CostScale: 1e6})
		require.NoError(t, err, name)
		assert.Equal(t, solver.Optimal, sol.Status, name)
		assert.InDelta(t, 36, sol.Objective, 1e-9, name)
		assert.InDeltaSlice(t, []float64{2, 6}, sol.X, 1e-9, name)
		assert.InDeltaSlice(t, plain.RowDuals, sol.RowDuals, 1e-9, name)
		assert.InDelta(t, 1.5, math.Abs(sol.RowDuals[1]), 1e-9, name)
		assert.InDeltaSlice(t, plain.ColDuals, sol.ColDuals, 1e-9, name)
		assert.Equal(t, wyndor().ColCosts, m.ColCosts, name)
	}
}
