package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const previous = "previous content\n"

// outputCase is one output path pmlopt is asked to write.
type outputCase struct {
	name   string
	target func(t *testing.T, dir string) string // prepares the path to give
	code   int
	msg    string // the one line on stderr, %s standing for the path
	kept   string // a file that must still hold the previous content, "" for none
}

func outputCases() []outputCase {
	prev := func(t *testing.T, path string) {
		require.NoError(t, os.WriteFile(path, []byte(previous), 0o644))
	}
	return []outputCase{
		{name: "directory", target: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "d.svg")
			require.NoError(t, os.Mkdir(p, 0o755))
			return p
		}, code: exitUsage, msg: "%s: is a directory"},
		{name: "missing directory", target: func(t *testing.T, dir string) string {
			return filepath.Join(dir, "no", "out.svg")
		}, code: exitUsage, msg: "%s: directory " + "%d" + " does not exist"},
		{name: "full device", target: func(t *testing.T, dir string) string {
			if _, err := os.Stat("/dev/full"); err != nil {
				t.Skip("no /dev/full")
			}
			return "/dev/full"
		}, code: exitError, msg: "%s: write: no space left on device"},
		{name: "symlink to a full device", target: func(t *testing.T, dir string) string {
			if _, err := os.Stat("/dev/full"); err != nil {
				t.Skip("no /dev/full")
			}
			p := filepath.Join(dir, "full.svg")
			require.NoError(t, os.Symlink("/dev/full", p))
			return p
		}, code: exitError, msg: "%s: write: no space left on device"},
		{name: "read-only directory", target: func(t *testing.T, dir string) string {
			if os.Geteuid() == 0 {
				t.Skip("root writes into a read-only directory")
			}
			ro := filepath.Join(dir, "ro")
			require.NoError(t, os.Mkdir(ro, 0o755))
			p := filepath.Join(ro, "out.svg")
			prev(t, p)
			require.NoError(t, os.Chmod(ro, 0o555))
			t.Cleanup(func() { os.Chmod(ro, 0o755) })
			return p
		}, code: exitUsage, msg: "%s: directory %d is not writable: permission denied", kept: "out"},
	}
}

// expand fills the message's %s with path and %d with its directory.
func expand(msg, path string) string {
	return strings.ReplaceAll(strings.ReplaceAll(msg, "%s", path), "%d", filepath.Dir(path))
}

// TestOutputPathsFailCleanly gives curve --plot and export --mps paths that
// can not be written: each is refused with one line naming the path the
// user gave, the exit status says why, and the file there is not clobbered.
func TestOutputPathsFailCleanly(t *testing.T) {
	for _, tc := range outputCases() {
		for _, cmd := range outputCommands(t) {
			t.Run(cmd[0]+"/"+tc.name, func(t *testing.T) {
				path := tc.target(t, t.TempDir())
				if cmd[0] == "curve" && filepath.Ext(path) != ".svg" {
					t.Skip("--plot takes its format from the extension")
				}
				stdout, stderr, code := cli(t, append(cmd, path)...)
				assert.Equal(t, tc.code, code, stderr)
				line := strings.SplitN(stderr, "\n", 2)[0]
				assert.True(t, strings.HasSuffix(line, expand(tc.msg, path)), "stderr: %s", stderr)
				assert.NotContains(t, stderr, ".tmp")
				if cmd[0] == "curve" && tc.code == exitError {
					// The work is done and on stdout; only the plot failed.
					assert.Contains(t, stdout, "7 points")
				}
				if tc.kept != "" {
					b, err := os.ReadFile(path)
					require.NoError(t, err)
					assert.Equal(t, previous, string(b))
				}
				if strings.HasPrefix(path, "/dev/") {
					fi, err := os.Stat(path)
					require.NoError(t, err)
					assert.NotZero(t, fi.Mode()&fs.ModeCharDevice, "%s is still a device", path)
				}
			})
		}
	}
}

