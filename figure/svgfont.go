package figure

import (
	"bytes"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// fontFallbacks maps the font-family that gonum's SVG backend writes (the
// family name of the font the text was measured with) to a list that a
// viewer without that font can still honour. After the Liberation family
// come fonts with the same metrics (Tinos, Arimo and Cousine; Times New
// Roman, Arial and Courier New, which the Liberation fonts were made to
// match), so that text keeps the width it was laid out with and a legend
// or a label is not cut at the edge of the drawing; a generic family
// comes last.
var fontFallbacks = []struct{ from, to string }{
	{"font-family:Liberation Serif;", "font-family:'Liberation Serif','Tinos','Times New Roman',Times,serif;"},
	{"font-family:Liberation Sans;", "font-family:'Liberation Sans','Arimo',Arial,Helvetica,sans-serif;"},
	{"font-family:Liberation Mono;", "font-family:'Liberation Mono','Cousine','Courier New',Courier,monospace;"},
}

// textSlack is the fraction of its width by which a text may grow in a
// viewer of format ft: in SVG, where the viewer picks the font, the
// generic serif of a system without the fonts of fontFallbacks (DejaVu
// Serif, say) sets text up to a fifth wider than Liberation Serif, in
// which it was measured. Legends get that much room beside them, and the
// titles of bar panels wrap that much earlier.
func textSlack(ft Format) float64 {
	if ft == SVG {
		return 0.25
	}
	return 0
}

// newCanvas returns a canvas of wd × ht inches in format ft, taking defW
// or defH for a size that is not a finite positive number.
func newCanvas(wd, ht, defW, defH float64, ft Format) (vg.CanvasWriterTo, draw.Canvas, error) {
	if !(wd > 0) || math.IsInf(wd, 0) {
		wd = defW
	}
	if !(ht > 0) || math.IsInf(ht, 0) {
		ht = defH
	}
	c, err := draw.NewFormattedCanvas(vg.Length(wd)*vg.Inch, vg.Length(ht)*vg.Inch, string(ft))
	if err != nil {
		return nil, draw.Canvas{}, fmt.Errorf("figure: %w", err)
	}
	return c, draw.New(c), nil
}

// writeCanvas writes the drawing c in format ft to w; SVG text gets the
// font-family lists of fontFallbacks.
func writeCanvas(c vg.CanvasWriterTo, w io.Writer, ft Format) error {
	if ft == SVG {
		fw := &familyWriter{w: w}
		if _, err := c.WriteTo(fw); err != nil {
			return fmt.Errorf("figure: %w", err)
		}
		if err := fw.flush(); err != nil {
			return fmt.Errorf("figure: %w", err)
		}
		return nil
	}
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("figure: %w", err)
	}
	return nil
}

// familyWriter copies what it is given to w with every font-family of
// fontFallbacks replaced. It holds back the last few bytes of each write,
// which may begin a font-family that the next write completes, so that a
// drawing of any size passes through in one bounded buffer.
type familyWriter struct {
	w   io.Writer
	buf []byte
}

// keep is the most bytes that can begin a pattern of fontFallbacks without
// completing it.
var keep = func() int {
	n := 0
	for _, f := range fontFallbacks {
		n = max(n, len(f.from)-1)
	}
	return n
}()

func (fw *familyWriter) Write(p []byte) (int, error) {
	fw.buf = append(fw.buf, p...)
	if err := fw.emit(false); err != nil {
		return 0, err
	}
	return len(p), nil
}

// emit writes out buf with the patterns replaced; unless final, the bytes
// after the last complete pattern that may still begin one stay in buf.
func (fw *familyWriter) emit(final bool) error {
	b := fw.buf
	for {
		at, which := -1, -1
		for k, f := range fontFallbacks {
			if i := bytes.Index(b, []byte(f.from)); i >= 0 && (at < 0 || i < at) {
				at, which = i, k
			}
		}
		if at < 0 {
			break
		}
		if _, err := fw.w.Write(b[:at]); err != nil {
			return err
		}
		if _, err := io.WriteString(fw.w, fontFallbacks[which].to); err != nil {
			return err
		}
		b = b[at+len(fontFallbacks[which].from):]
	}
	rest := 0
	if !final {
		rest = min(keep, len(b))
	}
	if _, err := fw.w.Write(b[:len(b)-rest]); err != nil {
		return err
	}
	fw.buf = append(fw.buf[:0], b[len(b)-rest:]...)
	return nil
}

func (fw *familyWriter) flush() error { return fw.emit(true) }
