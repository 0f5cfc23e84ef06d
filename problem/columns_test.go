package problem

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

// TestCheckColumns: a solve reading a rule a column at a time needs its
// dense mechanism and a cleaned copy, 16·N·M bytes (576 for the 3×2
// grid's 6×6), checked against the problem's limit in one line naming the
// size before anything is allocated; the dense utility is left unbuilt.
func TestCheckColumns(t *testing.T) {
	p, err := ParseSourceMemory([]byte(sparseGrid), YAML, "g.yaml", 575)
	require.NoError(t, err)
	assert.Equal(t, 576.0, p.ColumnsNeed())
	assert.Equal(t, 864.0, p.DenseNeed())
	err = p.CheckColumns()
	require.Error(t, err)
	assert.Equal(t, "g.yaml: utility_rule: its dense 6×6 mechanism and a cleaned copy need 576.0 B, beyond the memory limit (575.0 B); the utility is read by its rule, but the mechanism is returned as a matrix", err.Error())
	var fe *mech.FieldError
	assert.True(t, errors.As(err, &fe))
	assert.Nil(t, p.Utility)
	p.SetMemoryLimit(576)
	assert.NoError(t, p.CheckColumns())
	assert.Nil(t, p.Utility)
	// No rule: nothing to check.
	assert.NoError(t, (&Problem{Prior: mech.Uniform(2)}).CheckColumns())
	assert.Zero(t, (&Problem{}).ColumnsNeed())
}
