package figure

import (
	"fmt"
	"math"
	"strconv"
)

// MaxSide is the most rows or columns of cells a heat map draws. A larger
// matrix is drawn as the means of blocks of adjacent cells, so that the
// picture stays of a bounded size: an SVG or PDF holds a rectangle a cell,
// and a 2 000 × 2 000 matrix would be some hundred megabytes.
const MaxSide = 256

// BlockSize returns the rows and columns of the blocks of cells that a heat
// map of n rows and m columns draws as one cell: 1 and 1 up to MaxSide,
// else the least sizes that leave at most MaxSide blocks a side.
func BlockSize(n, m int) (br, bc int) {
	side := func(k int) int {
		if k <= MaxSide {
			return 1
		}
		return (k + MaxSide - 1) / MaxSide
	}
	return side(n), side(m)
}

// blocks returns h with Z replaced by the means of its blocks of
// BlockSize cells (the mean of the values that are not NaN; NaN where all
// are), the labels of each block's first row and column, the marks moved
// to their blocks and the title saying so. A Z within MaxSide, or not
// rectangular (refused by plots), is returned as it is.
func (h Heatmap) blocks() Heatmap {
	n := len(h.Z)
	if n == 0 {
		return h
	}
	m := len(h.Z[0])
	for _, row := range h.Z {
		if len(row) != m {
			return h
		}
	}
	br, bc := BlockSize(n, m)
	if br == 1 && bc == 1 {
		return h
	}
	rows, cols := (n+br-1)/br, (m+bc-1)/bc
	z := make([][]float64, rows)
	sum := make([]float64, cols)
	count := make([]int, cols)
	for r := range z {
		clear(sum)
		clear(count)
		for i := r * br; i < min(n, (r+1)*br); i++ {
			for j, v := range h.Z[i] {
				if !math.IsNaN(v) {
					sum[j/bc] += v
					count[j/bc]++
				}
			}
		}
		z[r] = make([]float64, cols)
		for c := range z[r] {
			z[r][c] = math.NaN()
			if count[c] > 0 {
				z[r][c] = sum[c] / float64(count[c])
			}
		}
	}
	first := func(labels []string, blocks, size int) []string {
		out := make([]string, blocks)
		for k := range out {
			out[k] = strconv.Itoa(k * size)
			if k*size < len(labels) && labels[k*size] != "" {
				out[k] = labels[k*size]
			}
		}
		return out
	}
	var marks [][2]int
	seen := map[[2]int]bool{}
	for _, mk := range h.Marks {
		b := [2]int{mk[0] / br, mk[1] / bc}
		if !seen[b] {
			seen[b] = true
			marks = append(marks, b)
		}
	}
	// No-break spaces around × keep each size on one line of a wrapped title.
	note := fmt.Sprintf("(%d\u00a0×\u00a0%d cells, each the mean of a block of %d\u00a0×\u00a0%d)", rows, cols, br, bc)
	if h.Title != "" {
		note = h.Title + " " + note
	}
	h.Z, h.RowLabels, h.ColLabels, h.Marks, h.Title = z, first(h.RowLabels, rows, br), first(h.ColLabels, cols, bc), marks, note
	return h
}
