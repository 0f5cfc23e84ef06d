package patternbasis

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
)

// TestKeyedBasisMovesToAWeakerPattern: a basis of the model of a strong
// pattern, keyed and mapped onto the model of a weaker one, keeps the
// status of every shared variable and row, starts the new columns at their
// lower bound and the new rows basic, and so has exactly one basic variable
// per row.
func TestKeyedBasisMovesToAWeakerPattern(t *testing.T) {
	pi := mech.Prior{0.5, 0.3, 0.2}
	b := mech.Budget{Measure: mech.PML, Epsilon: 0.7}
	strong, err := polytope.Build(polytope.Spec{Prior: pi, Budget: b, Pattern: order3().Pattern(3)})
	require.NoError(t, err)
	weak, err := polytope.Build(polytope.Spec{Prior: pi, Budget: b, Pattern: order3().Pattern(2)})
	require.NoError(t, err)
	require.Greater(t, weak.LP.NumCols(), strong.LP.NumCols())

	// A basis of the strong model with one basic variable per row: every
	// other column basic, the rest at their upper bound, and as many
	// row logicals basic, from the last row up, as the rows need.
	sb := lp.Basis{Cols: make([]lp.BasisStatus, strong.LP.NumCols()), Rows: make([]lp.BasisStatus, strong.LP.NumRows())}
	need := strong.LP.NumRows()
	for j := range sb.Cols {
		if j%2 == 0 {
			sb.Cols[j] = lp.Basic
			need--
		} else {
			sb.Cols[j] = lp.AtUpper
		}
	}
	require.Positive(t, need)
	for i := len(sb.Rows) - 1; need > 0; i-- {
		sb.Rows[i] = lp.Basic
		need--
	}
	k, err := Key(strong, sb)
	require.NoError(t, err)
	wb, err := k.Onto(weak)
	require.NoError(t, err)

	basic := 0
	for _, s := range wb.Cols {
		if s == lp.Basic {
			basic++
		}
	}
	for _, s := range wb.Rows {
		if s == lp.Basic {
			basic++
		}
	}
	assert.Equal(t, weak.LP.NumRows(), basic, "one basic variable per row")
	for i := range 3 {
		assert.Equal(t, sb.Rows[i], wb.Rows[i], "sum[%d]", i+1)
		for j := range 3 {
			switch cs, cw := strong.P[i][j], weak.P[i][j]; {
			case cs >= 0:
				assert.Equal(t, sb.Cols[cs], wb.Cols[cw], "p[%d,%d]", i+1, j+1)
				assert.Equal(t, sb.Rows[strong.Up[i][j]], wb.Rows[weak.Up[i][j]], "up[%d,%d]", i+1, j+1)
			case cw >= 0:
				assert.Equal(t, lp.AtLower, wb.Cols[cw], "new p[%d,%d]", i+1, j+1)
				assert.Equal(t, lp.Basic, wb.Rows[weak.Up[i][j]], "new up[%d,%d]", i+1, j+1)
			}
		}
	}
	for j := range 3 {
		assert.Equal(t, sb.Cols[strong.Aux[j]], wb.Cols[weak.Aux[j]], "t[%d]", j+1)
	}

	_, err = Key(strong, lp.Basis{Cols: sb.Cols[1:], Rows: sb.Rows})
	assert.Error(t, err)
	ldp, err := polytope.Build(polytope.Spec{Prior: pi, Budget: mech.Budget{Measure: mech.LDP, Epsilon: 1}, Outputs: 3})
	require.NoError(t, err)
	_, err = Key(ldp, lp.Basis{Cols: make([]lp.BasisStatus, ldp.LP.NumCols()), Rows: make([]lp.BasisStatus, ldp.LP.NumRows())})
	assert.Error(t, err, "only PML models are keyed")
}

// order3 is the utility order of Song and Oechtering, "Worst-Case Utility
// Privacy Mechanism via Pointwise Maximal Leakage" (2024), Example 1.
func order3() mech.Order { return mech.Order{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}} }
