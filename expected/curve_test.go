package expected_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/mech"
)

// TestCurveEnds: at ε = 0 every row is the output marginal, so the optimum
// is the best single output, max_j Σ_i π_i u_ij; at a budget of 10 nats
// (above log 1/π_min = log 3) the identity is allowed and the optimum is
// Σ_i π_i max_j u_ij; under LDP and ALIP at 0 rows equal again. Points arrive in order, each with its index; a
// cancelled context stops the curve with its error before any point.
func TestCurveEnds(t *testing.T) {
	pi := mech.Uniform(3)
	u := mech.Utility{{3, 1, 0}, {1, 2, 1}, {0, 1, 4}}
	budgets := []mech.Budget{{Measure: mech.PML, Epsilon: 0}, {Measure: mech.PML, Epsilon: 10}, {Measure: mech.LDP, Epsilon: 0}, expected.ALIPBudget(0, 1)}
	want := []float64{5. / 3, 3, 5. / 3, 5. / 3}
	var got []float64
	err := expected.Curve(context.Background(), pi, u, budgets, expected.Options{}, func(k int, b mech.Budget, r expected.Result) {
		require.Equal(t, len(got), k)
		assert.Equal(t, budgets[k], b)
		got = append(got, r.Value)
	})
	require.NoError(t, err)
	require.Len(t, got, len(want))
	for k := range want {
		assert.InDelta(t, want[k], got[k], 1e-7, "budget %d", k)
	}
	assert.Equal(t, 10.0, expected.Axis(expected.ALIPBudget(10, 0.5)))
	assert.Equal(t, mech.Budget{Measure: mech.ALIP, EpsilonLower: 5, EpsilonUpper: 10}, expected.ALIPBudget(10, 0.5))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = expected.Curve(ctx, pi, u, budgets, expected.Options{}, func(int, mech.Budget, expected.Result) { t.Error("a point after cancel") })
	assert.ErrorIs(t, err, context.Canceled)
}
