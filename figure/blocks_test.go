package figure

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBlockSize(t *testing.T) {
	for _, c := range []struct{ n, m, br, bc int }{
		{1, 1, 1, 1}, {256, 256, 1, 1}, {257, 10, 2, 1}, {512, 513, 2, 3}, {2000, 2000, 8, 8}, {10, 100000, 1, 391},
	} {
		br, bc := BlockSize(c.n, c.m)
		assert.Equal(t, [2]int{c.br, c.bc}, [2]int{br, bc}, "%d × %d", c.n, c.m)
		assert.LessOrEqual(t, (c.n+br-1)/br, MaxSide)
		assert.LessOrEqual(t, (c.m+bc-1)/bc, MaxSide)
	}
}

// A heat map of more than MaxSide rows or columns is drawn as the means of
// blocks of cells: each block's value is the mean of its cells that are
// not NaN, computed here cell by cell; the labels are those of the blocks'
// first rows and columns, the marks move to their blocks, the title says
// so, and the SVG stays small.
func TestHeatmapBlocks(t *testing.T) {
	const n, m = 600, 1000
	z := make([][]float64, n)
	rowLabels := make([]string, n)
	for i := range z {
		rowLabels[i] = "r" + strings.Repeat("x", i%3)
		z[i] = make([]float64, m)
		for j := range z[i] {
			z[i][j] = float64(i*m + j)
			if (i+j)%7 == 0 {
				z[i][j] = math.NaN()
			}
		}
	}
	for j := 0; j < 4; j++ { // a block with no value
		for i := 0; i < 3; i++ {
			z[i][j] = math.NaN()
		}
	}
	h := Heatmap{Title: "t", Z: z, RowLabels: rowLabels, Marks: [][2]int{{5, 7}, {4, 6}, {599, 999}}}
	b := h.blocks()
	require.Len(t, b.Z, 200)    // blocks of 3 rows
	require.Len(t, b.Z[0], 250) // blocks of 4 columns
	assert.True(t, math.IsNaN(b.Z[0][0]))
	for _, rc := range [][2]int{{0, 1}, {17, 30}, {199, 249}, {100, 0}} {
		sum, k := 0.0, 0
		for i := rc[0] * 3; i < rc[0]*3+3; i++ {
			for j := rc[1] * 4; j < rc[1]*4+4; j++ {
				if (i+j)%7 != 0 {
					sum, k = sum+float64(i*m+j), k+1
				}
			}
		}
		assert.Equal(t, sum/float64(k), b.Z[rc[0]][rc[1]], "block %v", rc)
	}
	assert.Equal(t, rowLabels[3*17], b.RowLabels[17])
	assert.Equal(t, "996", b.ColLabels[249])
	assert.Equal(t, [][2]int{{1, 1}, {199, 249}}, b.Marks)
	assert.Equal(t, "t (200\u00a0×\u00a0250 cells, each the mean of a block of 3\u00a0×\u00a04)", b.Title)
	// Within MaxSide nothing changes.
	small := Heatmap{Z: make([][]float64, 256)}
	for i := range small.Z {
		small.Z[i] = z[i][:256:256]
	}
	assert.Equal(t, small, small.blocks())

	var buf bytes.Buffer
	require.NoError(t, h.Write(&buf, SVG))
	assert.Less(t, buf.Len(), 8<<20, "SVG bytes")
	assert.Contains(t, buf.String(), "each the mean of a block of 3\u00a0×\u00a04")
}
