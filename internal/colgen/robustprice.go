package colgen

import (
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/internal/golden"
	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// setSlope is the slope C in τ of the pricing target: the mass the set
// can move, Σ u − 1 for a box (at least 0), r/2 for an L1 ball of radius r
// (at most the estimate's total).
func setSlope(set *mech.PriorSet) float64 {
	if set.IsBox() {
		su := 0.0
		for _, u := range set.Upper {
			su += u
		}
		return max(0, su-1)
	}
	tot := 0.0
	for _, p := range set.Center {
		tot += p
	}
	return min(set.Radius/2, tot)
}

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
	C := setSlope(set)
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
		tlo = max(tlo, (mu-a)/b)
	case b < 0:
		thi = min(thi, (mu-a)/b)
	default:
		if a < mu {
			return nil, 0, false
		}
	}
	if tlo > thi {
		return nil, 0, false
	}
	work.prepare(c, rows, rate1, rate2)
	f := func(t float64) float64 { return work.cover(c, rows, t, mu+C*t, false) }
	x1, f1, x2, _ := golden.Section(func(t float64) float64 { return -f(t) }, tlo, thi, columnSteps)
	f1 = -f1
	bestT, best := x1, f1
	for _, t := range []float64{x2, tlo, thi} {
		if v := f(t); v > best {
			bestT, best = t, v
		}
	}
	if math.IsInf(best, -1) {
		return nil, 0, false
	}
	work.cover(c, rows, bestT, mu+C*bestT, true)
	return work.v, best, true
}

// setPriceBound returns an upper bound on setColumn's c·v, exact up to
// the rounding of its sums: the least over ρ ≥ 0 of the Lagrangian dual
// of setColumn's problem as one LP in (v, τ) (v_k = a_k + b_k with 0 ≤ a_k
// ≤ τ at rate r1_k, 0 ≤ b_k ≤ 1 − τ at rate r2_k, Σ r1 a + r2 b ≥ μ + Cτ),
//
//	L(ρ) = −ρμ + max(S2(ρ), S1(ρ) − ρC),  S_i(ρ) = Σ_k max(0, c_k + ρ r_ik)
//
// (the inner maximum is linear in τ, so τ ∈ {0, 1}). L is convex and
// piecewise linear, with kinks where a term of S1 or S2 switches on
// (ρ = −c_k/r_ik) or where the two branches cross: the least value is at
// one of them, found by one sweep over the sorted kinks in O(k log k),
// against setColumn's golden-section search of O(k) per step. Any ρ
// gives an upper bound (weak duality), and the least one is the optimum
// (strong duality): an output whose bound is at most priceTol prices no
// column in, and need not be searched. -Inf when no v keeps the
// constraint. work.rho is left at the minimiser (NaN with -Inf).
func setPriceBound(set *mech.PriorSet, c []float64, rows []int, mu float64, work *priceWork) float64 {
	box := set.IsBox()
	C := setSlope(set)
	// A = S2, B = S1 − ρC at the sweep's ρ, with their slopes.
	var A, B, sA, sB float64
	kinks := work.kinks[:0]
	for _, k := range rows {
		r1, r2 := set.Center[k], 0.0
		if box {
			r1, r2 = set.Upper[k], set.Lower[k]
		}
		if c[k] >= 0 {
			A += c[k]
			B += c[k]
			sA += r2
			sB += r1
			continue
		}
		if r1 > 0 {
			kinks = append(kinks, kink{rho: -c[k] / r1, dB: r1})
		}
		if r2 > 0 {
			kinks = append(kinks, kink{rho: -c[k] / r2, dA: r2})
		}
	}
	work.kinks = kinks
	sB -= C
	sortKinks(kinks)
	rho := 0.0
	best, arg := max(A, B), 0.0
	// cross updates best with L where the branches cross within (0, d]
	// of ρ (d = +Inf: anywhere beyond).
	cross := func(d float64) {
		if sA == sB {
			return
		}
		if x := (B - A) / (sA - sB); x > 0 && x <= d {
			if v := -(rho+x)*mu + A + sA*x; v < best {
				best, arg = v, rho+x
			}
		}
	}
	for _, q := range kinks {
		d := q.rho - rho
		cross(d)
		A += sA * d
		B += sB * d
		rho = q.rho
		if v := -rho*mu + max(A, B); v < best {
			best, arg = v, rho
		}
		sA += q.dA
		sB += q.dB
	}
	cross(math.Inf(1))
	if max(sA, sB) < mu {
		work.rho = math.NaN()
		return math.Inf(-1) // L falls without end: the slice is empty
	}
	work.rho = arg
	return best
}

