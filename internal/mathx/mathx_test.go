package mathx

import (
	"math"
	"math/big"
	"testing"
)

// ln2 and ln10 to 50 digits.
const (
	ln2Digits  = "0.69314718055994530941723212145817656807550013436026"
	ln10Digits = "2.30258509299404568401799145468436420760110148862877"
)

func bigConst(t *testing.T, s string) *big.Float {
	t.Helper()
	f, ok := new(big.Float).SetPrec(200).SetString(s)
	if !ok {
		t.Fatalf("bad constant %q", s)
	}
	return f
}

// ulp returns the spacing of float64s at x.
func ulp(x float64) float64 {
	x = math.Abs(x)
	return math.Nextafter(x, math.Inf(1)) - x
}

// Every subnormal is m·2^-1074 for an integer m in [1, 2^52), so
// log x = log m − 1074·log 2 exactly; log m of a normal m is math.Log's,
// within an ulp of a number below 37, far below an ulp of the result.
func TestLogSubnormalAgainstIdentity(t *testing.T) {
	ln2 := bigConst(t, ln2Digits)
	ms := []uint64{1, 2, 3, 5, 7, 1000, 123456789, 1 << 20, 1<<51 - 1, 1 << 51, 1<<51 + 12345, 1<<52 - 1}
	for k := uint64(1); k < 1<<52; k = k*3 + 1 {
		ms = append(ms, k)
	}
	for _, m := range ms {
		x := float64(m) * 0x1p-1074 // exact: m < 2^52
		if !(x > 0 && x < SmallestNormal) {
			t.Fatalf("m = %d: x = %g is not subnormal", m, x)
		}
		want := new(big.Float).SetPrec(200).SetFloat64(math.Log(float64(m)))
		want.Sub(want, new(big.Float).SetPrec(200).Mul(ln2, big.NewFloat(1074)))
		w, _ := want.Float64()
		if got := Log(x); math.Abs(got-w) > ulp(w) {
			t.Errorf("Log(%d·2^-1074) = %.17g, want %.17g (±1 ulp)", m, got, w)
		}
	}
}

// The value golang/go#56600 reports: log(1e-310) = −310·log 10 up to the
// rounding of 1e-310 to a subnormal (relative 2.5e-14 at most).
func TestLogOfTenToTheMinus310(t *testing.T) {
	want, _ := new(big.Float).Mul(bigConst(t, ln10Digits), big.NewFloat(-310)).Float64()
	if got := Log(1e-310); math.Abs(got-want) > 1e-12 {
		t.Errorf("Log(1e-310) = %.17g, want %.17g", got, want)
	}
	if got := Log(1e-310); math.Abs(got-(-713.801378828154)) > 1e-11 {
		t.Errorf("Log(1e-310) = %.17g, want −713.801378828154", got)
	}
	// The least subnormal: −1074·log 2.
	want, _ = new(big.Float).Mul(bigConst(t, ln2Digits), big.NewFloat(-1074)).Float64()
	if got := Log(5e-324); math.Abs(got-want) > ulp(want) {
		t.Errorf("Log(5e-324) = %.17g, want %.17g", got, want)
	}
}

// Across the boundary of the normal range Log is continuous and increasing,
// and on normal arguments it is math.Log itself.
func TestLogAtTheNormalBoundary(t *testing.T) {
	want, _ := new(big.Float).Mul(bigConst(t, ln2Digits), big.NewFloat(-1022)).Float64()
	if got := Log(SmallestNormal); math.Abs(got-want) > ulp(want) {
		t.Errorf("Log(2^-1022) = %.17g, want %.17g", got, want)
	}
	below := math.Nextafter(SmallestNormal, 0)
	lb, ln := Log(below), Log(SmallestNormal)
	// log(1 − 2^-52) ≈ −2.2e-16: the two agree to an ulp of 708.
	if !(lb <= ln) || ln-lb > ulp(ln) {
		t.Errorf("Log just below 2^-1022 = %.17g, at it %.17g", lb, ln)
	}
	prev := math.Inf(-1)
	for x := 5e-324; x < 1e-300; x *= 1.7 {
		v := Log(x)
		if !(v > prev) {
			t.Fatalf("Log(%g) = %.17g is not above Log of the previous point, %.17g", x, v, prev)
		}
		prev = v
	}
	for _, x := range []float64{SmallestNormal, 1e-300, 1e-10, 0.3, 1, 2, 1e300, math.MaxFloat64} {
		if Log(x) != math.Log(x) {
			t.Errorf("Log(%g) = %.17g, math.Log gives %.17g", x, Log(x), math.Log(x))
		}
	}
}

