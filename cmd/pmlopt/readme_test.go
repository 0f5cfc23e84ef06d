package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README and every command's --help show commands and what they print.
// These tests run them as written, so that neither can drift from the
// program: a "$ " line in a README code block is a command, and the lines
// after it, up to the next "$ " line or the end of the block, are its whole
// output, with "..." standing for lines left out (a line of its own: any
// number of lines; inside a line: any text). A command succeeds and its
// stdout is compared; a command whose shown output is an error ("pmlopt
// CMD: ...") must fail with exit status 1, and its stderr is compared. A
// "pmlopt ..." line of a ```sh block shows no output; it must succeed.

// example is one documented command and the output shown for it.
type example struct {
	where string // README line, or the command's --help
	cmd   string
	want  []string
	// anyOutput: the example shows no output (a ```sh line, a --help
	// example), so that only success is checked.
	anyOutput bool
}

// readmeExamples returns the "$ " commands of the code blocks of text,
// numbered by README line from first (the line of text[0]).
func readmeExamples(text string, first int) []example {
	return docExamples("README.md", text, first)
}

// docExamples returns the "$ " commands of the code blocks of text, the
// document file from its line first on.
func docExamples(file, text string, first int) []example {
	var out []example
	var cur *example
	inBlock, sh := false, false
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	for k, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			flush()
			inBlock, sh = !inBlock, line == "```sh"
		case !inBlock:
		case sh && strings.HasPrefix(line, "pmlopt "):
			cmd, _, _ := strings.Cut(line, " #")
			out = append(out, example{where: fmt.Sprintf("%s:%d", file, first+k), cmd: strings.TrimSpace(cmd), anyOutput: true})
		case strings.HasPrefix(line, "$ "):
			flush()
			cur = &example{where: fmt.Sprintf("%s:%d", file, first+k), cmd: strings.TrimPrefix(line, "$ ")}
		case cur != nil:
			cur.want = append(cur.want, line)
		}
	}
	return out
}

// readme returns README.md and the start of its section titled title ("" for
// the whole file).
func readme(t *testing.T, title string) (string, int) {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	text := string(data)
	if title == "" {
		return text, 1
	}
	start := strings.Index(text, "## "+title)
	require.GreaterOrEqual(t, start, 0, title)
	section := text[start:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	return section, 1 + strings.Count(text[:start], "\n")
}

// TestReadmeWalkThrough runs the README's "Your first problem" as written,
// in a fresh directory holding only testdata/survey.csv and
// testdata/checkins.csv, and checks that the privatized check-ins are the
// centres of the Paris grid's cells.
func TestReadmeWalkThrough(t *testing.T) {
	section, first := readme(t, "Your first problem")
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "testdata"), 0o755))
	for _, name := range []string{"survey.csv", "checkins.csv"} {
		csvData, err := os.ReadFile(td + name)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "testdata", name), csvData, 0o644))
	}
	t.Chdir(dir)
	exs := readmeExamples(section, first)
	for _, ex := range exs {
		runExample(t, ex)
	}
	assert.GreaterOrEqual(t, len(exs), 10, "the walk-through's commands")
	ran := false
	for _, ex := range exs {
		ran = ran || strings.HasPrefix(ex.cmd, "pmlopt sample paris-solved.yaml --input testdata/checkins.csv --x lon --y lat")
	}
	require.True(t, ran, "the walk-through privatizes the check-ins")
	data, err := os.ReadFile("private-points.csv")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.Len(t, lines, 241)
	for _, line := range lines[1:] {
		f := strings.Split(line, ",")
		require.Len(t, f, 3, line)
		lat, err1 := strconv.ParseFloat(f[1], 64)
		lon, err2 := strconv.ParseFloat(f[2], 64)
		require.NoError(t, err1, line)
		require.NoError(t, err2, line)
		// A centre of the 8×5 grid of 0.02 at 2.25,48.81 is an odd
		// multiple of 0.01 from the origin.
		for _, c := range []struct{ v, origin float64 }{{lon, 2.25}, {lat, 48.81}} {
			k := (c.v - c.origin) / 0.01
			assert.InDelta(t, math.Round(k), k, 1e-6, line)
			assert.Equal(t, 1.0, math.Mod(math.Round(k), 2), line)
		}
		assert.True(t, lon > 2.25 && lon < 2.25+8*0.02 && lat > 48.81 && lat < 48.81+5*0.02, line)
	}
}

