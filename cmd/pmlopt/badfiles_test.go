package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
			{"plot", f, "--heatmap", filepath.Join(t.TempDir(), "map.svg")}, {"compare", f},
			{"baseline", f, "--mechanism", "exponential"},
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

// refused checks a refusal: the exit status, nothing on stdout, and one
// line on stderr (two for a wrong command line, the second pointing at
// --help) that holds want.
func refused(t *testing.T, what string, code, wantCode int, stdout, stderr, want string) {
	t.Helper()
	assert.Equal(t, wantCode, code, "%s: %s", what, stderr)
	assert.Empty(t, stdout, what)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if wantCode == exitUsage {
		require.Len(t, lines, 2, "%s: %s", what, stderr)
		assert.Contains(t, lines[1], "--help", what)
	} else {
		require.Len(t, lines, 1, "%s: %s", what, stderr)
	}
	assert.Contains(t, lines[0], want, what)
	assert.NotContains(t, stderr, "panic", what)
}

// TestPlotLabelsThatReadAsNaN: an output labelled "NaN,1" or "1,Inf" is no
// point of the grid, and plot --input must not index a cell by it: the map
// asks for --grid W; two labels at one point are refused, and
// labels spread on a diagonal too wide for one picture ask for --grid.
func TestPlotLabelsThatReadAsNaN(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, outputs []string) string {
		t.Helper()
		m := len(outputs)
		var rows []string
		for i := 0; i < 2; i++ {
			row := make([]string, m)
			for j := range row {
				row[j] = fmt.Sprintf(`"1/%d"`, m)
			}
			rows = append(rows, "["+strings.Join(row, ", ")+"]")
		}
		q := make([]string, m)
		for j, o := range outputs {
			q[j] = strconv.Quote(o)
		}
		path := filepath.Join(dir, name)
		doc := "inputs: [\"a\", \"b\"]\noutputs: [" + strings.Join(q, ", ") + "]\nprior: [0.5, 0.5]\nmechanism: [" + strings.Join(rows, ", ") + "]\n"
		require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
		return path
	}
	out := filepath.Join(dir, "map.svg")
	for _, c := range []struct {
		name    string
		outputs []string
		code    int
		want    string
	}{
		{"nan.yaml", []string{"NaN,1", "1,1", "2,1"}, exitUsage, `output 0 is labelled "NaN,1", not "x,y": give --grid W`},
		{"inf.yaml", []string{"0,0", "1,Inf", "2,1"}, exitUsage, `output 1 is labelled "1,Inf", not "x,y": give --grid W`},
		{"nan-colon.yaml", []string{"0:0", "nan:2"}, exitUsage, `output 1 is labelled "nan:2", not "x,y"`},
		{"same.yaml", []string{"1,1", "1.0, 1", "2,1"}, exitError, `outputs 0 and 1, labelled "1,1" and "1.0, 1", are the same point (1, 1): give --grid W`},
	} {
		f := write(c.name, c.outputs)
		stdout, stderr, code := cli(t, "plot", f, "--heatmap", out, "--input", "a")
		refused(t, c.name, code, c.code, stdout, stderr, c.want)
		_, err := os.Stat(out)
		assert.True(t, os.IsNotExist(err), "%s: nothing written", c.name)
		// As text, with --grid, the labels draw.
		_, stderr, code = cli(t, "plot", f, "--heatmap", out, "--input", "a", "--grid", "2")
		assert.Equal(t, 0, code, "%s: %s", c.name, stderr)
		require.NoError(t, os.Remove(out))
	}
	diag := make([]string, maxGridSide+1)
	for j := range diag {
		diag[j] = fmt.Sprintf("%d,%d", j, j)
	}
	f := write("diagonal.yaml", diag)
	stdout, stderr, code := cli(t, "plot", f, "--heatmap", out, "--input", "a")
	refused(t, "diagonal", code, exitError, stdout, stderr, "the outputs' labels span 4097 columns and 4097 rows, more than 4096 a side: give --grid W")
	stdout, stderr, code = cli(t, "plot", f, "--heatmap", out, "--input", "a", "--grid", "1")
	refused(t, "diagonal, --grid 1", code, exitUsage, stdout, stderr, "--grid 1 puts the 4097 outputs on 1 columns and 4097 rows, more than 4096 a side")
}

