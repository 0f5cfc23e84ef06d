package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLooseEnds covers the small command-line failures of issue 22, one
// row each: exit status and the message.
func TestLooseEnds(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		code int
		out  string // in stdout
		msg  string // in stderr
	}{
		{"safe -h is help", []string{"safe", "-h"}, exitOK, "Usage: pmlopt safe", ""},
		{"safe FILE -h is help", []string{"safe", td + "counting-query.yaml", "-h"}, exitOK, "Usage: pmlopt safe", ""},
		{"export -h is help", []string{"export", "-h"}, exitOK, "Usage: pmlopt export", ""},
		{"safe -h 3 is the order", []string{"safe", td + "counting-query.yaml", "-h", "3"}, exitOK, "M*(3)", ""},
		{"curve --tol inf", []string{"curve", td + "counting-query.yaml", "--tol", "inf"}, exitUsage, "", "--tol must be a finite number, got +Inf"},
		{"solve --tol inf", []string{"solve", td + "counting-query.yaml", "--tol", "inf"}, exitUsage, "", "--tol must be a finite number, got +Inf"},
		{"export --value NaN", []string{"export", td + "expected-utility.yaml", "--mps", "-", "--value", "NaN"}, exitUsage, "", "--value must be a number, got NaN"},
		{"empty --objective", []string{"solve", td + "counting-query.yaml", "--objective", ""}, exitUsage, "", "--objective is empty"},
	} {
		out, stderr, code := cli(t, c.args...)
		assert.Equal(t, c.code, code, "%s: %s", c.name, stderr)
		assert.Contains(t, out, c.out, c.name)
		assert.Contains(t, stderr, c.msg, c.name)
	}
	for _, c := range commands {
		out, _, _ := cli(t, c.name, "--help")
		assert.NotContains(t, out, "NaN", "%s --help", c.name)
	}
}

// TestZeroLevelIsShown checks that a guarantee of level 0 keeps its level in
// convert --json and in audit's implied block (omitempty dropped it).
func TestZeroLevelIsShown(t *testing.T) {
	v := runJSON(t, "convert", "--from", "pml", "--epsilon", "0", "--pmin", "0.2", "--json")
	from := v["from"].(map[string]any)
	assert.Equal(t, 0.0, from["epsilon"])
	for _, x := range v["implied"].([]any) {
		im := x.(map[string]any)
		if im["holds"] == true && im["measure"] != "alip" {
			_, ok := im["epsilon"]
			assert.True(t, ok, "%v", im)
		}
	}
	// A mechanism that ignores its input has PML 0: every implied
	// guarantee that holds shows its level.
	path := filepath.Join(t.TempDir(), "constant.yaml")
	require.NoError(t, os.WriteFile(path, []byte("prior: [0.5, 0.5]\nmechanism: [[0.5, 0.5], [0.5, 0.5]]\n"), 0o644))
	out, stderr, code := cli(t, "audit", path, "--json")
	require.Equal(t, 0, code, stderr)
	var a map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &a))
	assert.Equal(t, 0.0, a["pml"])
	shown := 0
	for from, list := range a["implied"].(map[string]any) {
		for _, x := range list.([]any) {
			im := x.(map[string]any)
			if im["holds"] != true {
				continue
			}
			if im["measure"] == "alip" {
				assert.Contains(t, im, "epsilon_lower", from)
				assert.Contains(t, im, "epsilon_upper", from)
			} else {
				assert.Contains(t, im, "epsilon", from)
			}
			shown++
		}
	}
	assert.Positive(t, shown)
}

