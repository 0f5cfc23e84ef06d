package problem

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/pollctx"
	"github.com/pmlopt/pmlopt/mech"
)

// TestValidateAndMaterializeStop: on a 9×9 grid (81 rows, a look at the
// context every mech.PollRows rows) the checks of an order given with its
// utility, and the derivation of a rule's utility and order, end at the
// look at which the context ends, with its error; a stopped derivation
// leaves the problem as it was.
func TestValidateAndMaterializeStop(t *testing.T) {
	load := func() *Problem { return grid9(t) }
	looks := (81 + mech.PollRows - 1) / mech.PollRows

	// The derivation: one look per PollRows rows of the utility.
	p := load()
	c := pollctx.New(0)
	require.NoError(t, p.MaterializeContext(c))
	assert.Equal(t, looks, c.Polls())
	assert.Equal(t, p.Utility.Order(), p.Order)
	for _, at := range []int{1, 3, looks} {
		q := load()
		c := pollctx.New(at)
		err := q.MaterializeContext(c)
		assert.True(t, errors.Is(err, context.Canceled), "at %d: %v", at, err)
		assert.Equal(t, at, c.Polls(), "at %d", at)
		assert.Nil(t, q.Utility, "at %d", at)
		assert.Nil(t, q.Order, "at %d", at)
	}

	// The check of the order given with the utility: the order's rows,
	// then the utility's ranks.
	dense := &Problem{Prior: p.Prior, Utility: p.Utility, Order: p.Order, Privacy: p.Privacy, Objective: p.Objective}
	c = pollctx.New(0)
	require.NoError(t, dense.ValidateContext(c))
	assert.Equal(t, 2*looks, c.Polls())
	for _, at := range []int{1, looks + 2, 2 * looks} {
		c := pollctx.New(at)
		err := dense.ValidateContext(c)
		assert.True(t, errors.Is(err, context.Canceled), "at %d: %v", at, err)
		assert.Equal(t, at, c.Polls(), "at %d", at)
	}
}

// TestRequireStops: RequireUtilityContext and RequireOrderContext build a
// rule's utility and order with the context's looks (one per
// mech.PollRows rows), and RequireOrderContext derives the order of a
// utility given without one with them too; each stops at the look at
// which the context ends, leaving the problem as it was.
func TestRequireStops(t *testing.T) {
	load := func() *Problem { return grid9(t) }
	looks := (81 + mech.PollRows - 1) / mech.PollRows
	require.Greater(t, looks, 3)
	reqs := map[string]func(*Problem, context.Context) error{
		"utility": func(p *Problem, ctx context.Context) error { _, err := p.RequireUtilityContext(ctx); return err },
		"order":   func(p *Problem, ctx context.Context) error { _, err := p.RequireOrderContext(ctx); return err },
	}
	for name, req := range reqs {
		p := load()
		c := pollctx.New(0)
		assert.NoError(t, req(p, c), name)
		assert.Equal(t, looks, c.Polls(), name)
		for _, at := range []int{1, 3, looks} {
			q := load()
			c := pollctx.New(at)
			err := req(q, c)
			assert.ErrorIs(t, err, context.Canceled, "%s at %d", name, at)
			assert.Equal(t, at, c.Polls(), "%s at %d", name, at)
			assert.Nil(t, q.Utility, "%s at %d", name, at)
			assert.Nil(t, q.Order, "%s at %d", name, at)
		}
	}

	// A dense utility without an order: the order is derived on request.
	p := load()
	u := p.Rule.Dense()
	dense := &Problem{Prior: p.Prior, Utility: u}
	c := pollctx.New(0)
	o, err := dense.RequireOrderContext(c)
	assert.NoError(t, err)
	assert.Equal(t, u.Order(), o)
	assert.Equal(t, looks, c.Polls())
	c = pollctx.New(3)
	o, err = dense.RequireOrderContext(c)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, o)
	assert.Equal(t, 3, c.Polls())
}

// grid9 is a problem on a 9×9 grid given by its utility_rule (81 rows),
// its utility and order not yet built.
func grid9(t *testing.T) *Problem {
	t.Helper()
	p, err := Parse([]byte("privacy: {measure: pml, epsilon: 1}\nobjective: worst-case-order\nprior: uniform\n"+
		"utility_rule:\n  metric: euclidean\n  grid: {width: 9, height: 9, cell: 1}\n"), YAML)
	require.NoError(t, err)
	require.Nil(t, p.Utility)
	return p
}