// guideExamples returns the README's examples in reading order, with those
// of docs/cli.md where the README's command table points to it: after the
// walk-through, whose files (children-solved.yaml) the reference's examples
// read.
func guideExamples(t *testing.T) []example {
	t.Helper()
	text, first := readme(t, "")
	ref, err := os.ReadFile("../../docs/cli.md")
	require.NoError(t, err)
	lines := strings.Split(text, "\n")
	at := slices.Index(lines, "## Commands")
	require.GreaterOrEqual(t, at, 0, "README's section Commands")
	require.Greater(t, at, slices.Index(lines, "## Your first problem"), "README's Commands after the walk-through")
	exs := readmeExamples(strings.Join(lines[:at], "\n"), first)
	exs = append(exs, docExamples("docs/cli.md", string(ref), 1)...)
	return append(exs, readmeExamples(strings.Join(lines[at:], "\n"), first+at)...)
}

// TestDocumentedExamples runs every "$ " command of the README and of
// docs/cli.md in reading order, then every command's --help example,
// in a directory that sees the repository's testdata.
func TestDocumentedExamples(t *testing.T) {
	exs := guideExamples(t)
	testdata, err := filepath.Abs(td)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.Symlink(testdata, filepath.Join(dir, "testdata")))
	t.Chdir(dir)
	ran := 0
	for _, ex := range exs {
		if ex.anyOutput && !inputsExist(ex.cmd) {
			t.Logf("%s: %s: illustrates files that are not there", ex.where, ex.cmd)
			continue
		}
		runExample(t, ex)
		ran++
	}
	assert.GreaterOrEqual(t, ran, 20, "the README's commands")
	// The help examples come after the README's, whose files they may read
	// (sample's reads the walk-through's children-solved.yaml).
	helps := helpExamples(t)
	for _, ex := range helps {
		runExample(t, ex)
	}
	assert.GreaterOrEqual(t, len(helps), len(commands), "every command's help has an example")
}

// helpExamples returns the example commands of every command's --help: the
// tab-indented lines starting "pmlopt ", with "\" continuations joined.
func helpExamples(t *testing.T) []example {
	t.Helper()
	names := make([]string, 0, len(commands))
	for _, c := range commands {
		names = append(names, c.name)
	}
	sort.Strings(names)
	var out []example
	for _, name := range names {
		help, stderr, code := cli(t, name, "--help")
		require.Equal(t, 0, code, "%s --help: %s", name, stderr)
		lines := strings.Split(help, "\n")
		for k := 0; k < len(lines); k++ {
			l := strings.TrimPrefix(lines[k], "\t")
			if l == lines[k] || !strings.HasPrefix(l, "pmlopt ") {
				continue
			}
			for strings.HasSuffix(l, "\\") && k+1 < len(lines) {
				k++
				l = strings.TrimSuffix(l, "\\") + " " + strings.TrimSpace(lines[k])
			}
			out = append(out, example{where: name + " --help", cmd: l, anyOutput: true})
		}
	}
	return out
}

// runExample runs one documented command and compares what it printed with
// the lines shown.
func runExample(t *testing.T, ex example) {
	t.Helper()
	want := ex.want
	for len(want) > 0 && strings.TrimSpace(want[len(want)-1]) == "" {
		want = want[:len(want)-1]
	}
	fails := len(want) > 0 && strings.HasPrefix(want[0], "pmlopt ") && strings.Contains(want[0], ": ")
	stdout, stderr, code := shell(t, ex, want)
	got := stdout
	if fails {
		if !assert.Equal(t, exitError, code, "%s: %s: shown as failing", ex.where, ex.cmd) {
			return
		}
		got = stderr
	} else if !assert.Equal(t, 0, code, "%s: %s: %s", ex.where, ex.cmd, stderr) {
		return
	}
	if !ex.anyOutput {
		assert.True(t, matchShown(want, got), "%s: %s\nshown:\n%s\nprinted:\n%s", ex.where, ex.cmd, strings.Join(want, "\n"), got)
	}
}

// inputsExist reports whether the problem files a command line names
// (arguments ending .yaml or .json, not after -o or --out) exist.
func inputsExist(cmd string) bool {
	args := strings.Fields(cmd)
	for k, a := range args {
		if k > 0 && (args[k-1] == "-o" || args[k-1] == "--out") {
			continue
		}
		if strings.HasSuffix(a, ".yaml") || strings.HasSuffix(a, ".json") {
			if _, err := os.Stat(a); err != nil {
				return false
			}
		}
	}
	return true
}

