package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGridSpecRefused: a malformed grid or coordinate spec, on the command
// line or in a problem file, is refused in one line naming the flag or the
// key, with nothing on stdout: exit 2 for a flag, 1 for a file.
func TestGridSpecRefused(t *testing.T) {
	dir := t.TempDir()
	pts := filepath.Join(dir, "p.csv")
	require.NoError(t, os.WriteFile(pts, []byte("x,y\n0,0\n1,1\n"), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--grid", "-2x3"}, `--grid wants WxH with positive integers, such as 4x3; got "-2x3"`},
		{[]string{"--grid", "0x0"}, `--grid wants WxH with positive integers`},
		{[]string{"--grid", "4"}, `--grid wants WxH with positive integers`},
		{[]string{"--grid", "2.5x2"}, `--grid wants WxH with positive integers`},
		{[]string{"--grid", "2x2x2"}, `--grid wants WxH with positive integers`},
		{[]string{"--grid", "2x2", "--utility", "cosine"}, `--utility: unknown "cosine" (on a --grid: euclid or hamming)`},
		{[]string{"--grid", "2x2", "--utility", "square"}, `--utility square is a loss on a line; on a --grid use euclid or hamming`},
		{[]string{"--grid", "2x2", "--cell", "NaN"}, `--cell must be a number, got NaN`},
		{[]string{"--grid", "2x2", "--prior-from", pts, "--x", "x", "--y", "y", "--origin", "NaN,0"}, `--origin wants X,Y with two finite numbers`},
		{[]string{"--grid", "2x2", "--prior-from", pts, "--x", "x", "--y", "y", "--origin", "0,-Inf"}, `--origin wants X,Y with two finite numbers`},
	} {
		args := append([]string{"new"}, c.args...)
		if !strings.Contains(strings.Join(c.args, " "), "--utility") {
			args = append(args, "--utility", "euclid")
		}
		out, stderr, code := cli(t, args...)
		assert.Equal(t, exitUsage, code, args)
		assert.Empty(t, out, args)
		assert.Contains(t, strings.SplitN(stderr, "\n", 2)[0], c.want, args)
	}

	head := "privacy: {measure: pml, epsilon: 1}\nobjective: expected-utility\nprior: uniform\n"
	for _, c := range []struct{ doc, want string }{
		{"utility_rule: {metric: euclidean, grid: {width: 0, height: 2}}\n", "utility_rule.grid.width: is 0"},
		{"utility_rule: {metric: euclidean, grid: {width: 2, height: -3}}\n", "utility_rule.grid.height: is -3"},
		{"utility_rule: {metric: euclidean}\npoints: [[0, 0], [.nan, 1]]\n", "points row 2, column 1: is NaN"},
		{"utility_rule: {metric: taxicab, grid: {width: 2, height: 2}}\n", `utility_rule.metric: "taxicab" is not one of`},
		{"inputs: [\"0,0\", \"0,1\", \"1,0\", \"1,1\"]\nutility_rule: {metric: euclidean, grid: {width: 2, height: 2}}\n", `inputs entry 2: "0,1" does not name cell 2 of the grid`},
		{"inputs: [a, b, c]\nutility_rule: {metric: euclidean, grid: {width: 2, height: 2}}\n", "inputs: has 3 labels, but the utility_rule has 4 inputs"},
		{"utility_rule: {metric: euclidean, grid: {width: 2, height: 2}, output_grid: {width: 0, height: 1}}\n", "utility_rule.output_grid.width: is 0"},
	} {
		f := filepath.Join(dir, "bad.yaml")
		require.NoError(t, os.WriteFile(f, []byte(head+c.doc), 0o644))
		for _, cmd := range []string{"solve", "curve", "audit"} {
			out, stderr, code := cli(t, cmd, f)
			assert.Equal(t, exitError, code, "%s %s", cmd, c.doc)
			assert.Empty(t, out)
			assert.Contains(t, stderr, "bad.yaml: "+c.want, "%s %s", cmd, c.doc)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
		}
	}
}

// TestMaxMemorySparseMechanism: the commands that read a file's mechanism
// (audit, plot, sample, and solve and curve, which load it too) refuse a
// mechanism_sparse whose dense matrix is beyond --max-memory before they
// build it, saying the size needed, and write nothing.
func TestMaxMemorySparseMechanism(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "g.yaml")
	require.NoError(t, os.WriteFile(f, []byte("privacy: {measure: pml, epsilon: 10}\nprior: uniform\n"+
		"utility_rule: {metric: euclidean, grid: {width: 3, height: 2}}\n"+
		"mechanism_sparse: [[0, 1], [1, 1], [2, 1], [3, 1], [4, 1], [5, 1]]\n"), 0o644))
	svg := filepath.Join(dir, "g.svg")
	csvPath := filepath.Join(dir, "in.csv")
	require.NoError(t, os.WriteFile(csvPath, []byte("cell\n\"0,0\"\n"), 0o644))
	for _, args := range [][]string{
		{"audit", f},
		{"plot", f, "--heatmap", svg},
		{"sample", f, "--input", csvPath, "--column", "cell", "--seed", "1"},
		{"solve", f, "--objective", "expected-utility"},
		{"curve", f},
	} {
		// 6·6 entries of 8 bytes: 288 bytes.
		out, stderr, code := cli(t, append(args, "--max-memory", "287")...)
		assert.Equal(t, exitError, code, "%v: %s", args, stderr)
		assert.Empty(t, out, args)
		assert.Equal(t, "pmlopt "+args[0]+": "+f+": mechanism_sparse: its dense 6×6 matrix needs 288.0 B, beyond the memory limit (287.0 B)\n", stderr, args)
	}
	_, err := os.Stat(svg)
	assert.True(t, os.IsNotExist(err), "plot wrote nothing")
	out, stderr, code := cli(t, "audit", f, "--max-memory", "288")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "within budget")
}
