// Package decimal prints the ends of certified intervals in decimal,
// rounded outward: a lower end printed with fewer digits must not claim
// more than was proven, nor an upper end promise a budget that is too
// small.
package decimal

import (
	"math"
	"strconv"

	"github.com/pmlopt/pmlopt/internal/mathx"
)

// Down returns x with digits significant digits, rounded towards −∞: the
// printed value is at most x.
func Down(x float64, digits int) string { return outward(x, digits, -1) }

// Up returns x with digits significant digits, rounded towards +∞: the
// printed value is at least x.
func Up(x float64, digits int) string { return outward(x, digits, +1) }

// outward formats x to digits significant digits (as %.<digits>g), then
// steps the last digit once in direction dir when rounding to nearest went
// the other way. Non-finite values print as strconv does.
func outward(x float64, digits int, dir float64) string {
	s := strconv.FormatFloat(x, 'g', digits, 64)
	if math.IsInf(x, 0) || math.IsNaN(x) || x == 0 {
		return s
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || (v-x)*dir >= 0 {
		return s
	}
	// One unit in the last printed digit of x (math.Log10 goes through
	// math.Log, wrong for a subnormal x on amd64).
	e := math.Floor(mathx.Log(math.Abs(x)) * (1 / math.Ln10))
	ulp := math.Pow(10, e-float64(digits-1))
	for k := 1; k <= 2; k++ {
		s = strconv.FormatFloat(v+dir*float64(k)*ulp, 'g', digits, 64)
		if w, err := strconv.ParseFloat(s, 64); err == nil && (w-x)*dir >= 0 {
			return s
		}
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
