package figure

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pmlopt/pmlopt/internal/outfile"
)

// BarSeries is one named set of bars, one value per group of a Bars panel.
// +Inf is drawn as a bar above the others marked "∞"; NaN is not drawn.
type BarSeries struct {
	Name   string
	Values []float64
}

// Bars is a grouped bar chart: for each group (a tick on the x axis), one
// bar per series, side by side.
type Bars struct {
	Title, YLabel string
	Groups        []string
	Series        []BarSeries
}

// BarFigure is one or more bar charts side by side, sharing one legend on
// the right (series k has the same colour in every panel).
type BarFigure struct {
	Panels []Bars
	// Width and Height are in inches; zero means 3.5 per panel (plus the
	// legend) × 4.
	Width, Height float64
}

// plot builds the gonum plot of one panel and, if legend is not nil, adds
// one entry per series to it. The title is wrapped to the panel's width,
// with slack for a wider font (see textSlack).
func (b Bars) plot(legend *plot.Legend, width vg.Length, infMark string, slack float64) (*plot.Plot, error) {
	if len(b.Groups) == 0 || len(b.Series) == 0 {
		return nil, errors.New("figure: a bar chart needs groups and series")
	}
	p := plot.New()
	// A 12-point character is about half an em wide in Liberation Serif.
	p.Title.Text = wrap(b.Title, int(float64(width)/(0.5*12*(1+slack))))
	p.Y.Label.Text = b.YLabel
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.Y.Label.TextStyle.Font.Size = vg.Points(11)
	p.Y.Tick.Marker = niceTicks{}
	p.Add(plotter.NewGrid())
	// Infinite bars stand a tenth above the largest finite one.
	top, bottom := 0.0, 0.0
	for _, s := range b.Series {
		if len(s.Values) != len(b.Groups) {
			return nil, fmt.Errorf("figure: bar series %q has %d values for %d groups", s.Name, len(s.Values), len(b.Groups))
		}
		for _, v := range s.Values {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				top, bottom = max(top, v), min(bottom, v)
			}
		}
	}
	capped := top + 0.1*max(top-bottom, 1e-9)
	if top == 0 && bottom == 0 {
		capped = 1
	}
	n := len(b.Series)
	// Each group takes the width of n+1 bars, one of them the gap; the
	// axis and its labels take about 60 points.
	w := vg.Length(min(24, max(2, float64(width-vg.Points(60))/float64(len(b.Groups)*(n+1)))))
	for k, s := range b.Series {
		vals := make(plotter.Values, len(s.Values))
		var inf plotter.XYLabels
		for g, v := range s.Values {
			switch {
			case math.IsNaN(v):
				vals[g] = 0
			case math.IsInf(v, 1):
				vals[g] = capped
				inf.XYs = append(inf.XYs, plotter.XY{X: float64(g), Y: capped})
				inf.Labels = append(inf.Labels, infMark)
			default:
				vals[g] = v
			}
		}
		bc, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, fmt.Errorf("figure: bar series %q: %w", s.Name, err)
		}
		col := palette[k%len(palette)]
		bc.Color, bc.LineStyle.Width = col, 0
		bc.Offset = w * vg.Length(float64(k)-float64(n-1)/2)
		p.Add(bc)
		if len(inf.XYs) > 0 {
			l, err := plotter.NewLabels(inf)
			if err != nil {
				return nil, err
			}
			l.Offset = vg.Point{X: bc.Offset - vg.Points(3), Y: vg.Points(2)}
			p.Add(l)
		}
		if legend != nil {
			legend.Add(s.Name, bc)
		}
	}
	p.NominalX(b.Groups...)
	p.X.Tick.Label.Font.Size = vg.Points(10)
	return p, nil
}

// Write draws f in the given format to w.
func (f BarFigure) Write(w io.Writer, format Format) error {
	if w == nil {
		return errors.New("figure: Write needs a writer, got nil")
	}
	ft, err := ParseFormat(string(format))
	if err != nil {
		return err
	}
	if len(f.Panels) == 0 {
		return errors.New("figure: no bar chart to draw")
	}
	f = f.forFormat(ft)
	infMark := "∞"
	if ft == PDF {
		infMark = pdfText(infMark)
	}
	leg := plot.NewLegend()
	leg.TextStyle.Font.Size = vg.Points(10)
	leg.Top, leg.Left, leg.Padding = true, true, vg.Points(3)
	// A panel's width grows with its number of bars.
	weights, total := make([]float64, len(f.Panels)), 0.0
	for k, b := range f.Panels {
		weights[k] = float64(len(b.Groups)*(len(b.Series)+1)) + 4
		total += weights[k]
	}
	c, dc, err := newCanvas(f.Width, f.Height, 0.18*total+2.5, 4, ft)
	if err != nil {
		return err
	}
	pad := vg.Points(8)
	area := draw.Crop(dc, pad/2, -pad, pad/2, -pad/2)
	// The legend's entries come from the first panel's series.
	for _, s := range f.Panels[0].Series {
		leg.Add(s.Name)
	}
	lw := leg.Rectangle(area).Size().X * vg.Length(1+textSlack(ft))
	leg = plot.NewLegend()
	leg.TextStyle.Font.Size = vg.Points(10)
	leg.Top, leg.Left, leg.Padding = true, true, vg.Points(3)
	area = draw.Crop(area, 0, -(lw + vg.Points(10)), 0, 0)
	const gap = 16 // points between panels
	avail := area.Size().X - vg.Points(gap*float64(len(f.Panels)-1))
	x := area.Min.X
	for k, b := range f.Panels {
		pw := avail * vg.Length(weights[k]/total)
		l := &leg
		if k > 0 {
			l = nil
		}
		p, err := b.plot(l, pw, infMark, textSlack(ft))
		if err != nil {
			return err
		}
		p.Draw(draw.Crop(area, x-area.Min.X, x+pw-area.Max.X, 0, 0))
		x += pw + vg.Points(gap)
	}
	legArea := draw.Crop(dc, dc.Size().X-lw-pad, 0, 0, -vg.Points(24))
	leg.Draw(legArea)
	return writeCanvas(c, w, ft)
}

// Save draws f into the file path in the format of its extension (.svg,
// .png, .pdf or .eps). Nothing is created if the figure cannot be drawn.
func (f BarFigure) Save(path string) error {
	return save(path, f.Write)
}

// save writes through write into path in the format of its extension,
// drawing into memory first so that a failure creates no file, and then
// as Figure.Save does, through package internal/outfile: a previous file
// stays whole if the write fails, and a FIFO nobody reads is seen as
// blocked, so that a signal ends the run at once.
func save(path string, write func(io.Writer, Format) error) error {
	data, err := encode(path, write)
	if err != nil {
		return err
	}
	return WriteFile(path, data)
}

// encode draws into memory in the format that path's extension names.
func encode(path string, write func(io.Writer, Format) error) ([]byte, error) {
	ft, err := ParseFormat(filepath.Ext(path))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := write(&buf, ft); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFile writes a picture drawn by an Encode method to path, complete
// or not at all.
func WriteFile(path string, data []byte) error {
	return outfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