func TestLogSpecialCases(t *testing.T) {
	if v := Log(0); !math.IsInf(v, -1) {
		t.Errorf("Log(0) = %g, want -Inf", v)
	}
	if v := Log(math.Inf(1)); !math.IsInf(v, 1) {
		t.Errorf("Log(+Inf) = %g, want +Inf", v)
	}
	for _, x := range []float64{-1, -5e-324, math.NaN(), math.Inf(-1)} {
		if v := Log(x); !math.IsNaN(v) {
			t.Errorf("Log(%g) = %g, want NaN", x, v)
		}
	}
}

func TestLogRatio(t *testing.T) {
	ln10 := bigConst(t, ln10Digits)
	tenTo := func(k float64) float64 { v, _ := new(big.Float).Mul(ln10, big.NewFloat(k)).Float64(); return v }
	cases := []struct {
		a, b, want, tol float64
	}{
		// The quotient overflows: log 1 − log 1e-310.
		{1, 1e-310, tenTo(310), 1e-12},
		{0.5, 1e-310, tenTo(310) - math.Ln2, 1e-12},
		// The quotient is subnormal, or underflows to 0.
		{1e-310, 1, tenTo(-310), 1e-12},
		{1e-300, 1e10, tenTo(-310), 1e-12},
		// 1e-320 is m·2^-1074 with m its bits.
		{1e-320, 1e10, math.Log(float64(math.Float64bits(1e-320))) - 1074*math.Ln2 - tenTo(10), 1e-12},
		// Two subnormals with a normal quotient.
		{3e-320, 1e-320, math.Log(3), 1e-3},
		// Normal quotients: math.Log of the quotient.
		{0.3, 0.1, math.Log(0.3 / 0.1), 0},
		{1, 1, 0, 0},
	}
	for _, c := range cases {
		if got := LogRatio(c.a, c.b); math.Abs(got-c.want) > c.tol {
			t.Errorf("LogRatio(%g, %g) = %.17g, want %.17g (±%g)", c.a, c.b, got, c.want, c.tol)
		}
	}
	if v := LogRatio(0, 0.5); !math.IsInf(v, -1) {
		t.Errorf("LogRatio(0, 0.5) = %g, want -Inf", v)
	}
	if v := LogRatio(0.5, 0); !math.IsInf(v, 1) {
		t.Errorf("LogRatio(0.5, 0) = %g, want +Inf", v)
	}
	if v := LogRatio(0, 0); !math.IsNaN(v) {
		t.Errorf("LogRatio(0, 0) = %g, want NaN", v)
	}
}

// Pos is math.Max(0, x) to the bit, but for the sign of a zero and NaN,
// which it passes on (math.Max(0, NaN) is NaN as well).
func TestPosIsMaxWithZero(t *testing.T) {
	for _, x := range []float64{-math.MaxFloat64, -1, -SmallestNormal, -5e-324, 0, 5e-324, 1e-300, 0.5, 1, math.MaxFloat64, math.Inf(1), math.Inf(-1)} {
		if got, want := Pos(x), math.Max(0, x); got != want {
			t.Errorf("Pos(%v) = %v, want %v", x, got, want)
		}
	}
	if got := Pos(math.Copysign(0, -1)); got != 0 {
		t.Errorf("Pos(−0) = %v, want a zero", got)
	}
	if got := Pos(math.NaN()); !math.IsNaN(got) {
		t.Errorf("Pos(NaN) = %v, want NaN", got)
	}
}
