package figure

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pmlopt/pmlopt/internal/outfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ErrNothingToDraw is the error of a figure none of whose points is
// finite (or, on a log axis, positive).
var ErrNothingToDraw = errors.New("figure: no finite point to draw (or none positive on a log axis)")

// Format is an output format: "svg", "png", "pdf" or "eps".
type Format string

// The formats Figure.Write understands.
const (
	SVG Format = "svg"
	PNG Format = "png"
	PDF Format = "pdf"
	EPS Format = "eps"
)

// ParseFormat returns the Format named by s, ignoring case and a leading dot
// (so a file extension such as ".PNG" is accepted).
func ParseFormat(s string) (Format, error) {
	f := Format(strings.ToLower(strings.TrimPrefix(s, ".")))
	switch f {
	case SVG, PNG, PDF, EPS:
		return f, nil
	}
	return "", fmt.Errorf("figure: unknown format %q (want svg, png, pdf or eps)", s)
}

// Series is one named curve of a Figure.
type Series struct {
	// Name is the legend entry; an empty name is left out of the legend.
	Name string
	// X and Y are the points, of equal length. Points with a NaN or
	// infinite coordinate are skipped and break the line.
	X, Y []float64
	// Step draws a staircase: y_k is held from x_k to x_{k+1}, then the
	// line jumps vertically. Otherwise consecutive points are joined by
	// straight segments.
	Step bool
	// Marks draws a glyph at every finite point as well.
	Marks bool
	// Dashed draws the line dashed, to tell overlapping curves apart.
	Dashed bool
	// Color is the series' colour; nil takes the next colour of the
	// qualitative palette. Series that are steps of one quantity (a
	// confidence level, say) read best in the colours of Sequential.
	Color color.Color
}

// Figure is a plot of one or more Series.
type Figure struct {
	Title, XLabel, YLabel string
	Series                []Series
	// Width and Height are the size of the drawing in inches; zero means
	// 7 × 4.5. PNG output uses 96 dots per inch.
	Width, Height float64
	// Legend is where the legend goes: "right" (the default: outside the
	// plotting area, to its right, so it never hides a curve); "inside":
	// in the first corner of the plotting area (top left, top right,
	// bottom right, bottom left) where it covers no line and no mark, and
	// to the right when every corner holds data; or inside the plotting
	// area at "top-left", "top-right", "bottom-left" or "bottom-right",
	// whatever it covers there.
	Legend string
	// LogX and LogY put an axis on a logarithmic scale. Points with a
	// coordinate ≤ 0 on a logarithmic axis are skipped like NaN.
	LogX, LogY bool
	// IntegerX and IntegerY say that an axis counts something (thresholds
	// h, orders, letters): its ticks are at integers only, and it spans
	// whole numbers. They have no effect on a logarithmic axis.
	IntegerX, IntegerY bool
}

// palette is a colour-blind-safe qualitative palette (Okabe–Ito).
var palette = []color.Color{
	color.RGBA{R: 0x00, G: 0x72, B: 0xB2, A: 0xff}, // blue
	color.RGBA{R: 0xD5, G: 0x5E, B: 0x00, A: 0xff}, // vermillion
	color.RGBA{R: 0x00, G: 0x9E, B: 0x73, A: 0xff}, // bluish green
	color.RGBA{R: 0xCC, G: 0x79, B: 0xA7, A: 0xff}, // reddish purple
	color.RGBA{R: 0xE6, G: 0x9F, B: 0x00, A: 0xff}, // orange
	color.RGBA{R: 0x56, G: 0xB4, B: 0xE9, A: 0xff}, // sky blue
	color.RGBA{R: 0x00, G: 0x00, B: 0x00, A: 0xff}, // black
}

// glyphs are the point shapes, cycled with the colours.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
	draw.PlusGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{},
}

