package instance

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGridRule: the rule of a grid gives Grid's matrix entry for entry,
// and GridPrior is GridProblem's prior.
func TestGridRule(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {5, 3}, {7, 7}} {
		u, err := Grid(sz[0], sz[1])
		require.NoError(t, err)
		assert.Equal(t, u, GridRule(sz[0], sz[1]).Dense(), sz)
		for _, name := range GridPriors {
			pi, _, err := GridProblem(sz[0], sz[1], name)
			require.NoError(t, err)
			alone, err := GridPrior(sz[0], sz[1], name)
			require.NoError(t, err)
			assert.Equal(t, pi, alone)
		}
	}
	_, err := GridPrior(2, 2, "zipf")
	assert.ErrorContains(t, err, `grid prior "zipf"`)
}
