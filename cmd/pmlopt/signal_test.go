package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

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

// A curve stopped by SIGINT or SIGTERM writes the points it has settled,
// each a valid certified bracket, and exits with 128 + the signal number.
func TestCurveStoppedBySignal(t *testing.T) {
	bin := buildCLI(t)
	path, _ := randomProblem(t, 128)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
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
		require.Equal(t, 128+int(sig), exit.ExitCode(), "stderr: %s", rest)
		require.Contains(t, rest, fmt.Sprintf("stopped by %s", map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]))

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
