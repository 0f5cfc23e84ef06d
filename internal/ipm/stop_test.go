package ipm

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/randinst"
)

// stopAtLook counts the looks at the iterations' context inside the
// Newton systems (testStopPoll) and cancels the context returned at the
// at-th (never when at is 0), before that look reads it.
func stopAtLook(t *testing.T, at int) (context.Context, *int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	looks := new(int)
	var mu sync.Mutex // the workers of a split look at once
	testStopPoll = func() {
		mu.Lock()
		defer mu.Unlock()
		*looks++
		if *looks == at {
			cancel()
		}
	}
	t.Cleanup(func() { testStopPoll = nil; cancel() })
	return ctx, looks
}

// TestScatterUpdatesStop: a probe on the pattern's pairs (formOutlet, the
// Newton system assembled by scatterUpdates) looks at its context every
// pollOutputs outputs of each assembly, several times per iteration, and
// a context that ends at any look ends the probe at that look, with the
// context's error.
func TestScatterUpdatesStop(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 7))
	n, m := 24, 40
	pi, o := randinst.Prior(rng, n, 0.01), randinst.StrictOrder(rng, n, m)
	pat := o.Pattern(m / 2)
	_, st, _ := outlet(normalised(pi), pat, 1)
	require.False(t, st.full)

	ctx, looks := stopAtLook(t, 0)
	r, err := probe(ctx, pi, pat, 1, 1, 0, formOutlet)
	require.NoError(t, err)
	// The outlet form's outputs (those of the pattern that a mechanism at
	// ε can use, and the outlet): three looks per assembly, one assembly
	// per Newton system (at least one per iteration).
	perAssembly := (st.m + pollOutputs - 1) / pollOutputs
	require.Equal(t, 3, perAssembly)
	total := *looks
	t.Logf("%d looks in %d iterations", total, r.Iterations)
	require.GreaterOrEqual(t, total, perAssembly*r.Iterations)
	require.Equal(t, 0, total%perAssembly)

	for _, at := range []int{1, 2, total/2 + 1, total} {
		ctx, looks := stopAtLook(t, at)
		_, err := probe(ctx, pi, pat, 1, 1, 0, formOutlet)
		assert.ErrorIs(t, err, context.Canceled, "at %d", at)
		assert.Equal(t, at, *looks, "at %d", at)
	}
}

// TestLowRankStop: Solve with the low-rank Newton system looks at its
// context inside each iteration (the Gram matrix of its capacitance
// matrix, each round of refinement), and a context that ends at any look
// ends Solve at that look, with the context's error.
func TestLowRankStop(t *testing.T) {
	rng := rand.New(rand.NewPCG(62, 8))
	n, m := 40, 5
	p := Problem{Prior: randinst.Prior(rng, n, 0.01), Utility: randinst.Utility(rng, n, m, 0), Epsilon: 0.5}

	ctx, looks := stopAtLook(t, 0)
	r, err := Solve(p, Options{Context: ctx, LowRank: true, Workers: 1})
	require.NoError(t, err)
	total := *looks
	t.Logf("%d looks in %d iterations", total, r.Iterations)
	// A Gram matrix and at least one round of refinement per iteration.
	require.Greater(t, total, 2*r.Iterations)

	for _, at := range []int{1, 2, 3, total / 2, total} {
		ctx, looks := stopAtLook(t, at)
		_, err := Solve(p, Options{Context: ctx, LowRank: true, Workers: 1})
		assert.ErrorIs(t, err, context.Canceled, "at %d", at)
		assert.Equal(t, at, *looks, "at %d", at)
	}
}