// shell runs one documented line: a pmlopt command, optionally with
// "> FILE" or after "printf '...' |", or cat FILE, or head -N FILE. cat of a
// file that does not exist writes it with the lines shown: the README shows
// a file the reader is to create that way.
func shell(t *testing.T, ex example, shown []string) (stdout, stderr string, code int) {
	t.Helper()
	line := ex.cmd
	stdin := ""
	if strings.HasPrefix(line, "printf '") {
		end := strings.Index(line, "' | ")
		require.Greater(t, end, 0, "%s: %s", ex.where, line)
		stdin = strings.ReplaceAll(line[len("printf '"):end], `\n`, "\n")
		line = line[end+len("' | "):]
	}
	args := strings.Fields(line)
	var redirect string
	if n := len(args); n > 2 && args[n-2] == ">" {
		redirect, args = args[n-1], args[:n-2]
	}
	switch args[0] {
	case "pmlopt":
		stdout, stderr, code = cliIn(t, stdin, args[1:]...)
	case "cat":
		data, err := os.ReadFile(args[1])
		if os.IsNotExist(err) {
			data = []byte(strings.Join(shown, "\n") + "\n")
			require.NoError(t, os.WriteFile(args[1], data, 0o644))
			err = nil
		}
		require.NoError(t, err, "%s: %s", ex.where, line)
		stdout = string(data)
	case "head":
		n, err := strconv.Atoi(strings.TrimPrefix(args[1], "-"))
		require.NoError(t, err, "%s: %s", ex.where, line)
		data, err := os.ReadFile(args[2])
		require.NoError(t, err, "%s: %s", ex.where, line)
		lines := strings.SplitAfter(string(data), "\n")
		stdout = strings.Join(lines[:min(n, len(lines))], "")
	default:
		t.Fatalf("%s: the documented examples run only pmlopt, printf | pmlopt, cat and head: %s", ex.where, line)
	}
	if redirect != "" {
		require.NoError(t, os.WriteFile(redirect, []byte(stdout), 0o644))
		stdout = ""
	}
	return stdout, stderr, code
}

// matchShown reports whether printed is the output shown: line by line, runs
// of spaces counting as one, "..." as a line matching any number of lines
// and inside a line any text.
func matchShown(shown []string, printed string) bool {
	got := strings.Split(strings.TrimRight(printed, "\n"), "\n")
	if strings.TrimSpace(printed) == "" {
		got = nil
	}
	var match func(s, g int) bool
	match = func(s, g int) bool {
		if s == len(shown) {
			return g == len(got)
		}
		w := squash(shown[s])
		if w == "..." {
			for k := g; k <= len(got); k++ {
				if match(s+1, k) {
					return true
				}
			}
			return false
		}
		return g < len(got) && lineMatches(w, squash(got[g])) && match(s+1, g+1)
	}
	return match(0, 0)
}

// lineMatches matches one squashed line against a shown one with "..."
// elisions.
func lineMatches(shown, got string) bool {
	parts := strings.Split(shown, "...")
	if len(parts) == 1 {
		return shown == got
	}
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	rest := got[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		k := strings.Index(rest, p)
		if k < 0 {
			return false
		}
		rest = rest[k+len(p):]
	}
	return strings.HasSuffix(rest, parts[len(parts)-1])
}

// squash collapses runs of spaces and drops trailing ones, so that a
// table's alignment does not matter.
func squash(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' }), " ")
}

// TestMatchShown: the comparison of shown and printed output.
func TestMatchShown(t *testing.T) {
	printed := "objective  worst-case-order\nprivacy    pml 1.25\n\n  x\\y  0  1\n    0  1  0\n"
	for _, c := range []struct {
		shown []string
		ok    bool
	}{
		{[]string{"objective worst-case-order", "privacy pml 1.25", "", "x\\y 0 1", "0 1 0"}, true},
		{[]string{"objective worst-case-order", "..."}, true},
		{[]string{"...", "0 1 0"}, true},
		{[]string{"objective worst-case-order", "...", "x\\y 0 1", "..."}, true},
		{[]string{"objective ...", "privacy pml ...5", "..."}, true},
		{[]string{"objective worst-case-order"}, false}, // the rest is not shown
		{[]string{"objective worst-case-order", "privacy pml 1.26", "..."}, false},
		{[]string{"objective worst-case", "..."}, false}, // a line is whole
		{[]string{"...", "privacy pml 1.2"}, false},
		{nil, false},
	} {
		assert.Equal(t, c.ok, matchShown(c.shown, printed), "%q", c.shown)
	}
	assert.True(t, matchShown(nil, ""))
}
