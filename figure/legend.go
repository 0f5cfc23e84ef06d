package figure

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// drawnLine is one run of a series as drawn: its points in the plot's
// coordinates, joined straight or as a staircase, with or without marks.
type drawnLine struct {
	xy    plotter.XYs
	step  bool
	marks bool
}

// legendBeside moves p's legend out of the plotting area, to the right of
// area, and returns what is left of area for the plot. A legend wider than
// half of area stays inside the plot instead of squeezing it away. The
// legend is given slack times its width more room to its right (see
// textSlack).
func legendBeside(p *plot.Plot, area draw.Canvas, slack float64) draw.Canvas {
	leg := p.Legend
	lw := leg.Rectangle(area).Size().X * vg.Length(1+slack)
	if !(lw > 0 && lw < area.Size().X/2) {
		return area
	}
	p.Legend = plot.NewLegend()
	gap := vg.Points(6)
	legArea := draw.Crop(area, area.Size().X-lw, 0, 0, -vg.Points(24))
	leg.Top, leg.Left = true, true
	leg.Draw(legArea)
	return draw.Crop(area, 0, -(lw + gap), 0, 0)
}

// legendInset is the room between the legend and the axes; legendClear
// the room between the legend and the nearest line or mark (half a line,
// a mark's radius, and a little air).
var (
	legendInset = vg.Points(4)
	legendClear = vg.Points(4)
)

// legendCorners are the corners tried for a legend inside the plot, in
// order: (top, left).
var legendCorners = [][2]bool{{true, true}, {true, false}, {false, false}, {false, true}}

// insideLegend is where a legend inside the plot goes: the canvas it is
// drawn in, its corner and the rectangle it covers.
type insideLegend struct {
	canvas    draw.Canvas
	top, left bool
	rect      vg.Rectangle
}

// legendCorner finds the first corner of the plotting area of p, drawn in
// area, where p's legend covers none of lines; ok is false when every
// corner is taken. The legend's text may take slack times its width more
// on its inner side (see textSlack).
func legendCorner(p *plot.Plot, area draw.Canvas, lines []drawnLine, slack float64) (insideLegend, bool) {
	dataC := p.DataCanvas(area)
	trX, trY := p.Transforms(&dataC)
	var pieces [][2]vg.Point
	for _, l := range lines {
		pts := make([]vg.Point, len(l.xy))
		for k, xy := range l.xy {
			pts[k] = vg.Point{X: trX(xy.X), Y: trY(xy.Y)}
		}
		for k := range pts {
			if k == 0 || l.marks {
				pieces = append(pieces, [2]vg.Point{pts[k], pts[k]})
			}
			if k == 0 {
				continue
			}
			a, b := pts[k-1], pts[k]
			if l.step { // y held until the next x, then a vertical jump
				corner := vg.Point{X: b.X, Y: a.Y}
				pieces = append(pieces, [2]vg.Point{a, corner}, [2]vg.Point{corner, b})
			} else {
				pieces = append(pieces, [2]vg.Point{a, b})
			}
		}
	}
	lc := draw.Crop(dataC, legendInset, -legendInset, legendInset, -legendInset)
	size := p.Legend.Rectangle(lc).Size()
	size.X *= vg.Length(1 + slack)
	for _, c := range legendCorners {
		in := insideLegend{canvas: lc, top: c[0], left: c[1]}
		r := &in.rect
		if in.left {
			r.Min.X, r.Max.X = lc.Min.X, lc.Min.X+size.X
		} else {
			r.Min.X, r.Max.X = lc.Max.X-size.X, lc.Max.X
		}
		if in.top {
			r.Min.Y, r.Max.Y = lc.Max.Y-size.Y, lc.Max.Y
		} else {
			r.Min.Y, r.Max.Y = lc.Min.Y, lc.Min.Y+size.Y
		}
		grown := vg.Rectangle{Min: vg.Point{X: r.Min.X - legendClear, Y: r.Min.Y - legendClear},
			Max: vg.Point{X: r.Max.X + legendClear, Y: r.Max.Y + legendClear}}
		free := true
		for _, pc := range pieces {
			if segmentMeetsRect(pc[0], pc[1], grown) {
				free = false
				break
			}
		}
		if free {
			return in, true
		}
	}
	return insideLegend{}, false
}

// legendInside takes p's legend out of p and, when a corner of the
// plotting area is free of lines, returns the function that draws it there
// on a white ground, to be called after p is drawn (so that the grid does
// not cross it). It returns nil, leaving p as it was, when every corner
// holds data.
func legendInside(p *plot.Plot, area draw.Canvas, lines []drawnLine, slack float64) func() {
	if p.Legend.Rectangle(area).Size().X == 0 {
		return nil // no entries
	}
	in, ok := legendCorner(p, area, lines, slack)
	if !ok {
		return nil
	}
	leg := p.Legend
	p.Legend = plot.NewLegend()
	leg.Top, leg.Left = in.top, in.left
	return func() {
		r := in.rect
		m := legendClear / 2
		in.canvas.FillPolygon(color.White, []vg.Point{
			{X: r.Min.X - m, Y: r.Min.Y - m}, {X: r.Max.X + m, Y: r.Min.Y - m},
			{X: r.Max.X + m, Y: r.Max.Y + m}, {X: r.Min.X - m, Y: r.Max.Y + m}})
		leg.Draw(in.canvas)
	}
}

// segmentMeetsRect reports whether the segment from a to b has a point in
// r (Liang–Barsky clipping of the segment to the rectangle).
func segmentMeetsRect(a, b vg.Point, r vg.Rectangle) bool {
	t0, t1 := 0.0, 1.0
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	clip := func(p, q float64) bool {
		switch {
		case p == 0:
			return q >= 0
		case p < 0:
			if t := q / p; t > t0 {
				t0 = t
			}
		default:
			if t := q / p; t < t1 {
				t1 = t
			}
		}
		return t0 <= t1
	}
	return clip(-dx, float64(a.X-r.Min.X)) && clip(dx, float64(r.Max.X-a.X)) &&
		clip(-dy, float64(a.Y-r.Min.Y)) && clip(dy, float64(r.Max.Y-a.Y))
}
