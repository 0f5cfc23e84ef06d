package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/figure"
	"github.com/pmlopt/pmlopt/problem"
)

// TestShardFlag: a wrong --shard is a wrong command line, naming the flag.
func TestShardFlag(t *testing.T) {
	file := td + "counting-query.yaml"
	for _, bad := range []string{"0/3", "4/3", "x", "1/0", "1/", "2"} {
		out, stderr, code := cli(t, "curve", file, "--shard", bad, "--jsonl")
		require.Equal(t, exitUsage, code, bad)
		assert.Contains(t, stderr, "--shard", bad)
		assert.Empty(t, out, bad)
	}
	_, stderr, code := cli(t, "curve", file, "--shard", "1/2")
	require.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--jsonl")
	_, stderr, code = cli(t, "curve", file, "--shard", "1/2", "--jsonl", "--plot", filepath.Join(t.TempDir(), "c.svg"))
	require.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--plot")
	_, stderr, code = cli(t, "curve", td+"expected-utility.yaml", "--objective", "expected-utility", "--shard", "1/2", "--jsonl")
	require.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--shard")
}

// TestShardRecords: a shard's lines are curve --jsonl's points with the
// keys merge checks; the fingerprint follows the numbers of the problem,
// not its name or budget.
func TestShardRecords(t *testing.T) {
	file := td + "counting-query.yaml"
	plain, _, code := cli(t, "curve", file, "--jsonl", "--quiet", "--workers", "1")
	require.Equal(t, 0, code)
	sharded, stderr, code := cli(t, "curve", file, "--jsonl", "--quiet", "--workers", "1", "--shard", "1/1")
	require.Equal(t, 0, code, stderr)
	pl, sl := strings.Split(strings.TrimSpace(plain), "\n"), strings.Split(strings.TrimSpace(sharded), "\n")
	require.Len(t, sl, len(pl))
	// The lines come in the order the thresholds settle.
	want := map[float64]map[string]any{}
	for _, l := range pl {
		var pt map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &pt))
		want[pt["h"].(float64)] = pt
	}
	fp := ""
	for k := range sl {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(sl[k]), &rec))
		if fp == "" {
			fp = rec["problem"].(string)
		}
		require.Regexp(t, "^sha256:[0-9a-f]{64}$", rec["problem"])
		assert.Equal(t, fp, rec["problem"])
		assert.Equal(t, "worst-case-order", rec["objective"])
		assert.Equal(t, 1e-9, rec["tol"])
		assert.Equal(t, "1/1", rec["shard"])
		assert.Equal(t, rec["h"], rec["index"])
		assert.NotEmpty(t, rec["solver"])
		for _, key := range []string{"problem", "objective", "solver", "tol", "shard", "index"} {
			delete(rec, key)
		}
		assert.Equal(t, want[rec["h"].(float64)], rec)
	}

	p := loadOK(t, file)
	q := *p
	q.Name, q.Privacy = "another name", nil
	assert.Equal(t, fp, problemFingerprint(&q))
	q.Prior = append(q.Prior[:0:0], q.Prior...)
	q.Prior[0] = math.Nextafter(q.Prior[0], 1)
	assert.NotEqual(t, fp, problemFingerprint(&q), "one ulp of the prior")
	q = *p
	q.Utility = append(q.Utility[:0:0], q.Utility...)
	q.Utility[0] = append([]float64{q.Utility[0][0] - 1}, q.Utility[0][1:]...)
	assert.NotEqual(t, fp, problemFingerprint(&q), "one entry of the utility")
}

// cancelAfterLine stops the command, as a signal would, once a line has
// been written to it.
type cancelAfterLine struct {
	bytes.Buffer
	cancel context.CancelCauseFunc
}

func (w *cancelAfterLine) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if bytes.Contains(p, []byte("\n")) {
		w.cancel(&stopped{sig: syscall.SIGTERM})
	}
	return n, err
}

// TestShardStopped: a shard stopped by a signal keeps every line it
// settled (exit status 130), each the same as in a shard run to the end;
// merge names the thresholds the stopped shard lost, and its rerun
// completes the merge.
func TestShardStopped(t *testing.T) {
	file := randomShardProblem(t, 24)
	dir := t.TempDir()
	parts := writeParts(t, dir, file, 2)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	w := &cancelAfterLine{cancel: cancel}
	var errb bytes.Buffer
	code := run(ctx, []string{"curve", file, "--shard", "1/2", "--jsonl", "--quiet", "--workers", "1"}, &env{stdout: w, stderr: &errb, stdin: strings.NewReader("")})
	require.Equal(t, exitStopped, code, errb.String())
	lines := strings.Count(w.String(), "\n")
	require.GreaterOrEqual(t, lines, 1)
	require.True(t, strings.HasSuffix(w.String(), "\n"), "only whole lines")
	stoppedPart := filepath.Join(dir, "stopped.jsonl")
	require.NoError(t, os.WriteFile(stoppedPart, w.Bytes(), 0o644))

	_, stderr, code := cli(t, "merge", file, stoppedPart, parts[1])
	require.Equal(t, exitError, code)
	m := len(loadOK(t, file).Order[0])
	assert.Contains(t, stderr, fmt.Sprintf("%d of %d thresholds missing", m/2-lines, m), "shard 1/2 holds h 1..%d", m/2)
	assert.Contains(t, stderr, "shard 1/2 incomplete")

	// The rerun's lines agree with the stopped shard's (duplicates must
	// be identical), and complete the curve.
	_, stderr, code = cli(t, "merge", file, stoppedPart, parts[0], parts[1])
	require.Equal(t, 0, code, stderr)
}

// A curve stopped before its first point has nothing to plot: its plot
// is ErrNothingToDraw, which the stopped run passes over (exit 130 with
// the stop's message, not "--plot failed"), and no figure is written.
func TestEmptyCurvePlotsNothing(t *testing.T) {
	dir := t.TempDir()
	plot := filepath.Join(dir, "curve.svg")
	err := plotCurve(plot, "t", problem.WorstCaseOrder, nil, nil)
	require.ErrorIs(t, err, figure.ErrNothingToDraw)
	assert.NoFileExists(t, plot)
	err = plotExpectedCurves(plot, "t", []expectedSeries{{}})
	require.ErrorIs(t, err, figure.ErrNothingToDraw)
	assert.NoFileExists(t, plot)
}
