package expected

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/mech"
)

// TestActiveSetByRuleMatchesDense: the active set reading a rule's
// utility a column at a time returns what it returns on the rule's dense
// matrix (the same mechanism, value, bound and multipliers, to 1e-12 and
// in fact to the bit), on a 12×12 Euclidean grid under every measure,
// with a uniform and a clustered prior; and the rule's matrix is the
// bench's grid utility, built independently by package instance.
func TestActiveSetByRuleMatchesDense(t *testing.T) {
	ctx := context.Background()
	const w, h = 12, 12
	rule := &mech.UtilityRule{Metric: mech.Euclidean, Inputs: mech.Sites{Grid: &mech.Grid{Width: w, Height: h, Cell: 1}}}
	dense, err := instance.Grid(w, h)
	require.NoError(t, err)
	require.Equal(t, dense, rule.Dense())
	budgets := activeBudgets
	if testlong.Short() {
		budgets = []mech.Budget{{Measure: mech.PML, Epsilon: 1}, {Measure: mech.LIP, Epsilon: 1}}
	}
	for name, pi := range gridPriors(t, w, h) {
		for _, b := range budgets {
			want, err := activeSet(ctx, pi, dense, b, seedOutputs(normalised(pi), dense, 1), Options{})
			require.NoError(t, err, "%s %v", name, b)
			got, err := activeSet(ctx, pi, rule, b, seedOutputs(normalised(pi), rule, 1), Options{})
			require.NoError(t, err, "%s %v", name, b)
			assert.Equal(t, want.Mechanism, got.Mechanism, "%s %v", name, b)
			assert.Equal(t, want.Alpha, got.Alpha, "%s %v", name, b)
			for _, v := range [][2]float64{{want.Value, got.Value}, {want.Bound, got.Bound}, {want.Epsilon, got.Epsilon}} {
				assert.InDelta(t, v[0], v[1], 1e-12, "%s %v", name, b)
				assert.Equal(t, v[0], v[1], "%s %v", name, b)
			}
			// The value the active set reports is the dense expected
			// utility of its padded mechanism.
			assert.Equal(t, dense.ExpectedUtility(pi, want.Mechanism), got.Value, "%s %v", name, b)
			assert.False(t, math.IsNaN(got.Bound))
			assert.GreaterOrEqual(t, got.Bound, got.Value)
		}
	}
}

// TestMaximizeColumnsFallsBackToDense: where the active set does not
// apply (a backend named, or a small problem), MaximizeColumns solves the
// problem on the matrix dense gives, and returns dense's error as it is.
func TestMaximizeColumnsFallsBackToDense(t *testing.T) {
	ctx := context.Background()
	rule := &mech.UtilityRule{Metric: mech.Manhattan, Inputs: mech.Sites{Grid: &mech.Grid{Width: 4, Height: 3, Cell: 1}}}
	pi := mech.Uniform(12)
	b := mech.Budget{Measure: mech.PML, Epsilon: 1}
	assert.False(t, UsesColumns(12, 12, Options{}))
	assert.True(t, UsesColumns(512, 512, Options{}))
	assert.False(t, UsesColumns(512, 512, Options{WholeProblem: true}))
	assert.False(t, UsesColumns(512, 512, Options{FullLP: true}))
	calls := 0
	got, err := MaximizeColumns(ctx, pi, rule, func() (mech.Utility, error) { calls++; return rule.Dense(), nil }, b, Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, calls)
	want, err := Maximize(ctx, pi, rule.Dense(), b, Options{})
	require.NoError(t, err)
	assert.Equal(t, want.Mechanism, got.Mechanism)
	assert.Equal(t, want.Value, got.Value)
	refused := assert.AnError
	_, err = MaximizeColumns(ctx, pi, rule, func() (mech.Utility, error) { return nil, refused }, b, Options{})
	assert.ErrorIs(t, err, refused)
}
