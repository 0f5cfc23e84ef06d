package solver_test

import (
	"context"
	"errors"
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

// TestSolveContextAtACostScale: with Start.CostScale the engine sees the
// costs multiplied by it, and the answer comes back in the model's own
// units: Wyndor's optimum 36 at (2, 6), with the row duals (0, 3/2, 1)
// of the unscaled solve, on every backend, and the model's costs as they
// were.
func TestSolveContextAtACostScale(t *testing.T) {
	ctx := context.Background()
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
		assert.InDelta(t, 1.5, abs(sol.RowDuals[1]), 1e-9, name)
		assert.InDeltaSlice(t, plain.ColDuals, sol.ColDuals, 1e-9, name)
		assert.Equal(t, wyndor().ColCosts, m.ColCosts, name)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