// setPriceAt is setPriceBound's Lagrangian dual L at one ρ ≥ 0: by weak
// duality an upper bound on setColumn's c·v, in one pass over rows
// without setPriceBound's sort.
func setPriceAt(set *mech.PriorSet, c []float64, rows []int, mu, rho float64) float64 {
	box := set.IsBox()
	var s1, s2 float64
	for _, k := range rows {
		r1, r2 := set.Center[k], 0.0
		if box {
			r1, r2 = set.Upper[k], set.Lower[k]
		}
		s1 += mathx.Pos(c[k] + rho*r1)
		s2 += mathx.Pos(c[k] + rho*r2)
	}
	return -rho*mu + max(s2, s1-rho*setSlope(set))
}

// kink is where a term of setPriceBound's S2 (dA) or S1 (dB) switches on.
type kink struct {
	rho, dA, dB float64
}

// sortKinks sorts k by increasing rho: a quicksort on the median of three,
// insertion below kinkRun elements. price sorts the kinks of every output
// of every round that its screen leaves; typed, the comparisons are not
// calls through a function value.
func sortKinks(k []kink) {
	for len(k) > kinkRun {
		a, b, c := 0, len(k)/2, len(k)-1
		if k[b].rho < k[a].rho {
			k[a], k[b] = k[b], k[a]
		}
		if k[c].rho < k[b].rho {
			k[b], k[c] = k[c], k[b]
			if k[b].rho < k[a].rho {
				k[a], k[b] = k[b], k[a]
			}
		}
		pivot := k[b].rho
		i, j := 0, len(k)-1
		for i <= j {
			for k[i].rho < pivot {
				i++
			}
			for k[j].rho > pivot {
				j--
			}
			if i <= j {
				k[i], k[j] = k[j], k[i]
				i++
				j--
			}
		}
		// The smaller side by recursion, the larger by the loop.
		if j+1 < len(k)-i {
			sortKinks(k[:j+1])
			k = k[i:]
		} else {
			sortKinks(k[i:])
			k = k[:j+1]
		}
	}
	for i := 1; i < len(k); i++ {
		for j := i; j > 0 && k[j].rho < k[j-1].rho; j-- {
			k[j], k[j-1] = k[j-1], k[j]
		}
	}
}

// kinkRun is the length below which sortKinks sorts by insertion.
const kinkRun = 12

// columnSteps is the number of golden-section steps of setColumn over τ
// ∈ [0, 1]: the interval ends below 3e-7, and snapVertex then moves the
// column to the exact vertex.
const columnSteps = 32

// priceWork is setColumn's scratch.
type priceWork struct {
	v    []float64
	full []float64 // price's dense copy of a column
	// snapVertex's scratch: the split of a variant and its column.
	one, grp []bool
	w        []float64
	segs     []segment
	kinks    []kink
	rho      float64 // setPriceBound's minimiser
	// price's column of the largest value in a round, and that value
	// (−Inf before any): the column term of supergradient.
	top    []float64
	topVal float64
	grad   []float64 // supergradient's result
	// The inputs with c_k ≥ 0, all at 1: their value and their mass
	// pos1·τ + pos2·(1 − τ).
	posVal, pos1, pos2 float64
}

// segment is a piece of an input's entry in setColumn's knapsack: [0, τ]
// (first) or [τ, 1], with its mass per unit and its loss −c_k per unit.
type segment struct {
	k          int
	first      bool
	rate, loss float64
}

