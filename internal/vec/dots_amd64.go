//go:build !purego

package vec

// dots2x4FMA sets out to the eight dot products of Dots2x4 over the first
// n entries (a multiple of 4) of the vectors at a0 … b3.
//
//go:noescape
func dots2x4FMA(a0, a1, b0, b1, b2, b3 *float64, n int, out *[8]float64)
