package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// TestNewGridWritesRule: new --grid writes the utility as a rule, a file
// of a few hundred bytes for 100×100 cells, which loads as the grid.
func TestNewGridWritesRule(t *testing.T) {
	out, stderr, code := cli(t, "new", "--grid", "100x100", "--utility", "euclid", "--epsilon", "1", "--objective", "expected-utility")
	require.Equal(t, 0, code, stderr)
	assert.Less(t, len(out), 1024, out)
	p, err := problem.Parse([]byte(out), problem.YAML)
	require.NoError(t, err)
	require.NotNil(t, p.Rule)
	assert.Equal(t, mech.Grid{Width: 100, Height: 100, Cell: 1}, *p.Rule.Inputs.Grid)
	assert.Equal(t, 10000, p.N())
	assert.Nil(t, p.Utility)
	assert.Equal(t, "99,99", p.Inputs[9999])

	// --dense writes the matrix, the one instance.Grid gives.
	out, stderr, code = cli(t, "new", "--grid", "3x2", "--utility", "euclid", "--epsilon", "1", "--dense")
	require.Equal(t, 0, code, stderr)
	p, err = problem.Parse([]byte(out), problem.YAML)
	require.NoError(t, err)
	want, err := instance.Grid(3, 2)
	require.NoError(t, err)
	assert.Nil(t, p.Rule)
	assert.Equal(t, want, p.Utility)
}

// writeGridPair writes the rule file of a w×h Euclidean grid, by new, and
// the equivalent dense file built from instance.Grid, and returns both.
func writeGridPair(t *testing.T, w, h int, objective string) (rule, dense string) {
	dir := t.TempDir()
	rule, dense = filepath.Join(dir, "rule.yaml"), filepath.Join(dir, "dense.yaml")
	_, stderr, code := cli(t, "new", "--grid", fmt.Sprintf("%dx%d", w, h), "--utility", "euclid", "--epsilon", "1", "--objective", objective, "-o", rule)
	require.Equal(t, 0, code, stderr)
	u, err := instance.Grid(w, h)
	require.NoError(t, err)
	labels := instance.GridLabels(w, h)
	p := &problem.Problem{Inputs: labels, Outputs: labels, Prior: mech.Uniform(w * h), Utility: u,
		Privacy: &mech.Budget{Measure: mech.PML, Epsilon: 1}, Objective: problem.Objective(objective)}
	data, err := problem.Marshal(p, problem.YAML)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dense, data, 0o644))
	return rule, dense
}

// TestRuleFileSolvesAsDense: a rule file and the equivalent dense file give
// the same output in solve and curve, and the same audit of the optimum.
func TestRuleFileSolvesAsDense(t *testing.T) {
	for _, obj := range []string{"expected-utility", "worst-case-value"} {
		rule, dense := writeGridPair(t, 6, 5, obj)
		for _, c := range [][]string{{"solve", "--json"}, {"curve", "--json"}} {
			a, stderr, code := cli(t, append(c, rule)...)
			require.Equal(t, 0, code, stderr)
			b, stderr, code := cli(t, append(c, dense)...)
			require.Equal(t, 0, code, stderr)
			require.Equal(t, strings.ReplaceAll(b, dense, rule), a, "%s %v", obj, c)
		}
		// The optimum written with the rule audits as the dense one.
		dir := t.TempDir()
		ro, do := filepath.Join(dir, "r.yaml"), filepath.Join(dir, "d.yaml")
		_, stderr, code := cli(t, "solve", rule, "--out", ro)
		require.Equal(t, 0, code, stderr)
		_, stderr, code = cli(t, "solve", dense, "--out", do)
		require.Equal(t, 0, code, stderr)
		data, err := os.ReadFile(ro)
		require.NoError(t, err)
		assert.Contains(t, string(data), "utility_rule:")
		a, stderr, code := cli(t, "audit", ro)
		require.Equal(t, 0, code, stderr)
		b, stderr, code := cli(t, "audit", do)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, b, a)
		assert.Contains(t, a, "expected utility")
	}
}

