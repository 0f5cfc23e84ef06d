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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

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

// signals are the three that stop a run.
var signals = []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// exitWithin waits for cmd and returns its exit status; the deadline only
// ends a test that would otherwise hang (the defect it guards against), it
// measures nothing.
func exitWithin(t *testing.T, cmd *exec.Cmd, d time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		require.NoError(t, err)
		return 0
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v still ran %v after the signal", cmd.Args, d)
		return -1
	}
}

// blockedIn waits until a thread of process pid sleeps in the kernel
// function wchan (wait_for_partner: the open of a FIFO without a reader),
// so that a signal comes while the process is blocked there. A kernel that
// hides wchan skips the test.
func blockedIn(t *testing.T, pid int, wchan string) {
	t.Helper()
	shown := false // some thread was seen asleep in a named function
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		tasks, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "wchan"))
		require.NoError(t, err)
		for _, task := range tasks {
			b, err := os.ReadFile(task)
			if err != nil {
				continue
			}
			if string(b) == wchan {
				return
			}
			shown = shown || string(b) != "0" && string(b) != ""
		}
	}
	if !shown {
		t.Skip("the kernel does not show where the process waits")
	}
	t.Fatalf("process %d never waited in %s", pid, wchan)
}

// names lists dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// A run blocked on an output file that is a FIFO nobody reads (its open
// waits for a reader) ends at the first SIGINT, SIGTERM or SIGHUP: exit
// status 130, one line naming the signal and the output, and no temporary
// file, neither beside the FIFO nor in $TMPDIR. curve writes its table to
// stdout before it opens the plot, so the signal comes once the table is
// out; the other commands are signalled once the kernel shows them waiting
// in the FIFO's open.
func TestSignalEndsARunBlockedOnAFIFO(t *testing.T) {
	bin := buildCLI(t)
	type run struct {
		args []string
		sig  syscall.Signal
	}
	var runs []run
	for _, sig := range signals {
		runs = append(runs, run{[]string{"curve", td + "counting-query.yaml", "--quiet", "--plot"}, sig})
	}
	for k, args := range outputCommands(t)[1:] {
		runs = append(runs, run{args, signals[k%len(signals)]})
	}
	for _, r := range runs {
		t.Run(r.args[0]+"/"+sigName[r.sig], func(t *testing.T) {
			dir, tmp := t.TempDir(), t.TempDir()
			fifo := filepath.Join(dir, "out.svg")
			require.NoError(t, syscall.Mkfifo(fifo, 0o600))
			cmd := exec.Command(bin, append(r.args, fifo)...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			defer cmd.Process.Kill()
			if r.args[0] == "curve" {
				out := bufio.NewReader(stdout)
				for {
					line, err := out.ReadString('\n')
					require.NoError(t, err, "the table never ended: %s", stderr.String())
					if strings.Contains(line, "7 points") {
						break
					}
				}
			} else {
				blockedIn(t, cmd.Process.Pid, "wait_for_partner")
			}
			require.NoError(t, cmd.Process.Signal(r.sig))
			go io.Copy(io.Discard, stdout)
			code := exitWithin(t, cmd, 20*time.Second)
			assert.Equal(t, exitStopped, code, stderr.String())
			assert.Equal(t, "pmlopt "+r.args[0]+": stopped by "+sigName[r.sig]+": nobody reads "+fifo+"; nothing more is written\n", stderr.String())
			assert.Equal(t, []string{"out.svg"}, names(t, dir))
			assert.Empty(t, names(t, tmp))
		})
	}
}

// A run whose stdout is a pipe nobody reads blocks in write(2) once the
// pipe is full; the first SIGINT, SIGTERM or SIGHUP ends it with exit
// status 130 and one line naming the signal and standard output. sample
// spools its CSV to $TMPDIR before it writes stdout: the spool file is
// there while the run is blocked, and gone after. new writes its problem
// file to stdout directly.
func TestSignalEndsARunBlockedOnAFullPipe(t *testing.T) {
	bin := buildCLI(t)
	csvPath := filepath.Join(t.TempDir(), "records.csv")
	require.NoError(t, os.WriteFile(csvPath, []byte("record,count\n"+strings.Repeat("r,3\n", 200000)), 0o644))
	type run struct {
		args  []string
		spool bool
	}
	runs := []run{
		{[]string{"sample", mechFile(t), "--input", csvPath, "--column", "count", "--seed", "1"}, true},
		{[]string{"new", "--letters", "300", "--utility", "abs"}, false},
	}
	for _, r := range runs {
		for _, sig := range signals {
			t.Run(r.args[0]+"/"+sigName[sig], func(t *testing.T) {
				tmp := t.TempDir()
				rd, wr, err := os.Pipe()
				require.NoError(t, err)
				defer rd.Close()
				cmd := exec.Command(bin, r.args...)
				cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
				cmd.Stdout = wr
				var stderr strings.Builder
				cmd.Stderr = &stderr
				require.NoError(t, cmd.Start())
				defer cmd.Process.Kill()
				wr.Close()
				// The pipe is full when it holds its capacity: the run
				// then waits in write(2) for a reader that never comes.
				size, err := unix.FcntlInt(rd.Fd(), unix.F_GETPIPE_SZ, 0)
				require.NoError(t, err)
				for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
					n, err := unix.IoctlGetInt(int(rd.Fd()), unix.TIOCINQ) // FIONREAD
					require.NoError(t, err)
					if n >= size {
						break
					}
					require.True(t, time.Now().Before(deadline), "the pipe never filled: %s", stderr.String())
				}
				if r.spool {
					spooled := names(t, tmp)
					require.Len(t, spooled, 1)
					assert.True(t, strings.HasPrefix(spooled[0], "pmlopt-sample-"), spooled[0])
				}
				require.NoError(t, cmd.Process.Signal(sig))
				code := exitWithin(t, cmd, 20*time.Second)
				assert.Equal(t, exitStopped, code, stderr.String())
				assert.True(t, strings.HasSuffix(stderr.String(), "pmlopt "+r.args[0]+": stopped by "+sigName[sig]+": nobody reads standard output; nothing more is written\n"), stderr.String())
				assert.Empty(t, names(t, tmp))
			})
		}
	}
}
