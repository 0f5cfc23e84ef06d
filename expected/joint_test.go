package expected_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/worstcase"
)

// TestJointRefusesBelowTheLeastEpsilon: with the identity as zero pattern
// the only mechanism is the identity, whose PML under a uniform prior of
// three letters is log 3 (each output's marginal is 1/3), so log 3 is the
// least ε: a budget below it is refused with a bracket around log 3, a
// budget above it gets the identity and its expected utility Σ_i u_ii/3.
func TestJointRefusesBelowTheLeastEpsilon(t *testing.T) {
	pi := mech.Uniform(3)
	u := mech.Utility{{3, 1, 0}, {1, 2, 1}, {0, 1, 4}}
	pat := mech.Pattern{{true, false, false}, {false, true, false}, {false, false, true}}
	ctx := context.Background()
	_, least, err := expected.Joint(ctx, pi, u, mech.Budget{Measure: mech.PML, Epsilon: 1}, pat, expected.Options{}, worstcase.Options{})
	require.ErrorIs(t, err, expected.ErrBelowLeastEpsilon)
	assert.LessOrEqual(t, least.OptimalEpsilonLower, math.Log(3)+1e-12)
	assert.GreaterOrEqual(t, least.OptimalEpsilon, math.Log(3)-1e-12)
	assert.Greater(t, least.OptimalEpsilonLower, 1.0)

	r, least, err := expected.Joint(ctx, pi, u, mech.Budget{Measure: mech.PML, Epsilon: 1.2}, pat, expected.Options{}, worstcase.Options{})
	require.NoError(t, err)
	assert.InDelta(t, math.Log(3), least.OptimalEpsilon, 1e-6)
	for i, row := range r.Mechanism {
		for j, v := range row {
			want := 0.0
			if i == j {
				want = 1
			}
			assert.InDelta(t, want, v, 1e-9, "p[%d][%d]", i, j)
		}
	}
	assert.InDelta(t, 3, r.Value, 1e-9)
}
