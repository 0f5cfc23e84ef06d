package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/problem"
)

// new --prior-from reads its header the same way for a --column and for
// the --x and --y of a grid: a byte order mark is no part of the first
// name, and a name two columns share is refused with both positions.
func TestNewPriorFromHeaderBothPaths(t *testing.T) {
	dir := t.TempDir()
	bom := filepath.Join(dir, "bom.csv")
	require.NoError(t, os.WriteFile(bom, []byte("\ufeffx,y\n0,0\n1,1\n1,1\n"), 0o644))
	out, stderr, code := cli(t, "new", "--prior-from", bom, "--column", "x", "--utility", "abs", "--epsilon", "1", "--objective", "expected-utility")
	require.Equal(t, 0, code, stderr)
	p, err := problem.Parse([]byte(out), problem.YAML)
	require.NoError(t, err)
	assert.Equal(t, []string{"0", "1"}, p.Inputs)
	assert.InDeltaSlice(t, []float64{1.0 / 3, 2.0 / 3}, []float64(p.Prior), 1e-15)
	out, stderr, code = cli(t, "new", "--grid", "2x2", "--utility", "euclid", "--prior-from", bom, "--x", "x", "--y", "y",
		"--smoothing", "1", "--epsilon", "1", "--objective", "expected-utility")
	require.Equal(t, 0, code, stderr)
	p, err = problem.Parse([]byte(out), problem.YAML)
	require.NoError(t, err)
	// cells 0,0 1,0 0,1 1,1 with counts 1, 0, 0, 2, plus 1 each.
	assert.InDeltaSlice(t, []float64{2.0 / 7, 1.0 / 7, 1.0 / 7, 3.0 / 7}, []float64(p.Prior), 1e-15)

	dup := filepath.Join(dir, "dup.csv")
	require.NoError(t, os.WriteFile(dup, []byte("\ufeffx,y,x\n0,0,1\n"), 0o644))
	want := `dup.csv: column "x" appears twice in the header (columns 1 and 3)`
	for _, args := range [][]string{{"--column", "x"}, {"--grid", "2x2", "--x", "x", "--y", "y"}} {
		out, stderr, code := cli(t, append([]string{"new", "--prior-from", dup, "--utility", "euclid", "--epsilon", "1"}, args...)...)
		assert.Equal(t, exitError, code, "%v: %s", args, stderr)
		assert.Contains(t, stderr, want, args)
		assert.Empty(t, out)
	}
}