// prepare lists the segments of the inputs of rows with c_k < 0 by the
// least loss per unit of mass, the order in which cover takes them at
// every τ (the rates do not depend on τ; an input's first segment comes
// before its second, whose rate is at most as large).
func (w *priceWork) prepare(c []float64, rows []int, rate1, rate2 func(int) float64) {
	w.segs = w.segs[:0]
	w.posVal, w.pos1, w.pos2 = 0, 0, 0
	for _, k := range rows {
		if c[k] >= 0 {
			w.posVal += c[k]
			w.pos1 += rate1(k)
			w.pos2 += rate2(k)
			continue
		}
		if r := rate1(k); r > 0 {
			w.segs = append(w.segs, segment{k: k, first: true, rate: r, loss: -c[k]})
		}
		if r := rate2(k); r > 0 {
			w.segs = append(w.segs, segment{k: k, rate: r, loss: -c[k]})
		}
	}
	sortSegments(w.segs)
}

// segmentBefore orders prepare's segments: by the least loss per unit of
// mass (cross-multiplied), an input's first segment before its second,
// then by input.
func segmentBefore(x, y *segment) bool {
	if l, m := x.loss*y.rate, y.loss*x.rate; l != m {
		return l < m
	}
	if x.first != y.first {
		return x.first
	}
	return x.k < y.k
}

