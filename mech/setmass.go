package mech

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"
	"sync"

	"github.com/pmlopt/pmlopt/internal/fsum"
)

// The least and largest mass of a column over a prior set, summed
// exactly and rounded once.
//
// A box's least mass is Σ_k l_k c_k plus the rest S − Σ l poured onto the
// cheapest letters, and that rest is a difference of numbers near 1: where
// the letters that take most of it have c_k = 0 (a box whose lower end is
// 0 there) and the one that takes the last of it has c_k = 1, the rounding
// of the rest is most of the least mass, and a float fill would be off by
// nats in the level. So every sum here is kept as fsum's partials and
// every product as its rounded value and its error (fsum.Product), with
// big.Float where those could underflow or overflow: the result is the
// exact mass rounded once, the same number the certificate checker
// (package verify) computes in arbitrary precision.
//
// A problem file's estimate sums to S, within 1e-9 of 1 but rarely 1
// exactly. A ball's priors are moves of mass from the estimate and total
// S. A box's priors total anything between 1 and S: the box holds the
// estimate and every distribution within its bounds. The least mass over
// such a box pours min(1, S) − Σ l, the largest max(1, S) − Σ l: were the
// least mass to pour S > 1, a column whose only positive entry is on a
// letter the box lets reach 1 would get the excess S − 1 ≈ 1e-16 as its
// mass, and a deterministic mechanism a finite level over a box that
// holds the prior putting everything on the other letters. The
// certificate checker reads both sets the same way, and both read the
// result within the column's range (withinCosts).

// fillPrec is the precision of the big.Float fills: enough for every
// product of two float64 values and their sums over the exponent range.
const fillPrec = 1 << 13

// massOver returns min (max when hi) over the set of Σ_k π_k c_k.
func (s *PriorSet) massOver(c []float64, hi bool) float64 {
	if len(c) != len(s.Center) {
		panic(fmt.Sprintf("mech: PriorSet mass: %d costs for %d letters", len(c), len(s.Center)))
	}
	f := fillPool.Get().(*exactFill)
	defer fillPool.Put(f)
	f.reset(len(c))
	order := fillOrder(f.order, c, hi)
	if s.IsBox() {
		if v, ok := f.box(s, c, order, hi); ok {
			return v
		}
		return s.boxBig(c, order, hi)
	}
	if v, ok := f.ball(s, c, order); ok {
		return v
	}
	return s.ballBig(c, order)
}

// fillPool holds the fills' scratch: the audits read every column of
// every mechanism an engine returns, many per search.
var fillPool = sync.Pool{New: func() any { return new(exactFill) }}

// fillOrder sets order to the letters by c, cheapest first (dearest first
// when hi), ties by index, and returns it.
func fillOrder(order []int, c []float64, hi bool) []int {
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if hi {
			return cmp.Compare(c[b], c[a])
		}
		return cmp.Compare(c[a], c[b])
	})
	return order
}

// exactFill keeps the sums of a fill as fsum's partials: the mass as
// products' parts (terms) and the mass left to move (rest). ok turns false
// at the first step that could not be exact. order and work are scratch
// of the set's size.
type exactFill struct {
	terms, rest, amt, buf, work []float64
	order                       []int
	ok                          bool
}

// reset readies f for a fill over n letters.
func (f *exactFill) reset(n int) {
	f.terms, f.rest, f.amt, f.buf = f.terms[:0], f.rest[:0], f.amt[:0], f.buf[:0]
	f.work = slices.Grow(f.work[:0], n+1)
	if cap(f.order) < n {
		f.order = make([]int, n)
	}
	f.order, f.ok = f.order[:n], true
}

// add adds a·b to the mass.
func (f *exactFill) add(a, b float64) {
	h, e, ok := fsum.Product(a, b)
	switch {
	case !ok:
		f.ok = false
	case h != 0:
		f.terms = append(f.terms, h, e)
	}
}

// take sets amt to min(hi + lo, rest) as partials and takes it off the
// rest; hi + lo is a rounded value and its error (|lo| below hi's last
// bit).
func (f *exactFill) take(hi, lo float64) {
	f.buf = append(f.buf[:0], hi, lo)
	for _, r := range f.rest {
		f.buf = append(f.buf, -r)
	}
	sign, ok := fsum.Sign(f.buf)
	if !ok {
		f.ok = false
		return
	}
	f.amt = f.amt[:0]
	switch {
	case sign > 0:
		f.amt = append(f.amt, f.rest...)
	case lo != 0: // partials: increasing magnitude, none 0
		f.amt = append(f.amt, lo, hi)
	case hi != 0:
		f.amt = append(f.amt, hi)
	}
	f.buf = append(f.buf[:0], f.rest...)
	for _, a := range f.amt {
		f.buf = append(f.buf, -a)
	}
	if f.rest, ok = fsum.Partials(f.rest[:0], f.buf); !ok {
		f.ok = false
	}
}

// left reports whether some mass is left to move: the sign of the
// largest of the non-overlapping partials.
func (f *exactFill) left() bool { return len(f.rest) > 0 && f.rest[len(f.rest)-1] > 0 }

// mass returns the mass rounded once.
func (f *exactFill) mass() (float64, bool) {
	if !f.ok {
		return 0, false
	}
	parts, ok := fsum.Partials(f.terms[len(f.terms):], f.terms)
	if !ok {
		return 0, false
	}
	return fsum.Round(parts), true
}

