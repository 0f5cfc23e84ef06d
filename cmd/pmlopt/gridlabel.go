package main

import (
	"strings"
)

// A grid cell's label names its column x and row y. pmlopt new --grid, plot
// and testdata/grid.yaml write "x,y"; "x:y" is read as the same cell, so
// that files labelled either way work everywhere a cell is read from a
// label.

// cutGridLabel splits a cell's label into its two coordinates, at its
// comma or, without one, at its colon.
func cutGridLabel(s string) (x, y string, ok bool) {
	if x, y, ok = strings.Cut(s, ","); ok {
		return x, y, true
	}
	return strings.Cut(s, ":")
}

// sameCell returns the index of the label among labels that names the cell
// of s in the other convention ("1:2" for "1,2"), or -1.
func sameCell(labels []string, s string) int {
	x, y, ok := cutGridLabel(s)
	if !ok {
		return -1
	}
	x, y = strings.TrimSpace(x), strings.TrimSpace(y)
	for k, l := range labels {
		if a, b, ok := cutGridLabel(l); ok && strings.TrimSpace(a) == x && strings.TrimSpace(b) == y {
			return k
		}
	}
	return -1
}
