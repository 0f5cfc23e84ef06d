package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stoppable returns the context's error as soon as it ends, while the
// answer is still being formatted, and the answer's own result otherwise;
// a context already done runs nothing.
func TestStoppable(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started, release := make(chan struct{}), make(chan struct{})
	finished := make(chan struct{})
	result := make(chan error, 1)
	go func() {
		result <- stoppable(ctx, "the answer was still being formatted", func() error {
			close(started)
			<-release
			close(finished)
			return nil
		})
	}()
	<-started
	cancel()
	err := <-result
	assert.ErrorIs(t, err, context.Canceled)
	assert.EqualError(t, err, "the answer was still being formatted")
	select {
	case <-finished:
		t.Fatal("the answer had finished: stoppable waited for it")
	default:
	}
	close(release)
	<-finished

	ran := false
	assert.ErrorIs(t, stoppable(ctx, "step", func() error { ran = true; return nil }), context.Canceled)
	assert.False(t, ran)

	boom := errors.New("boom")
	assert.Equal(t, boom, stoppable(context.Background(), "step", func() error { return boom }))
}

// A SIGINT once safe or baseline has its mechanism, while the answer is
// formatted (seconds for a location grid's matrix), ends the run at its
// last look at the context with exit 130, nothing on stdout and no --out
// file: the run is counted once to the end, then stopped at that last
// look. For safe that look is the answer's (without it, the last look is
// the order's derivation, and the message names that step); baseline's
// calibration looks just before it.
func TestAnswerStops(t *testing.T) {
	dir := t.TempDir()
	file := grid6File(t, dir)
	out := filepath.Join(dir, "safe.yaml")
	for _, args := range [][]string{
		{"safe", file, "--h", "3"},
		{"safe", file, "--h", "3", "--json"},
		{"safe", file, "--h", "3", "--out", out},
		{"baseline", file, "--mechanism", "utility-safe"},
		{"baseline", file, "--mechanism", "exponential", "--json"},
	} {
		name := strings.Join(args[2:], " ")
		c, code, stdout, stderr := runSignalledAt(args, 0)
		require.Equal(t, exitOK, code, "%s: %s", name, stderr)
		require.NotEmpty(t, stdout, name)
		require.NoError(t, os.RemoveAll(out))

		c, code, stdout, stderr = runSignalledAt(args, c.polls)
		assert.Equal(t, exitStopped, code, name)
		assert.Equal(t, "pmlopt "+args[0]+": stopped by SIGINT: the answer was still being formatted\n", stderr, name)
		assert.Empty(t, stdout, name)
		assert.NoFileExists(t, out, name)
	}
}

// A SIGINT while plot draws a heat map ends the run at its last look at
// the context, the drawing's, with exit 130, nothing on stdout and no
// picture written; with --json, the last look is the answer's, after the
// picture is written: exit 130, the picture complete, nothing on stdout.
func TestPlotStops(t *testing.T) {
	dir := t.TempDir()
	file := grid6File(t, dir)
	heat := filepath.Join(dir, "heat.svg")
	for _, c := range []struct {
		args    []string
		step    string
		picture bool
	}{
		{[]string{"plot", file, "--heatmap", heat}, "the heat map was still being drawn", false},
		{[]string{"plot", file, "--heatmap", heat, "--input", "2,3"}, "the heat map was still being drawn", false},
		{[]string{"plot", file, "--heatmap", heat, "--json"}, "the answer was still being formatted", true},
	} {
		name := strings.Join(c.args[4:], " ")
		sa, code, _, stderr := runSignalledAt(c.args, 0)
		require.Equal(t, exitOK, code, "%s: %s", name, stderr)
		require.FileExists(t, heat, name)
		require.NoError(t, os.Remove(heat))

		_, code, stdout, stderr := runSignalledAt(c.args, sa.polls)
		assert.Equal(t, exitStopped, code, name)
		assert.True(t, strings.HasSuffix(stderr, "\npmlopt plot: stopped by SIGINT: "+c.step+"\n"), "%s: %s", name, stderr)
		assert.Empty(t, stdout, name)
		if c.picture {
			assert.FileExists(t, heat, name)
			require.NoError(t, os.Remove(heat))
		} else {
			assert.NoFileExists(t, heat, name)
		}
	}
}

// grid6File writes to dir a problem on a 6×6 grid given by its
// utility_rule and returns its path.
func grid6File(t *testing.T, dir string) string {
	t.Helper()
	file := filepath.Join(dir, "grid.yaml")
	require.NoError(t, os.WriteFile(file, []byte("prior: uniform\nutility_rule:\n  metric: euclidean\n"+
		"  grid: {width: 6, height: 6, cell: 1}\nprivacy: {measure: pml, epsilon: 1}\nobjective: worst-case-order\n"), 0o644))
	return file
}

// runSignalledAt runs the command line args with a context that a SIGINT
// ends at its at-th look (never when at is 0), and returns the context,
// the exit status, stdout and stderr.
func runSignalledAt(args []string, at int) (*signalAt, int, string, string) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	c := &signalAt{Context: ctx, cancel: cancel, at: at}
	var stdout, stderr bytes.Buffer
	code := run(c, args, &env{stdout: &stdout, stderr: &stderr, stdin: strings.NewReader("")})
	return c, code, stdout.String(), stderr.String()
}
