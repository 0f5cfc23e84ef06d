package problem

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

// sparseGrid is a 3×2 grid whose mechanism_sparse is the identity: a
// dense 6×6 matrix of 8-byte entries, 288 bytes.
const sparseGrid = ruleHead + "prior: uniform\nutility_rule: {metric: euclidean, grid: {width: 3, height: 2}}\n" +
	"mechanism_sparse: [[0, 1], [1, 1], [2, 1], [3, 1], [4, 1], [5, 1]]\n"

// TestSparseMechanismBeyondMemory: the dense matrix of mechanism_sparse is
// refused before it is allocated when it would take more than the limit,
// saying the size needed; at the limit it loads, and the problem keeps the
// limit for its utility (Materialize: 24·36 = 864 bytes).
func TestSparseMechanismBeyondMemory(t *testing.T) {
	_, err := ParseSourceMemory([]byte(sparseGrid), YAML, "g.yaml", 287)
	require.Error(t, err)
	assert.Equal(t, "g.yaml: mechanism_sparse: its dense 6×6 matrix needs 288.0 B, beyond the memory limit (287.0 B)", err.Error())
	var fe *mech.FieldError
	assert.True(t, errors.As(err, &fe))

	p, err := ParseSourceMemory([]byte(sparseGrid), YAML, "g.yaml", 288)
	require.NoError(t, err)
	assert.Equal(t, 1.0, p.Mechanism[4][4])
	_, err = p.RequireUtility()
	assert.ErrorContains(t, err, "utility, order and mechanism need 864.0 B, beyond the memory limit (288.0 B)")

	path := filepath.Join(t.TempDir(), "g.yaml")
	require.NoError(t, os.WriteFile(path, []byte(sparseGrid), 0o644))
	_, err = LoadMemory(path, DefaultMaxBytes, 100)
	assert.ErrorContains(t, err, "g.yaml: mechanism_sparse: its dense 6×6 matrix needs 288.0 B, beyond the memory limit (100.0 B)")

	// Without a limit of its own the load keeps to MemoryLimit.
	old := MemoryLimit
	defer func() { MemoryLimit = old }()
	MemoryLimit = 200
	_, err = Parse([]byte(sparseGrid), YAML)
	assert.ErrorContains(t, err, "mechanism_sparse: its dense 6×6 matrix needs 288.0 B, beyond the memory limit (200.0 B)")
	MemoryLimit = 0
	_, err = Parse([]byte(sparseGrid), YAML)
	assert.NoError(t, err)
}

// TestSiteSpecBadInput: the output sites of a rule are checked as the
// inputs are, each in one line naming the key.
func TestSiteSpecBadInput(t *testing.T) {
	rule := func(extra string) string {
		return ruleHead + "prior: uniform\nutility_rule: {metric: euclidean, grid: {width: 2, height: 2}" + extra + "}\n"
	}
	for _, c := range []struct{ doc, want string }{
		{rule(", output_grid: {width: 0, height: 2}"), "utility_rule.output_grid.width: is 0"},
		{rule(", output_grid: {width: 3, height: -4}"), "utility_rule.output_grid.height: is -4"},
		{rule(", output_grid: {width: 3}"), "utility_rule.output_grid.height: is missing"},
		{rule("") + "output_points: [[0, 0], [.nan, 1]]\n", "output_points row 2, column 1: is NaN"},
		{rule("") + "output_points: [[0, 0], [1, -.inf]]\n", "output_points row 2, column 2: is infinite"},
		{rule(", output_grid: {width: 2, height: 1}") + "outputs: [\"0,0\", \"0,1\"]\n", "outputs entry 2: \"0,1\" does not name cell 2 of the grid"},
		{rule("") + "outputs: [\"0,0\", \"1,0\", \"0,1\", \"2,2\"]\n", "outputs entry 4: \"2,2\" does not name cell 4 of the grid"},
		{rule("") + "inputs: [\"0,0\", \"1,0\", \"1,1\", \"0,1\"]\n", "inputs entry 3: \"1,1\" does not name cell 3 of the grid"},
		{ruleHead + "prior: uniform\nutility_rule: {metric: great-circle}\npoints: [[0, 0], [1, 1]]\n", "utility_rule.metric: \"great-circle\" is not one of"},
	} {
		_, err := Parse([]byte(c.doc), YAML)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v, want %q in one line", c.doc, err, c.want)
		}
	}
}