// TestStdinForEveryCommand: compare, plot and baseline read "-" as every
// command does, within --max-bytes, and "-" is read once.
func TestStdinForEveryCommand(t *testing.T) {
	eye, err := os.ReadFile(td + "eye-colour.json")
	require.NoError(t, err)
	cq, err := os.ReadFile(td + "counting-query.yaml")
	require.NoError(t, err)
	dir := t.TempDir()
	for _, c := range []struct {
		stdin []byte
		args  []string
	}{
		{eye, []string{"compare", "--json"}},
		{cq, []string{"compare", "--baseline", "randomized-response", "--json"}},
		{cq, []string{"baseline", "--mechanism", "exponential", "--json"}},
		{eye, []string{"plot", "--heatmap", filepath.Join(dir, "p.svg"), "--json"}},
	} {
		file := td + "eye-colour.json"
		if bytes.Equal(c.stdin, cq) {
			file = td + "counting-query.yaml"
		}
		want, stderr, code := cli(t, append([]string{c.args[0], file}, c.args[1:]...)...)
		require.Equal(t, 0, code, "%v: %s", c.args, stderr)
		got, stderr, code := cliIn(t, string(c.stdin), append([]string{c.args[0], "-"}, c.args[1:]...)...)
		require.Equal(t, 0, code, "%v -: %s", c.args, stderr)
		var a, b any
		require.NoError(t, json.Unmarshal([]byte(want), &a))
		require.NoError(t, json.Unmarshal([]byte(got), &b))
		if c.args[0] == "compare" {
			// The column's name: the file's name, or the problem's from stdin.
			for _, v := range []any{a, b} {
				for _, m := range v.(map[string]any)["mechanisms"].([]any) {
					delete(m.(map[string]any), "name")
				}
			}
		}
		assert.Equal(t, a, b, "%v: the same from the file and from stdin", c.args)

		stdout, stderr, code := cliIn(t, string(c.stdin), append([]string{c.args[0], "-", "--max-bytes", "100"}, c.args[1:]...)...)
		refused(t, c.args[0]+" --max-bytes", code, exitError, stdout, stderr, "pmlopt "+c.args[0]+": standard input: file too large: more than 100 bytes (--max-bytes)")
	}
	stdout, stderr, code := cliIn(t, string(eye), "compare", "-", "-")
	refused(t, "compare - -", code, exitUsage, stdout, stderr, "standard input (-) can be read once, given 2 times")
	stdout, stderr, code = cliIn(t, string(eye), "compare", "-", "--max-bytes", "0")
	refused(t, "--max-bytes 0", code, exitUsage, stdout, stderr, "--max-bytes must be positive")
}

// TestMissingKeyNamesTheFile: a command that needs a key the file lacks
// says which file, as every other message about a file does.
func TestMissingKeyNamesTheFile(t *testing.T) {
	cq := td + "counting-query.yaml"
	data, err := os.ReadFile(cq)
	require.NoError(t, err)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"audit", cq}, "pmlopt audit: " + cq + ": mechanism: is missing; this command needs a mechanism"},
		{[]string{"sample", cq, "--input", td + "records.csv", "--column", "count"}, "pmlopt sample: " + cq + ": mechanism: is missing; this command needs a mechanism"},
		{[]string{"audit", "-"}, "pmlopt audit: standard input: mechanism: is missing; this command needs a mechanism"},
		{[]string{"safe", td + "eye-colour.json", "--h", "1"}, "pmlopt safe: " + td + "eye-colour.json: order: is missing"},
		{[]string{"solve", td + "eye-colour.json"}, "pmlopt solve: " + td + "eye-colour.json: "},
	} {
		stdout, stderr, code := cliIn(t, string(data), c.args...)
		refused(t, strings.Join(c.args, " "), code, exitError, stdout, stderr, c.want)
		assert.NotContains(t, stderr, td+"eye-colour.json: "+td, "the path once")
	}
}

// TestPlotFlagNames: plot's messages name --heatmap, its flag, not --plot.
func TestPlotFlagNames(t *testing.T) {
	stdout, stderr, code := cli(t, "plot", td+"eye-colour.json", "--heatmap", filepath.Join(t.TempDir(), "map.txt"))
	refused(t, "plot --heatmap map.txt", code, exitUsage, stdout, stderr, `--heatmap: "`)
	assert.NotContains(t, stderr, "--plot")
	stdout, stderr, code = cli(t, "plot", td+"eye-colour.json")
	refused(t, "plot without --heatmap", code, exitUsage, stdout, stderr, "--heatmap: give the output file")
}

