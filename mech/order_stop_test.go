package mech

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/pollctx"
)

// gridUtility is minus the squared distance between the cells of a w×h
// grid: N = M = w·h, every row with ties.
func gridUtility(w, h int) Utility {
	n := w * h
	u := make(Utility, n)
	for i := range u {
		u[i] = make([]float64, n)
		for j := range u[i] {
			dx, dy := i%w-j%w, i/w-j/w
			u[i][j] = -float64(dx*dx + dy*dy)
		}
	}
	return u
}

// TestOrderContextStops: the order's derivation and its check look at the
// context every PollRows rows, and a context that ends at the k-th look
// ends them there, with the context's error and no order: k looks, not
// one per row, and never all rows.
func TestOrderContextStops(t *testing.T) {
	u := gridUtility(9, 9) // 81 rows: looks at rows 0, 8, ..., 80
	want := u.Order()
	looks := (len(u) + PollRows - 1) / PollRows
	require.Equal(t, 11, looks)

	c := pollctx.New(0)
	o, err := u.OrderContext(c)
	require.NoError(t, err)
	assert.Equal(t, want, o)
	assert.Equal(t, looks, c.Polls())
	c = pollctx.New(0)
	_, err = NewOrderContext(c, want)
	require.NoError(t, err)
	assert.Equal(t, looks, c.Polls())

	for _, at := range []int{1, 2, 5, looks} {
		c := pollctx.New(at)
		o, err := u.OrderContext(c)
		assert.True(t, errors.Is(err, context.Canceled), "at %d: %v", at, err)
		assert.Nil(t, o, "at %d", at)
		assert.Equal(t, at, c.Polls(), "at %d", at)

		c = pollctx.New(at)
		o, err = NewOrderContext(c, want)
		assert.True(t, errors.Is(err, context.Canceled), "at %d: %v", at, err)
		assert.Nil(t, o, "at %d", at)
		assert.Equal(t, at, c.Polls(), "at %d", at)
	}
}
