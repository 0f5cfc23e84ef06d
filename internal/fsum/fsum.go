// Package fsum sums float64 values exactly in float64 arithmetic: the sum
// is kept as a few non-overlapping partials, each addition split into its
// rounded sum and its rounding error by an error-free transformation
// (Shewchuk, "Adaptive precision floating-point arithmetic and fast robust
// geometric predicates", Discrete Comput. Geom. 1997). The exact sign of a
// sum, which is all a comparison of two sums needs, is then the sign of
// its largest partial, without arbitrary-precision numbers.
package fsum

import "math"

// Partials returns the non-overlapping nonzero partials of Σ v, in
// increasing magnitude, whose exact sum is that of v, in dst's storage
// (nil for new); ok is false where an intermediate sum overflowed (the
// partials are then not exact).
func Partials(dst, v []float64) (parts []float64, ok bool) {
	parts = dst[:0]
	for _, x := range v {
		k := 0
		for _, y := range parts {
			if math.Abs(x) < math.Abs(y) {
				x, y = y, x
			}
			// |x| ≥ |y|: hi + lo = x + y exactly (Dekker's Fast2Sum).
			hi := x + y
			if lo := y - (hi - x); lo != 0 {
				parts[k] = lo
				k++
			}
			x = hi
		}
		parts = parts[:k]
		if x != 0 {
			parts = append(parts, x)
		}
	}
	for _, p := range parts {
		if math.IsInf(p, 0) || math.IsNaN(p) {
			return parts, false
		}
	}
	return parts, true
}

// Sign returns the sign (−1, 0 or 1) of Σ v in exact arithmetic: the
// partials do not overlap, so the ones below the largest sum to less than
// its last bit. ok is false where an intermediate sum overflowed.
func Sign(v []float64) (sign int, ok bool) {
	var buf [16]float64
	parts, ok := Partials(buf[:0], v)
	if !ok {
		return 0, false
	}
	switch {
	case len(parts) == 0:
		return 0, true
	case parts[len(parts)-1] > 0:
		return 1, true
	}
	return -1, true
}
