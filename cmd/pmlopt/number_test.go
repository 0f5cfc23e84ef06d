package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Numbers in a CSV column and in --bins are decimal, as in problem
// files: Go's hexadecimal floats and digit separators are refused with
// the line and the text, and nothing is written.
func TestDataNumbersAreDecimal(t *testing.T) {
	for _, s := range []string{"1", " 1.5", "-2e3", "1E-2", "inf"} {
		_, err := decimalFloat(s)
		assert.NoError(t, err, s)
	}
	for _, s := range []string{"0x1p0", "1_0", "0X10", "1_000.5"} {
		_, err := decimalFloat(s)
		assert.Error(t, err, s)
	}
	dir := t.TempDir()
	xy := filepath.Join(dir, "xy.csv")
	require.NoError(t, os.WriteFile(xy, []byte("x,y\n1,1\n0x1p0,1\n"), 0o644))
	out := filepath.Join(dir, "g.yaml")
	_, stderr, code := cli(t, "new", "--grid", "4x4", "--cell", "1", "--prior-from", xy, "--x", "x", "--y", "y", "--utility", "euclid", "-o", out)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `line 3, column "x": "0x1p0" is not a finite number`)
	assert.NoFileExists(t, out)
	b := filepath.Join(dir, "b.csv")
	require.NoError(t, os.WriteFile(b, []byte("v\n3\n1_0\n"), 0o644))
	_, stderr, code = cli(t, "new", "--prior-from", b, "--column", "v", "--bins", "5", "--utility", "abs", "-o", out)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `line 3: "1_0" is not a number`)
	_, stderr, code = cli(t, "new", "--prior-from", b, "--column", "v", "--bins", "1_0", "--utility", "abs", "-o", out)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `"1_0" is not one`)
	assert.NoFileExists(t, out)
}
