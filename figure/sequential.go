package figure

import "image/color"

// sequentialEnd is where Sequential stops on viridis: its last tenth is a
// yellow whose lightness against a white page is too low a contrast for a
// thin line.
const sequentialEnd = 0.85

// Sequential returns n colours for series that are ordered steps of one
// quantity: viridis (van der Walt & Smith, 2015) at evenly spaced points
// from its dark end to sequentialEnd, so that lightness rises steadily
// with the step, in colour, in greyscale print and for the common
// colour-vision deficiencies. One colour is viridis's dark end; n < 1
// gives none.
func Sequential(n int) []color.Color {
	if n < 1 {
		return nil
	}
	out := make([]color.Color, n)
	for k := range out {
		t := 0.0
		if n > 1 {
			t = sequentialEnd * float64(k) / float64(n-1)
		}
		out[k] = viridis(t)
	}
	return out
}
