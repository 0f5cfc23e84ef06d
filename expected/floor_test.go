package expected_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// TestValueFloor: the pattern of a worst-case value v allows exactly the
// pairs of utility at least v, written out by hand for a squared loss;
// a v that is not finite, or above some input's best utility, is refused
// naming the value or the input.
func TestValueFloor(t *testing.T) {
	u := mech.Utility{{0, -1, -4}, {-1, 0, -1}, {-4, -1, 0}}
	pat, err := expected.ValueFloor(u, -1)
	require.NoError(t, err)
	assert.Equal(t, mech.Pattern{{true, true, false}, {true, true, true}, {false, true, true}}, pat)
	pat, err = expected.ValueFloor(u, -4)
	require.NoError(t, err)
	assert.Equal(t, mech.Pattern{{true, true, true}, {true, true, true}, {true, true, true}}, pat)
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, err := expected.ValueFloor(u, v)
		assert.EqualError(t, err, fmt.Sprintf("want a finite utility value, got %v", v))
	}
	u[1] = []float64{-2, -3, -2}
	_, err = expected.ValueFloor(u, -1)
	assert.EqualError(t, err, "input 1 has no output of utility ≥ -1")
}

// TestOrderFloor: the pattern of order h allows the pairs of rank at least
// h (rank: how many entries of the row are ≤ the pair's utility); h
// outside 1..M is refused with the range.
func TestOrderFloor(t *testing.T) {
	o := mech.Utility{{3, 1, 2}, {1, 1, 5}}.Order() // ranks {3, 1, 2}, {2, 2, 3}
	pat, err := expected.OrderFloor(o, 2)
	require.NoError(t, err)
	assert.Equal(t, mech.Pattern{{true, false, true}, {true, true, true}}, pat)
	pat, err = expected.OrderFloor(o, 3)
	require.NoError(t, err)
	assert.Equal(t, mech.Pattern{{true, false, false}, {false, false, true}}, pat)
	for _, h := range []int{0, 4} {
		_, err := expected.OrderFloor(o, h)
		assert.EqualError(t, err, fmt.Sprintf("want 1..3, got %d", h))
	}
}

// TestDustFree: an entry of 1e-12 (below certify.DustEntry) is cleared
// and its row renormalised when the copy stays within the budget; the
// result then carries the copy's PML and expected utility, computed here
// from the matrix, and keeps the bound. A budget the copy would exceed, or
// a pattern the mechanism does not keep, leaves r as it is.
func TestDustFree(t *testing.T) {
	pi := mech.Prior{0.5, 0.3, 0.2}
	u := mech.Utility{{0, -1, -4}, {-1, 0, -1}, {-4, -1, 0}}
	m := mech.Mechanism{{0.7, 0.3 - 1e-12, 1e-12}, {0.2, 0.6, 0.2}, {0, 0.3, 0.7}}
	r := expected.Result{Mechanism: m, Epsilon: leakage.PML(pi, m), Value: u.ExpectedUtility(pi, m), Bound: 1, Solver: "test"}
	b := mech.Budget{Measure: mech.PML, Epsilon: 2}

	got := expected.DustFree(pi, u, b, r, nil)
	want := mech.Mechanism{{0.7 / (1 - 1e-12), (0.3 - 1e-12) / (1 - 1e-12), 0}, {0.2, 0.6, 0.2}, {0, 0.3, 0.7}}
	for i := range want {
		for j := range want[i] {
			assert.InDelta(t, want[i][j], got.Mechanism[i][j], 1e-15, "p[%d][%d]", i, j)
		}
	}
	assert.Equal(t, 0.0, got.Mechanism[0][2])
	assert.InDelta(t, leakage.PML(pi, want), got.Epsilon, 1e-12)
	assert.InDelta(t, u.ExpectedUtility(pi, want), got.Value, 1e-12)
	assert.Equal(t, 1.0, got.Bound)
	assert.Equal(t, "test", got.Solver)
	assert.Equal(t, 1e-12, m[0][2], "the caller's mechanism is not changed")

	// A pattern that forbids (2, 1), which the mechanism uses: r stays.
	pat := mech.Pattern{{true, true, true}, {true, true, true}, {true, false, true}}
	assert.Equal(t, r, expected.DustFree(pi, u, b, r, pat))
	// A budget below the copy's level: r stays.
	tight := mech.Budget{Measure: mech.PML, Epsilon: leakage.PML(pi, want) / 2}
	assert.Equal(t, r, expected.DustFree(pi, u, tight, r, nil))
}
