package figure

import (
	"image/color"
	"math"
)

// viridisAnchors are the colours of the viridis colour map at t = 0, 0.1,
// …, 1 (van der Walt & Smith, matplotlib's viridis, 2015): a sequential map
// from dark blue-purple to yellow designed to be perceptually uniform, with
// lightness rising steadily, so that equal steps of value look like equal
// steps of colour, in colour and in greyscale print, and to readers with
// the common colour-vision deficiencies.
var viridisAnchors = [...][3]uint8{
	{0x44, 0x01, 0x54},
	{0x48, 0x24, 0x75},
	{0x41, 0x44, 0x87},
	{0x35, 0x5f, 0x8d},
	{0x2a, 0x78, 0x8e},
	{0x21, 0x91, 0x8c},
	{0x22, 0xa8, 0x84},
	{0x44, 0xbf, 0x70},
	{0x7a, 0xd1, 0x51},
	{0xbd, 0xdf, 0x26},
	{0xfd, 0xe7, 0x25},
}

// viridis returns the colour of t ∈ [0, 1] (clamped; NaN is 0),
// interpolating the anchors linearly in sRGB: the anchors are close enough
// that the interpolated colours keep viridis's steadily rising lightness.
func viridis(t float64) color.RGBA64 {
	if !(t > 0) {
		t = 0
	}
	if t > 1 {
		t = 1
	}
	n := len(viridisAnchors) - 1
	pos := t * float64(n)
	k := int(math.Floor(pos))
	if k >= n {
		k = n - 1
	}
	f := pos - float64(k)
	a, b := viridisAnchors[k], viridisAnchors[k+1]
	// 16 bits a channel, so that no two of the colours sampled for a
	// palette coincide before the output's own rounding.
	mix := func(x, y uint8) uint16 {
		return uint16(math.Round(257 * (float64(x) + f*(float64(y)-float64(x)))))
	}
	return color.RGBA64{R: mix(a[0], b[0]), G: mix(a[1], b[1]), B: mix(a[2], b[2]), A: 0xffff}
}

// viridisPalette returns n ≥ 2 colours of viridis at evenly spaced t from 0
// to 1: the colours of a heat map's cells and of its colour bar.
func viridisPalette(n int) []color.Color {
	if n < 2 {
		n = 2
	}
	s := make([]color.Color, n)
	for k := range s {
		s[k] = viridis(float64(k) / float64(n-1))
	}
	return s
}