// outputCommands are the commands that write a file, each with the flag
// that names it last: --plot, --mps and the --out of solve, safe and
// sample.
func outputCommands(t *testing.T) [][]string {
	return [][]string{
		{"curve", td + "counting-query.yaml", "--quiet", "--plot"},
		{"export", td + "expected-utility.yaml", "--mps"},
		{"solve", td + "counting-query.yaml", "--out"},
		{"safe", td + "counting-query.yaml", "--h", "3", "--out"},
		{"sample", mechFile(t), "--input", td + "records.csv", "--column", "count", "--out"},
	}
}

// TestOutputThroughSymlinkAndDevNull writes a plot and an MPS file through a
// symbolic link (the link stays, the file it names is replaced) and to
// /dev/null (which stays a device).
func TestOutputThroughSymlinkAndDevNull(t *testing.T) {
	for _, cmd := range outputCommands(t) {
		dir := t.TempDir()
		real := filepath.Join(dir, "real.svg")
		require.NoError(t, os.WriteFile(real, []byte(previous), 0o600))
		link := filepath.Join(dir, "link.svg")
		require.NoError(t, os.Symlink("real.svg", link))
		_, stderr, code := cli(t, append(cmd, link)...)
		require.Equal(t, 0, code, stderr)
		fi, err := os.Lstat(link)
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&fs.ModeSymlink, "the link is kept")
		b, err := os.ReadFile(real)
		require.NoError(t, err)
		assert.Greater(t, len(b), 200, "%v", cmd)
		st, err := os.Stat(real)
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o600), st.Mode().Perm(), "a replaced file keeps its mode")
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Len(t, entries, 2, "no temporary file is left")

		if cmd[0] != "curve" {
			_, stderr, code = cli(t, append(cmd, os.DevNull)...)
			require.Equal(t, 0, code, stderr)
			fi, err = os.Stat(os.DevNull)
			require.NoError(t, err)
			assert.NotZero(t, fi.Mode()&fs.ModeCharDevice)
		}
	}
}

// TestOutputFileSizeLimit runs pmlopt in a shell whose file size limit
// (ulimit -f, in 512-byte blocks) is smaller than the output: the write
// fails as on a full disk, the previous file is intact, and no temporary
// file is left.
func TestOutputFileSizeLimit(t *testing.T) {
	bin := buildCLI(t)
	abs, err := filepath.Abs(td)
	require.NoError(t, err)
	// sample's CSV is larger than the limit.
	csvPath := filepath.Join(t.TempDir(), "records.csv")
	rows := "record,count\n" + strings.Repeat("r,3\n", 400)
	require.NoError(t, os.WriteFile(csvPath, []byte(rows), 0o644))
	for _, cmd := range []string{
		"curve " + abs + "/counting-query.yaml --quiet --plot out.svg",
		"export " + abs + "/expected-utility.yaml --mps out.svg",
		"solve " + abs + "/counting-query.yaml --out out.svg",
		"safe " + abs + "/counting-query.yaml --h 3 --out out.svg",
		"sample " + mechFile(t) + " --input " + csvPath + " --column count --out out.svg",
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.svg")
		require.NoError(t, os.WriteFile(path, []byte(previous), 0o644))
		c := exec.Command("sh", "-c", "ulimit -f 1 && exec "+bin+" "+cmd)
		c.Dir = dir
		var stderr strings.Builder
		c.Stderr = &stderr
		err := c.Run()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "stderr: %s", stderr.String())
		assert.Equal(t, exitError, ee.ExitCode())
		assert.Contains(t, stderr.String(), "out.svg: write: file too large")
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, previous, string(b))
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Len(t, entries, 1)
	}
}