// TestPriorFromCSV: new --prior-from reads past a UTF-8 byte order mark,
// refuses a column named twice (as sample does), and names --smoothing
// when counts plus smoothing leave the float64 range or give masses below
// the smallest normal number.
func TestPriorFromCSV(t *testing.T) {
	dir := t.TempDir()
	csvFile := func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		return path
	}
	plain := csvFile("plain.csv", "x,y\n1,a\n2,b\n2,c\n")
	bom := csvFile("bom.csv", "\ufeffx,y\n1,a\n2,b\n2,c\n")
	args := []string{"--column", "x", "--utility", "abs", "--epsilon", "1", "--objective", "worst-case-value", "--json"}
	want, stderr, code := cli(t, append([]string{"new", "--prior-from", plain}, args...)...)
	require.Equal(t, 0, code, stderr)
	got, stderr, code := cli(t, append([]string{"new", "--prior-from", bom}, args...)...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, want, got)
	assert.Contains(t, got, `"prior": [0.3333333333333333, 0.6666666666666666]`)
	got, stderr, code = cliIn(t, "\ufeffx,y\n1,a\n2,b\n2,c\n", append([]string{"new", "--prior-from", "-"}, args...)...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, want, got)

	// A missing answer is no letter: an empty or blank cell is refused
	// with its line, and nothing is written.
	holes := csvFile("holes.csv", "x,y\n1,a\n ,b\n2,c\n")
	out := filepath.Join(dir, "holes.yaml")
	stdout, stderr, code := cli(t, "new", "--prior-from", holes, "--column", "x", "--utility", "abs", "--epsilon", "1", "-o", out)
	refused(t, "an empty cell", code, exitError, stdout, stderr, holes+`: column "x", line 3: empty value (drop the record or give it a value)`)
	assert.NoFileExists(t, out)

	// In a file of one column a blank line is such a missing answer
	// (encoding/csv would skip it), and in one of several a record with no
	// values: refused with its line, counted after a quoted field that
	// spans two lines. A quoted line break and blank lines at the end are
	// no record.
	for _, c := range []struct{ name, text, want string }{
		{"blank1.csv", "x\n1\n\n2\n", "line 3: empty line, a record with no value (drop the line, or give the record its value)"},
		{"blank2.csv", "x,y\n1,\"a\r\nb\"\r\n2,c\r\n\r\n2,d\r\n", "line 5: empty line, a record with no value (drop the line, or give the record its value)"},
	} {
		path := csvFile(c.name, c.text)
		stdout, stderr, code := cli(t, "new", "--prior-from", path, "--column", "x", "--utility", "abs", "--epsilon", "1", "-o", out)
		refused(t, c.name, code, exitError, stdout, stderr, path+": "+c.want)
		assert.NoFileExists(t, out)
	}
	tail := csvFile("tail.csv", "x,y\n1,\"a\nb\"\n2,c\n2,d\n\n\n")
	got, stderr, code = cli(t, append([]string{"new", "--prior-from", tail}, args...)...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, want, got)

	dup := csvFile("dup.csv", "x,x\n1,3\n2,4\n")
	stdout, stderr, code = cli(t, append([]string{"new", "--prior-from", dup}, args...)...)
	refused(t, "two columns x", code, exitError, stdout, stderr, dup+`: column "x" appears twice in the header (columns 1 and 2)`)

	stdout, stderr, code = cli(t, append([]string{"new", "--prior-from", plain, "--smoothing", "1e308"}, args...)...)
	refused(t, "--smoothing 1e308", code, exitUsage, stdout, stderr, "--smoothing 1e+308: the counts plus the smoothing sum beyond the float64 range; give a smaller smoothing")
	stdout, stderr, code = cli(t, append([]string{"new", "--prior-from", plain, "--labels", "1,2,3", "--smoothing", "1e-320"}, args...)...)
	refused(t, "--smoothing 1e-320", code, exitUsage, stdout, stderr, `--smoothing 1e-320: value "3" gets the mass`)
}

// TestCurveStepsBounded: --steps and --epsilons give at most
// maxCurveBudgets budgets, refused before anything is allocated for them.
func TestCurveStepsBounded(t *testing.T) {
	f := td + "expected-utility.yaml"
	stdout, stderr, code := cli(t, "curve", f, "--objective", "expected-utility", "--steps", "100000000")
	refused(t, "--steps 1e8", code, exitUsage, stdout, stderr, "--steps must be between 1 and 4096, got 100000000")
	stdout, stderr, code = cli(t, "curve", f, "--objective", "expected-utility", "--steps", "0")
	refused(t, "--steps 0", code, exitUsage, stdout, stderr, "--steps must be between 1 and 4096, got 0")
	stdout, stderr, code = cli(t, "curve", f, "--objective", "expected-utility", "--epsilons", strings.Repeat("1,", 4096)+"1")
	refused(t, "--epsilons ×4097", code, exitUsage, stdout, stderr, "--epsilons gives 4097 budgets, more than 4096")
}
