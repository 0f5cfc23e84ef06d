package figure

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lightness is the CIE 1976 L* of an sRGB colour (D65 white): the sRGB
// transfer function undone, relative luminance Y from the linear channels,
// then L* = 116 f(Y) − 16.
func lightness(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		s := float64(v) / 0xffff
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	y := 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
	const d = 6.0 / 29
	f := y/(3*d*d) + 4.0/29
	if y > d*d*d {
		f = math.Cbrt(y)
	}
	return 116*f - 16
}

// TestViridisLightness: the heat maps' colour map rises in lightness from
// dark to light at a nearly constant rate, as a perceptually uniform
// sequential map must (equal steps of value, equal steps of lightness).
func TestViridisLightness(t *testing.T) {
	pal := viridisPalette(paletteSize)
	require.Len(t, pal, paletteSize)
	l0, l1 := lightness(pal[0]), lightness(pal[len(pal)-1])
	t.Logf("L* from %.1f to %.1f", l0, l1)
	assert.Less(t, l0, 20.0, "dark end")
	assert.Greater(t, l1, 85.0, "light end")
	prev := math.Inf(-1)
	for k, c := range pal {
		l := lightness(c)
		assert.Greater(t, l, prev, "L* rises at colour %d", k)
		// Within 6 units of the straight line between the ends.
		want := l0 + (l1-l0)*float64(k)/float64(len(pal)-1)
		assert.InDelta(t, want, l, 6, "L* of colour %d", k)
		prev = l
	}
	rgb := func(r, g, b uint8) color.Color { return color.RGBA{R: r, G: g, B: b, A: 0xff} }
	assert.True(t, sameColour(rgb(0x44, 0x01, 0x54), viridis(math.NaN())))
	assert.True(t, sameColour(rgb(0xfd, 0xe7, 0x25), viridis(2)))
	assert.True(t, sameColour(rgb(0x21, 0x91, 0x8c), viridis(0.5)))
}

// TestHeatmapCellsWithoutSeams: a matrix of one value is drawn as one block
// of one colour, with no lighter line where cells meet (anti-aliasing of
// cells filled edge to edge blends their borders with the page), and the
// colour bar runs from the map's dark end at the bottom to its light end at
// the top.
func TestHeatmapCellsWithoutSeams(t *testing.T) {
	z := make([][]float64, 9)
	for r := range z {
		z[r] = []float64{1, 1, 1, 1, 1, 1, 1}
	}
	var buf bytes.Buffer
	require.NoError(t, Heatmap{Z: z, Min: 0, Max: 1}.Write(&buf, PNG))
	img, err := png.Decode(&buf)
	require.NoError(t, err)
	top := viridis(1)
	box := image.Rectangle{Min: img.Bounds().Max, Max: img.Bounds().Min}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X*3/4; x++ { // left of the colour bar
			if sameColour(img.At(x, y), top) {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	require.Greater(t, box.Dx(), 200)
	require.Greater(t, box.Dy(), 200)
	inner := box.Inset(2)
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		for x := inner.Min.X; x < inner.Max.X; x++ {
			require.True(t, sameColour(img.At(x, y), top), "pixel (%d, %d) is %v inside the block of %v", x, y, img.At(x, y), top)
		}
	}
	// The colour bar: the right quarter's column with the most pixels of
	// the map's colours; its lowest is the dark end, its highest the light.
	bottom := viridis(0)
	var lowest, highest int
	for x := img.Bounds().Max.X * 3 / 4; x < img.Bounds().Max.X; x++ {
		lo, hi := -1, -1
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			if sameColour(img.At(x, y), bottom) {
				lo = y
			}
			if hi < 0 && sameColour(img.At(x, y), top) {
				hi = y
			}
		}
		if lo >= 0 && hi >= 0 {
			lowest, highest = lo, hi
			break
		}
	}
	assert.Greater(t, lowest, highest+200, "dark end at the bottom, light end at the top")
}

// TestSequential: the series colours are viridis's, ordered by rising
// lightness, far enough apart to tell apart, and stop short of the yellow
// end, which is too light for a line on white.
func TestSequential(t *testing.T) {
	assert.Nil(t, Sequential(0))
	one := Sequential(1)
	require.Len(t, one, 1)
	assert.Equal(t, viridis(0), one[0])
	for _, n := range []int{2, 4, 8} {
		cs := Sequential(n)
		require.Len(t, cs, n)
		assert.Equal(t, viridis(0), cs[0])
		assert.Equal(t, viridis(sequentialEnd), cs[n-1])
		for k := 1; k < n; k++ {
			step := lightness(cs[k]) - lightness(cs[k-1])
			assert.Greater(t, step, 60.0/float64(n), "n = %d, colour %d", n, k)
		}
		// The lightest stays well below the yellow end's L* of about 91.
		assert.Less(t, lightness(cs[n-1]), 85.0, "n = %d", n)
	}
}

// TestSeriesColor: a series drawn with its own colour puts that colour on
// the image, and one without takes the palette's.
func TestSeriesColor(t *testing.T) {
	mine := color.RGBA{R: 0x12, G: 0xab, B: 0x34, A: 0xff}
	count := func(f Figure, c color.Color) int {
		var buf bytes.Buffer
		require.NoError(t, f.Write(&buf, PNG))
		img, err := png.Decode(&buf)
		require.NoError(t, err)
		r0, g0, b0, _ := c.RGBA()
		n := 0
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				if r>>8 == r0>>8 && g>>8 == g0>>8 && b>>8 == b0>>8 {
					n++
				}
			}
		}
		return n
	}
	line := Series{Name: "a", X: []float64{0, 1, 2}, Y: []float64{0, 2, 1}}
	plain := Figure{Series: []Series{line}}
	line.Color = mine
	coloured := Figure{Series: []Series{line}}
	assert.Greater(t, count(coloured, mine), 50)
	assert.Zero(t, count(plain, mine))
	assert.Greater(t, count(plain, palette[0]), 50)
	assert.Zero(t, count(coloured, palette[0]))
}
