package guarantee

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

// prec is the precision of the references. The formulas are evaluated as
// written, subtractions from 1 included; 1 − p_min must be exact for
// p_min = 1e-300, which takes about 1000 bits, so prec is well above the
// 53 bits of a float64.
const prec = 1200

// maxULPs is how far above (or, for LDPForPML, below) the exact value an
// implied level may lie.
const maxULPs = 16

func bf(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }

func bigAdd(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(prec).Add(a, b) }
func bigSub(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(prec).Sub(a, b) }
func bigMul(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(prec).Mul(a, b) }
func bigQuo(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(prec).Quo(a, b) }
func bigNeg(a *big.Float) *big.Float    { return new(big.Float).SetPrec(prec).Neg(a) }

// bigAtanh2 returns 2·atanh(t) = log((1+t)/(1−t)) by its series, |t| ≤ 1/3.
func bigAtanh2(t *big.Float) *big.Float {
	sum := bf(0)
	t2 := bigMul(t, t)
	pow := new(big.Float).SetPrec(prec).Set(t)
	eps := new(big.Float).SetPrec(prec).SetMantExp(bf(1), -prec)
	for k := 1; ; k += 2 {
		term := bigQuo(pow, bf(float64(k)))
		sum = bigAdd(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
		pow = bigMul(pow, t2)
	}
	return bigMul(sum, bf(2))
}

var bigLn2 = bigAtanh2(bigQuo(bf(1), bf(3)))

// bigLog returns the natural logarithm of x > 0: x = m·2^e, m ∈ [1/2, 1),
// log x = e·log 2 + 2·atanh((m−1)/(m+1)).
func bigLog(x *big.Float) *big.Float {
	m := new(big.Float).SetPrec(prec)
	e := x.MantExp(m)
	t := bigQuo(bigSub(m, bf(1)), bigAdd(m, bf(1)))
	return bigAdd(bigMul(bf(float64(e)), bigLn2), bigAtanh2(t))
}

// bigExp returns e^x: x = k·log 2 + r, e^r by its Taylor series after
// halving r 64 times, then squared back.
func bigExp(x *big.Float) *big.Float {
	kf, _ := bigQuo(x, bigLn2).Float64()
	k := math.Round(kf)
	r := bigSub(x, bigMul(bf(k), bigLn2))
	r.SetMantExp(r, -64)
	sum, term := bf(1), bf(1)
	eps := new(big.Float).SetPrec(prec).SetMantExp(bf(1), -prec-8)
	for n := 1; ; n++ {
		term = bigQuo(bigMul(term, r), bf(float64(n)))
		sum = bigAdd(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	for i := 0; i < 64; i++ {
		sum = bigMul(sum, sum)
	}
	return new(big.Float).SetPrec(prec).SetMantExp(sum, int(k))
}

func TestBigReferences(t *testing.T) {
	// log 2, e^1 and e^50 against their float64 values.
	f, _ := bigLog(bf(2)).Float64()
	assert.Equal(t, math.Ln2, f)
	f, _ = bigExp(bf(1)).Float64()
	assert.Equal(t, math.E, f)
	f, _ = bigExp(bf(50)).Float64()
	assert.InDelta(t, 1, f/math.Exp(50), 1e-15)
	f, _ = bigLog(bigExp(bf(-50))).Float64()
	assert.Equal(t, -50.0, f)
}

// References: the formulas of the implied guarantees as printed in the
// papers, evaluated at prec bits. ok is false where the formula is
// undefined (outside PML's high-privacy regime).
func refPMCFromPML(eu, pmin float64) (float64, bool) {
	den := bigSub(bf(1), bigMul(bigExp(bf(eu)), bigSub(bf(1), bf(pmin))))
	if den.Sign() <= 0 {
		return 0, false
	}
	v, _ := bigLog(bigQuo(bf(pmin), den)).Float64()
	return v, true
}

func refPMLFromPMC(el, pmin float64) float64 {
	num := bigSub(bf(1), bigMul(bigExp(bf(-el)), bigSub(bf(1), bf(pmin))))
	v, _ := bigLog(bigQuo(num, bf(pmin))).Float64()
	return v
}

func refFromLDP(eps, pmin float64) (e1, e2 float64) {
	q := bigSub(bf(1), bf(pmin))
	e1, _ = bigLog(bigAdd(bf(pmin), bigMul(bigExp(bf(eps)), q))).Float64()
	e2, _ = bigNeg(bigLog(bigAdd(bf(pmin), bigMul(bigExp(bf(-eps)), q)))).Float64()
	return e1, e2
}

func refLDPForPML(eps, pmin float64) float64 {
	v, _ := bigNeg(bigLog(bigQuo(bigSub(bigExp(bf(-eps)), bf(pmin)), bigSub(bf(1), bf(pmin))))).Float64()
	return v
}

// ulpsAbove returns how many float64 steps got lies above want (negative
// when below).
func ulpsAbove(got, want float64) int {
	if got == want {
		return 0
	}
	n, dir := 0, math.Inf(1)
	if got < want {
		dir = math.Inf(-1)
	}
	for x := want; x != got && n < 1<<20; x = math.Nextafter(x, dir) {
		n++
	}
	if got < want {
		return -n
	}
	return n
}

var (
	precisionPMin = []float64{1e-3, 1e-12, 1e-300}
	precisionEps  = []float64{0, 1e-300, 1e-12, 1e-6, 1, 50}
)

// TestImpliedBoundsOutward checks every implied level against the exact
// value of its formula: never on the unsafe side (an upper bound never
// below, LDPForPML never above) and within maxULPs of it.
func TestImpliedBoundsOutward(t *testing.T) {
	checkOutward(t, precisionPMin, precisionEps)
}

// TestImpliedBoundsOutwardSubnormal does the same for a p_min at or below
// the smallest normal float64, where math.Log is wrong on amd64 and
// e^{−ε}/p_min overflows, and for levels beyond e^ε's range. (At
// ε = 713.8 and p_min = 1e-310, LDPForPML's e^{−ε} − p_min cancels to a
// seven hundredth of each: an ulp of ε moves the answer by 725 ulps, so
// the points stay away from that.)
func TestImpliedBoundsOutwardSubnormal(t *testing.T) {
	checkOutward(t, []float64{0x1p-1022, 1e-310, 1e-320, 5e-324},
		[]float64{0, 1e-300, 1e-12, 0.2877, 1, 50, 700, 713, 745, 800})
	checkOutward(t, []float64{1e-320}, []float64{713.8})
}

// TestImpliedBoundsOutwardSubnormalLevel is a level ε itself subnormal: the
// bounds are on the safe side, and as close as the few roundings of
// quantities of ε's size allow, each an absolute 2^-1074: within maxULPs of
// a subnormal result, within a relative 4·2^-1074/ε of a normal one.
func TestImpliedBoundsOutwardSubnormalLevel(t *testing.T) {
	for _, pmin := range []float64{0.5, 1e-12, 0x1p-1022, 1e-310, 1e-320, 5e-324} {
		for _, eps := range []float64{1e-320, 1e-315, 5e-324} {
			rel := 4 * 0x1p-1074 / eps
			check := func(name string, got, want float64, upper bool) {
				t.Helper()
				safe := got >= want
				if !upper {
					safe = got <= want
				}
				d := ulpsAbove(got, want)
				close := (d <= maxULPs && d >= -maxULPs) || math.Abs(got-want) <= rel*want
				assert.True(t, safe && close,
					"%s(%g, %g) = %.17g, exact %.17g", name, eps, pmin, got, want)
			}
			if want, ok := refPMCFromPML(eps, pmin); ok {
				check("PMCFromPML", PMCFromPML(eps, pmin), math.Max(0, want), true)
			} else {
				assert.True(t, math.IsInf(PMCFromPML(eps, pmin), 1))
			}
			check("PMLFromPMC", PMLFromPMC(eps, pmin), refPMLFromPMC(eps, pmin), true)
			e1, e2 := FromLDP(eps, pmin)
			w1, w2 := refFromLDP(eps, pmin)
			check("ε1 of FromLDP", e1, w1, true)
			check("ε2 of FromLDP", e2, w2, true)
			if bf(-eps).Cmp(bigLog(bf(pmin))) > 0 {
				check("LDPForPML", LDPForPML(eps, pmin), refLDPForPML(eps, pmin), false)
			}
		}
	}
}

func checkOutward(t *testing.T, pmins, epss []float64) {
	t.Helper()
	upper := func(name string, got, want float64) {
		t.Helper()
		d := ulpsAbove(got, want)
		assert.True(t, d >= 0 && d <= maxULPs, "%s = %.17g, exact %.17g: %d ulps above", name, got, want, d)
	}
	for _, pmin := range pmins {
		for _, eps := range epss {
			if want, ok := refPMCFromPML(eps, pmin); ok {
				upper(fmt.Sprintf("PMCFromPML(%g, %g)", eps, pmin), PMCFromPML(eps, pmin), math.Max(0, want))
			} else {
				assert.True(t, math.IsInf(PMCFromPML(eps, pmin), 1))
			}
			upper(fmt.Sprintf("PMLFromPMC(%g, %g)", eps, pmin), PMLFromPMC(eps, pmin), refPMLFromPMC(eps, pmin))
			e1, e2 := FromLDP(eps, pmin)
			w1, w2 := refFromLDP(eps, pmin)
			upper(fmt.Sprintf("ε1 of FromLDP(%g, %g)", eps, pmin), e1, w1)
			upper(fmt.Sprintf("ε2 of FromLDP(%g, %g)", eps, pmin), e2, w2)
			if bf(-eps).Cmp(bigLog(bf(pmin))) > 0 { // ε < −log p_min
				got, want := LDPForPML(eps, pmin), refLDPForPML(eps, pmin)
				d := ulpsAbove(got, want)
				assert.True(t, d <= 0 && d >= -maxULPs, "LDPForPML(%g, %g) = %.17g, exact %.17g: %d ulps", eps, pmin, got, want, d)
			}
		}
	}
}

// TestImpliedWithTinyPMin is the cancellation the direct formulas suffer at
// p_min = 1e-12: PML 0 implies PMC exactly 0, and 1e-12-PMC implies
// log(2 − 1e-12) ≈ log 2 PML.
func TestImpliedWithTinyPMin(t *testing.T) {
	imps, err := Implied(mech.Budget{Measure: mech.PML, Epsilon: 0}, 1e-12)
	require.NoError(t, err)
	for _, im := range imps {
		require.True(t, im.Holds)
		if im.Implied.Measure == mech.PMC {
			assert.Equal(t, 0.0, im.Implied.Epsilon)
		}
	}
	imps, err = Implied(mech.Budget{Measure: mech.PMC, Epsilon: 1e-12}, 1e-12)
	require.NoError(t, err)
	want := refPMLFromPMC(1e-12, 1e-12)
	assert.InDelta(t, math.Ln2, want, 1e-11)
	for _, im := range imps {
		if im.Implied.Measure == mech.PML {
			d := ulpsAbove(im.Implied.Epsilon, want)
			assert.True(t, d >= 0 && d <= maxULPs, "PML %.17g, exact %.17g", im.Implied.Epsilon, want)
		}
	}
}

func TestAddUp(t *testing.T) {
	assert.Equal(t, 0.0, addUp(0, 0))
	assert.Equal(t, 3.0, addUp(1, 2))
	// 1 + 2^-60 rounds down to 1; the sum rounded up is the next float.
	assert.Equal(t, math.Nextafter(1, 2), addUp(1, math.Ldexp(1, -60)))
	// 1 − 2^-60 rounds up to 1 already.
	assert.Equal(t, 1.0, addUp(1, -math.Ldexp(1, -60)))
}
