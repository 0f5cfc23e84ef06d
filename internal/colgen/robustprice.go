package colgen

import (
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/mech"
)

// setColumn prices one output over the prior set exactly: it returns a
// v on the allowed inputs rows (0 ≤ v ≤ 1, zero elsewhere) with
// min_{π∈Π} π·v ≥ μ that maximises c·v, up to the precision of a
// golden-section search, and c·v; ok is false when no such v exists.
//
// The least mass over the set is itself an LP in π, and its dual turns
// the constraint into "some τ makes a separable concave sum reach a
// target":
//
//	box:  min_{π∈Π} π·v = max_τ Σ_k l_k v_k + d_k min(v_k, τ) − τ(Σ_k u_k − 1)
//	ball: min_{π∈Π} π·v ≥ max_σ Σ_k π̂_k min(v_k, σ) − σ ρ
//
// (d = u − l, ρ = min(r/2, Σ π̂); the ball's form is exact when some input
// is outside rows, since then the cheapest letter has v = 0, and an inner
// bound otherwise). For a fixed τ the problem in v is a fractional
// knapsack over two segments per input, [0, τ] with mass u_k (ball: π̂_k)
// per unit and [τ, 1] with mass l_k (ball: 0), filled by the greatest c_k
// first and then, to reach the target, the least loss per unit of mass;
// its value is a concave function of τ (the constraint is jointly concave
// in v and τ). Any τ gives a v that keeps the constraint, so the column
// is valid however precise the search.
func setColumn(set *mech.PriorSet, c []float64, rows []int, mu float64, work *priceWork) (v []float64, val float64, ok bool) {
	box := set.IsBox()
	var C float64 // the target's slope in τ
	if box {
		su := 0.0
		for _, u := range set.Upper {
			su += u
		}
		C = math.Max(0, su-1)
	} else {
		tot := 0.0
		for _, p := range set.Center {
			tot += p
		}
		C = math.Min(set.Radius/2, tot)
	}
	rate1 := func(k int) float64 { // mass per unit on [0, τ]
		if box {
			return set.Upper[k]
		}
		return set.Center[k]
	}
	rate2 := func(k int) float64 { // mass per unit on [τ, 1]
		if box {
			return set.Lower[k]
		}
		return 0
	}
	// The largest mass reachable at τ is a + bτ: v = 1 on rows.
	a, b := 0.0, -C
	for _, k := range rows {
		a += rate2(k)
		b += rate1(k) - rate2(k)
	}
	// Feasible τ ∈ [0, 1] (σ ∈ (0, 1] for the ball): a + bτ ≥ μ + Cτ is
	// folded into b above, so a + bτ ≥ μ.
	tlo, thi := 0.0, 1.0
	switch {
	case b > 0:
		tlo = math.Max(tlo, (mu-a)/b)
	case b < 0:
		thi = math.Min(thi, (mu-a)/b)
	default:
		if a < mu {
			return nil, 0, false
		}
	}
	if tlo > thi {
		return nil, 0, false
	}
	f := func(t float64) float64 { return work.cover(c, rows, t, mu+C*t, rate1, rate2) }
	const r = 0.6180339887498949
	lo, hi := tlo, thi
	x1, x2 := hi-r*(hi-lo), lo+r*(hi-lo)
	f1, f2 := f(x1), f(x2)
	for range columnSteps {
		if f1 >= f2 {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - r*(hi-lo)
			f1 = f(x1)
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + r*(hi-lo)
			f2 = f(x2)
		}
	}
	bestT, best := x1, f1
	for _, t := range []float64{x2, tlo, thi} {
		if v := f(t); v > best {
			bestT, best = t, v
		}
	}
	if math.IsInf(best, -1) {
		return nil, 0, false
	}
	work.cover(c, rows, bestT, mu+C*bestT, rate1, rate2)
	return work.v, best, true
}

// columnSteps is the number of golden-section steps of setColumn over τ
// ∈ [0, 1]: the interval ends below 1e-9.
const columnSteps = 44

// priceWork is setColumn's scratch.
type priceWork struct {
	v    []float64
	segs []segment
}

type segment struct {
	k          int
	rate, loss float64 // mass per unit, −c_k per unit
	len        float64
}

// cover fills the knapsack of setColumn at τ = t: every input of rows
// with c_k ≥ 0 at 1, then the segments of the others by the least loss
// per unit of mass until the mass reaches target. It returns c·v, −Inf
// when the target can not be reached, and leaves v in w.v.
func (w *priceWork) cover(c []float64, rows []int, t, target float64, rate1, rate2 func(int) float64) float64 {
	n := len(c)
	if len(w.v) != n {
		w.v = make([]float64, n)
	}
	clear(w.v)
	val, mass := 0.0, 0.0
	w.segs = w.segs[:0]
	for _, k := range rows {
		if c[k] >= 0 {
			w.v[k] = 1
			val += c[k]
			mass += rate1(k)*t + rate2(k)*(1-t)
			continue
		}
		if r := rate1(k); r > 0 && t > 0 {
			w.segs = append(w.segs, segment{k: k, rate: r, loss: -c[k], len: t})
		}
		if r := rate2(k); r > 0 && t < 1 {
			w.segs = append(w.segs, segment{k: k, rate: r, loss: -c[k], len: 1 - t})
		}
	}
	short := target - mass
	if short <= 0 {
		return val
	}
	slices.SortFunc(w.segs, func(x, y segment) int {
		// Least loss per unit of mass first; a segment on [0, τ] before
		// the same input's on [τ, 1] (its rate is at least as large).
		if l, m := x.loss*y.rate, y.loss*x.rate; l != m {
			if l < m {
				return -1
			}
			return 1
		}
		switch {
		case x.rate > y.rate:
			return -1
		case x.rate < y.rate:
			return 1
		}
		return 0
	})
	for _, s := range w.segs {
		take := math.Min(s.len, short/s.rate)
		w.v[s.k] += take
		val -= s.loss * take
		short -= take * s.rate
		if short <= 0 {
			return val
		}
	}
	if short > 1e-15*math.Max(1, target) {
		return math.Inf(-1)
	}
	return val
}
