package colgen

import (
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// RobustBound turns multipliers α, one per input, into a lower bound on
// the least PML over the prior set of a mechanism with the pattern pat,
// with a prior of the set on each output (certify.DualCertificateColumns).
// For each output j it picks the prior π of the set that, together with
// the best ν ≥ 0, minimises
//
//	s_j = Σ_{i∈A_j} max(0, π_i + ν α_i)
//
// (α shifted as certify shifts it). The function is jointly convex in
// (π, ν) (each term is the positive part of a linear function), so its
// minimum over π for a fixed ν is a convex function of ν, minimised by a
// golden-section search; for a fixed ν the minimum over π is greedy
// (setMinPositive). The bound is the one certify.DualCertificateColumns
// proves with these priors, whose choice affects only how strong it is,
// never its validity as a bound of the problem with one prior per output;
// that the priors lie in the set is what makes it a bound over the set
// (the greedy's priors do, up to the rounding of its sums; a certificate
// raises them above the set before writing them out).
//
// ok is false when α proves nothing.
func RobustBound(set *mech.PriorSet, pat mech.Pattern, alpha []float64) (eps float64, priors [][]float64, ok bool) {
	n := len(alpha)
	if set == nil || len(pat) != n || n == 0 || set.N() != n {
		return 0, nil, false
	}
	a, ok := shifted(alpha)
	if !ok {
		return 0, nil, false
	}
	m := len(pat[0])
	priors = make([][]float64, m)
	rows := make([]int, 0, n)
	// Outputs open to the same inputs take the same prior.
	same := make(map[string][]float64)
	key := make([]byte, n)
	for j := range m {
		rows = rows[:0]
		for i := range n {
			key[i] = 0
			if pat[i][j] {
				rows = append(rows, i)
				key[i] = 1
			}
		}
		if pr, ok := same[string(key)]; ok {
			priors[j] = pr
			continue
		}
		priors[j] = bestPrior(set, a, rows)
		same[string(key)] = priors[j]
	}
	c, ok := certify.DualCertificateColumns(priors, pat, alpha)
	if !ok {
		return 0, nil, false
	}
	return c.Epsilon, priors, true
}

// shifted is α shifted as certify.DualBound shifts it (Σ α a small
// positive fraction of Σ |α|), so that the priors are chosen for the
// multipliers the proof uses.
func shifted(alpha []float64) ([]float64, bool) {
	n := len(alpha)
	var sum, abs float64
	for _, v := range alpha {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
		sum += v
		abs += math.Abs(v)
	}
	if abs == 0 {
		return nil, false
	}
	kappa := 32 * float64(n) * certify.UnitRoundoff
	shift := 0.0
	if sum > kappa*abs || sum <= 4*float64(n)*certify.UnitRoundoff*abs {
		shift = (sum - kappa*abs) / float64(n)
	}
	a := make([]float64, n)
	for i, v := range alpha {
		a[i] = v - shift
	}
	return a, true
}

// bestPrior returns a prior of the set minimising min_ν Σ_{i∈rows}
// max(0, π_i + ν a_i) (see RobustBound). The minimum over π for a fixed ν,
// h(ν) (freeMass.value), is convex and piecewise linear in ν: its pieces
// change where an input's term or its free room switches (ν = l_i/−a_i
// and u_i/−a_i for a box, π̂_i/−a_i for a ball, a_i < 0), and inside a
// piece where the box's poured mass or the ball's moved mass changes its
// binding limit. So h's values at the sorted switches are unimodal: a
// binary search finds the least, and the least of h lies between its two
// neighbours, where the limits' crossings are solved for exactly.
func bestPrior(set *mech.PriorSet, a []float64, rows []int) []float64 {
	n := len(a)
	if len(rows) == 0 {
		return append([]float64(nil), set.Center...)
	}
	in := inRows(rows, n)
	free := newFreeMass(set, in)
	pts := []float64{0}
	for _, i := range rows {
		if a[i] >= 0 {
			continue
		}
		if set.IsBox() {
			pts = append(pts, set.Lower[i]/-a[i], set.Upper[i]/-a[i])
		} else {
			pts = append(pts, set.Center[i]/-a[i])
		}
	}
	slices.Sort(pts)
	pts = slices.Compact(pts)
	// Beyond the last switch the parts are affine: the limits' crossings
	// there are h's last kinks, past which it does not fall (every term
	// of an input with a_i < 0 is spent or grows).
	last := pts[len(pts)-1]
	pts = append(pts, free.crossings(set, a, rows, last, math.Inf(1))...)
	f := func(nu float64) float64 { return free.value(set, a, rows, nu) }
	lo, hi := 0, len(pts)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if f(pts[mid]) <= f(pts[mid+1]) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	bestNu, best := pts[lo], f(pts[lo])
	for _, k := range []int{lo - 1, lo} {
		if k < 0 || k+1 >= len(pts) {
			continue
		}
		for _, nu := range free.crossings(set, a, rows, pts[k], pts[k+1]) {
			if v := f(nu); v < best {
				bestNu, best = nu, v
			}
		}
	}
	pi := make([]float64, n)
	setMinPositive(set, a, rows, in, bestNu, pi)
	return pi
}

// setMinPositive returns min over π in the set of Σ_{i∈rows} max(0, π_i +
// ν a_i), and writes a minimising π into pi. Each term has slope 0 below
// its kink k_i = max(0, −ν a_i) and 1 above it; inputs outside rows cost
// nothing.
//
// Box: from the lower bounds, the remaining mass 1 − Σ l goes first where
// it costs nothing (inputs outside rows up to their upper bound, the
// others up to their kink), the rest at slope 1. Ball: every unit of mass
// moved from above an input's kink to below another's (or to an input
// outside rows) saves 1 and costs 2 of the radius, so up to r/2 moves.
// in marks the inputs of rows.
func setMinPositive(set *mech.PriorSet, a []float64, rows []int, in []bool, nu float64, pi []float64) float64 {
	n := len(a)
	kink := func(i int) float64 { return mathx.Pos(-nu * a[i]) }
	cost := func() float64 {
		s := 0.0
		for _, i := range rows {
			s += mathx.Pos(pi[i] + nu*a[i])
		}
		return s
	}
	if set.IsBox() {
		rest := 1.0
		for i, l := range set.Lower {
			pi[i] = l
			rest -= l
		}
		// Free room first, then the rest anywhere with room.
		for pass := 0; pass < 2 && rest > 0; pass++ {
			for i := 0; i < n && rest > 0; i++ {
				cap := set.Upper[i]
				if pass == 0 && in[i] {
					cap = min(cap, kink(i))
				}
				if add := min(rest, cap-pi[i]); add > 0 {
					pi[i] += add
					rest -= add
				}
			}
		}
		return cost()
	}
	copy(pi, set.Center)
	move := set.Radius / 2
	// Where the mass goes: an input outside rows takes any amount.
	sink := -1
	for i := range n {
		if !in[i] {
			sink = i
			break
		}
	}
	room := 0.0
	if sink < 0 {
		for _, i := range rows {
			room += mathx.Pos(kink(i) - pi[i])
		}
		move = min(move, room)
	}
	taken := 0.0
	for _, i := range rows {
		if move-taken <= 0 {
			break
		}
		if t := min(move-taken, pi[i]-kink(i)); t > 0 {
			pi[i] -= t
			taken += t
		}
	}
	if sink >= 0 {
		pi[sink] += taken
		return cost()
	}
	for _, i := range rows {
		if taken <= 0 {
			break
		}
		if g := min(taken, kink(i)-pi[i]); g > 0 {
			pi[i] += g
			taken -= g
		}
	}
	return cost()
}

func inRows(rows []int, n int) []bool {
	in := make([]bool, n)
	for _, i := range rows {
		in[i] = true
	}
	return in
}

// freeMass is what setMinPositive's value needs beyond the rows: the
// mass to pour (box: 1 − Σ l), the room outside the rows, where mass
// costs nothing (box), and whether some input is outside them to take
// any amount (ball).
type freeMass struct {
	rest, outRoom float64
	sink          bool
}

func newFreeMass(set *mech.PriorSet, in []bool) freeMass {
	f := freeMass{rest: 1}
	if set.IsBox() {
		for k, l := range set.Lower {
			f.rest -= l
			if !in[k] {
				f.outRoom += set.Upper[k] - l
			}
		}
		return f
	}
	for _, r := range in {
		f.sink = f.sink || !r
	}
	return f
}

// parts returns the affine parts of value at ν: the box's cost over the
// lower bounds A and the mass g = rest − free room still to pour at slope
// 1 (value = A + max(0, g)); the ball's cost at the estimate and the mass
// that can leave inputs above their kinks (take) and enter those below
// (put; +Inf with an input outside the rows): value = cost − min(r/2,
// take, put).
func (f freeMass) parts(set *mech.PriorSet, a []float64, rows []int, nu float64) (cost, x, y float64) {
	if set.IsBox() {
		free := f.outRoom
		for _, i := range rows {
			l, c := set.Lower[i], nu*a[i]
			cost += mathx.Pos(l + c)
			free += mathx.Pos(min(set.Upper[i], mathx.Pos(-c)) - l)
		}
		return cost, f.rest - free, 0
	}
	for _, i := range rows {
		p, c := set.Center[i], nu*a[i]
		k := mathx.Pos(-c)
		cost += mathx.Pos(p + c)
		x += mathx.Pos(p - k)
		y += mathx.Pos(k - p)
	}
	if f.sink {
		y = math.Inf(1)
	}
	return cost, x, y
}

// crossings returns, in increasing order, the points of (x0, x1), an
// interval on which parts is affine (x1 may be +Inf), where value's
// binding limit changes: the box's g = 0, the ball's take, put and r/2
// meeting pairwise.
func (f freeMass) crossings(set *mech.PriorSet, a []float64, rows []int, x0, x1 float64) []float64 {
	w := x1 - x0 // the span the parts are read over
	if math.IsInf(x1, 1) {
		w = max(1, x0)
	}
	_, g0, p0 := f.parts(set, a, rows, x0)
	_, g1, p1 := f.parts(set, a, rows, x0+w)
	var out []float64
	// meet adds where the affine u (u0 at x0, u1 at x0 + w) meets v.
	meet := func(u0, u1, v0, v1 float64) {
		d0, d1 := u0-v0, u1-v1
		if math.IsInf(d0, 0) || math.IsInf(d1, 0) || math.IsNaN(d0) || math.IsNaN(d1) || d0 == d1 {
			return
		}
		if x := x0 + w*d0/(d0-d1); x > x0 && x < x1 {
			out = append(out, x)
		}
	}
	if set.IsBox() {
		meet(g0, g1, 0, 0)
		return out
	}
	h := set.Radius / 2
	meet(g0, g1, h, h)
	meet(p0, p1, h, h)
	meet(g0, g1, p0, p1)
	slices.Sort(out)
	return out
}

// value is setMinPositive's value by sums over the rows alone, O(|rows|):
// box, Σ max(0, l_i + ν a_i) plus the mass that finds no free room; ball,
// the cost at the estimate less the mass that can move from above a kink
// to below one (or outside the rows), at most r/2.
func (f freeMass) value(set *mech.PriorSet, a []float64, rows []int, nu float64) float64 {
	cost, x, y := f.parts(set, a, rows, nu)
	if set.IsBox() {
		return cost + max(0, x)
	}
	return cost - min(set.Radius/2, min(x, y))
}
