package instance

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseGridSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		w, h int
	}{{"32x32", 32, 32}, {"16×8", 16, 8}, {" 3 x 1 ", 3, 1}} {
		w, h, err := ParseGridSize(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, [2]int{c.w, c.h}, [2]int{w, h}, c.in)
	}
	for in, field := range map[string]string{
		"32": "WxH", "0x4": "width", "-2x4": "width", "4x0": "height", "4x-1": "height",
		"ax4": "width", "4x": "height", "4x4x4": "height", "1.5x2": "width",
	} {
		_, _, err := ParseGridSize(in)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), field, in)
	}
}

// TestGridProblem: both priors are distributions on the w×h cells, the
// utility is minus the Euclidean distance, and the clustered prior is
// the same instance on every call, heavier at the second cluster's centre
// than in a far corner.
func TestGridProblem(t *testing.T) {
	const w, h = 12, 9
	for _, name := range GridPriors {
		pi, u, err := GridProblem(w, h, name)
		require.NoError(t, err, name)
		require.Len(t, pi, w*h)
		checkPrior(t, pi, name)
		require.Len(t, u, w*h)
		// cells (1, 0) and (4, 4): k = 1 and k = 4·12 + 4.
		assert.InDelta(t, -5, u[1][4*w+4], 1e-15, name)
	}
	a, _, err := GridProblem(w, h, "clustered")
	require.NoError(t, err)
	b, _, err := GridProblem(w, h, "clustered")
	require.NoError(t, err)
	assert.Equal(t, a, b)
	centre := 6*w + 8                           // (2w/3, 2h/3) = (8, 6)
	assert.Greater(t, a[centre], 10*a[(h-1)*w]) // corner (0, h−1)
	flat, _, err := GridProblem(w, h, "uniform")
	require.NoError(t, err)
	for _, v := range flat {
		assert.InDelta(t, 1/float64(w*h), v, 1e-15)
	}
	_, _, err = GridProblem(w, h, "zipf")
	assert.ErrorContains(t, err, "zipf")
	_, _, err = GridProblem(0, h, "uniform")
	assert.Error(t, err)
}
