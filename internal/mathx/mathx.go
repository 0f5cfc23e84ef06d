package mathx

import "math"

// SmallestNormal is 2^-1022, the least positive normal float64: below it
// lie the subnormals, whose precision falls with their size.
const SmallestNormal = 0x1p-1022

// ln2Hi + ln2Lo = log 2 to about 2^-85 (Cody and Waite's split, as in
// fdlibm): ln2Hi has 32 significant bits, so e·ln2Hi is exact for every
// binary exponent e of a float64.
const (
	ln2Hi = 6.93147180369123816490e-01 // 0x3fe62e42fee00000
	ln2Lo = 1.90821492927058770002e-10 // 0x3dea39ef35793c76
)

// Pos returns x where it is not negative, else 0; NaN stays NaN. It is
// max(0, x) but for the sign of a zero (Pos(−0) = −0, which leaves a sum
// that starts at +0 as it was), and about half its cost, the builtin's
// rules for signed zeros taking a few more instructions: the robust
// master's pricing and bounds take it in their innermost loops.
func Pos(x float64) float64 {
	if x < 0 {
		return 0
	}
	return x
}

// Log returns the natural logarithm of x, as math.Log does, but right for
// subnormal x as well: within an ulp of the exact value for every x > 0.
// Special cases are those of math.Log: Log(+Inf) = +Inf, Log(0) = −Inf,
// Log(x < 0) = NaN, Log(NaN) = NaN.
func Log(x float64) float64 {
	if x > 0 && x < SmallestNormal {
		return logSubnormal(x)
	}
	return math.Log(x)
}

// logSubnormal returns log x for a subnormal x = f·2^e (f ∈ [½, 1), which
// math.Frexp finds exactly): log f + e·log 2, with e·log 2 in two parts so
// that only the last addition rounds at the result's scale.
func logSubnormal(x float64) float64 {
	f, e := math.Frexp(x)
	k := float64(e)
	return k*ln2Hi + (k*ln2Lo + math.Log(f))
}

// LogRatio returns log(a/b) for a, b ≥ 0: −Inf for a = 0 < b, +Inf for
// b = 0 < a, NaN for a = b = 0. Where the quotient a/b is a normal float64
// it is log(a/b), whose single rounding costs at most half an ulp of a/b;
// where it overflows or is subnormal (a ratio of a subnormal mass and a
// normal one, for instance), it is Log(a) − Log(b), each within an ulp.
func LogRatio(a, b float64) float64 {
	r := a / b
	if r >= SmallestNormal && r <= math.MaxFloat64 {
		return math.Log(r)
	}
	if a > 0 && b > 0 && !math.IsInf(a, 1) && !math.IsInf(b, 1) {
		return Log(a) - Log(b)
	}
	return Log(r)
}

// LogSumExp returns log Σ exp(x_k), or −Inf for an empty slice.
func LogSumExp(x []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = max(mx, v)
	}
	if math.IsInf(mx, 0) {
		return mx
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - mx)
	}
	return mx + Log(s)
}
