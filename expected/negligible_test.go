package expected

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// TestWithoutNegligible: on a counting query with a binomial(63, 0.9)
// prior, whose masses fall to 1e-63, the solve with the negligible
// letters set aside returns an audited mechanism without dust, gives each
// letter set aside a copy of another row, and brackets the optimum: within
// 1e-9 of the whole LP solved by the revised simplex at 10 nats, and of
// 0 = Σ_i π_i max_j u_ij, which no mechanism exceeds, at 30 nats.
func TestWithoutNegligible(t *testing.T) {
	ctx := context.Background()
	const n = 64
	pi, u := CountingBinomial(t, n, 0.9)
	for _, eps := range []float64{10, 30} {
		what := fmt.Sprintf("PML %g", eps)
		b := mech.Budget{Measure: mech.PML, Epsilon: eps}
		ref := 0.0
		if eps == 10 {
			full, err := Maximize(ctx, pi, u, b, Options{Solver: solver.Revised(), FullLP: true})
			require.NoError(t, err, what)
			ref = full.Value
		}
		got, err := withoutNegligible(ctx, pi, u, b)
		require.NoError(t, err, what)
		got = got.finish(pi, u)
		slack := 1e-9 * math.Max(1, math.Abs(ref))
		assert.InDelta(t, ref, got.Value, slack, what)
		assert.GreaterOrEqual(t, got.Bound, ref-slack, what)
		assert.LessOrEqual(t, got.Bound-got.Value, slack, what)
		a, err := certify.Audit(pi, got.Mechanism, b)
		require.NoError(t, err, what)
		assert.LessOrEqual(t, a.Excess, 1e-12, what)
		for _, row := range got.Mechanism {
			for _, v := range row {
				require.True(t, v == 0 || v >= certify.DustEntry, "%s: entry %g", what, v)
			}
		}
		copied := false // the letter of least mass, 0.1^63, is set aside
		for _, row := range got.Mechanism[1:] {
			copied = copied || slices.Equal(row, got.Mechanism[0])
		}
		assert.True(t, copied, "%s: the row of the least letter is no other's", what)
	}
	uniform := mech.Prior{0.25, 0.25, 0.25, 0.25}
	_, err := withoutNegligible(ctx, uniform, mech.Utility{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}, mech.Budget{Measure: mech.PML, Epsilon: 1})
	assert.ErrorIs(t, err, errUncertified, "no letter of a uniform prior is negligible")
}

// TestRatioWithoutNegligible: on a counting query with a binomial(31, 0.9)
// prior, under LIP, ALIP and LDP budgets of 10 nats, the solve with the
// negligible letters set aside (at both lower-budget margins) returns an
// audited mechanism whose bracket [value, bound] holds the optimum of the
// whole LP solved by the revised simplex, to 1e-9, and copies the row of
// the least letter from another.
func TestRatioWithoutNegligible(t *testing.T) {
	ctx := context.Background()
	const n = 32
	pi, u := CountingBinomial(t, n, 0.9)
	for _, b := range []mech.Budget{
		{Measure: mech.LIP, Epsilon: 10},
		{Measure: mech.ALIP, EpsilonLower: 5, EpsilonUpper: 10},
		{Measure: mech.LDP, Epsilon: 10},
	} {
		full, err := Maximize(ctx, pi, u, b, Options{Solver: solver.Revised(), FullLP: true})
		require.NoError(t, err, b.Measure)
		ref := full.Value
		for _, margin := range []float64{narrowMargin, wideMargin} {
			what := fmt.Sprintf("%s, margin %g", b.Measure, margin)
			got, err := ratioWithoutNegligible(ctx, pi, u, b, margin)
			require.NoError(t, err, what)
			got = got.finish(pi, u)
			slack := 1e-9 * math.Max(1, math.Abs(ref))
			assert.InDelta(t, ref, got.Value, slack, what)
			assert.GreaterOrEqual(t, got.Bound, ref-slack, what)
			assert.LessOrEqual(t, got.Bound-got.Value, 10*slack, what)
			a, err := certify.Audit(pi, got.Mechanism, b)
			require.NoError(t, err, what)
			assert.LessOrEqual(t, a.Excess, 1e-12, what)
			copied := false
			for _, row := range got.Mechanism[1:] {
				copied = copied || slices.Equal(row, got.Mechanism[0])
			}
			assert.True(t, copied, "%s: the row of the least letter is no other's", what)
		}
	}
}
