package ipm

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

// TestOutletColumns: outlet gives no column to an output whose allowed
// inputs hold less than e^{−ε} (output 0: one letter of 1/6 at ε = 1) or
// that no input may use (output 4): an empty column's marginal row could
// never be met, and its residual would keep the iterations from ever
// counting as near the optimum. An output with less than outletRoom·e^{−ε}
// keeps every input at the penalty's price, the others only their allowed
// pairs, and the outlet (last) column every input.
func TestOutletColumns(t *testing.T) {
	pi := mech.Prior{1. / 6, 1. / 6, 1. / 6, 1. / 6, 1. / 6, 1. / 6}
	pat := mech.Pattern{
		{true, true, true, false, false},
		{false, true, true, false, false},
		{false, true, false, true, false},
		{false, false, true, true, false},
		{false, true, false, true, false},
		{false, false, true, false, false},
	}
	// Masses: outputs 1 and 2 4/6, output 3 3/6. At ε = ln 2, e^ε times
	// them is 4/3 (at least outletRoom) and 1 (at e^{−ε} exactly, below
	// outletRoom: the caps would leave output 3 no interior).
	eps := math.Log(2)
	u, st, cols := outlet(pi, pat, eps)
	require.Equal(t, []int{1, 2, 3}, cols)
	require.Equal(t, len(cols)+1, st.m)
	rows := func(c int) []int { return st.row[st.colStart[c]:st.colStart[c+1]] }
	assert.Equal(t, []int{0, 1, 2, 4}, rows(0), "output 1: its allowed pairs")
	assert.Equal(t, []int{0, 1, 3, 5}, rows(1), "output 2: its allowed pairs")
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5}, rows(2), "output 3: every input")
	require.Less(t, 2*0.5, outletRoom)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5}, rows(3), "the outlet: every input")
	for i := range pi {
		assert.Equal(t, -6.0, u[i][3], "the outlet's price, row %d", i)
		want := 0.0
		if !pat[i][3] {
			want = -6
		}
		assert.Equal(t, want, u[i][2], "output 3's price, row %d", i)
	}
}
