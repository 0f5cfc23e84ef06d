package verify

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// refExp computes e^x at 3 000 bits by the plain Taylor series of e^|x|
// (no range reduction), with enough terms that the tail is far below the
// precision: a different computation from expBounds'.
func refExp(x float64) *big.Float {
	const prec = 3000
	ax := new(big.Float).SetPrec(prec).SetFloat64(math.Abs(x))
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for n := 1; n < 6000; n++ {
		term.Mul(term, ax)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(n)))
		sum.Add(sum, term)
		if n > 2*int(math.Abs(x))+10 && term.MantExp(nil) < sum.MantExp(nil)-prec-10 {
			break
		}
	}
	if x < 0 {
		return new(big.Float).SetPrec(prec).Quo(big.NewFloat(1).SetPrec(prec), sum)
	}
	return sum
}

func TestExpBoundsBracketReference(t *testing.T) {
	for _, x := range []float64{0, 1e-300, 0x1p-60, 1e-9, 0.1, 0.5, 0.5000000001, 1, math.Ln2, 1.2527629684953681, 3, 10, -0.1, -1, -37.5, 64, 100.25, 700, -700, -745} {
		lo, hi := expBounds(x)
		ref := refExp(x)
		if lo.Cmp(ref) > 0 || hi.Cmp(ref) < 0 {
			t.Fatalf("e^%v: [%v, %v] misses the reference %v", x, lo, hi, ref)
		}
		// The bracket is narrow: within 2^-160 relative (11 squarings widen
		// the 256-bit roundings of e^r by 2^11).
		w := new(big.Float).SetPrec(3000).Sub(hi, lo)
		rel := new(big.Float).SetPrec(3000).Quo(w, ref)
		if rel.Cmp(big.NewFloat(0x1p-160)) > 0 {
			t.Errorf("e^%v: bracket of relative width %v", x, rel)
		}
		// And it agrees with math.Exp to its accuracy.
		if f, _ := ref.Float64(); math.Abs(f-math.Exp(x)) > 4e-16*math.Exp(x) {
			t.Errorf("e^%v: reference %v, math.Exp %v", x, f, math.Exp(x))
		}
	}
}

func TestArithFlagsRounding(t *testing.T) {
	var a arith
	x := a.num(1)
	y := a.num(0x1p-1074)
	z := a.add(a.zero(), x, y) // 1075 bits: exact at exactPrec
	if a.inexact {
		t.Fatal("1 + 2^-1074 flagged inexact")
	}
	big1 := new(big.Float).SetPrec(exactPrec).SetMantExp(big.NewFloat(1), 9000)
	a.add(a.zero(), big1, z) // 10 075 bits: rounded
	if !a.inexact {
		t.Fatal("a rounded sum was not flagged")
	}
}

// A bound stated without multipliers is refused by name.
func TestBoundWithoutMultipliers(t *testing.T) {
	b := 1.0
	c := Certificate{Objective: "expected-utility", Measure: "pml", Epsilon: 0x1p-30,
		Budget: &Budget{Epsilon: 1}, Utility: &Utility{ExpectedUtility: 0.5, Bound: &b}}
	p := Problem{Prior: []float64{0.5, 0.5}, Utility: [][]float64{{1, 0}, {0, 1}}, Mechanism: [][]float64{{0.5, 0.5}, {0.5, 0.5}}}
	claims := Check(p, c)
	var bound *Claim
	for k := range claims {
		if claims[k].Name == ClaimBound {
			bound = &claims[k]
		}
	}
	if bound == nil || bound.OK {
		t.Fatalf("claims %v: want a failed bound claim", claims)
	}
	// The other claims hold: the independent mechanism has PML 0 and
	// expected utility 1/2.
	for _, cl := range claims {
		if cl.Name != ClaimBound && !cl.OK {
			t.Errorf("%v", cl)
		}
	}
}

// expBounds answers from its cache what it computed before, as copies: a
// second call returns the same bracket, and a caller that changes the
// values it got does not change the next caller's.
func TestExpBoundsCachedCopies(t *testing.T) {
	for _, x := range []float64{0.75, -2.5, 13} {
		lo, hi := expBounds(x)
		want0, want1 := expBoundsOf(x)
		if lo.Cmp(want0) != 0 || hi.Cmp(want1) != 0 {
			t.Fatalf("e^%v: [%v, %v], uncached [%v, %v]", x, lo, hi, want0, want1)
		}
		lo.SetInt64(-1)
		hi.SetInt64(-1)
		lo2, hi2 := expBounds(x)
		if lo2.Cmp(want0) != 0 || hi2.Cmp(want1) != 0 {
			t.Fatalf("e^%v: after the first caller changed its copies, [%v, %v]", x, lo2, hi2)
		}
	}
}

// exactSign is the sign of the big.Float sum on random sums that cancel
// to nothing, to one ulp or to a subnormal (magnitudes 1e-320 to 1e300),
// and reports an overflowed partial sum as undecided.
func TestExactSignAgreesWithBigFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	zeros := 0
	for trial := range 20000 {
		n := 1 + rng.IntN(30)
		v := make([]float64, 0, 2*n+1)
		for range n {
			x := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(620)-320))
			v = append(v, x)
			if rng.IntN(2) == 0 {
				v = append(v, -x)
			}
		}
		if trial%3 == 0 {
			v = append(v, math.Nextafter(0, 1)*float64(rng.IntN(3)-1))
		}
		rng.Shuffle(len(v), func(i, j int) { v[i], v[j] = v[j], v[i] })
		want := new(big.Float).SetPrec(exactPrec)
		for _, x := range v {
			want.Add(want, new(big.Float).SetFloat64(x))
		}
		s, ok := exactSign(v)
		if !ok || s != want.Sign() {
			t.Fatalf("trial %d: sign %d (ok %v), want %d", trial, s, ok, want.Sign())
		}
		if s == 0 {
			zeros++
		}
	}
	if zeros < 100 {
		t.Errorf("only %d sums of zero: the cancelling cases are not tried", zeros)
	}
	if _, ok := exactSign([]float64{math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64}); ok {
		t.Error("an overflowed partial sum gave a sign")
	}
}
