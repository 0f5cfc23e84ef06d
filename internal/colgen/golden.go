package colgen

// goldenSection narrows [lo, hi] around a minimum of f, unimodal there, by
// steps golden-section steps, and returns the two points it ends with and
// their values (the caller picks, and may compare them with the ends).
func goldenSection(f func(float64) float64, lo, hi float64, steps int) (x1, f1, x2, f2 float64) {
	const r = 0.6180339887498949 // (√5 − 1)/2
	x1, x2 = hi-r*(hi-lo), lo+r*(hi-lo)
	f1, f2 = f(x1), f(x2)
	for range steps {
		if f1 <= f2 {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - r*(hi-lo)
			f1 = f(x1)
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + r*(hi-lo)
			f2 = f(x2)
		}
	}
	return x1, f1, x2, f2
}
