package figure

import (
	"bytes"
	"image"
	"image/png"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"
)

// render draws f as PNG.
func render(t *testing.T, f Figure) image.Image {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, f.Write(&buf, PNG))
	img, err := png.Decode(&buf)
	require.NoError(t, err)
	return img
}

// legendOverData draws f with and without its series' names (an inside
// legend leaves the layout as it is) and returns the box of the pixels
// that differ, the legend, and how many pixels of a curve's colour the
// figure without the legend has in that box.
func legendOverData(t *testing.T, f Figure) (image.Rectangle, int) {
	t.Helper()
	with := render(t, f)
	f.Series = append([]Series(nil), f.Series...)
	for k := range f.Series {
		f.Series[k].Name = ""
	}
	without := render(t, f)
	var box image.Rectangle
	b := with.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if !sameColour(with.At(x, y), without.At(x, y)) {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	covered := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			// The curves' colours are saturated; the page, the grid and
			// the axes are grey.
			r, g, b, _ := without.At(x, y).RGBA()
			if max(r, g, b)-min(r, g, b) > 0x3000 {
				covered++
			}
		}
	}
	return box, covered
}

// TestLegendInsideAvoidsData: with Legend "inside" the legend takes a
// corner where the figure without it has no pixel of a curve, whichever
// corners the curves fill; a legend forced into a filled corner is caught
// by the same measure.
func TestLegendInsideAvoidsData(t *testing.T) {
	names := func(ss ...Series) []Series {
		for k := range ss {
			ss[k].Name = "series number " + strconv.Itoa(k+1)
		}
		return ss
	}
	cases := map[string][]Series{
		"rising staircases": names(
			Series{X: []float64{0, 1, 2, 3, 4}, Y: []float64{1, 1, 2, 3, 4}, Step: true},
			Series{X: []float64{0, 0.5, 2, 3, 4}, Y: []float64{1, 2, 3, 4, 4}, Step: true}),
		"falling line with marks": names(
			Series{X: []float64{0, 1, 2, 3, 4}, Y: []float64{4, 3, 2, 1, 0}, Marks: true}),
		"top corners filled": names(
			Series{X: []float64{0, 2, 4}, Y: []float64{4, 0, 4}, Marks: true},
			Series{X: []float64{0, 4}, Y: []float64{3.9, 3.9}, Dashed: true}),
	}
	for name, ss := range cases {
		box, covered := legendOverData(t, Figure{Legend: "inside", Series: ss})
		assert.Greater(t, box.Dx(), 40, name)
		assert.Zero(t, covered, "%s: the legend %v covers %d pixels of curves", name, box, covered)
	}
	// The measure sees a legend put over a curve.
	_, covered := legendOverData(t, Figure{Legend: "top-left", Series: cases["falling line with marks"]})
	assert.Greater(t, covered, 10)
}

// TestLegendInsideFallsBeside: when curves pass through every corner the
// legend goes beside the plot, as with Legend "right".
func TestLegendInsideFallsBeside(t *testing.T) {
	ss := []Series{
		{Name: "rising", X: []float64{0, 1}, Y: []float64{0, 1}},
		{Name: "falling", X: []float64{0, 1}, Y: []float64{1, 0}},
	}
	var inside, right bytes.Buffer
	require.NoError(t, Figure{Legend: "inside", Series: ss}.Write(&inside, PNG))
	require.NoError(t, Figure{Legend: "right", Series: ss}.Write(&right, PNG))
	assert.True(t, bytes.Equal(inside.Bytes(), right.Bytes()), "the same drawing")
}

func TestSegmentMeetsRect(t *testing.T) {
	r := vg.Rectangle{Min: vg.Point{X: 0, Y: 0}, Max: vg.Point{X: 10, Y: 5}}
	pt := func(x, y vg.Length) vg.Point { return vg.Point{X: x, Y: y} }
	assert.True(t, segmentMeetsRect(pt(-5, 2), pt(15, 3), r), "crosses with both ends outside")
	assert.True(t, segmentMeetsRect(pt(3, 3), pt(3, 3), r), "a point inside")
	assert.True(t, segmentMeetsRect(pt(-1, 6), pt(1, 4), r), "cuts a corner")
	assert.False(t, segmentMeetsRect(pt(-1, 7), pt(1, 6), r), "passes above a corner")
	assert.False(t, segmentMeetsRect(pt(-5, 6), pt(15, 6), r), "parallel above")
	assert.False(t, segmentMeetsRect(pt(11, -3), pt(11, 9), r), "parallel right")
	assert.False(t, segmentMeetsRect(pt(20, 20), pt(20, 20), r), "a point outside")
}
