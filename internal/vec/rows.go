package vec

import "gonum.org/v1/gonum/floats"

// DotRows sets dst[i] to the dot product of x with the row of a at
// i·stride (len(x) entries from a[i·stride]), for each i < len(dst),
// each rounded as Dot rounds it: the products of a small dense matrix
// with a vector, in one call instead of one per row. It panics if a is
// too short.
func DotRows(dst, a []float64, stride int, x []float64) {
	if len(dst) == 0 {
		return
	}
	if (len(dst)-1)*stride+len(x) > len(a) {
		panic("vec: matrix too short")
	}
	if len(x) == 0 {
		clear(dst)
		return
	}
	if useFMA {
		dotRowsFMA(&dst[0], len(dst), &a[0], stride, &x[0], len(x))
		return
	}
	for i := range dst {
		dst[i] = floats.Dot(a[i*stride:i*stride+len(x)], x)
	}
}

// SubRows performs y −= c[i]·a_i for each nonzero c[i] in turn, a_i the
// row of a at i·stride (len(y) entries from a[i·stride]), each rounded
// as AddScaled(y, −c[i], a_i) rounds it: y less the product of a small
// dense matrix's transpose with c, in one call instead of one per row. It
// panics if a is too short.
func SubRows(y, c, a []float64, stride int) {
	if len(c) == 0 || len(y) == 0 {
		return
	}
	if (len(c)-1)*stride+len(y) > len(a) {
		panic("vec: matrix too short")
	}
	if useFMA {
		subRowsFMA(&y[0], len(y), &c[0], len(c), &a[0], stride)
		return
	}
	for i, ci := range c {
		if ci != 0 {
			floats.AddScaled(y, -ci, a[i*stride:i*stride+len(y)])
		}
	}
}
