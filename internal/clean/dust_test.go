package clean

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// TestWithoutDustReaudits: an entry of 1e-12 is cleared and its row
// renormalised, and the level reported is the cleaned mechanism's PML.
func TestWithoutDustReaudits(t *testing.T) {
	pi := mech.Prior{0.5, 0.5}
	m := mech.Mechanism{{0.7 - 1e-12, 0.3, 1e-12}, {0.2, 0.8, 0}}
	b := mech.Budget{Measure: mech.PML, Epsilon: 1}
	c, r, ok := DustFree(pi, m, b)
	require.True(t, ok)
	// Row 1 loses its 1e-12: (0.7 − 1e-12, 0.3)/(1 − 1e-12).
	assert.InDelta(t, (0.7-1e-12)/(1-1e-12), c[0][0], 1e-15)
	assert.Zero(t, c[0][2])
	assert.Equal(t, []float64{0.2, 0.8, 0}, c[1])
	// PML log(0.7/0.45) on output 1 (0.8/0.55 on output 2 is less),
	// up to the 1e-12 moved.
	assert.InDelta(t, math.Log(0.7/0.45), r.Level, 1e-11)
	assert.Equal(t, leakage.PML(pi, c), r.Level)
	assert.Equal(t, 1e-12, m[0][2], "the input is not changed")
	// Nothing to clean: m itself.
	c, _, ok = DustFree(pi, c, b)
	assert.False(t, ok)
	assert.InDelta(t, 0.3/(1-1e-12), c[0][1], 1e-15)
}

// TestWithoutDustKeepsTheBudget: outputs 3 and 4 are noise (all entries up
// to 1e-6, one below 1e-9), and dropping them takes 1e-6 from row 1 but
// 5e-7 from row 2, which raises the ratio 0.6/0.42425 of output 1 (row 1
// its largest entry, the binding output) by a relative
// (1e-6 − 5e-7)(1 − 0.6/(2·0.42425)) ≈ 1.5e-7, more than
// certify.AuditTol: with the budget at m's own PML the cleaned copy would
// break it, and m stays.
func TestWithoutDustKeepsTheBudget(t *testing.T) {
	pi := mech.Prior{0.5, 0.5}
	m := mech.Mechanism{
		{0.6, 0.4 - 1e-6 - 5e-10, 1e-6, 5e-10},
		{0.2485, 0.7515 - 5e-7 - 5e-10, 5e-7, 5e-10},
	}
	b := mech.Budget{Measure: mech.PML, Epsilon: leakage.PML(pi, m)}
	c, err := WithoutDust(m)
	require.NoError(t, err)
	require.Greater(t, leakage.PML(pi, c), b.Epsilon+certify.AuditTol, "the test's premise")
	got, _, ok := DustFree(pi, m, b)
	assert.False(t, ok)
	assert.Equal(t, m, got)
	// With room in the budget the copy is taken.
	b.Epsilon += 1e-6
	got, r, ok := DustFree(pi, m, b)
	require.True(t, ok)
	assert.Equal(t, leakage.PML(pi, c), r.Level)
	for _, row := range got {
		assert.Zero(t, row[2])
		assert.Zero(t, row[3])
	}
}
