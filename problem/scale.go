package problem

import (
	"math"

	"github.com/pmlopt/pmlopt/mech"
)

// ScaleUtility multiplies every utility by the power of two 2^−k that puts
// the largest magnitude in [1/2, 1), and returns k: a value computed from
// the scaled utility (an expected utility, a worst-case value, a utility
// threshold) is in the file's units once multiplied by 2^k
// (math.Ldexp(v, k)).
//
// The LP engines work with absolute tolerances near 1e-9 and Clp asserts
// that no objective coefficient reaches 1e25, so utilities of 1e-12 or
// 1e26 give wrong answers or abort. Scaling by a power of two is exact, it
// keeps the utility order, and a positive multiple of an objective has the
// same optimal mechanisms, so solving the scaled problem is solving the
// file's. ScaleUtility returns an error naming the entry when scaling
// would not be exact: an entry below 2^−1022 times the largest magnitude
// (the two do not fit in one float64 scale). It does nothing and returns 0
// when there is no utility or every entry is 0.
func (p *Problem) ScaleUtility() (int, error) {
	if p == nil {
		return 0, nil
	}
	mx, mi, mj := 0.0, 0, 0
	for i, row := range p.Utility {
		for j, v := range row {
			if a := math.Abs(v); a > mx {
				mx, mi, mj = a, i, j
			}
		}
	}
	if mx == 0 || math.IsInf(mx, 0) || math.IsNaN(mx) {
		return 0, nil
	}
	_, k := math.Frexp(mx) // mx = f·2^k with f in [1/2, 1)
	if k == 0 {
		return 0, nil
	}
	scaled := make(mech.Utility, len(p.Utility))
	for i, row := range p.Utility {
		scaled[i] = make([]float64, len(row))
		for j, v := range row {
			s := math.Ldexp(v, -k)
			if math.Ldexp(s, k) != v {
				return 0, fieldErr("utility", i, j, "is %g, too small next to the largest utility %g (row %d, column %d) to keep its value when the utilities are scaled to 1; set it to 0 or narrow the range", v, p.Utility[mi][mj], mi+1, mj+1)
			}
			scaled[i][j] = s
		}
	}
	p.Utility = scaled
	return k, nil
}

// moderate bounds the largest utility magnitude that ScaleExtremeUtility
// leaves as it is: the engines handle it exactly as given.
const moderate = 0x1p20

// ScaleExtremeUtility is ScaleUtility for utilities whose largest
// magnitude lies outside [2^−20, 2^20], and does nothing (returning 0)
// otherwise. The solvers' stopping tests are relative above magnitude 1
// and absolute below it, so scaling utilities of moderate size down to 1
// would loosen them: an expected utility of −6 on a counting query whose
// largest loss is 10⁴ would be certified to a relative 1e-5 instead of
// 1e-9.
func (p *Problem) ScaleExtremeUtility() (int, error) {
	if p == nil {
		return 0, nil
	}
	mx := 0.0
	for _, row := range p.Utility {
		for _, v := range row {
			mx = max(mx, math.Abs(v))
		}
	}
	if mx == 0 || (mx >= 1/moderate && mx <= moderate) {
		return 0, nil
	}
	return p.ScaleUtility()
}