// sortSegments sorts s by segmentBefore, as sortKinks sorts the kinks.
func sortSegments(s []segment) {
	for len(s) > kinkRun {
		a, b, c := 0, len(s)/2, len(s)-1
		if segmentBefore(&s[b], &s[a]) {
			s[a], s[b] = s[b], s[a]
		}
		if segmentBefore(&s[c], &s[b]) {
			s[b], s[c] = s[c], s[b]
			if segmentBefore(&s[b], &s[a]) {
				s[a], s[b] = s[b], s[a]
			}
		}
		pivot := s[b]
		i, j := 0, len(s)-1
		for i <= j {
			for segmentBefore(&s[i], &pivot) {
				i++
			}
			for segmentBefore(&pivot, &s[j]) {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		if j+1 < len(s)-i {
			sortSegments(s[:j+1])
			s = s[i:]
		} else {
			sortSegments(s[i:])
			s = s[:j+1]
		}
	}
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && segmentBefore(&s[j], &s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// cover fills the knapsack of setColumn at τ = t: every input of rows
// with c_k ≥ 0 at 1, then the segments that prepare listed until the mass
// reaches target. It returns c·v, −Inf when the target can not be
// reached, and leaves v in w.v when keep is set.
func (w *priceWork) cover(c []float64, rows []int, t, target float64, keep bool) float64 {
	if keep {
		if len(w.v) != len(c) {
			w.v = make([]float64, len(c))
		}
		clear(w.v)
		for _, k := range rows {
			if c[k] >= 0 {
				w.v[k] = 1
			}
		}
	}
	val := w.posVal
	short := target - (w.pos1*t + w.pos2*(1-t))
	if short <= 0 {
		return val
	}
	for _, s := range w.segs {
		l := t
		if !s.first {
			l = 1 - t
		}
		if l <= 0 {
			continue
		}
		take := l
		if short < l*s.rate {
			take = short / s.rate
		}
		if keep {
			w.v[s.k] += take
		}
		val -= s.loss * take
		short -= take * s.rate
		if short <= 0 {
			return val
		}
	}
	if short > 1e-15*max(1, target) {
		return math.Inf(-1)
	}
	return val
}

// snapVertex returns the vertex of the set's slice near the golden
// section's point v: a vertex has its entries in {0, 1, τ} (one tied group
// strictly inside, with τ fixed by min_{π∈Π} π·v = μ), and an inexact τ
// from the search leaves the group and one fractional entry at values
// that differ in the last digits from run to run. Such near-twin columns
// make the master's basis ill-conditioned and its pricing tail, so the
// column is moved to the vertex of each way of placing the inputs strictly
// inside (all in the group, or the odd one at 0 or at 1) and the best one
// that keeps the constraint is taken. ok is false when none does (the
// caller keeps v). The vertex returned is work's scratch, valid until the
// next call.
func snapVertex(set *mech.PriorSet, c []float64, rows []int, mu float64, v []float64, work *priceWork) ([]float64, float64, bool) {
	n := len(v)
	var inner []int
	for _, k := range rows {
		if v[k] > 0 && v[k] < 1 {
			inner = append(inner, k)
		}
	}
	if len(inner) == 0 {
		return nil, 0, false
	}
	// The odd one: the entry farthest from the group's median value.
	vals := make([]float64, len(inner))
	for e, k := range inner {
		vals[e] = v[k]
	}
	slices.Sort(vals)
	med := vals[len(vals)/2]
	odd := inner[0]
	for _, k := range inner {
		if math.Abs(v[k]-med) > math.Abs(v[odd]-med) {
			odd = k
		}
	}
	if len(work.one) != n {
		work.one, work.grp, work.w = make([]bool, n), make([]bool, n), make([]float64, n)
	}
	one, grp := work.one, work.grp
	var best []float64
	bestVal := math.Inf(-1)
	for variant := range 3 {
		clear(one)
		clear(grp)
		for _, k := range rows {
			one[k] = v[k] >= 1
		}
		for _, k := range inner {
			grp[k] = true
		}
		switch variant {
		case 1:
			grp[odd] = false
		case 2:
			grp[odd], one[odd] = false, true
		}
		tau, ok := groupLevel(set, one, grp, mu)
		if !ok {
			continue
		}
		val := 0.0
		for _, k := range rows {
			switch {
			case one[k]:
				val += c[k]
			case grp[k]:
				val += c[k] * tau
			}
		}
		// groupLevel makes the least mass μ by construction; the caller
		// checks the column it keeps against the set's greedy.
		if val > bestVal {
			w := work.w
			clear(w)
			for _, k := range rows {
				switch {
				case one[k]:
					w[k] = 1
				case grp[k]:
					w[k] = tau
				}
			}
			best, bestVal = w, val
		}
	}
	return best, bestVal, best != nil
}

// groupLevel returns the τ ∈ (0, 1] at which v = 1 on one and τ on grp
// has min_{π∈Π} π·v = μ; the least mass is linear in τ for a fixed split,
// the greedy taking mass from (box: pouring the free mass into) the
// zeros, then the group, then the ones. ok is false when no such τ
// exists, or the ball's every input is allowed (no zero to move to).
func groupLevel(set *mech.PriorSet, one, grp []bool, mu float64) (float64, bool) {
	var a, b float64 // least mass = a + b τ
	if set.IsBox() {
		rest := 1.0
		var dZero, dGrp float64
		for k, l := range set.Lower {
			rest -= l
			d := set.Upper[k] - l
			switch {
			case one[k]:
				a += l
			case grp[k]:
				b += l
				dGrp += d
			default:
				dZero += d
			}
		}
		rest = max(0, rest-dZero)
		b += min(rest, dGrp)
		a += max(0, rest-dGrp)
	} else {
		zero := false
		var pOne, pGrp float64
		for k, p := range set.Center {
			switch {
			case one[k]:
				pOne += p
			case grp[k]:
				pGrp += p
			default:
				zero = true
			}
		}
		if !zero {
			return 0, false
		}
		rho := set.Radius / 2
		a = pOne - min(rho, pOne)
		b = pGrp - min(max(0, rho-pOne), pGrp)
	}
	if !(b > 0) {
		return 0, false
	}
	tau := (mu - a) / b
	if !(tau > 0) || tau > 1 {
		return 0, false
	}
	return tau, true
}

// PriceColumn prices one output over the set against the row multipliers
// alpha: among the v on the output's allowed inputs rows (0 ≤ v ≤ 1,
// zero elsewhere) whose least mass over the set is at least mu, the one
// with the largest alpha·v, moved to its vertex (snapVertex) where that
// loses nothing, and alpha·v. ok is false when no v keeps the constraint
// or none prices above priceTol: alpha then proves, for this output, what
// RobustBound reads from it. v is the caller's, one entry per input.
func PriceColumn(set *mech.PriorSet, alpha []float64, rows []int, mu float64) (v []float64, val float64, ok bool) {
	var work priceWork
	if ub := setPriceBound(set, alpha, rows, mu, &work); !(ub > priceTol) {
		return nil, 0, false
	}
	v, val, ok = setColumn(set, alpha, rows, mu, &work)
	if !ok || !(val > priceTol) {
		return nil, 0, false
	}
	if w, wv, ok := snapVertex(set, alpha, rows, mu, v, &work); ok && wv >= val-priceTol {
		v = w
	}
	return slices.Clone(v), val, true
}
