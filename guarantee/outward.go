package guarantee

import "math"

// Outward rounding. An implied level is a bound, and rounding may only weaken
// it: a level that bounds a measure from above is rounded up, a level that
// must stay below a true value (LDPForPML) is rounded down. Each step below
// moves a computed intermediate by ulps ulps in the direction that keeps the
// final bound safe. IEEE 754 rounds +, −, ×, ÷ correctly (half an ulp), and
// Go's math.Expm1, math.Log1p and math.Exp, and mathx.Log, are accurate to
// within one ulp (math.Log is not for a subnormal p_min, hence mathx.Log),
// so one step of one ulp bounds each of them; the formulas
// are chosen monotone in each intermediate so that bounding the
// intermediates bounds the result.
const ulps = 1

// up returns x moved ulps ulps towards +Inf (x itself when it is ±Inf or NaN).
func up(x float64) float64 {
	for k := 0; k < ulps; k++ {
		x = math.Nextafter(x, math.Inf(1))
	}
	return x
}

// down returns x moved ulps ulps towards −Inf.
func down(x float64) float64 {
	for k := 0; k < ulps; k++ {
		x = math.Nextafter(x, math.Inf(-1))
	}
	return x
}

// addUp returns the least float64 not below a + b: the rounded sum, moved
// one ulp up when Knuth's TwoSum finds that rounding went down.
func addUp(a, b float64) float64 {
	s := a + b
	bb := s - a
	if e := (a - (s - bb)) + (b - bb); e > 0 {
		s = math.Nextafter(s, math.Inf(1))
	}
	return s
}
