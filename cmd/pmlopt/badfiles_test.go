package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/problem"
)

// TestBadFilesNameTheEntry runs every command that reads a problem on every
// malformed file of testdata/bad: each exits 1 with nothing on stdout and
// one line on stderr that holds the loader's whole message (the file, the
// field and, where there is one, the row and column).
func TestBadFilesNameTheEntry(t *testing.T) {
	bad, err := filepath.Glob(td + "bad/*.*")
	require.NoError(t, err)
	require.NotEmpty(t, bad)
	for _, f := range bad {
		_, want := problem.Load(f)
		require.Error(t, want, f)
		for _, cmd := range [][]string{
			{"audit", f}, {"solve", f}, {"safe", f, "--h", "1"}, {"curve", f, "--quiet"},
			{"export", f, "--mps", "-"}, {"sample", f, "--input", td + "records.csv", "--column", "count"},
		} {
			out, stderr, code := cli(t, cmd...)
			assert.Equal(t, exitError, code, "%v: %s", cmd, stderr)
			assert.Empty(t, out, "%v wrote to stdout", cmd)
			assert.Equal(t, "pmlopt "+cmd[0]+": "+want.Error()+"\n", stderr, "%v", cmd)
		}
	}
}

// TestFilesCommandsRefuse holds files that load but that solve and curve
// refuse before any engine sees them.
func TestFilesCommandsRefuse(t *testing.T) {
	for _, c := range []struct {
		file, msg string
	}{
		{"utility-range.yaml", "utility row 1, column 2: is 1e-300, too small next to the largest utility 1e+300 (row 1, column 1) to keep its value when the utilities are scaled to 1"},
	} {
		f := td + "bad/solve/" + c.file
		_, err := problem.Load(f)
		require.NoError(t, err, "the file loads")
		for _, cmd := range [][]string{{"solve", f}, {"curve", f, "--objective", "worst-case-value", "--quiet"}} {
			out, stderr, code := cli(t, cmd...)
			assert.Equal(t, exitError, code, "%v: %s", cmd, stderr)
			assert.Empty(t, out)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			assert.Len(t, lines, 1, stderr)
			assert.Equal(t, "pmlopt "+cmd[0]+": "+f+": "+c.msg+"; set it to 0 or narrow the range\n", stderr, "%v", cmd)
		}
	}
}