// TestRuleRefusedBeforeWork: a rule whose dense utility does not fit says
// so with the size needed, in one line, exit 1; a malformed rule names its
// field.
func TestRuleRefusedBeforeWork(t *testing.T) {
	dir := t.TempDir()
	write := func(name, doc string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
		return path
	}
	big := write("big.yaml", "prior: uniform\nutility_rule: {metric: euclidean, grid: {width: 700, height: 700}}\nprivacy: {measure: pml, epsilon: 1}\n")
	for _, c := range []string{"solve", "curve", "safe"} {
		out, stderr, code := cli(t, c, big)
		assert.Equal(t, 1, code, c)
		assert.Empty(t, out)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
		assert.Contains(t, stderr, "big.yaml: utility_rule: its dense 490000×490000 utility, order and mechanism need 5.2 TiB, beyond", c)
	}
	// The expected utility reads the rule a column at a time; its dense
	// mechanism, beyond the memory available, is refused all the same.
	out, stderr, code := cli(t, "solve", big, "--objective", "expected-utility")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	assert.Contains(t, stderr, "big.yaml: utility_rule: its dense 490000×490000 mechanism and a cleaned copy need 3.5 TiB, beyond the memory available")
	for _, c := range []struct{ doc, want string }{
		{"prior: uniform\nutility_rule: {metric: euclidean, grid: {width: 0, height: 3}}\n", "bad.yaml: utility_rule.grid.width: is 0; want a positive integer"},
		{"prior: uniform\nutility_rule: {metric: euclidean, grid: {width: -2, height: 3}}\n", "bad.yaml: utility_rule.grid.width: is -2; want a positive integer"},
		{"prior: uniform\nutility_rule: {metric: euclidean}\npoints: [[0, 0], [.nan, 1]]\n", "bad.yaml: points row 2, column 1: is NaN"},
		{"prior: uniform\nutility_rule: {metric: geodesic, grid: {width: 2, height: 3}}\n", "bad.yaml: utility_rule.metric: \"geodesic\" is not one of euclidean, manhattan, chebyshev, haversine"},
		{"prior: uniform\ninputs: [a, b, c]\nutility_rule: {metric: euclidean, grid: {width: 2, height: 2}}\n", "bad.yaml: inputs: has 3 labels, but the utility_rule has 4 inputs"},
		{"prior: uniform\ninputs: [\"0,0\", \"1,0\", \"1,1\", \"0,1\"]\nutility_rule: {metric: euclidean, grid: {width: 2, height: 2}}\n", "bad.yaml: inputs entry 3: \"1,1\" does not name cell 3 of the grid, \"0,1\""},
	} {
		path := write("bad.yaml", c.doc+"privacy: {measure: pml, epsilon: 1}\n")
		for _, cmd := range []string{"solve", "audit"} {
			_, stderr, code := cli(t, cmd, path)
			assert.Equal(t, 1, code, c.doc)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
			assert.Contains(t, stderr, c.want)
		}
	}
}

