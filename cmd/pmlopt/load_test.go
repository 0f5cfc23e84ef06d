package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProblemFileSizeLimit refuses /dev/zero (which never ends: a read
// without a limit runs until memory runs out) and a file beyond
// --max-bytes, with one line naming the file.
func TestProblemFileSizeLimit(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, stderr, code := cli(t, "solve", "/dev/zero", "--max-bytes", "1048576")
		assert.Equal(t, exitError, code)
		assert.Equal(t, "pmlopt solve: /dev/zero: file too large: more than 1048576 bytes (--max-bytes)\n", stderr)
	}
	st, err := os.Stat(td + "example1.yaml")
	require.NoError(t, err)
	_, stderr, code := cli(t, "audit", td+"example1.yaml", "--max-bytes", "100")
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "example1.yaml: file too large: more than 100 bytes")
	assert.Greater(t, st.Size(), int64(100))
	_, stderr, code = cli(t, "solve", td+"example1.yaml", "--max-bytes", "0")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--max-bytes must be positive")
}

// TestByteOrderMark reads the same problem with a UTF-8 byte order mark in
// JSON and in YAML: both are accepted, as without it.
func TestByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"p.json": `{"prior": [0.5, 0.5], "mechanism": [[0.75, 0.25], [0.25, 0.75]]}`,
		"p.yaml": "prior: [0.5, 0.5]\nmechanism: [[0.75, 0.25], [0.25, 0.75]]\n",
	} {
		plain := filepath.Join(dir, "plain-"+name)
		bom := filepath.Join(dir, "bom-"+name)
		require.NoError(t, os.WriteFile(plain, []byte(src), 0o644))
		require.NoError(t, os.WriteFile(bom, []byte("\ufeff"+src), 0o644))
		want, stderr, code := cli(t, "audit", plain, "--json")
		require.Equal(t, 0, code, stderr)
		got, stderr, code := cli(t, "audit", bom, "--json")
		require.Equal(t, 0, code, "%s: %s", name, stderr)
		assert.Equal(t, want, got, name)
		assert.True(t, strings.Contains(got, `"pml"`))
	}
}
