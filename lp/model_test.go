package lp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScaledRows(t *testing.T) {
	m := &Model{}
	x := m.AddCol(1, 0, Inf, "x")
	y := m.AddCol(2, -1, 3, "y")
	m.AddRow(1, 4, "r", Entry(x, 1), Entry(y, 0.5))
	m.AddRow(-Inf, 2, "s", Entry(x, -3))
	s := m.ScaledRows(1024)
	require.NoError(t, s.Validate())
	assert.Equal(t, []float64{1024, -Inf}, s.RowLower)
	assert.Equal(t, []float64{4096, 2048}, s.RowUpper)
	assert.Equal(t, []Nonzero{{0, 0, 1024}, {0, 1, 512}, {1, 0, -3072}}, s.ConstMatrix)
	// The original is untouched and the feasible set is the same.
	assert.Equal(t, []float64{1, -Inf}, m.RowLower)
	for _, pt := range [][]float64{{1, 0}, {0.1, 3}, {2, 3}, {0, 0}} {
		assert.Equal(t, m.MaxViolation(pt) == 0, s.MaxViolation(pt) == 0, "%v", pt)
	}
}
