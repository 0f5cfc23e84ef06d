package figure

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// cells draws a matrix as coloured unit cells centred on integer
// coordinates: row 0 at the top (y = rows−1), column 0 on the left (x = 0).
//
// Neighbouring cells of one colour are drawn as one rectangle, and every
// rectangle reaches a little into the cells drawn after it (up and to the
// right), which cover that overlap again. Anti-aliasing therefore never
// blends a cell's edge with the white page: gonum's HeatMap, which fills
// each cell exactly, leaves light seams between cells of the same dark
// colour, and writes one SVG path per cell.
type cells struct {
	z      [][]float64
	pal    []color.Color
	lo, hi float64
	nan    color.Color
}

// colour is the colour of value v: NaN gets c.nan, values outside [lo, hi]
// the colour of the nearer end.
func (c cells) colour(v float64) color.Color {
	if math.IsNaN(v) {
		return c.nan
	}
	t := (v - c.lo) / (c.hi - c.lo)
	if !(t > 0) {
		t = 0
	}
	if t > 1 {
		t = 1
	}
	return c.pal[int(math.Round(t*float64(len(c.pal)-1)))]
}

// overlap is how far a rectangle reaches into the cells drawn after it.
const overlap = vg.Length(0.75)

func (c cells) Plot(cv draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&cv)
	n := len(c.z)
	if n == 0 {
		return
	}
	m := len(c.z[0])
	// Bottom row first, so that each row covers the overlap of the row
	// below it.
	for r := n - 1; r >= 0; r-- {
		y := float64(n - 1 - r)
		y0, y1 := trY(y-0.5), trY(y+0.5)
		if r > 0 {
			y1 += overlap
		}
		for j := 0; j < m; {
			col := c.colour(c.z[r][j])
			k := j + 1
			for k < m && sameColour(c.colour(c.z[r][k]), col) {
				k++
			}
			x0, x1 := trX(float64(j)-0.5), trX(float64(k)-0.5)
			if k < m {
				x1 += overlap
			}
			cv.FillPolygon(col, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
			j = k
		}
	}
}

func (c cells) DataRange() (xmin, xmax, ymin, ymax float64) {
	if len(c.z) == 0 {
		return 0, 0, 0, 0
	}
	return -0.5, float64(len(c.z[0])) - 0.5, -0.5, float64(len(c.z)) - 0.5
}

func sameColour(a, b color.Color) bool {
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}