// TestOutputOverInputIsRefused gives every command that writes a file an
// output path that is one of its inputs: the same path, a symbolic link
// to it, or a hard link under a picture's extension. Each is refused
// before any work with exit status 2 and one line naming the flag and the
// path, and every file in the directory is left as it was.
func TestOutputOverInputIsRefused(t *testing.T) {
	type tc struct {
		name string
		args func(dir string) []string // the command line, run in dir's files
		flag string                    // the flag as the message names it
		out  string                    // the output path's name in dir
	}
	cases := []tc{
		{"export same path", func(d string) []string { return []string{"export", d + "/d.yaml", "--mps", d + "/d.yaml"} }, "--mps", "d.yaml"},
		{"export through a symlink", func(d string) []string { return []string{"export", d + "/d.yaml", "--mps", d + "/link.yaml"} }, "--mps", "link.yaml"},
		{"solve", func(d string) []string { return []string{"solve", d + "/d.yaml", "--out", d + "/d.yaml"} }, "--out", "d.yaml"},
		{"safe", func(d string) []string { return []string{"safe", d + "/d.yaml", "--h", "3", "--out", d + "/link.yaml"} }, "--out", "link.yaml"},
		{"sample over its CSV", func(d string) []string {
			return []string{"sample", d + "/m.yaml", "--input", d + "/c.csv", "--column", "count", "--seed", "1", "--out", d + "/c.csv"}
		}, "--out", "c.csv"},
		{"sample over its problem file", func(d string) []string {
			return []string{"sample", d + "/m.yaml", "--input", d + "/c.csv", "--column", "count", "--seed", "1", "--out", d + "/m.yaml"}
		}, "--out", "m.yaml"},
		{"curve", func(d string) []string { return []string{"curve", d + "/d.yaml", "--plot", d + "/hard.svg"} }, "--plot", "hard.svg"},
		{"plot", func(d string) []string { return []string{"plot", d + "/d.yaml", "--heatmap", d + "/hard.svg"} }, "--heatmap", "hard.svg"},
		{"compare", func(d string) []string {
			return []string{"compare", d + "/m.yaml", d + "/d.yaml", "--plot", d + "/hard.svg"}
		}, "--plot", "hard.svg"},
		{"merge", func(d string) []string {
			return []string{"merge", d + "/d.yaml", d + "/c.csv", "--plot", d + "/hard.svg"}
		}, "--plot", "hard.svg"},
		{"new -o", func(d string) []string {
			return []string{"new", "--prior-from", d + "/c.csv", "--column", "count", "--utility", "abs", "-o", d + "/c.csv"}
		}, "-o", "c.csv"},
		{"new --out", func(d string) []string {
			return []string{"new", "--prior-from", d + "/c.csv", "--column", "count", "--utility", "abs", "--out", d + "/c.csv"}
		}, "--out", "c.csv"},
	}
	problemFile, err := os.ReadFile(td + "counting-query.yaml")
	require.NoError(t, err)
	mechanismFile, err := os.ReadFile(mechFile(t))
	require.NoError(t, err)
	csvFile := []byte("record,count\nr,3\ns,5\n")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			want := map[string][]byte{"d.yaml": problemFile, "m.yaml": mechanismFile, "c.csv": csvFile}
			for name, b := range want {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
			}
			require.NoError(t, os.Symlink("d.yaml", filepath.Join(dir, "link.yaml")))
			require.NoError(t, os.Link(filepath.Join(dir, "d.yaml"), filepath.Join(dir, "hard.svg")))
			want["link.yaml"], want["hard.svg"] = problemFile, problemFile

			stdout, stderr, code := cli(t, c.args(dir)...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Empty(t, stdout)
			line := strings.SplitN(stderr, "\n", 2)[0]
			out := filepath.Join(dir, c.out)
			assert.True(t, strings.HasPrefix(line, "pmlopt "+c.args(dir)[0]+": "+c.flag+" "+out+": is an input of this command"), "stderr: %s", stderr)
			got := map[string][]byte{}
			for _, name := range names(t, dir) {
				b, err := os.ReadFile(filepath.Join(dir, name))
				require.NoError(t, err)
				got[name] = b
			}
			assert.Equal(t, want, got)
		})
	}
}

// solve's --out and --mechanism-out naming one file is a wrong command
// line, refused before the work: the second write would replace the first
// answer. Nothing is written.
func TestSolveOutputsNotOneFile(t *testing.T) {
	for _, name := range []string{"same.csv", "same.npy"} {
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		stdout, stderr, code := cli(t, "solve", td+"example1.yaml", "--out", path, "--mechanism-out", filepath.Join(dir, ".", name))
		assert.Equal(t, exitUsage, code, stderr)
		assert.Empty(t, stdout)
		assert.True(t, strings.HasPrefix(stderr, "pmlopt solve: --mechanism-out "+filepath.Join(dir, ".", name)+": is the file --out writes"), stderr)
		assert.Empty(t, names(t, dir))
	}
}