// TestNewGridPriorFromPoints: --x and --y bin points into cells; the prior
// is the cell counts plus the smoothing, counted here independently.
func TestNewGridPriorFromPoints(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "points.csv")
	// Points at (0.5 + 2.5·a) and (−1 + 1.7·b) for the origin −1,−2 and
	// cells of side 3 on a 4×3 grid: cell (⌊(x+1)/3⌋, ⌊(y+2)/3⌋).
	var b strings.Builder
	b.WriteString("id,lon,lat\n")
	want := make([]float64, 12)
	n := 0
	for a := 0; a < 5; a++ {
		for c := 0; c < 5; c++ {
			x, y := 0.5+2.5*float64(a), -1+1.7*float64(c)
			cx, cy := int(math.Floor((x+1)/3)), int(math.Floor((y+2)/3))
			if cx >= 4 || cy >= 3 {
				continue
			}
			fmt.Fprintf(&b, "%d,%v,%v\n", n, x, y)
			want[cy*4+cx]++
			n++
		}
	}
	require.NoError(t, os.WriteFile(csvPath, []byte(b.String()), 0o644))
	out, stderr, code := cli(t, "new", "--grid", "4x3", "--cell", "3", "--origin", "-1,-2", "--utility", "euclid",
		"--prior-from", csvPath, "--x", "lon", "--y", "lat", "--smoothing", "0.5", "--epsilon", "1")
	require.Equal(t, 0, code, stderr)
	p, err := problem.Parse([]byte(out), problem.YAML)
	require.NoError(t, err)
	total := float64(n) + 0.5*12
	for k, c := range want {
		assert.InDelta(t, (c+0.5)/total, p.Prior[k], 1e-15, "cell %s", p.Inputs[k])
	}
	assert.Equal(t, 3.0, p.Rule.Inputs.Grid.Cell)

	// A point outside the grid is refused naming its line, or left out
	// with --drop-outside and counted on stderr.
	outside := filepath.Join(dir, "outside.csv")
	require.NoError(t, os.WriteFile(outside, []byte("x,y\n0,0\n1,1\n7,0\n"), 0o644))
	_, stderr, code = cli(t, "new", "--grid", "2x2", "--utility", "euclid", "--prior-from", outside, "--x", "x", "--y", "y")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "outside.csv: line 4: the point (7, 0) lies outside the 2×2 grid")
	out, stderr, code = cli(t, "new", "--grid", "2x2", "--utility", "euclid", "--prior-from", outside, "--x", "x", "--y", "y", "--drop-outside", "--smoothing", "1", "--epsilon", "1")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "1 of 3 points")
	p, err = problem.Parse([]byte(out), problem.YAML)
	require.NoError(t, err)
	assert.Equal(t, mech.Prior{2.0 / 6, 1.0 / 6, 1.0 / 6, 2.0 / 6}, p.Prior)

	nan := filepath.Join(dir, "nan.csv")
	require.NoError(t, os.WriteFile(nan, []byte("x,y\n0,0\n1,NaN\n"), 0o644))
	_, stderr, code = cli(t, "new", "--grid", "2x2", "--utility", "euclid", "--prior-from", nan, "--x", "x", "--y", "y")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "nan.csv: line 3, column \"y\": \"NaN\" is not a finite number")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"new", "--letters", "3", "--utility", "abs", "--dense"}, "--dense is for --grid"},
		{[]string{"new", "--grid", "2x2", "--utility", "euclid", "--cell", "0"}, "--cell must be a positive finite size"},
		{[]string{"new", "--grid", "2x2", "--utility", "euclid", "--cell", "-1"}, "--cell must be a positive finite size"},
		{[]string{"new", "--grid", "2x2", "--utility", "euclid", "--prior-from", nan, "--x", "x"}, "--x and --y go together"},
		{[]string{"new", "--grid", "2x2", "--utility", "euclid", "--x", "x", "--y", "y"}, "--x and --y are columns of --prior-from"},
		{[]string{"new", "--grid", "2x2", "--utility", "euclid", "--prior-from", nan, "--x", "x", "--y", "y", "--column", "x"}, "not both"},
		{[]string{"new", "--grid", "2x2", "--utility", "euclid", "--prior-from", nan, "--x", "x", "--y", "y", "--origin", "1"}, "--origin wants X,Y"},
		{[]string{"new", "--grid", "2x2", "--utility", "euclid", "--origin", "1,1"}, "--origin is for --x and --y"},
		{[]string{"new", "--grid", "0x2", "--utility", "euclid"}, "--grid wants WxH with positive integers"},
		{[]string{"new", "--grid", "100x100", "--utility", "euclid", "--dense"}, "--grid 100x100 has 10000 cells: at most 4096"},
		{[]string{"new", "--grid", "4611686018427387904x4", "--utility", "euclid"}, "--grid 4611686018427387904x4 has 18446744073709551616 cells: at most 4194304"},
	} {
		_, stderr, code := cli(t, c.args...)
		assert.Equal(t, exitUsage, code, c.args)
		assert.Contains(t, strings.SplitN(stderr, "\n", 2)[0], c.want, c.args)
	}
}

// TestSolveOutWritesSparse: solve --out writes the optimum of a 10×10 grid,
// which uses few outputs a row, as mechanism_sparse; it reads back as the
// mechanism --json prints, and audit reads it.
func TestSolveOutWritesSparse(t *testing.T) {
	rule, _ := writeGridPair(t, 10, 10, "expected-utility")
	out := filepath.Join(t.TempDir(), "solved.yaml")
	v := runJSON(t, "solve", rule, "--json", "--out", out)
	want := toMechanism(t, v["mechanism"])
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(data), "\nmechanism_sparse:\n")
	assert.NotContains(t, string(data), "\nmechanism:\n")
	p, err := problem.Load(out)
	require.NoError(t, err)
	assert.Equal(t, want, p.Mechanism)
	a, stderr, code := cli(t, "audit", out, "--json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, a, "pml")
}

