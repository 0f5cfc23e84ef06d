package problem

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

func TestScaleUtility(t *testing.T) {
	for _, big := range []float64{1e-300, 1e-12, 1, 3, 1e26, 9e307, math.MaxFloat64} {
		u := mech.Utility{{big, -big / 3}, {0, big / 7}}
		p := &Problem{Prior: mech.Uniform(2), Utility: u}
		order := u.Order()
		k, err := p.ScaleUtility()
		require.NoError(t, err, "%g", big)
		// The largest magnitude is in [1/2, 1), every entry scales back
		// exactly, and the order is kept.
		assert.GreaterOrEqual(t, math.Abs(p.Utility[0][0]), 0.5)
		assert.Less(t, math.Abs(p.Utility[0][0]), 1.0)
		for i := range u {
			for j := range u[i] {
				assert.Equal(t, u[i][j], math.Ldexp(p.Utility[i][j], k))
			}
		}
		assert.Equal(t, order, p.Utility.Order())
	}

	// Entries that do not fit one scale with the largest are named.
	p := &Problem{Prior: mech.Uniform(2), Utility: mech.Utility{{1e300, 1e-300}, {0, 1}}}
	_, err := p.ScaleUtility()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "utility row 1, column 2: is 1e-300, too small next to the largest utility 1e+300 (row 1, column 1)")

	// No utility, or all zero: nothing to do.
	for _, u := range []mech.Utility{nil, {{0, 0}, {0, 0}}} {
		p := &Problem{Prior: mech.Uniform(2), Utility: u}
		k, err := p.ScaleUtility()
		require.NoError(t, err)
		assert.Equal(t, 0, k)
	}
}

// Utilities of moderate size are left as they are; extreme ones are scaled
// exactly as ScaleUtility scales them.
func TestScaleExtremeUtility(t *testing.T) {
	for _, c := range []struct {
		max   float64
		scale bool
	}{{1e4, false}, {1, false}, {1e-5, false}, {1e7, true}, {1e-7, true}, {1e300, true}} {
		p := &Problem{Utility: mech.Utility{{c.max, -c.max / 3}, {0, c.max / 7}}}
		orig := p.Utility
		k, err := p.ScaleExtremeUtility()
		require.NoError(t, err)
		if !c.scale {
			require.Zero(t, k, "max %g", c.max)
			require.Equal(t, orig, p.Utility)
			continue
		}
		require.NotZero(t, k, "max %g", c.max)
		require.Equal(t, orig[0][1], math.Ldexp(p.Utility[0][1], k))
		require.Less(t, math.Abs(p.Utility[0][0]), 1.0)
	}
}
