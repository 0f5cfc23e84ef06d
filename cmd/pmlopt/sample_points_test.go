package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pointsFile writes a 3×2 grid of cells 0.5 at the origin 10,20 whose
// mechanism row i is given by row(i).
func pointsFile(t *testing.T, row func(i int) []string) string {
	t.Helper()
	src := "prior: uniform\nutility_rule:\n  metric: euclidean\n  grid: {width: 3, height: 2, cell: 0.5, origin: [10, 20]}\nmechanism:\n"
	for i := range 6 {
		src += "  - [" + strings.Join(row(i), ", ") + "]\n"
	}
	path := filepath.Join(t.TempDir(), "grid.yaml")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

func oneHot(j int) []string {
	r := []string{"0", "0", "0", "0", "0", "0"}
	r[j] = "1"
	return r
}

// gridPoints writes a CSV of points spread over the 3×2 grid at 10,20
// (cells 0.5), with a quoted name field and a line ending kept as read.
func gridPoints(t *testing.T) (path string, xs, ys []float64) {
	t.Helper()
	var b strings.Builder
	b.WriteString("name,x,note,y\r\n")
	for k := range 30 {
		// Fractions of a cell away from the edges, in every cell.
		x := 10 + float64(k%3)*0.5 + 0.05 + 0.4*float64(k%7)/7
		y := 20 + float64((k/3)%2)*0.5 + 0.05 + 0.4*float64(k%5)/5
		xs, ys = append(xs, x), append(ys, y)
		fmt.Fprintf(&b, "\"p %d, here\",%s,n%d,%s\r\n", k, strconv.FormatFloat(x, 'g', -1, 64), k, strconv.FormatFloat(y, 'g', -1, 64))
	}
	path = filepath.Join(t.TempDir(), "points.csv")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path, xs, ys
}

// TestSamplePointsIdentity privatizes points through identity rows: every
// point comes back as the centre of its own cell, found here by dividing
// by the cell side, and every other field is copied byte for byte.
func TestSamplePointsIdentity(t *testing.T) {
	in, xs, ys := gridPoints(t)
	file := pointsFile(t, oneHot)
	stdout, stderr, code := cli(t, "sample", file, "--input", in, "--x", "x", "--y", "y", "--seed", "3")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "warning: with --seed 3")
	r := csv.NewReader(strings.NewReader(stdout))
	recs, err := r.ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 31)
	raw, err := os.ReadFile(in)
	require.NoError(t, err)
	inLines := strings.Split(string(raw), "\r\n")
	outLines := strings.Split(stdout, "\r\n")
	require.Equal(t, len(inLines), len(outLines), "line endings are kept")
	assert.Equal(t, inLines[0], outLines[0])
	for k := range xs {
		cx, cy := math.Floor((xs[k]-10)/0.5), math.Floor((ys[k]-20)/0.5)
		want := []string{strconv.FormatFloat(10.25+0.5*cx, 'f', -1, 64), strconv.FormatFloat(20.25+0.5*cy, 'f', -1, 64)}
		rec := recs[k+1]
		assert.Equal(t, want, []string{rec[1], rec[3]}, "point %d (%v, %v)", k, xs[k], ys[k])
		assert.True(t, strings.HasPrefix(outLines[k+1], fmt.Sprintf("\"p %d, here\",", k)), outLines[k+1])
		assert.Equal(t, fmt.Sprintf("n%d", k), rec[2])
	}
}

// TestSamplePointsOneCell privatizes through rows that all put their mass
// on cell 1,1: every point becomes its centre, 10.75,20.75; --drop and
// --out work as with --column.
func TestSamplePointsOneCell(t *testing.T) {
	in, xs, _ := gridPoints(t)
	file := pointsFile(t, func(int) []string { return oneHot(4) })
	out := filepath.Join(t.TempDir(), "private.csv")
	_, stderr, code := cli(t, "sample", file, "--input", in, "--x", "x", "--y", "y", "--drop", "note", "--out", out)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "warning")
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(got), "\r\n"), "\r\n")
	require.Len(t, lines, len(xs)+1)
	assert.Equal(t, "name,x,y", lines[0])
	for k := range xs {
		assert.Equal(t, fmt.Sprintf("\"p %d, here\",10.75,20.75", k), lines[k+1])
	}
}

