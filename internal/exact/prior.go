package exact

import (
	"math"
	"math/big"

	"github.com/pmlopt/pmlopt/mech"
)

// Dyadic returns the prior as written: every float64 as the exact dyadic
// rational k·2^e it is, the reading of package verify.
func Dyadic(pi mech.Prior) []*big.Rat {
	out := make([]*big.Rat, len(pi))
	for i, x := range pi {
		out[i] = new(big.Rat).SetFloat64(x)
	}
	return out
}

// Float64 returns the reading of the prior's float64 values that the exact
// pass solves for: Dyadic when their exact sum S is at most 1, else Dyadic
// divided by S, with sum = S either way. A float64 prior that validation
// accepts may sum to a few units of rounding above 1, and read as written
// it lets the constant mechanism (or one near it) reach t = 1/S < 1: a
// least ε below 0, where no prior that sums to 1 has one, and multipliers
// that prove it. Divided by S, it is a prior that sums to 1, and its least
// t = S·t*(as written) is within a factor S of the search's. At S < 1 the
// values as written already give t* ≥ 1/S > 1 and stay what verify reads.
func Float64(pi mech.Prior) (out []*big.Rat, sum *big.Rat) {
	out = Dyadic(pi)
	sum = new(big.Rat)
	for _, x := range out {
		sum.Add(sum, x)
	}
	if sum.Cmp(big.NewRat(1, 1)) > 0 {
		for _, x := range out {
			x.Quo(x, sum)
		}
	}
	return out, sum
}

// Fractions returns the prior read as the fractions it was most likely
// written as: each entry the rational of least denominator that rounds to
// the same float64 (1/7 for the float64 nearest 1/7, 3/5 for 0.6). ok is
// true when every entry has one and the fractions sum to 1 exactly; a
// prior of measured frequencies, whose simplest readings do not add up,
// is then read as written (Dyadic).
func Fractions(pi mech.Prior) (out []*big.Rat, ok bool) {
	out = make([]*big.Rat, len(pi))
	sum := new(big.Rat)
	for i, x := range pi {
		if !(x > 0) || math.IsInf(x, 0) {
			return nil, false
		}
		// Every rational strictly between the midpoints to x's neighbours
		// rounds to x (the midpoints themselves may round either way).
		lo := mid(x, math.Nextafter(x, 0))
		hi := mid(x, math.Nextafter(x, math.Inf(1)))
		out[i] = simplest(lo, hi)
		sum.Add(sum, out[i])
	}
	return out, sum.Cmp(big.NewRat(1, 1)) == 0
}

// mid returns (a + b)/2 exactly.
func mid(a, b float64) *big.Rat {
	r := new(big.Rat).SetFloat64(a)
	r.Add(r, new(big.Rat).SetFloat64(b))
	return r.Quo(r, big.NewRat(2, 1))
}

// simplest returns the rational of least denominator in the open interval
// (lo, hi), 0 ≤ lo < hi, by the continued-fraction descent of the
// Stern–Brocot tree: the integer just above lo if one lies below hi,
// else the common integer part plus the reciprocal of the simplest
// rational in the reciprocal interval.
func simplest(lo, hi *big.Rat) *big.Rat {
	fl := floor(lo)
	next := new(big.Rat).SetInt(new(big.Int).Add(fl, big.NewInt(1)))
	if next.Cmp(hi) < 0 {
		return next
	}
	base := new(big.Rat).SetInt(fl)
	dhi := new(big.Rat).Sub(hi, base) // in (0, 1]
	var y *big.Rat
	if dlo := new(big.Rat).Sub(lo, base); dlo.Sign() == 0 {
		// (0, dhi): the least integer above 1/dhi.
		inv := new(big.Rat).Inv(dhi)
		y = new(big.Rat).SetInt(new(big.Int).Add(floor(inv), big.NewInt(1)))
	} else {
		y = simplest(new(big.Rat).Inv(dhi), new(big.Rat).Inv(dlo))
	}
	return base.Add(base, y.Inv(y))
}

// floor returns ⌊x⌋ for x ≥ 0.
func floor(x *big.Rat) *big.Int {
	return new(big.Int).Quo(x.Num(), x.Denom())
}
