// Package golden is golden-section search for the minimum of a function
// of one variable that is unimodal on an interval.
package golden

// ratio is (√5 − 1)/2, the share of the interval each step keeps.
const ratio = 0.6180339887498949

// Section narrows [lo, hi] around a minimum of f, unimodal there, by steps
// golden-section steps, and returns the two points it ends with and their
// values (the caller picks, and may compare them with the ends). Each step
// costs one evaluation of f and keeps 0.618 of the interval.
func Section(f func(float64) float64, lo, hi float64, steps int) (x1, f1, x2, f2 float64) {
	x1, x2 = hi-ratio*(hi-lo), lo+ratio*(hi-lo)
	f1, f2 = f(x1), f(x2)
	for range steps {
		if f1 <= f2 {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - ratio*(hi-lo)
			f1 = f(x1)
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + ratio*(hi-lo)
			f2 = f(x2)
		}
	}
	return x1, f1, x2, f2
}
