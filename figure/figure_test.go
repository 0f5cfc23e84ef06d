package figure

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"svg": SVG, ".PNG": PNG, "pdf": PDF, ".eps": EPS} {
		got, err := ParseFormat(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "gif", ".jpeg", "svgz"} {
		_, err := ParseFormat(bad)
		assert.Error(t, err, bad)
	}
}

func TestSegmentsSplitAtNonFinite(t *testing.T) {
	s := Series{
		X: []float64{1, 2, 3, 4, 5, 6},
		Y: []float64{1, math.NaN(), 3, 4, math.Inf(1), 6},
	}
	segs, err := s.segments(false, false, 1, 1)
	require.NoError(t, err)
	assert.Equal(t, []plotter.XYs{
		{{X: 1, Y: 1}},
		{{X: 3, Y: 3}, {X: 4, Y: 4}},
		{{X: 6, Y: 6}},
	}, segs)

	// On log axes non-positive coordinates are skipped as well.
	segs, err = Series{X: []float64{-1, 1, 2, 3}, Y: []float64{1, 1, 0, 3}}.segments(true, true, 1, 1)
	require.NoError(t, err)
	assert.Equal(t, []plotter.XYs{{{X: 1, Y: 1}}, {{X: 3, Y: 3}}}, segs)

	_, err = Series{Name: "bad", X: []float64{1, 2}, Y: []float64{1}}.segments(false, false, 1, 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"bad" has 2 x values and 1 y values`)
}

func TestWriteSVGHasTextAndSteps(t *testing.T) {
	var buf bytes.Buffer
	err := Staircase(&buf, SVG, "Trade-off", "threshold h", "ε (nats)",
		Series{Name: "utility-safe", X: []float64{1, 2, 3}, Y: []float64{0, 0.5, 1.2}})
	require.NoError(t, err)
	svg := buf.String()
	require.True(t, strings.HasPrefix(strings.TrimSpace(svg), "<?xml"), "not an SVG document")
	for _, text := range []string{"Trade-off", "threshold h", "ε (nats)", "utility-safe"} {
		assert.Contains(t, svg, text)
	}
}

func TestPostStepShape(t *testing.T) {
	// A staircase through (0,0), (1,1) must pass through the corner (1,0):
	// compare the SVG path of the stepped and the straight line.
	draw := func(step bool) string {
		var buf bytes.Buffer
		f := Figure{Series: []Series{{X: []float64{0, 1}, Y: []float64{0, 1}, Step: step}}}
		require.NoError(t, f.Write(&buf, SVG))
		return buf.String()
	}
	// The stepped path has one more vertex ("L" command) than the straight one.
	assert.Equal(t, strings.Count(draw(false), "L")+1, strings.Count(draw(true), "L"))
}

func TestWritePNGSize(t *testing.T) {
	var buf bytes.Buffer
	f := Figure{Title: "t", Width: 5, Height: 3,
		Series: []Series{{Name: "a", X: []float64{0, 1}, Y: []float64{1, 2}, Marks: true, Dashed: true}}}
	require.NoError(t, f.Write(&buf, PNG))
	img, err := png.Decode(&buf)
	require.NoError(t, err)
	assert.Equal(t, 5*96, img.Bounds().Dx())
	assert.Equal(t, 3*96, img.Bounds().Dy())
}

func TestSaveByExtension(t *testing.T) {
	dir := t.TempDir()
	f := Figure{Series: []Series{{X: []float64{0, 1}, Y: []float64{0, 1}}}}
	p := filepath.Join(dir, "a.png")
	require.NoError(t, f.Save(p))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, []byte("\x89PNG"), b[:4])

	bad := filepath.Join(dir, "a.gif")
	require.Error(t, f.Save(bad))
	_, err = os.Stat(bad)
	assert.True(t, os.IsNotExist(err), "a failed Save must not create the file")

	empty := filepath.Join(dir, "empty.svg")
	require.Error(t, Figure{Series: []Series{{X: []float64{math.NaN()}, Y: []float64{1}}}}.Save(empty))
	_, err = os.Stat(empty)
	assert.True(t, os.IsNotExist(err))
}

func TestErrors(t *testing.T) {
	var buf bytes.Buffer
	assert.ErrorContains(t, Figure{}.Write(&buf, SVG), "no series")
	assert.ErrorContains(t, Figure{Series: []Series{{X: []float64{1}, Y: []float64{math.Inf(-1)}}}}.Write(&buf, SVG), "no finite point")
	assert.ErrorContains(t, Figure{Legend: "middle", Series: []Series{{X: []float64{1}, Y: []float64{1}}}}.Write(&buf, SVG), "legend")
	assert.ErrorContains(t, Figure{Series: []Series{{X: []float64{1}, Y: []float64{1}}}}.Write(&buf, "bmp"), "unknown format")
}

func TestLogAxesDoNotPanicOnNonPositive(t *testing.T) {
	var buf bytes.Buffer
	f := Figure{LogX: true, LogY: true, Series: []Series{{X: []float64{0, 10, 100}, Y: []float64{1e-3, 0, 2}}}}
	require.NoError(t, f.Write(&buf, SVG))
	f.Series[0].Y = []float64{0, 0, -1}
	require.Error(t, f.Write(&buf, SVG))
}

func TestLegendPositions(t *testing.T) {
	s := []Series{{Name: "alpha", X: []float64{0, 1}, Y: []float64{0, 1}}}
	for _, pos := range []string{"", "right", "inside", "top-left", "top-right", "bottom-left", "bottom-right"} {
		var buf bytes.Buffer
		require.NoError(t, Figure{Legend: pos, Series: s}.Write(&buf, SVG), pos)
		assert.Contains(t, buf.String(), "alpha", pos)
	}
	// A legend wider than half the drawing does not fit beside the plot and
	// is drawn inside instead of squeezing the plot away.
	long := []Series{{Name: strings.Repeat("very long legend entry ", 8), X: []float64{0, 1}, Y: []float64{0, 1}}}
	var buf bytes.Buffer
	require.NoError(t, Figure{Series: long}.Write(&buf, PNG))
}

func TestHugeRangeIsDrawnInScaledUnits(t *testing.T) {
	// Values ±9e307 span more than a float64 holds; gonum's tick search
	// loops forever on such a range. The axis is drawn in units of 1e307.
	f := Figure{YLabel: "value", Series: []Series{{Name: "a", X: []float64{0, 1, 2}, Y: []float64{-9e307, 0, 9e307}, Step: true}}}
	p, err := f.Plot()
	require.NoError(t, err)
	assert.Equal(t, "value (× 1e307)", p.Y.Label.Text)
	assert.Equal(t, "", p.X.Label.Text)
	assert.InDelta(t, -9, p.Y.Min, 1e-12)
	assert.InDelta(t, 9, p.Y.Max, 1e-12)
	var b bytes.Buffer
	require.NoError(t, f.Write(&b, SVG))
	assert.Contains(t, b.String(), "1e307")

	// A range below the resolution of its values gets ticks at its ends.
	ticks := guardedTicks{plot.DefaultTicks{}}.Ticks(1e300, 1e300*(1+4e-16))
	require.Len(t, ticks, 2)
	assert.Equal(t, 1e300, ticks[0].Value)
	ticks = guardedTicks{plot.DefaultTicks{}}.Ticks(math.Inf(-1), math.Inf(1))
	require.Len(t, ticks, 2)
	assert.Equal(t, "-Inf", ticks[0].Label)
}
