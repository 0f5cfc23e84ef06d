package verify

import (
	"errors"
	"math"
	"math/big"
	"sync"
	"sync/atomic"
)

// exactPrec holds any sum of products of two float64 exactly: such a
// product has 106 significant bits and an exponent in [−2148, 2048], so a
// sum of up to 2^40 of them spans fewer than 4 400 bits. Every operation
// is checked exact all the same (errInexact otherwise).
const exactPrec = 1 << 13

// boundPrec is the precision of the rational bounds on e^x.
const boundPrec = 256

var errInexact = errors.New("verify: an exact operation was rounded (numbers beyond the checker's precision)")

// arith does exact arithmetic on big.Float values, recording whether any
// operation rounded (it cannot for the inputs of a certificate, see
// exactPrec; the flag makes that a checked fact, not an assumption).
type arith struct{ inexact bool }

func (a *arith) num(x float64) *big.Float {
	return new(big.Float).SetPrec(exactPrec).SetFloat64(x)
}

func (a *arith) zero() *big.Float { return new(big.Float).SetPrec(exactPrec) }

func (a *arith) check(z *big.Float) *big.Float {
	if z.Acc() != big.Exact {
		a.inexact = true
	}
	return z
}

func (a *arith) add(z, x, y *big.Float) *big.Float { return a.check(z.Add(x, y)) }
func (a *arith) sub(z, x, y *big.Float) *big.Float { return a.check(z.Sub(x, y)) }
func (a *arith) mul(z, x, y *big.Float) *big.Float { return a.check(z.Mul(x, y)) }

// mulf sets z = x·y for float64 x, y: exact in float64-pair precision.
func (a *arith) mulf(z *big.Float, x, y float64) *big.Float {
	var bx, by big.Float
	bx.SetFloat64(x)
	by.SetFloat64(y)
	return a.check(z.Mul(&bx, &by))
}

// expBounds returns dyadic rationals lo ≤ e^x ≤ hi for a finite x.
//
// For x ≥ 0, r = x/2^k ≤ 1/2 exactly; e^r lies in [T, T + R] with T the
// Taylor polynomial Σ_{n≤40} r^n/n! and R = 2 r^41/41!, a bound on the
// remainder Σ_{n>40} r^n/n! (its terms fall by a factor r/(n+1) ≤ 1/82, so
// the tail is below the first term times 1/(1−1/82) < 2). Every operation
// rounds towards the side it bounds, and e^x = (e^r)^(2^k) is reached by k
// squarings rounded the same way. For x < 0, e^x = 1/e^{−x}.
func expBounds(x float64) (lo, hi *big.Float) {
	if v, ok := expCache.Load(x); ok {
		b := v.([2]*big.Float)
		return new(big.Float).Copy(b[0]), new(big.Float).Copy(b[1])
	}
	lo, hi = expBoundsOf(x)
	if expCacheSize.Add(1) <= expCacheMax {
		expCache.Store(x, [2]*big.Float{new(big.Float).Copy(lo), new(big.Float).Copy(hi)})
	}
	return lo, hi
}

// expCache keeps expBounds' answers by x: a certificate's checks ask the
// same few budgets many times, and each answer takes some hundred
// operations at boundPrec. expCacheMax bounds its size; past it, answers
// are computed and not kept.
var (
	expCache     sync.Map
	expCacheSize atomic.Int64
)

const expCacheMax = 4096

// expBoundsOf is expBounds without the cache.
func expBoundsOf(x float64) (lo, hi *big.Float) {
	if x < 0 {
		l, h := expBounds(-x)
		one := big.NewFloat(1)
		lo = new(big.Float).SetPrec(boundPrec).SetMode(big.ToNegativeInf).Quo(one, h)
		hi = new(big.Float).SetPrec(boundPrec).SetMode(big.ToPositiveInf).Quo(one, l)
		return lo, hi
	}
	k := 0
	if x > 0.5 {
		_, e := math.Frexp(x) // x = f·2^e with f in [1/2, 1)
		k = e
	}
	r := new(big.Float).SetPrec(boundPrec).SetFloat64(x)
	r.SetMantExp(r, -k) // exact: r = x/2^k ≤ 1/2
	lo = taylor(r, big.ToNegativeInf, false)
	hi = taylor(r, big.ToPositiveInf, true)
	for range k {
		lo = new(big.Float).SetPrec(boundPrec).SetMode(big.ToNegativeInf).Mul(lo, lo)
		hi = new(big.Float).SetPrec(boundPrec).SetMode(big.ToPositiveInf).Mul(hi, hi)
	}
	return lo, hi
}

// taylor returns Σ_{n≤40} r^n/n! for 0 ≤ r ≤ 1/2, every operation rounded
// in mode (towards −∞ for a lower bound, +∞ for an upper one), plus the
// remainder bound 2 r^41/41! when upper.
func taylor(r *big.Float, mode big.RoundingMode, upper bool) *big.Float {
	const terms = 40
	nf := func() *big.Float { return new(big.Float).SetPrec(boundPrec).SetMode(mode) }
	sum := nf().SetInt64(1)
	term := nf().SetInt64(1)
	for n := 1; n <= terms+1; n++ {
		term = nf().Mul(term, r)
		term = nf().Quo(term, new(big.Float).SetInt64(int64(n)))
		if n <= terms {
			sum = nf().Add(sum, term)
		} else if upper {
			sum = nf().Add(sum, nf().Mul(term, big.NewFloat(2)))
		}
	}
	return sum
}

// exactSign returns the sign (−1, 0 or 1) of Σ v in exact arithmetic,
// ok false where a float64 partial sum overflowed. The sum is kept as
// non-overlapping float64 partials, each addition split into its rounded
// sum and its rounding error (Dekker's Fast2Sum after ordering by
// magnitude; Shewchuk, "Adaptive precision floating-point arithmetic and
// fast robust geometric predicates", 1997): the partials below the
// largest sum to less than its last bit, so its sign is the sum's. The
// engines keep such partials too (internal/fsum); verify has its own, as
// it shares no code with what it checks.
func exactSign(v []float64) (sign int, ok bool) {
	var buf [16]float64
	parts := buf[:0]
	for _, x := range v {
		k := 0
		for _, y := range parts {
			if math.Abs(x) < math.Abs(y) {
				x, y = y, x
			}
			hi := x + y
			if lo := y - (hi - x); lo != 0 {
				parts[k] = lo
				k++
			}
			x = hi
		}
		parts = parts[:k]
		if x != 0 {
			parts = append(parts, x)
		}
	}
	for _, p := range parts {
		if math.IsInf(p, 0) || math.IsNaN(p) {
			return 0, false
		}
	}
	switch {
	case len(parts) == 0:
		return 0, true
	case parts[len(parts)-1] > 0:
		return 1, true
	}
	return -1, true
}
