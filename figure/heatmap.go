package figure

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// maxTickLabels is the most labels an axis of a heat map carries: with
// more rows or columns, every k-th is labelled.
const maxTickLabels = 24

// Heatmap draws a matrix as coloured cells: row 0 at the top, column 0 on
// the left, a colour bar on the right. The colours are viridis's, a
// perceptually uniform map from dark (Min) to light (Max); NaN cells are
// light grey.
type Heatmap struct {
	Title, XLabel, YLabel string
	// Z[r][c] is the value of row r and column c; rows have equal length.
	Z [][]float64
	// RowLabels and ColLabels label the rows and columns (nil: 0, 1, ...).
	RowLabels, ColLabels []string
	// Min and Max are the ends of the colour scale; when Max ≤ Min the
	// range of the finite values of Z is used.
	Min, Max float64
	// ValueLabel names the colour bar.
	ValueLabel string
	// Marks are cells (row, column) outlined in black.
	Marks [][2]int
	// Width and Height are in inches; zero means 7 × 6.
	Width, Height float64
}

// rowY is the y coordinate of row r: row 0 at the top.
func (h Heatmap) rowY(r int) float64 { return float64(len(h.Z) - 1 - r) }

// colourStrip draws the colours of pal from lo (bottom) to hi (top) as
// bands across x in [0, 1]. Each band reaches a point into the next, so
// that anti-aliasing leaves no light seam between them.
type colourStrip struct {
	pal    []color.Color
	lo, hi float64
}

func (s colourStrip) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	n := len(s.pal)
	x0, x1 := trX(0), trX(1)
	for k, col := range s.pal {
		y0 := trY(s.lo + (s.hi-s.lo)*float64(k)/float64(n))
		y1 := trY(s.lo + (s.hi-s.lo)*float64(k+1)/float64(n))
		if k < n-1 {
			y1 += vg.Points(1)
		}
		c.FillPolygon(col, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	}
}

func (s colourStrip) DataRange() (xmin, xmax, ymin, ymax float64) { return 0, 1, s.lo, s.hi }

