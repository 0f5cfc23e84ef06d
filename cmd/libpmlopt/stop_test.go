package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/pollctx"
	"github.com/pmlopt/pmlopt/mech"
)

// TestProblemOfStops: a call's problem, built from a 12×12 grid's utility
// (144 rows), derives the order and checks it against the utility with
// the call's token, one look per mech.PollRows rows: a token cancelled at
// the k-th look ends the call there, "interrupted", whichever operation
// (solve, audit, safe) it was.
func TestProblemOfStops(t *testing.T) {
	pi, u, err := instance.GridProblem(12, 12, "uniform")
	require.NoError(t, err)
	n := len(pi)
	flat := make([]float64, 0, n*n)
	for _, row := range u {
		flat = append(flat, row...)
	}
	m := mech.Mechanism(make([][]float64, n))
	mflat := make([]float64, 0, n*n)
	for i := range m {
		for j := range n {
			v := 0.0
			if i == j {
				v = 1
			}
			mflat = append(mflat, v)
		}
	}
	in := input{N: n, M: n, Prior: pi, Utility: flat, Mechanism: mflat}
	looks := (n + mech.PollRows - 1) / mech.PollRows
	// The derivation's looks, then the check's (the order's rows, then
	// the utility's ranks).
	for _, op := range []struct{ name, params string }{
		{"solve", `{"epsilon":1}`},
		{"audit", `{}`},
		{"safe", `{"h":2}`},
	} {
		for _, at := range []int{1, looks + 1, 3 * looks} {
			c := pollctx.New(at)
			d, r := call(t, c, op.name, op.params, in)
			assert.Equal(t, "interrupted", d.Error, "%s at %d", op.name, at)
			assert.Nil(t, r.matrices, "%s at %d", op.name, at)
			// One more look: the call's, which names the cancellation as
			// the reason.
			assert.Equal(t, at+1, c.Polls(), "%s at %d", op.name, at)
			c.Cancel()
		}
	}
}

// Whatever error an operation returns once its token is cancelled, the
// call's error is "interrupted": one word for every operation and step.
func TestCancelledCallIsInterrupted(t *testing.T) {
	ops["test-cancelled"] = func(ctx context.Context, _ args, _ input) (any, [][][]float64, error) {
		return nil, nil, fmt.Errorf("pmlopt: solve: %v", context.Cause(ctx))
	}
	defer delete(ops, "test-cancelled")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d, _ := call(t, ctx, "test-cancelled", `{}`, input{})
	assert.Equal(t, "interrupted", d.Error)
	d, _ = call(t, context.Background(), "test-cancelled", `{}`, input{})
	assert.Equal(t, "pmlopt: solve: <nil>", d.Error) // not cancelled: the operation's own error
}
