package vec

import "gonum.org/v1/gonum/floats"

// AddScaled performs dst += alpha·s, like gonum's floats.AddScaled. It
// panics if the lengths differ.
func AddScaled(dst []float64, alpha float64, s []float64) {
	if len(dst) != len(s) {
		panic("vec: slice lengths do not match")
	}
	if useFMA {
		axpyFMA(alpha, s, dst)
		return
	}
	floats.AddScaled(dst, alpha, s)
}

// Dot returns s1·s2, like gonum's floats.Dot. It panics if the lengths
// differ.
func Dot(s1, s2 []float64) float64 {
	if len(s1) != len(s2) {
		panic("vec: slice lengths do not match")
	}
	if useFMA {
		return dotFMA(s1, s2)
	}
	return floats.Dot(s1, s2)
}

// Fused reports whether the kernels are the AVX2 ones with fused
// multiply-add. Their results differ from the portable kernels' in the
// last bits, which is enough to change the path of a simplex on a
// degenerate problem.
func Fused() bool { return useFMA }
