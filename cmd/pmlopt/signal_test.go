package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/mech"
)

// buildCLI compiles pmlopt into a temporary directory, for tests that
// need a real process (signals, exit statuses).
func buildCLI(t *testing.T) string {
	t.Helper()
	if testlong.Short() {
		t.Skip("builds the command: a long suite (-tags long)")
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

// stopMidCurve runs pmlopt with args, sends sig once the progress line
// shows that the curve has run a second, and returns stdout, stderr and
// the exit status.
func stopMidCurve(t *testing.T, bin string, sig syscall.Signal, args ...string) (string, string, int) {
	t.Helper()
	return stopMidCurveWith(t, bin, []syscall.Signal{sig}, args...)
}

// stopMidCurveWith is stopMidCurve sending every signal of sigs, back to
// back.
func stopMidCurveWith(t *testing.T, bin string, sigs []syscall.Signal, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	r := bufio.NewReader(stderr)
	var seen strings.Builder
	for !strings.Contains(seen.String(), "curve: ") {
		b, err := r.ReadByte()
		if err != nil {
			break
		}
		seen.WriteByte(b)
	}
	for _, sig := range sigs {
		require.NoError(t, cmd.Process.Signal(sig))
	}
	rest, _ := readAll(r)
	err = cmd.Wait()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "the curve ended without the signal: %v\n%s", err, seen.String()+rest)
	return stdout.String(), rest, exit.ExitCode()
}

// A curve stopped by SIGINT, SIGTERM or SIGHUP writes the points it has
// settled, each a valid certified bracket, and exits with status 130
// whatever the signal. Every format says that the curve is partial and
// which thresholds are left: --json "complete": false and thresholds_left
// (the orders h = 1..128 without a point), --csv a comment line before
// the header, the table a line under it; the plot of the settled points is
// drawn, its title saying how many thresholds are left.
func TestCurveStoppedBySignal(t *testing.T) {
	bin := buildCLI(t)
	path, _ := randomProblem(t, 128)
	for _, c := range []struct {
		sig    syscall.Signal
		format string
	}{{syscall.SIGINT, "--json"}, {syscall.SIGTERM, "--csv"}, {syscall.SIGHUP, "--json"}, {syscall.SIGINT, "table"}} {
		t.Run(sigName[c.sig]+c.format, func(t *testing.T) {
			plot := filepath.Join(t.TempDir(), "curve.svg")
			args := []string{"curve", path, "--workers", "1", "--solver", "revised", "--plot", plot}
			if c.format != "table" {
				args = append(args, c.format)
			}
			stdout, stderr, code := stopMidCurve(t, bin, c.sig, args...)
			require.Equal(t, exitStopped, code, "stderr: %s", stderr)
			require.Contains(t, stderr, "stopped by "+sigName[c.sig])

			// hs are the orders with a point, left those the output says are left.
			var hs, left []int
			switch c.format {
			case "--json":
				var out struct {
					Complete *bool `json:"complete"`
					Left     []int `json:"thresholds_left"`
					Points   []struct {
						H     int     `json:"h"`
						Lower float64 `json:"optimal_epsilon_lower"`
						Upper float64 `json:"optimal_epsilon"`
					} `json:"points"`
				}
				require.NoError(t, json.Unmarshal([]byte(stdout), &out), "stdout must be complete JSON: %q", stdout)
				require.NotNil(t, out.Complete)
				assert.False(t, *out.Complete)
				for _, p := range out.Points {
					require.LessOrEqual(t, p.Lower, p.Upper, "h %d", p.H)
					hs = append(hs, p.H)
				}
				left = out.Left
			case "--csv":
				first, body, ok := strings.Cut(stdout, "\n")
				require.True(t, ok, stdout)
				m := regexp.MustCompile(`^# partial curve, stopped by SIGTERM: (\d+) of 128 thresholds left \(h = ([0-9, ]+)\)$`).FindStringSubmatch(first)
				require.NotNil(t, m, "first line: %q", first)
				for _, f := range strings.Split(m[2], ", ") {
					h, err := strconv.Atoi(f)
					require.NoError(t, err)
					left = append(left, h)
				}
				assert.Equal(t, strconv.Itoa(len(left)), m[1])
				rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
				require.NoError(t, err)
				require.Equal(t, "h", rows[0][0])
				for _, row := range rows[1:] {
					h, err := strconv.Atoi(row[0])
					require.NoError(t, err)
					hs = append(hs, h)
				}
			default:
				lines := strings.Split(strings.TrimSpace(stdout), "\n")
				last := lines[len(lines)-1]
				m := regexp.MustCompile(`^partial curve, stopped by SIGINT: (\d+) of 128 thresholds left \(h = [0-9, ]+(, … \(\d+ more\))?\)$`).FindStringSubmatch(last)
				require.NotNil(t, m, "last line: %q", last)
				n, err := strconv.Atoi(m[1])
				require.NoError(t, err)
				points := regexp.MustCompile(`(?m)^(\d+) points,`).FindStringSubmatch(stdout)
				require.NotNil(t, points, stdout)
				settled, err := strconv.Atoi(points[1])
				require.NoError(t, err)
				assert.Equal(t, 128, n+settled)
				assert.NotZero(t, settled)
				assert.NotZero(t, n)
				left = make([]int, n)
			}
			if c.format != "table" {
				require.NotEmpty(t, hs)
				var want []int
				for h := 1; h <= 128; h++ {
					if !slices.Contains(hs, h) {
						want = append(want, h)
					}
				}
				assert.Equal(t, want, left, "the orders without a point")
			}
			svg, err := os.ReadFile(plot)
			require.NoError(t, err, "the plot of the settled points is drawn")
			assert.Contains(t, string(svg), fmt.Sprintf("trade-off curve (partial: %d of 128 thresholds left)", len(left)))
		})
	}
}

// A stopped value curve says which reachable utility values it left:
// values of the utility, none of them a point's threshold, in increasing
// order, some but not all of them. It leaves out the utility-safe
// staircase on its own steps (safe_steps).
func TestValueCurveStoppedBySignal(t *testing.T) {
	bin := buildCLI(t)
	path, _ := randomProblem(t, 128)
	stdout, stderr, code := stopMidCurve(t, bin, syscall.SIGINT, "curve", path, "--objective", "worst-case-value", "--workers", "1", "--json")
	require.Equal(t, exitStopped, code, "stderr: %s", stderr)
	var out struct {
		Complete bool      `json:"complete"`
		Left     []float64 `json:"thresholds_left"`
		Points   []struct {
			Threshold float64 `json:"threshold"`
		} `json:"points"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out), stdout)
	assert.False(t, out.Complete)
	assert.NotContains(t, stdout, "safe_steps", "a stopped curve writes what it settled at once")
	var file struct {
		Utility mech.Utility `json:"utility"`
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &file))
	reachable := file.Utility.ReachableValues()
	require.NotEmpty(t, out.Left)
	assert.Less(t, len(out.Left), len(reachable))
	assert.True(t, slices.IsSorted(out.Left))
	for _, v := range out.Left {
		assert.True(t, slices.Contains(reachable, v), "%v is no reachable value", v)
	}
	for _, p := range out.Points {
		assert.False(t, slices.Contains(out.Left, p.Threshold), "threshold %v has a point", p.Threshold)
	}
}

// A stopped expected-utility curve lists every measure of --measure, each
// with the budgets it did not reach in epsilons_left (the points come in
// the order of the budgets, so these are the last ones), says "complete":
// false, and draws the points it has under a title saying how many budgets
// are left. The LIP points of a 60-letter random problem take the
// pure-Go simplex far longer than the test: the signal comes before the
// curve ends.
func TestExpectedCurveStoppedBySignal(t *testing.T) {
	bin := buildCLI(t)
	path, _ := randomProblem(t, 60)
	plot := filepath.Join(t.TempDir(), "eu.svg")
	stdout, stderr, code := stopMidCurve(t, bin, syscall.SIGTERM, "curve", path, "--objective", "expected-utility",
		"--measure", "pml,lip", "--from", "0", "--to", "2", "--steps", "30", "--solver", "revised", "--json", "--plot", plot)
	require.Equal(t, exitStopped, code, "stderr: %s", stderr)
	require.Contains(t, stderr, "stopped by SIGTERM")
	var out struct {
		Complete *bool `json:"complete"`
		Curves   []struct {
			Measure string `json:"measure"`
			Points  []struct {
				Epsilon float64 `json:"epsilon"`
			} `json:"points"`
			Left []float64 `json:"epsilons_left"`
		} `json:"curves"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out), stdout)
	require.NotNil(t, out.Complete)
	assert.False(t, *out.Complete)
	require.Len(t, out.Curves, 2)
	eps := make([]float64, 30)
	for k := range eps {
		eps[k] = 2 * float64(k) / 29
	}
	left := 0
	for k, c := range out.Curves {
		assert.Equal(t, []string{"pml", "lip"}[k], c.Measure)
		n := len(c.Points)
		for i, p := range c.Points {
			assert.InDelta(t, eps[i], p.Epsilon, 1e-15)
		}
		require.Len(t, c.Left, 30-n, c.Measure)
		for i, v := range c.Left {
			assert.InDelta(t, eps[n+i], v, 1e-15)
		}
		left += len(c.Left)
	}
	assert.NotZero(t, left)
	assert.Less(t, left, 60)
	svg, err := os.ReadFile(plot)
	require.NoError(t, err, "the plot of the points is drawn")
	assert.Contains(t, string(svg), fmt.Sprintf("trade-off curve (partial: %d of 60 budgets left)", left))
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
// has started and blocks in its read or open; the message says what the
// command was waiting to read.
func TestReadStoppedBySignal(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, c := range []struct {
		args []string
		why  string // what the stop message says was being waited for
	}{
		{[]string{"solve", "-"}, "standard input was still being read"},
		{[]string{"solve", fifo}, fifo + " was still being read"},
		{[]string{"sample", td + "eye-colour.json", "--input", fifo, "--column", "c"}, fifo + " was still being read"},
		{[]string{"sample", td + "eye-colour.json", "--input", "-", "--column", "c"}, "standard input was still being read"},
	} {
		args := c.args
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
		assert.Contains(t, stderr.String(), c.why, "%v", args)
		assert.NotContains(t, stderr.String(), "context canceled", "%v", args)
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

// A curve that ran to its end says so: "complete": true with no threshold
// or budget left, and no partial line in the CSV or under the table.
func TestCompleteCurveSaysSo(t *testing.T) {
	for _, obj := range []string{"worst-case-order", "worst-case-value"} {
		out := runJSON(t, "curve", td+"counting-query.yaml", "--objective", obj, "--json")
		assert.Equal(t, true, out["complete"], obj)
		assert.Equal(t, []any{}, out["thresholds_left"], obj)
		assert.NotEmpty(t, out["points"], obj)
	}
	out := runJSON(t, "curve", td+"counting-query.yaml", "--objective", "expected-utility", "--measure", "pml,lip", "--epsilons", "0.5,1", "--json")
	assert.Equal(t, true, out["complete"])
	curves := out["curves"].([]any)
	require.Len(t, curves, 2)
	for _, c := range curves {
		assert.Equal(t, []any{}, c.(map[string]any)["epsilons_left"])
		assert.Len(t, c.(map[string]any)["points"], 2)
	}
	for _, args := range [][]string{
		{"curve", td + "counting-query.yaml", "--csv"},
		{"curve", td + "counting-query.yaml"},
		{"curve", td + "counting-query.yaml", "--objective", "expected-utility", "--csv"},
	} {
		stdout, stderr, code := cli(t, args...)
		require.Equal(t, 0, code, stderr)
		assert.NotContains(t, stdout, "partial", "%v", args)
		assert.NotContains(t, stdout, "#", "%v", args)
	}
}

// A read that a signal cut short names what it waited for: standard input,
// a FIFO or device that had no writer, or a regular file still loading.
func TestWaitedForNamesTheSource(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	file := filepath.Join(dir, "big.yaml")
	require.NoError(t, os.WriteFile(file, []byte("prior: [1]\n"), 0o644))
	fifo := filepath.Join(dir, "in.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for path, want := range map[string]string{
		"-":  "standard input was still being read",
		file: file + " was still being loaded",
		fifo: fifo + " was still being read (a FIFO or device with no writer?)",
	} {
		assert.EqualError(t, waitedFor(ctx, path, ctx.Err()), want, path)
	}
	other := errors.New("other")
	assert.Equal(t, other, waitedFor(ctx, file, other))
	assert.NoError(t, waitedFor(context.Background(), file, nil))
}
