//go:build !amd64 || purego

package vec

func dots2x4FMA(a0, a1, b0, b1, b2, b3 *float64, n int, out *[8]float64) {
	panic("vec: no FMA kernel")
}