// TestAuditStopsOnSignal runs audit under a context a signal has already
// cancelled: the maximisation of α-leakage watches it, and the command
// exits 130 as a shell reports SIGINT.
func TestAuditStopsOnSignal(t *testing.T) {
	path, _ := randomProblem(t, 40)
	// randomProblem gives a utility; audit needs a mechanism: use the
	// utility-safe one of the same file.
	v := runJSON(t, "safe", path, "--h", "10", "--json")
	f := filepath.Join(t.TempDir(), "m.json")
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	var p map[string]any
	require.NoError(t, json.Unmarshal(src, &p))
	require.NoError(t, os.WriteFile(f, mustJSON(t, map[string]any{"prior": p["prior"], "mechanism": v["mechanism"]}), 0o644))
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&stopped{sig: os.Interrupt})
	var out, errb strings.Builder
	code := run(ctx, []string{"audit", f}, &env{stdout: &out, stderr: &errb, stdin: strings.NewReader("")})
	assert.Equal(t, exitStopped, code, errb.String())
	assert.Contains(t, errb.String(), "pmlopt audit: stopped by SIGINT")
	assert.Empty(t, out.String())
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// TestSafeEpsilonIsTheMechanismsPML: under ties ε_S(h) (Cor 1) is only a
// lower bound on the PML of M*(h). With x_1 indifferent between three
// outputs and x_2 ranking them 1 2 3 (prior 0.9, 0.1), ε_S(3) = −log 0.9
// while M*(3) = [[1/3, 1/3, 1/3], [0, 0, 1]] leaks log(1/0.4) = log 2.5
// (q_3 = 0.4). "epsilon" is that PML whether --h or --epsilon chose h,
// ε_S is shown beside it, and --out writes a budget the mechanism meets.
func TestSafeEpsilonIsTheMechanismsPML(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "ties.yaml")
	require.NoError(t, os.WriteFile(f, []byte("prior: [0.9, 0.1]\norder: [[3, 3, 3], [1, 2, 3]]\n"), 0o644))
	for _, args := range [][]string{{"--h", "3"}, {"--epsilon", "1"}} {
		v := runJSON(t, append([]string{"safe", f, "--json"}, args...)...)
		assert.Equal(t, 3.0, v["h"], "%v", args)
		assert.InDelta(t, math.Log(2.5), v["epsilon"].(float64), 1e-15, "%v", args)
		assert.InDelta(t, -math.Log(0.9), v["safe_epsilon"].(float64), 1e-15, "%v", args)
		out, stderr, code := cli(t, append([]string{"safe", f}, args...)...)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, out, "PML ε = 0.9162907319 nats (ε_S(3) = 0.1053605157, Cor 1)", "%v", args)
	}
	out3 := filepath.Join(dir, "safe3.yaml")
	_, stderr, code := cli(t, "safe", f, "--h", "3", "--out", out3)
	require.Equal(t, 0, code, stderr)
	v := runJSON(t, "audit", out3, "--json")
	assert.InDelta(t, math.Log(2.5), v["pml"].(float64), 1e-15)
	_, stderr, code = cli(t, "audit", out3)
	assert.Equal(t, 0, code, "the written mechanism meets the written budget: %s", stderr)
}

// TestExportStopsOnSignal runs export of a model over a prior set (a
// 14×14 grid, the L1 ball) with a signal arriving 20 ms in, once the file
// is loaded, while the model is built or written (a second's work): it
// exits 130 and leaves no file.
func TestExportStopsOnSignal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.yaml")
	require.NoError(t, os.WriteFile(path, []byte("prior: uniform\nutility_rule: {metric: euclidean, grid: {width: 14, height: 14}}\n"+
		"prior_set: {l1_radius: 0.1}\nprivacy: {measure: pml, epsilon: 1}\nobjective: expected-utility\n"), 0o644))
	mps := filepath.Join(dir, "p.mps")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(20*time.Millisecond, func() { cancel(&stopped{sig: os.Interrupt}) })
	var out, errb strings.Builder
	code := run(ctx, []string{"export", path, "--mps", mps}, &env{stdout: &out, stderr: &errb, stdin: strings.NewReader("")})
	assert.Equal(t, exitStopped, code, errb.String())
	assert.Contains(t, errb.String(), "pmlopt export: stopped by SIGINT")
	assert.NoFileExists(t, mps)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "a temporary file left: %v", entries)
}

// TestJSONLCurveStoppedBeforeItsFirstPoint: a --jsonl curve stopped soon
// after its file is read (before its first threshold settles, on this
// 10×10 grid) says how many points it wrote and how many of the order
// curve's thresholds are left, counted as the --json curve lists them. A
// signal that comes while the rule's order is still being derived, or
// on a loaded machine while standard input is still being read, stops
// the run there, with that step's message: the signal is sent again a
// little later until it reaches the curve.
func TestJSONLCurveStoppedBeforeItsFirstPoint(t *testing.T) {
	src := []byte("prior: uniform\nutility_rule: {metric: euclidean, grid: {width: 10, height: 10}}\nobjective: worst-case-order\n")
	var out, errb strings.Builder
	code := 0
	for _, after := range []time.Duration{5, 20, 80, 160} {
		ctx, cancel := context.WithCancelCause(context.Background())
		in := stopAtEOF{r: bytes.NewReader(src), stop: func() {
			time.AfterFunc(after*time.Millisecond, func() { cancel(&stopped{sig: os.Interrupt}) })
		}}
		out.Reset()
		errb.Reset()
		code = run(ctx, []string{"curve", "-", "--jsonl"}, &env{stdout: &out, stderr: &errb, stdin: &in})
		cancel(nil)
		if !strings.Contains(errb.String(), "were still being built") && !strings.Contains(errb.String(), "was still being read") {
			break
		}
	}
	require.Equal(t, exitStopped, code, errb.String())
	written := strings.Count(out.String(), "\n")
	file := filepath.Join(t.TempDir(), "grid.yaml")
	require.NoError(t, os.WriteFile(file, src, 0o644))
	all := runJSON(t, "curve", file, "--json")
	n := len(all["points"].([]any))
	require.Greater(t, n, written)
	assert.Contains(t, errb.String(), fmt.Sprintf("%d settled points written, %d thresholds left", written, n-written))
}

// stopAtEOF reads r and calls stop when r is exhausted.
type stopAtEOF struct {
	r    io.Reader
	stop func()
}

func (s *stopAtEOF) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err == io.EOF {
		s.stop()
	}
	return n, err
}
