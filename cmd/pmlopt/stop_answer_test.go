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
		result <- stoppable(ctx, func() error {
			close(started)
			<-release
			close(finished)
			return nil
		})
	}()
	<-started
	cancel()
	assert.ErrorIs(t, <-result, context.Canceled)
	select {
	case <-finished:
		t.Fatal("the answer had finished: stoppable waited for it")
	default:
	}
	close(release)
	<-finished

	ran := false
	assert.ErrorIs(t, stoppable(ctx, func() error { ran = true; return nil }), context.Canceled)
	assert.False(t, ran)

	boom := errors.New("boom")
	assert.Equal(t, boom, stoppable(context.Background(), func() error { return boom }))
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
	file := filepath.Join(dir, "grid.yaml")
	require.NoError(t, os.WriteFile(file, []byte("prior: uniform\nutility_rule:\n  metric: euclidean\n"+
		"  grid: {width: 6, height: 6, cell: 1}\nprivacy: {measure: pml, epsilon: 1}\nobjective: worst-case-order\n"), 0o644))
	out := filepath.Join(dir, "safe.yaml")
	for _, args := range [][]string{
		{"safe", file, "--h", "3"},
		{"safe", file, "--h", "3", "--json"},
		{"safe", file, "--h", "3", "--out", out},
		{"baseline", file, "--mechanism", "utility-safe"},
		{"baseline", file, "--mechanism", "exponential", "--json"},
	} {
		name := strings.Join(args[2:], " ")
		runAt := func(at int) (*signalAt, int, string, string) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			c := &signalAt{Context: ctx, cancel: cancel, at: at}
			var stdout, stderr bytes.Buffer
			code := run(c, args, &env{stdout: &stdout, stderr: &stderr, stdin: strings.NewReader("")})
			return c, code, stdout.String(), stderr.String()
		}
		c, code, stdout, stderr := runAt(0)
		require.Equal(t, exitOK, code, "%s: %s", name, stderr)
		require.NotEmpty(t, stdout, name)
		require.NoError(t, os.RemoveAll(out))

		c, code, stdout, stderr = runAt(c.polls)
		assert.Equal(t, exitStopped, code, name)
		assert.Equal(t, "pmlopt "+args[0]+": stopped by SIGINT: context canceled\n", stderr, name)
		assert.Empty(t, stdout, name)
		assert.NoFileExists(t, out, name)
	}
}

// A SIGINT while plot draws a heat map ends the run at its last look at
// the context, the drawing's, with exit 130, nothing on stdout and no
// picture written.
func TestPlotStops(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "grid.yaml")
	require.NoError(t, os.WriteFile(file, []byte("prior: uniform\nutility_rule:\n  metric: euclidean\n"+
		"  grid: {width: 6, height: 6, cell: 1}\nprivacy: {measure: pml, epsilon: 1}\nobjective: worst-case-order\n"), 0o644))
	heat := filepath.Join(dir, "heat.svg")
	for _, args := range [][]string{
		{"plot", file, "--heatmap", heat, "--json"},
		{"plot", file, "--heatmap", heat, "--input", "2,3", "--json"},
	} {
		name := strings.Join(args[4:], " ")
		runAt := func(at int) (*signalAt, int, string, string) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			c := &signalAt{Context: ctx, cancel: cancel, at: at}
			var stdout, stderr bytes.Buffer
			code := run(c, args, &env{stdout: &stdout, stderr: &stderr, stdin: strings.NewReader("")})
			return c, code, stdout.String(), stderr.String()
		}
		c, code, stdout, stderr := runAt(0)
		require.Equal(t, exitOK, code, "%s: %s", name, stderr)
		require.NotEmpty(t, stdout, name)
		require.FileExists(t, heat, name)
		require.NoError(t, os.Remove(heat))

		_, code, stdout, stderr = runAt(c.polls)
		assert.Equal(t, exitStopped, code, name)
		assert.True(t, strings.HasSuffix(stderr, "\npmlopt plot: stopped by SIGINT: context canceled\n"), "%s: %s", name, stderr)
		assert.Empty(t, stdout, name)
		assert.NoFileExists(t, heat, name)
	}
}
