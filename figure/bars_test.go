package figure

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNiceTicks: labelled ticks at multiples of 1, 2 or 5 times a power of
// ten, between four and eleven of them, written without rounding noise.
func TestNiceTicks(t *testing.T) {
	for _, r := range [][2]float64{{0, 2.6}, {-4.43, 0}, {1, 7}, {0, 1e-3}, {-37, 0}} {
		var labels []string
		for _, tk := range (niceTicks{}).Ticks(r[0], r[1]) {
			assert.GreaterOrEqual(t, tk.Value, r[0]-1e-12)
			assert.LessOrEqual(t, tk.Value, r[1]+1e-12)
			if tk.Label != "" {
				labels = append(labels, tk.Label)
				assert.LessOrEqual(t, len(tk.Label), 6, "%v: %q", r, tk.Label)
			}
		}
		assert.GreaterOrEqual(t, len(labels), 4, "%v: %v", r, labels)
		assert.LessOrEqual(t, len(labels), 11, "%v: %v", r, labels)
	}
	assert.Equal(t, 0.5, niceStep(0.43))
	assert.Equal(t, 2.0, niceStep(1.2))
	assert.Equal(t, 10.0, niceStep(6))
}

// TestBarFigure: the series' names reach the legend, infinite values are
// marked, and bad input is refused without creating a file.
func TestBarFigure(t *testing.T) {
	f := BarFigure{Panels: []Bars{
		{Title: "privacy", Groups: []string{"PML", "LDP"}, Series: []BarSeries{
			{Name: "optimum", Values: []float64{1.2, math.Inf(1)}}, {Name: "randomized response", Values: []float64{1.3, 1.9}}}},
		{Title: "utility", Groups: []string{"E[u]"}, Series: []BarSeries{
			{Name: "optimum", Values: []float64{-0.6}}, {Name: "randomized response", Values: []float64{-4.7}}}},
	}}
	var buf bytes.Buffer
	require.NoError(t, f.Write(&buf, SVG))
	svg := buf.String()
	for _, s := range []string{"optimum", "randomized response", "∞", "PML", "E[u]"} {
		assert.Contains(t, svg, s)
	}
	assert.Equal(t, 1, strings.Count(svg, ">optimum<"), "one legend entry per series")
	bad := BarFigure{Panels: []Bars{{Groups: []string{"a", "b"}, Series: []BarSeries{{Name: "x", Values: []float64{1}}}}}}
	path := filepath.Join(t.TempDir(), "bad.svg")
	assert.Error(t, bad.Save(path))
	assert.NoFileExists(t, path)
}

// TestHeatmap: labels reach the axes, a ragged matrix is refused.
func TestHeatmap(t *testing.T) {
	h := Heatmap{Title: "P(y|x)", Z: [][]float64{{0.75, 0.25}, {0.25, 0.75}}, RowLabels: []string{"no", "yes"},
		ColLabels: []string{"say no", "say yes"}, ValueLabel: "P(y | x)", Marks: [][2]int{{0, 1}}}
	var buf bytes.Buffer
	require.NoError(t, h.Write(&buf, SVG))
	for _, s := range []string{"say no", "say yes", ">no<", ">yes<", "P(y | x)"} {
		assert.Contains(t, buf.String(), s)
	}
	h.Z = [][]float64{{1, 0}, {1}}
	assert.Error(t, h.Write(&buf, PNG))
	h.Min, h.Max = 0, 1
	assert.Error(t, h.Write(&buf, PNG))
}

// TestPDFText: PDF labels are ASCII (gonum's PDF backend would print the
// UTF-8 bytes of "ε" as "Îµ"), and a PDF is written with them.
func TestPDFText(t *testing.T) {
	assert.Equal(t, "alip (eps_l = 0.5*eps_u), eps-bar = 1.9, inf", pdfText("alip (ε_l = 0.5·ε_u), ε̄ = 1.9, ∞"))
	assert.Equal(t, "a?b", pdfText("a☃b"))
	f := Figure{Title: "ε", Series: []Series{{Name: "ε̄", X: []float64{0, 1}, Y: []float64{0, 1}}}}
	var buf bytes.Buffer
	require.NoError(t, f.Write(&buf, PDF))
	assert.True(t, strings.HasPrefix(buf.String(), "%PDF"))
	assert.Equal(t, "ε", f.Title, "the caller's figure is not changed")
}

// TestWrap: lines of at most the width, a longer word on a line of its own.
func TestWrap(t *testing.T) {
	assert.Equal(t, "counting\nquery: the\noptimum", wrap("counting query: the optimum", 10))
	assert.Equal(t, "a\nextraordinarily\nb", wrap("a extraordinarily b", 5))
	assert.Equal(t, "short", wrap("short", 80))
	assert.Equal(t, "a block of\n8\u00a0×\u00a08)", wrap("a block of 8\u00a0×\u00a08)", 12))
}

// TestBarTitleWraps: a panel's title longer than the panel is wide is
// broken into lines; a wide panel keeps it on one.
func TestBarTitleWraps(t *testing.T) {
	title := "privacy (nats), budget pml ε = 1.3"
	f := BarFigure{Width: 5, Panels: []Bars{
		{Title: title, Groups: []string{"PML", "LIP", "LDP"}, Series: []BarSeries{{Name: "optimum", Values: []float64{1, 2, 3}}}},
		{Title: "utility", Groups: []string{"E[u]"}, Series: []BarSeries{{Name: "optimum", Values: []float64{-1}}}},
	}}
	var buf bytes.Buffer
	require.NoError(t, f.Write(&buf, SVG))
	assert.NotContains(t, buf.String(), ">"+title+"<", "the whole title on one line")
	assert.Contains(t, buf.String(), ">privacy (nats),<")
	assert.Contains(t, buf.String(), ">budget pml ε = 1.3<")
	f.Width = 12
	buf.Reset()
	require.NoError(t, f.Write(&buf, SVG))
	assert.Contains(t, buf.String(), ">"+title+"<", "a wide panel keeps the title on one line")
}
