package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlotHeatmap: the heat map of a file's mechanism and of an optimum, in
// the three formats; without --heatmap the command line is wrong.
func TestPlotHeatmap(t *testing.T) {
	dir := t.TempDir()
	for ext, magic := range map[string]string{".svg": "<?xml", ".png": "\x89PNG", ".pdf": "%PDF"} {
		for _, args := range [][]string{
			{td + "eye-colour.json"},
			{td + "counting-query.yaml"},
			{td + "grid.yaml", "--input", "1,2"},
			{td + "counting-query.yaml", "--input", "3", "--grid", "4"},
		} {
			path := filepath.Join(dir, "hm"+ext)
			_, stderr, code := cli(t, append([]string{"plot", "--heatmap", path}, args...)...)
			require.Equal(t, 0, code, "%v: %s", args, stderr)
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(string(b), magic), "%v %s", args, ext)
		}
	}
	_, _, code := cli(t, "plot", td+"eye-colour.json")
	assert.Equal(t, exitUsage, code)
	_, stderr, code := cli(t, "plot", td+"counting-query.yaml", "--heatmap", filepath.Join(dir, "x.png"), "--input", "3")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "give --grid W")
	_, _, code = cli(t, "plot", td+"grid.yaml", "--heatmap", filepath.Join(dir, "x.png"), "--input", "9,9")
	assert.Equal(t, exitUsage, code)
}

// TestWhereMap: each cell of the grid map holds P(y|x) of the output whose
// label names that cell (x across, y up), and the input's own cell is
// marked; with --grid W output j sits at column j mod W, row j div W.
func TestWhereMap(t *testing.T) {
	p := loadTD(t, "grid.yaml")
	m := make([][]float64, 16)
	for i := range m {
		m[i] = make([]float64, 16)
		for j := range m[i] {
			m[i][j] = float64(100*i + j) // distinct entries locate each cell
		}
	}
	h, err := whereMap(p, m, "1,2", 0)
	require.NoError(t, err)
	require.Len(t, h.Z, 4)
	in := 2*4 + 1 // the input labelled "1,2"
	for r, row := range h.Z {
		y := 3 - r // the top row is y = 3
		for x, v := range row {
			assert.Equal(t, m[in][4*y+x], v, "cell x=%d y=%d", x, y)
		}
	}
	assert.Equal(t, [][2]int{{1, 1}}, h.Marks, "the cell (1, 2): row 1 from the top, column 1")
	assert.Equal(t, []string{"3", "2", "1", "0"}, h.RowLabels)

	h, err = whereMap(p, m, "5", 8)
	require.NoError(t, err)
	require.Len(t, h.Z, 2)
	assert.Equal(t, m[5][8+3], h.Z[0][3], "row 1 (top) column 3 is output 11")
	assert.Equal(t, [][2]int{{1, 5}}, h.Marks)
	assert.False(t, math.IsNaN(h.Z[1][7]))
}
