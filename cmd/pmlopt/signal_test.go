package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

// buildCLI compiles pmlopt into a temporary directory, for tests that
// need a real process (signals, exit statuses).
func buildCLI(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the command: not in -short")
	}
	bin := filepath.Join(t.TempDir(), "pmlopt")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// randomProblem writes an n×n problem with a Dirichlet-like prior and
// Gaussian utilities: its order curve takes seconds, time enough to be
// interrupted.
func randomProblem(t *testing.T, n int) (string, mech.Prior) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 5))
	pi := make(mech.Prior, n)
	sum := 0.0
	for i := range pi {
		pi[i] = rng.ExpFloat64() + 1e-3
		sum += pi[i]
	}
	u := make([][]float64, n)
	for i := range u {
		pi[i] /= sum
		u[i] = make([]float64, n)
		for j := range u[i] {
			u[i][j] = rng.NormFloat64()
		}
	}
	b, err := json.Marshal(map[string]any{"prior": pi, "utility": u, "objective": "worst-case-order",
		"privacy": map[string]any{"measure": "pml", "epsilon": 1}})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "random.json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path, pi
}

// A curve stopped by SIGINT, SIGTERM or SIGHUP writes the points it has settled,
// each a valid certified bracket, and exits with status 130 whatever the signal.
func TestCurveStoppedBySignal(t *testing.T) {
	bin := buildCLI(t)
	path, _ := randomProblem(t, 128)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		cmd := exec.Command(bin, "curve", path, "--json", "--workers", "1", "--solver", "revised")
		var stdout strings.Builder
		cmd.Stdout = &stdout
		stderr, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		// The progress line appears once the curve has run a second and
		// settled a threshold: then the signal comes mid-curve.
		r := bufio.NewReader(stderr)
		var seen strings.Builder
		for !strings.Contains(seen.String(), "curve [") {
			b, err := r.ReadByte()
			if err != nil {
				break
			}
			seen.WriteByte(b)
		}
		require.NoError(t, cmd.Process.Signal(sig))
		rest, _ := readAll(r)
		err = cmd.Wait()
		var exit *exec.ExitError
		require.True(t, errors.As(err, &exit), "the curve ended without the signal: %v\n%s", err, seen.String()+rest)
		require.Equal(t, 130, exit.ExitCode(), "stderr: %s", rest)
		require.Contains(t, rest, "stopped by "+sigName[sig])

		var out struct {
			Points []struct {
				H     int     `json:"h"`
				Lower float64 `json:"optimal_epsilon_lower"`
				Upper float64 `json:"optimal_epsilon"`
			} `json:"points"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout.String()), &out), "stdout must be complete JSON: %q", stdout.String())
		require.NotEmpty(t, out.Points)
		require.Less(t, len(out.Points), 128)
		for _, p := range out.Points {
			require.LessOrEqual(t, p.Lower, p.Upper, "h %d", p.H)
		}
	}
}

func readAll(r *bufio.Reader) (string, error) {
	b, err := io.ReadAll(r)
	return string(b), err
}

var sigName = map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}

// An expected-utility solve whose LP engine runs (the LIP LP of a
// 150-letter problem, 45 450 rows, with the pure-Go simplex, which takes
// far longer than the test) stops on SIGINT, SIGTERM or SIGHUP: exit
// status 130 whatever the signal, the reason on stderr, nothing on stdout, and
// the --out file as it was, with no temporary file left.
func TestSolveStoppedBySignal(t *testing.T) {
	bin := buildCLI(t)
	src, _ := randomProblem(t, 150)
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	var p map[string]any
	require.NoError(t, json.Unmarshal(data, &p))
	p["objective"] = "expected-utility"
	p["privacy"] = map[string]any{"measure": "lip", "epsilon": 1}
	path := filepath.Join(t.TempDir(), "lip.json")
	require.NoError(t, os.WriteFile(path, mustJSON(t, p), 0o644))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		dir := t.TempDir()
		out := filepath.Join(dir, "solved.yaml")
		require.NoError(t, os.WriteFile(out, []byte(previous), 0o644))
		cmd := exec.Command(bin, "solve", path, "--solver", "revised", "--out", out)
		var stdout strings.Builder
		cmd.Stdout = &stdout
		stderr, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		// solve says when it starts the LP: the signal comes mid-solve.
		r := bufio.NewReader(stderr)
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		require.Contains(t, line, "solving the lip LP (45450 rows × 22800 columns) with revised")
		require.NoError(t, cmd.Process.Signal(sig))
		rest, _ := readAll(r)
		var exit *exec.ExitError
		require.ErrorAs(t, cmd.Wait(), &exit, "the solve ended without the signal: %s", rest)
		assert.Equal(t, 130, exit.ExitCode(), rest)
		assert.Contains(t, rest, "pmlopt solve: stopped by "+sigName[sig])
		assert.Empty(t, stdout.String())
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.Equal(t, previous, string(b))
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Len(t, entries, 1)
	}
}

// A command waiting for its input (standard input left open by the
// writer, a FIFO nobody opens for writing) stops on SIGINT: exit status
// 130 and the reason. The signal comes after a second, once the process
// has started and blocks in its read or open.
func TestReadStoppedBySignal(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, args := range [][]string{
		{"solve", "-"},
		{"solve", fifo},
		{"sample", td + "eye-colour.json", "--input", fifo, "--column", "c"},
		{"sample", td + "eye-colour.json", "--input", "-", "--column", "c"},
	} {
		cmd := exec.Command(bin, args...)
		stdin, err := cmd.StdinPipe() // held open, never written
		require.NoError(t, err)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Start())
		time.Sleep(time.Second)
		require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
		err = cmd.Wait()
		stdin.Close()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%v: %s", args, stderr.String())
		assert.Equal(t, 130, exit.ExitCode(), "%v: %s", args, stderr.String())
		assert.Contains(t, stderr.String(), "pmlopt "+args[0]+": stopped by SIGINT", "%v", args)
		assert.Empty(t, stdout.String(), "%v", args)
	}
}
