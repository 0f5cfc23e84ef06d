package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeWalkThrough runs the README's "Your first problem" as written,
// in a fresh directory holding only testdata/survey.csv: every "$ pmlopt"
// line must succeed, and every output line shown (except "...") must
// appear, in order, in what the command printed.
func TestReadmeWalkThrough(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	csvData, err := os.ReadFile(td + "survey.csv")
	require.NoError(t, err)
	text := string(readme)
	start := strings.Index(text, "## Your first problem")
	require.GreaterOrEqual(t, start, 0)
	section := text[start:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}

	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "testdata"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "testdata", "survey.csv"), csvData, 0o644))
	t.Chdir(dir)

	var cmd string
	var want []string
	ran := 0
	check := func() {
		if cmd == "" {
			return
		}
		got := shell(t, cmd)
		ran++
		rest := got
		for _, w := range want {
			if w == "..." {
				continue
			}
			k := strings.Index(rest, squash(w))
			if !assert.GreaterOrEqual(t, k, 0, "%s: output line %q not found in\n%s", cmd, w, got) {
				return
			}
			rest = rest[k+len(squash(w)):]
		}
	}
	inBlock := false
	for _, line := range strings.Split(section, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			if inBlock {
				check()
				cmd, want = "", nil
			}
			inBlock = !inBlock
		case !inBlock:
		case strings.HasPrefix(line, "$ "):
			check()
			cmd, want = strings.TrimPrefix(line, "$ "), nil
		default:
			want = append(want, line)
		}
	}
	assert.GreaterOrEqual(t, ran, 6, "the walk-through's commands")
}

// shell runs one walk-through line: a pmlopt command, optionally with
// "> FILE", or cat FILE, or head -N FILE. It returns the output with runs
// of spaces squashed.
func shell(t *testing.T, line string) string {
	t.Helper()
	args := strings.Fields(line)
	var redirect string
	if n := len(args); n > 2 && args[n-2] == ">" {
		redirect, args = args[n-1], args[:n-2]
	}
	var out string
	switch args[0] {
	case "pmlopt":
		stdout, stderr, code := cli(t, args[1:]...)
		require.Equal(t, 0, code, "%s: %s", line, stderr)
		out = stdout
	case "cat":
		data, err := os.ReadFile(args[1])
		require.NoError(t, err, line)
		out = string(data)
	case "head":
		n, err := strconv.Atoi(strings.TrimPrefix(args[1], "-"))
		require.NoError(t, err, line)
		data, err := os.ReadFile(args[2])
		require.NoError(t, err, line)
		lines := strings.SplitAfter(string(data), "\n")
		out = strings.Join(lines[:min(n, len(lines))], "")
	default:
		t.Fatalf("the walk-through runs only pmlopt, cat and head: %s", line)
	}
	if redirect != "" {
		require.NoError(t, os.WriteFile(redirect, []byte(out), 0o644))
	}
	return squash(out)
}

// squash collapses runs of spaces, so that a table's alignment does not
// matter.
func squash(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' }), " ")
}