// segments splits the drawable points of s into runs of consecutive drawable
// points. A point is drawable when both coordinates are finite and, on a
// logarithmic axis (logX, logY), positive.
// Coordinates are multiplied by xs and ys (see axisUnit).
func (s Series) segments(logX, logY bool, xs, ys float64) ([]plotter.XYs, error) {
	if len(s.X) != len(s.Y) {
		return nil, fmt.Errorf("figure: series %q has %d x values and %d y values", s.Name, len(s.X), len(s.Y))
	}
	var segs []plotter.XYs
	var cur plotter.XYs
	for k := range s.X {
		x, y := s.X[k], s.Y[k]
		if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) || (logX && x <= 0) || (logY && y <= 0) {
			if len(cur) > 0 {
				segs = append(segs, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, plotter.XY{X: x * xs, Y: y * ys})
	}
	if len(cur) > 0 {
		segs = append(segs, cur)
	}
	return segs, nil
}

// Plot builds the gonum plot of f, for callers that want to adjust it
// further before saving it themselves. A logarithmic axis is a linear
// axis of log10 of the values, with ticks labelled by the values.
func (f Figure) Plot() (*plot.Plot, error) {
	p, _, err := f.plot()
	return p, err
}

// plot builds the gonum plot of f and returns what it draws, in the plot's
// coordinates, for the placement of the legend.
func (f Figure) plot() (*plot.Plot, []drawnLine, error) {
	if len(f.Series) == 0 {
		return nil, nil, errors.New("figure: no series to draw")
	}
	// 1. An axis whose values span more than the largest float64 (values
	// near ±1.8e308) would overflow gonum's scaling and tick search: it is
	// drawn in units of a power of ten, which its label states.
	xs, xunit := axisUnit(f.Series, func(s Series) []float64 { return s.X }, f.LogX)
	ys, yunit := axisUnit(f.Series, func(s Series) []float64 { return s.Y }, f.LogY)
	p := plot.New()
	wd := f.Width
	if !(wd > 0) || math.IsInf(wd, 0) {
		wd = 7
	}
	p.Title.Text = wrap(f.Title, titleChars(wd))
	p.X.Label.Text = f.XLabel + xunit
	p.Y.Label.Text = f.YLabel + yunit
	p.X.Tick.Marker = guardedTicks{plot.DefaultTicks{}}
	p.Y.Tick.Marker = guardedTicks{plot.DefaultTicks{}}
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.X.Label.TextStyle.Font.Size = vg.Points(11)
	p.Y.Label.TextStyle.Font.Size = vg.Points(11)
	p.Add(plotter.NewGrid())
	switch f.Legend {
	case "", "right", "top-right":
		p.Legend.Top = true
	case "top-left":
		p.Legend.Top, p.Legend.Left = true, true
	case "bottom-left":
		p.Legend.Left = true
	case "bottom-right", "inside":
	default:
		return nil, nil, fmt.Errorf("figure: unknown legend position %q", f.Legend)
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{integer: f.IntegerX && xs == 1}, niceTicks{integer: f.IntegerY && ys == 1}
	// A logarithmic axis is drawn as a linear axis of log10 of the values,
	// with ticks labelled by the values: gonum's LogScale centres an axis
	// label's room at the arithmetic middle of the range, which on a log
	// axis lies near its top, and pads the plot away from the title by
	// half the label's length.
	if f.LogX {
		p.X.Tick.Marker = logTicks{}
	}
	if f.LogY {
		p.Y.Tick.Marker = logTicks{}
	}
	p.Legend.Padding = vg.Points(3)
	p.Legend.TextStyle.Font.Size = vg.Points(10)

	drawn := 0
	var lines []drawnLine
	for k, s := range f.Series {
		segs, err := s.segments(f.LogX, f.LogY, xs, ys)
		if err != nil {
			return nil, nil, err
		}
		for _, seg := range segs {
			for k := range seg {
				if f.LogX {
					seg[k].X = math.Log10(seg[k].X)
				}
				if f.LogY {
					seg[k].Y = math.Log10(seg[k].Y)
				}
			}
		}
		col := palette[k%len(palette)]
		if s.Color != nil {
			col = s.Color
		}
		style := draw.LineStyle{Color: col, Width: vg.Points(1.6)}
		if s.Dashed {
			style.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		glyph := draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: glyphs[k%len(glyphs)]}
		var thumbs []plot.Thumbnailer
		for _, seg := range segs {
			l, err := plotter.NewLine(seg)
			if err != nil {
				return nil, nil, fmt.Errorf("figure: series %q: %w", s.Name, err)
			}
			l.LineStyle = style
			if s.Step {
				l.StepStyle = plotter.PostStep
			}
			p.Add(l)
			if len(thumbs) == 0 {
				thumbs = append(thumbs, l)
			}
			if s.Marks {
				sc, err := plotter.NewScatter(seg)
				if err != nil {
					return nil, nil, fmt.Errorf("figure: series %q: %w", s.Name, err)
				}
				sc.GlyphStyle = glyph
				p.Add(sc)
				if len(thumbs) == 1 {
					thumbs = append(thumbs, sc)
				}
			}
			drawn += len(seg)
			lines = append(lines, drawnLine{xy: seg, step: s.Step, marks: s.Marks})
		}
		if s.Name != "" && len(thumbs) > 0 {
			p.Legend.Add(s.Name, thumbs...)
		}
	}
	if drawn == 0 {
		return nil, nil, ErrNothingToDraw
	}
	if f.IntegerX && !f.LogX && xs == 1 {
		p.X.Min, p.X.Max = wholeRange(p.X.Min, p.X.Max)
	}
	if f.IntegerY && !f.LogY && ys == 1 {
		p.Y.Min, p.Y.Max = wholeRange(p.Y.Min, p.Y.Max)
	}
	return p, lines, nil
}

// wholeRange widens [lo, hi] to the nearest integers around it, and to at
// least [lo, lo+1], so that an integer axis has a labelled tick at each end.
func wholeRange(lo, hi float64) (float64, float64) {
	lo, hi = math.Floor(lo), math.Ceil(hi)
	if !(hi > lo) {
		hi = lo + 1
	}
	return lo, hi
}

// axisUnit returns the factor by which an axis's coordinates are drawn and
// the note its label gets: 1 and "" unless the finite values of the axis
// span more than a float64 holds, in which case they are drawn in units of
// 10^k, with k the decimal exponent of the largest magnitude.
func axisUnit(series []Series, coords func(Series) []float64, log bool) (float64, string) {
	if log {
		return 1, ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, v := range coords(s) {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if lo > hi || !math.IsInf(hi-lo, 0) {
		return 1, ""
	}
	k := int(math.Floor(math.Log10(math.Max(-lo, hi))))
	return math.Pow10(-k), fmt.Sprintf(" (× 1e%d)", k)
}

// guardedTicks is a tick marker that never hands gonum's tick search a
// range it can not label: one whose width is not a positive finite number
// or is below the resolution of its values (the search would loop on a
// step that does not move the value). Such a range gets ticks at its ends.
type guardedTicks struct{ plot.Ticker }

func (g guardedTicks) Ticks(min, max float64) []plot.Tick {
	w := max - min
	if w > 0 && !math.IsInf(w, 0) && w > 1e-9*math.Max(math.Abs(min), math.Abs(max)) {
		return g.Ticker.Ticks(min, max)
	}
	if !(min < max) {
		return []plot.Tick{{Value: min, Label: strconv.FormatFloat(min, 'g', 6, 64)}}
	}
	return []plot.Tick{
		{Value: min, Label: strconv.FormatFloat(min, 'g', 12, 64)},
		{Value: max, Label: strconv.FormatFloat(max, 'g', 12, 64)},
	}
}

// Write draws f in the given format to w.
func (f Figure) Write(w io.Writer, format Format) error {
	if w == nil {
		return errors.New("figure: Write needs a writer, got nil")
	}
	ft, err := ParseFormat(string(format))
	if err != nil {
		return err
	}
	f = f.forFormat(ft)
	p, lines, err := f.plot()
	if err != nil {
		return err
	}
	c, dc, err := newCanvas(f.Width, f.Height, 7, 4.5, ft)
	if err != nil {
		return err
	}
	// A little room on the right and top so that the last tick label and
	// the title are not cut at the edge.
	pad := vg.Points(8)
	area := draw.Crop(dc, 0, -pad, 0, -pad/2)
	var legend func()
	switch f.Legend {
	case "", "right":
		area = legendBeside(p, area, textSlack(ft))
	case "inside":
		if legend = legendInside(p, area, lines, textSlack(ft)); legend == nil {
			area = legendBeside(p, area, textSlack(ft))
		}
	}
	p.Draw(area)
	if legend != nil {
		legend()
	}
	return writeCanvas(c, w, ft)
}

// Save draws f into the file path, in the format given by its extension
// (.svg, .png, .pdf or .eps). Nothing is created if the figure cannot be
// drawn, and a failed write leaves a previous file at path as it was (see
// package internal/outfile: a temporary file renamed into place; devices
// and FIFOs written directly; symbolic links written through).
func (f Figure) Save(path string) error {
	ft, err := ParseFormat(filepath.Ext(path))
	if err != nil {
		return err
	}
	if _, err := f.Plot(); err != nil {
		return err
	}
	return outfile.Write(path, func(w io.Writer) error { return f.Write(w, ft) })
}

// Staircase writes a staircase plot of the series to w in the given format:
// every series is drawn with Step set, with marks at its points, under the
// title and axis labels given. It is the one-call form of Figure.Write.
func Staircase(w io.Writer, format Format, title, xlabel, ylabel string, series ...Series) error {
	ss := make([]Series, len(series))
	for k, s := range series {
		s.Step, s.Marks = true, true
		ss[k] = s
	}
	return Figure{Title: title, XLabel: xlabel, YLabel: ylabel, Series: ss}.Write(w, format)
}