// labelTicks labels positions 0..n-1 (reversed when flip) with labels,
// thinned to at most maxTickLabels.
func labelTicks(n int, labels []string, flip bool) plot.ConstantTicks {
	step := (n + maxTickLabels - 1) / maxTickLabels
	var ticks plot.ConstantTicks
	for k := 0; k < n; k++ {
		pos := float64(k)
		if flip {
			pos = float64(n - 1 - k)
		}
		t := plot.Tick{Value: pos}
		if k%step == 0 {
			t.Label = strconv.Itoa(k)
			if k < len(labels) && labels[k] != "" {
				t.Label = labels[k]
			}
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// paletteSize is the number of colours a heat map and its colour bar use.
const paletteSize = 256

// plots builds the heat map and its colour bar.
func (h Heatmap) plots() (*plot.Plot, *plot.Plot, error) {
	if len(h.Z) == 0 || len(h.Z[0]) == 0 {
		return nil, nil, errors.New("figure: an empty heat map")
	}
	for r, row := range h.Z {
		if len(row) != len(h.Z[0]) {
			return nil, nil, fmt.Errorf("figure: heat map row %d has %d columns, row 0 has %d", r, len(row), len(h.Z[0]))
		}
	}
	lo, hi := h.Min, h.Max
	if !(hi > lo) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, row := range h.Z {
			for _, v := range row {
				if !math.IsNaN(v) && !math.IsInf(v, 0) {
					lo, hi = min(lo, v), max(hi, v)
				}
			}
		}
		if math.IsInf(lo, 1) {
			lo, hi = 0, 1
		}
		if hi <= lo {
			hi = lo + 1
		}
	}
	if math.IsInf(hi-lo, 0) || math.IsNaN(hi-lo) {
		// The colour index is (v − lo)/(hi − lo) times the palette's length.
		return nil, nil, fmt.Errorf("figure: the heat map's colour scale [%g, %g] is wider than the float64 range; scale the values", lo, hi)
	}
	pal := viridisPalette(paletteSize)
	// NaN cells are light grey, apart from every colour of viridis.
	hm := cells{z: h.Z, pal: pal, lo: lo, hi: hi, nan: color.Gray{Y: 0xe0}}

	p := plot.New()
	wd := h.Width
	if !(wd > 0) || math.IsInf(wd, 0) {
		wd = 7
	}
	p.Title.Text = wrap(h.Title, titleChars(wd-1.2)) // less the colour bar
	p.X.Label.Text, p.Y.Label.Text = h.XLabel, h.YLabel
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.X.Label.TextStyle.Font.Size = vg.Points(11)
	p.Y.Label.TextStyle.Font.Size = vg.Points(11)
	p.Add(hm)
	n, m := len(h.Z), len(h.Z[0])
	p.X.Tick.Marker = labelTicks(m, h.ColLabels, false)
	p.Y.Tick.Marker = labelTicks(n, h.RowLabels, true)
	if m > 12 {
		p.X.Tick.Label.Rotation = math.Pi / 2
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Min, p.X.Max = -0.5, float64(m)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	for _, mk := range h.Marks {
		x, y := float64(mk[1]), h.rowY(mk[0])
		box := plotter.XYs{{X: x - 0.5, Y: y - 0.5}, {X: x + 0.5, Y: y - 0.5}, {X: x + 0.5, Y: y + 0.5}, {X: x - 0.5, Y: y + 0.5}, {X: x - 0.5, Y: y - 0.5}}
		// A black outline on a white one stands out on every colour of
		// the map, from its dark end to its light end.
		for _, st := range []draw.LineStyle{{Color: color.White, Width: vg.Points(4)}, {Color: color.Black, Width: vg.Points(1.6)}} {
			l, err := plotter.NewLine(box)
			if err != nil {
				return nil, nil, err
			}
			l.LineStyle = st
			p.Add(l)
		}
	}

	// The colour bar is drawn as vector bands: gonum's ColorBar is an
	// image, which its SVG output does not show in every viewer and its PDF
	// output draws upside down.
	strip := colourStrip{pal: pal, lo: lo, hi: hi}
	bar := plot.New()
	bar.HideX()
	bar.X.Padding, bar.Y.Padding = 0, 0
	bar.Y.Label.Text = h.ValueLabel
	bar.Y.Tick.Marker = niceTicks{}
	bar.Add(strip)
	bar.Y.Min, bar.Y.Max = lo, hi
	return p, bar, nil
}

// Write draws h in the given format to w.
func (h Heatmap) Write(w io.Writer, format Format) error {
	if w == nil {
		return errors.New("figure: Write needs a writer, got nil")
	}
	ft, err := ParseFormat(string(format))
	if err != nil {
		return err
	}
	p, bar, err := h.blocks().forFormat(ft).plots()
	if err != nil {
		return err
	}
	c, dc, err := newCanvas(h.Width, h.Height, 7, 6, ft)
	if err != nil {
		return err
	}
	pad := vg.Points(8)
	area := draw.Crop(dc, pad/2, -pad, pad/2, -pad/2)
	barW := vg.Points(70)
	// The colour bar spans the plotting area's height, below the title.
	top := vg.Points(28)
	if h.Title == "" {
		top = pad
	}
	bar.Draw(draw.Crop(area, area.Size().X-barW, 0, vg.Points(40), -top))
	p.Draw(draw.Crop(area, 0, -(barW + vg.Points(12)), 0, 0))
	return writeCanvas(c, w, ft)
}

// Save draws h into the file path in the format of its extension (.svg,
// .png, .pdf or .eps). Nothing is created if the figure cannot be drawn.
func (h Heatmap) Save(path string) error { return save(path, h.Write) }

// Encode draws the heat map into memory in the format of path's
// extension, for a caller that writes it later (WriteFile), or not at all
// once it is stopped.
func (h Heatmap) Encode(path string) ([]byte, error) { return encode(path, h.Write) }
