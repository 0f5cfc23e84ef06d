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

// Round returns Σ parts rounded once to the nearest float64 (ties to
// even), for non-overlapping partials in increasing magnitude as Partials
// returns them: the top partials are added until one addition is inexact,
// and the rounding error then left is moved up by one ulp where the
// partials below push it past a tie (the final step of Python's
// math.fsum).
func Round(parts []float64) float64 {
	n := len(parts)
	if n == 0 {
		return 0
	}
	n--
	hi, lo := parts[n], 0.0
	for n > 0 {
		x := hi
		n--
		y := parts[n]
		hi = x + y
		lo = y - (hi - x)
		if lo != 0 {
			break
		}
	}
	if n > 0 && (lo < 0 && parts[n-1] < 0 || lo > 0 && parts[n-1] > 0) {
		y := 2 * lo
		if x := hi + y; x-hi == y {
			hi = x
		}
	}
	return hi
}

// exactProductMin is the least magnitude of a product whose rounding
// error Product returns exactly: below it the error term could fall
// under the least subnormal.
const exactProductMin = 0x1p-969

// Product returns a·b as hi + lo exactly (hi the rounded product, lo its
// error by a fused multiply-add: TwoProduct of Ogita, Rump and Oishi,
// "Accurate sum and dot product", 2005); ok is false where that is not
// exact:
// an overflow, or a nonzero product small enough that its error could
// underflow.
func Product(a, b float64) (hi, lo float64, ok bool) {
	hi = a * b
	if hi == 0 {
		return 0, 0, a == 0 || b == 0
	}
	if math.IsInf(hi, 0) || math.IsNaN(hi) || math.Abs(hi) < exactProductMin {
		return hi, 0, false
	}
	return hi, math.FMA(a, b, -hi), true
}