// diff returns a − b as its rounding and its error (Knuth's TwoSum).
func diff(a, b float64) (d, e float64) {
	d = a - b
	bv := d - a
	return d, (a - (d - bv)) + (-b - bv)
}

// box is the box's fill in float64 partials; ok is false where they
// could not keep it exact.
func (f *exactFill) box(s *PriorSet, c []float64, order []int, hi bool) (float64, bool) {
	// The rest T − Σ l, T the total boxTotal pours.
	w := append(f.work[:0], s.boxTotal(hi, f.work)...)
	for _, l := range s.Lower {
		w = append(w, -l)
	}
	rest, ok := fsum.Partials(f.rest, w)
	if !ok {
		return 0, false
	}
	f.rest, f.work = rest, w
	for k, l := range s.Lower {
		f.add(l, c[k])
	}
	for _, k := range order {
		if !f.ok || !f.left() {
			break
		}
		// u − l ≥ 0 exactly: its rounding and error.
		f.take(diff(s.Upper[k], s.Lower[k]))
		for _, a := range f.amt {
			f.add(a, c[k])
		}
	}
	return f.mass()
}

// ball is the ball's moves in float64 partials: min(r/2, S − π̂_b) of
// mass onto the cheapest letter b (dearest when the order is so) from the
// others, dearest first, each at most down to 0; moving a from i to b
// adds a·(c_b − c_i).
func (f *exactFill) ball(s *PriorSet, c []float64, order []int) (float64, bool) {
	n := len(c)
	b := order[0]
	others := f.work[:0]
	for k, v := range s.Center {
		f.add(v, c[k])
		if k != b {
			others = append(others, v)
		}
	}
	half := s.Radius / 2
	if half*2 != s.Radius {
		return 0, false // the halving rounded (a subnormal radius)
	}
	f.work = others
	rest, ok := fsum.Partials(f.rest, others)
	if !ok {
		return 0, false
	}
	// min(r/2, S − π̂_b), taken off nothing.
	f.rest = rest
	f.take(half, 0)
	f.rest = append(f.rest[:0], f.amt...)
	for idx := n - 1; idx > 0 && f.ok && f.left(); idx-- {
		i := order[idx]
		f.take(s.Center[i], 0)
		d, e := diff(c[b], c[i])
		for _, a := range f.amt {
			f.add(a, d)
			f.add(a, e)
		}
	}
	return f.mass()
}

// boxTotal returns the total a box's fill pours, as terms whose exact sum
// it is: the estimate's masses where their sum S lies below 1 for the
// least mass (above 1 for the largest), else 1. scratch has room for the
// estimate and one more.
func (s *PriorSet) boxTotal(hi bool, scratch []float64) []float64 {
	sign, ok := fsum.Sign(append(append(scratch[:0], s.Center...), -1))
	if ok && (sign < 0 && !hi || sign > 0 && hi) {
		return s.Center
	}
	return unitTotal
}

// unitTotal is the total 1 as boxTotal's terms (read only).
var unitTotal = []float64{1}

// bigSum returns Σ v in big.Float.
func bigSum(v []float64) *big.Float {
	sum := new(big.Float).SetPrec(fillPrec)
	var t big.Float
	for _, x := range v {
		sum.Add(sum, t.SetFloat64(x))
	}
	return sum
}

func bigOf(x float64) *big.Float { return new(big.Float).SetPrec(fillPrec).SetFloat64(x) }

// boxBig is the box's fill in big.Float.
func (s *PriorSet) boxBig(c []float64, order []int, hi bool) float64 {
	rest := bigSum(s.boxTotal(hi, make([]float64, 0, len(s.Center)+1)))
	rest.Sub(rest, bigSum(s.Lower))
	sum, t := bigOf(0), bigOf(0)
	for k, l := range s.Lower {
		sum.Add(sum, t.Mul(bigOf(l), bigOf(c[k])))
	}
	for _, k := range order {
		if rest.Sign() <= 0 {
			break
		}
		amt := bigOf(s.Upper[k])
		amt.Sub(amt, bigOf(s.Lower[k]))
		if amt.Cmp(rest) > 0 {
			amt.Set(rest)
		}
		if amt.Sign() <= 0 {
			continue
		}
		sum.Add(sum, t.Mul(amt, bigOf(c[k])))
		rest.Sub(rest, amt)
	}
	v, _ := sum.Float64()
	return v
}

// ballBig is the ball's moves in big.Float.
func (s *PriorSet) ballBig(c []float64, order []int) float64 {
	n := len(c)
	sum, t := bigOf(0), bigOf(0)
	for k, v := range s.Center {
		sum.Add(sum, t.Mul(bigOf(v), bigOf(c[k])))
	}
	b := order[0]
	rest := bigOf(s.Radius)
	rest.SetMantExp(rest, -1)
	other := bigSum(s.Center)
	if other.Sub(other, bigOf(s.Center[b])); other.Cmp(rest) < 0 {
		rest.Set(other)
	}
	cb := bigOf(c[b])
	for idx := n - 1; idx > 0 && rest.Sign() > 0; idx-- {
		i := order[idx]
		amt := bigOf(s.Center[i])
		if amt.Cmp(rest) > 0 {
			amt.Set(rest)
		}
		t.Sub(cb, bigOf(c[i]))
		sum.Add(sum, t.Mul(t, amt))
		rest.Sub(rest, amt)
	}
	v, _ := sum.Float64()
	return v
}
