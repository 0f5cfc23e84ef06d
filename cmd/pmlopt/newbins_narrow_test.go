package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A width far too narrow for the values is refused in one short line that
// says about how many bins it would make: (1000 − (−4))/1e−300 ≈ 1.0e303,
// written with three digits, not three hundred.
func TestNewBinsTooNarrowSaysHowMany(t *testing.T) {
	ages := filepath.Join(t.TempDir(), "ages.csv")
	require.NoError(t, os.WriteFile(ages, []byte("age\n5\n-4\n1000\n"), 0o644))
	_, stderr, code := cli(t, "new", "--prior-from", ages, "--column", "age", "--bins", "1e-300", "--utility", "abs")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--bins 1e-300: the values from -4 to 1000 make 1e+303 bins of that width, at most 4096: give a wider one")
	assert.Less(t, len(stderr), 300, stderr)
}
