package instance_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
)

func TestLineUtilities(t *testing.T) {
	// On positions 0..n−1 the line losses are the square ones.
	xs := instance.Positions([]string{"0", "1", "2", "3", "4"})
	assert.Equal(t, []float64{0, 1, 2, 3, 4}, xs)
	for _, c := range []struct {
		loss func(x, y float64) float64
		sq   func(n int) (mech.Utility, error)
	}{{instance.CountingLoss, instance.Counting}, {instance.AbsoluteLoss, instance.AbsLoss}, {instance.SquaredLoss, instance.SquareLoss}} {
		got, err := instance.OnLine(c.loss, xs, xs)
		require.NoError(t, err)
		want, _ := c.sq(5)
		assert.Equal(t, want, got)
	}
	// Numeric labels are positions; any other label falls back to indices.
	assert.Equal(t, []float64{18, 2.5, -3}, instance.Positions([]string{"18", "2.5", "-3"}))
	assert.Equal(t, []float64{0, 1, 2}, instance.Positions([]string{"1", "x", "3"}))
	u, err := instance.OnLine(instance.AbsoluteLoss, []float64{18, 30}, []float64{20, 25, 40})
	require.NoError(t, err)
	assert.Equal(t, mech.Utility{{-2, -7, -22}, {-10, -5, -10}}, u)

	h, err := instance.HammingLabels([]string{"a", "b"}, []string{"b", "c", "a"})
	require.NoError(t, err)
	assert.Equal(t, mech.Utility{{-1, -1, 0}, {0, -1, -1}}, h)
	assert.Equal(t, []string{"0,0", "1,0", "0,1", "1,1"}, instance.GridLabels(2, 2))
}

func TestFromCounts(t *testing.T) {
	p, err := instance.FromCounts([]float64{3, 1, 0}, 1)
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float64{4.0 / 7, 2.0 / 7, 1.0 / 7}, []float64(p), 1e-15)
	_, err = instance.FromCounts([]float64{3, 0}, 0)
	assert.ErrorContains(t, err, "count 0")
	_, err = instance.FromCounts([]float64{3, -1}, 1)
	assert.Error(t, err)
}
