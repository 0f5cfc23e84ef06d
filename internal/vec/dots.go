package vec

import "math"

// Dots2x4 sets out[4r+s] to the dot product of a[r] and b[s] (r < 2,
// s < 4), eight dot products of vectors of one length: the register block
// of a Gram product WWᵀ, which loads each entry of the six vectors once
// for eight multiply-adds where eight separate dot products load two per
// one. It panics if the lengths differ.
func Dots2x4(a0, a1, b0, b1, b2, b3 []float64, out *[8]float64) {
	n := len(a0)
	if len(a1) != n || len(b0) != n || len(b1) != n || len(b2) != n || len(b3) != n {
		panic("vec: slice lengths do not match")
	}
	head := 0
	if useFMA && n >= 4 {
		head = n &^ 3
		dots2x4FMA(&a0[0], &a1[0], &b0[0], &b1[0], &b2[0], &b3[0], head, out)
		for k := head; k < n; k++ {
			out[0] = math.FMA(a0[k], b0[k], out[0])
			out[1] = math.FMA(a0[k], b1[k], out[1])
			out[2] = math.FMA(a0[k], b2[k], out[2])
			out[3] = math.FMA(a0[k], b3[k], out[3])
			out[4] = math.FMA(a1[k], b0[k], out[4])
			out[5] = math.FMA(a1[k], b1[k], out[5])
			out[6] = math.FMA(a1[k], b2[k], out[6])
			out[7] = math.FMA(a1[k], b3[k], out[7])
		}
		return
	}
	var s [8]float64
	for k := range n {
		x, y := a0[k], a1[k]
		s[0] += x * b0[k]
		s[1] += x * b1[k]
		s[2] += x * b2[k]
		s[3] += x * b3[k]
		s[4] += y * b0[k]
		s[5] += y * b1[k]
		s[6] += y * b2[k]
		s[7] += y * b3[k]
	}
	*out = s
}