// TestRuleFileSampleAndPlot: sample and plot read a solved rule file as
// the equivalent dense one, without building its utility; plot, which
// solves a file without a mechanism, refuses a rule beyond memory first.
func TestRuleFileSampleAndPlot(t *testing.T) {
	rule, dense := writeGridPair(t, 6, 5, "expected-utility")
	dir := t.TempDir()
	ro, do := filepath.Join(dir, "r.yaml"), filepath.Join(dir, "d.yaml")
	for _, f := range [][2]string{{rule, ro}, {dense, do}} {
		_, stderr, code := cli(t, "solve", f[0], "--out", f[1])
		require.Equal(t, 0, code, stderr)
	}
	csvPath := filepath.Join(dir, "visits.csv")
	require.NoError(t, os.WriteFile(csvPath, []byte("id,cell\n1,\"0,0\"\n2,\"3,4\"\n3,\"5,2\"\n4,\"0,0\"\n5,\"2,3\"\n"), 0o644))
	a, stderr, code := cli(t, "sample", ro, "--input", csvPath, "--column", "cell", "--seed", "7")
	require.Equal(t, 0, code, stderr)
	b, stderr, code := cli(t, "sample", do, "--input", csvPath, "--column", "cell", "--seed", "7")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, b, a)
	assert.Equal(t, 6, strings.Count(a, "\n"))

	ra, da := filepath.Join(dir, "r.svg"), filepath.Join(dir, "d.svg")
	_, stderr, code = cli(t, "plot", "--heatmap", ra, ro, "--input", "1,2")
	require.Equal(t, 0, code, stderr)
	_, stderr, code = cli(t, "plot", "--heatmap", da, do, "--input", "1,2")
	require.Equal(t, 0, code, stderr)
	x, err := os.ReadFile(ra)
	require.NoError(t, err)
	y, err := os.ReadFile(da)
	require.NoError(t, err)
	assert.Equal(t, string(y), string(x))

	big := filepath.Join(dir, "big.yaml")
	require.NoError(t, os.WriteFile(big, []byte("prior: uniform\nutility_rule: {metric: euclidean, grid: {width: 700, height: 700}}\nprivacy: {measure: pml, epsilon: 1}\n"), 0o644))
	_, stderr, code = cli(t, "plot", "--heatmap", filepath.Join(dir, "big.svg"), big)
	assert.Equal(t, 1, code)
	// The optimum by the active set reads the rule a column at a time:
	// what would not fit is its dense mechanism (and a cleaned copy).
	assert.Contains(t, stderr, "utility_rule: its dense 490000×490000 mechanism and a cleaned copy need 3.5 TiB")
	_, err = os.Stat(filepath.Join(dir, "big.svg"))
	assert.True(t, os.IsNotExist(err))
}

// TestMaxMemory: --max-memory bounds the dense utility of a rule, in every
// command that loads a file, before any work; a size that is not one is a
// wrong command line.
func TestMaxMemory(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "g.yaml")
	_, stderr, code := cli(t, "new", "--grid", "100x100", "--utility", "euclid", "--epsilon", "1", "--objective", "expected-utility", "-o", g)
	require.Equal(t, 0, code, stderr)
	// 24 bytes for each of the 10⁸ entries of the utility, its order and a
	// mechanism, for every solve but one by the rule (a backend named,
	// --exact or a floor ask for the matrices).
	for _, args := range [][]string{
		{"solve", g, "--max-memory", "2GiB", "--solver", "revised"},
		{"solve", g, "--max-memory", "2GiB", "--min-order", "2"},
		{"curve", g, "--max-memory", "1.4GiB"},
		{"safe", g, "--max-memory", "1500MB"},
	} {
		out, stderr, code := cli(t, args...)
		assert.Equal(t, 1, code, args)
		assert.Empty(t, out)
		assert.Regexp(t, `^pmlopt \w+: .*g\.yaml: utility_rule: its dense 10000×10000 utility, order and mechanism need 2\.2 GiB, beyond the memory limit \((1\.[04]|2\.0) GiB\); `, stderr, args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	}
	// The expected utility by the active set reads the rule a column at a
	// time: it needs the dense mechanism and a cleaned copy, 16 bytes an
	// entry, and is refused below that, before any work, in one line.
	// plot's optimum is solved the same way.
	for _, args := range [][]string{
		{"solve", g, "--max-memory", "1GiB"},
		{"plot", "--heatmap", filepath.Join(dir, "g.svg"), g, "--max-memory", "1G"},
	} {
		out, stderr, code := cli(t, args...)
		assert.Equal(t, 1, code, args)
		assert.Empty(t, out)
		assert.Regexp(t, `^pmlopt \w+: .*g\.yaml: utility_rule: its dense 10000×10000 mechanism and a cleaned copy need 1\.5 GiB, beyond the memory limit \(1\.0 GiB\); `, stderr, args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	}
	_, err := os.Stat(filepath.Join(dir, "g.svg"))
	assert.True(t, os.IsNotExist(err))
	small := filepath.Join(dir, "small.yaml")
	_, stderr, code = cli(t, "new", "--grid", "3x2", "--utility", "euclid", "--epsilon", "1", "--objective", "expected-utility", "-o", small)
	require.Equal(t, 0, code, stderr)
	// 6·6·24 = 864 bytes.
	_, stderr, code = cli(t, "solve", small, "--max-memory", "864")
	assert.Equal(t, 0, code, stderr)
	_, stderr, code = cli(t, "solve", small, "--max-memory", "863")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "need 864.0 B, beyond the memory limit (863.0 B)")
	for _, bad := range []string{"0", "-1", "abc", "12XB", "NaN", "0.5", "1e30"} {
		_, stderr, code := cli(t, "solve", small, "--max-memory", bad)
		assert.Equal(t, exitUsage, code, bad)
		assert.Contains(t, stderr, "--max-memory: \""+bad+"\" is not a size", bad)
	}
}