// TestSamplePointsBadInput: each bad input gives one line naming what is
// wrong, its exit status, and writes nothing.
func TestSamplePointsBadInput(t *testing.T) {
	dir := t.TempDir()
	file := pointsFile(t, oneHot)
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	good := write("good.csv", "id,x,y\n1,10.1,20.1\n")
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"outside", []string{file, "--input", write("out.csv", "id,x,y\n1,10.1,20.1\n2,11.6,20.1\n"), "--x", "x", "--y", "y"}, exitError,
			`line 3, columns "x" and "y": the point (11.6, 20.1) lies outside the 3×2 grid of cells 0.5 from the origin 10,20 (its cell would be 3,0)`},
		{"below", []string{file, "--input", write("below.csv", "id,x,y\n1,10.1,19.9\n"), "--x", "x", "--y", "y"}, exitError,
			`line 2, columns "x" and "y": the point (10.1, 19.9) lies outside`},
		{"NaN", []string{file, "--input", write("nan.csv", "id,x,y\n1,10.1,20.1\n2,10.1,NaN\n"), "--x", "x", "--y", "y"}, exitError,
			`line 3, column "y": "NaN" is not a finite number`},
		{"text", []string{file, "--input", write("text.csv", "id,x,y\n1,abc,20.1\n"), "--x", "x", "--y", "y"}, exitError,
			`line 2, column "x": "abc" is not a finite number`},
		{"missing column", []string{file, "--input", good, "--x", "lon", "--y", "y"}, exitError,
			`no column "lon" in the header id,x,y`},
		{"both forms", []string{file, "--input", good, "--x", "x", "--y", "y", "--column", "id"}, exitUsage,
			"give --column (input labels) or --x and --y (points), not both"},
		{"x without y", []string{file, "--input", good, "--x", "x"}, exitUsage,
			"--x and --y go together: give both columns"},
		{"neither", []string{file, "--input", good}, exitUsage,
			"give --column NAME (input labels) or --x COL and --y COL (points)"},
		{"drop a coordinate", []string{file, "--input", good, "--x", "x", "--y", "y", "--drop", "y"}, exitUsage,
			"--drop y: that is a coordinate to privatize"},
		{"not a grid", []string{mechFile(t), "--input", good, "--x", "x", "--y", "y"}, exitError,
			"--x and --y bin points into the cells of a utility_rule.grid, and this file has none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "private.csv")
			stdout, stderr, code := cli(t, append([]string{"sample"}, append(c.args, "--out", out)...)...)
			assert.Equal(t, c.code, code, stderr)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, c.want)
			first, _, _ := strings.Cut(stderr, "\n")
			assert.Contains(t, first, c.want, "the message is its first line")
			if c.code == exitError {
				assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
			}
			_, err := os.Stat(out)
			assert.True(t, os.IsNotExist(err), "nothing written")
			entries, err := os.ReadDir(filepath.Dir(out))
			require.NoError(t, err)
			assert.Empty(t, entries, "no temporary file left")
			// On stdout too, nothing is written.
			stdout, _, code = cli(t, append([]string{"sample"}, c.args...)...)
			assert.Equal(t, c.code, code)
			assert.Empty(t, stdout)
		})
	}
}

// TestSamplePointsBinsAsNew writes a grid with new --origin from points,
// gives it identity rows, and privatizes the same points: each comes back
// as the centre of the cell new counted it in, found here independently.
// The identity breaks the file's budget of 1 nat: refused (exit status 3,
// nothing written) unless --force.
func TestSamplePointsBinsAsNew(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("id,lon,lat\n")
	var cells [][2]float64
	for a := 0; a < 5; a++ {
		for c := 0; c < 4; c++ {
			x, y := -0.9+2.3*float64(a), -1.9+2.2*float64(c)
			fmt.Fprintf(&b, "%d,%v,%v\n", a*4+c, x, y)
			cells = append(cells, [2]float64{math.Floor((x + 1) / 3), math.Floor((y + 2) / 3)})
		}
	}
	pts := filepath.Join(dir, "points.csv")
	require.NoError(t, os.WriteFile(pts, []byte(b.String()), 0o644))
	file := filepath.Join(dir, "grid.yaml")
	_, stderr, code := cli(t, "new", "--grid", "4x3", "--cell", "3", "--origin", "-1,-2", "--utility", "euclid",
		"--prior-from", pts, "--x", "lon", "--y", "lat", "--smoothing", "0.5", "--epsilon", "1", "-o", file)
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Contains(t, string(data), "origin: [-1, -2]")
	p, err := problem.Parse(data, problem.YAML)
	require.NoError(t, err)
	id := make(mech.Mechanism, 12)
	for i := range id {
		id[i] = make([]float64, 12)
		id[i][i] = 1
	}
	p.Mechanism = id
	data, err = problem.Marshal(p, problem.YAML)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, data, 0o644))

	out := filepath.Join(dir, "private.csv")
	_, stderr, code = cli(t, "sample", file, "--input", pts, "--x", "lon", "--y", "lat", "--out", out)
	assert.Equal(t, exitBudget, code, stderr)
	_, err = os.Stat(out)
	assert.True(t, os.IsNotExist(err), "nothing written over budget")

	_, stderr, code = cli(t, "sample", file, "--input", pts, "--x", "lon", "--y", "lat", "--out", out, "--force")
	require.Equal(t, 0, code, stderr)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	recs, err := csv.NewReader(strings.NewReader(string(got))).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, len(cells)+1)
	for k, c := range cells {
		want := []string{strconv.FormatFloat(-1+3*(c[0]+0.5), 'f', -1, 64), strconv.FormatFloat(-2+3*(c[1]+0.5), 'f', -1, 64)}
		assert.Equal(t, want, recs[k+1][1:], "record %d", k)
	}
}
