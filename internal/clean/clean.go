package clean

import (
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// breakSlack is the relative amount by which an output's ratio may exceed
// its budget before the output breaks it (DropNoise).
const breakSlack = 1e-9

// mixMargin raises the mixing weight of MixToBudget, and tightens the
// bounds MixOver solves for, by a relative amount, so that rounding leaves
// the mixture within the budget.
const mixMargin = 1e-12

// Vertex cleans, in place, the mechanism read off an LP engine's
// point for the budget b:
//
//  1. For PML, entries up to VertexEntryNoise become 0 unless that is
//     what makes their output break the budget (it lowers q_j, by a
//     relative 1e-6 for an output of mass 1e-6): then they stay.
//  2. Outputs of noise that break the budget are dropped and the rows
//     renormalised (DropNoise with VertexColumnNoise).
//
// Outputs that meet the budget are never dropped, so a clean point passes
// through unchanged up to the renormalisation. It fails, changing nothing,
// if p is not one row per letter of pi, all of one width, or b is invalid.
func Vertex(pi mech.Prior, p mech.Mechanism, b mech.Budget) error {
	if err := cleanable(pi, p, b); err != nil {
		return err
	}
	if b.Measure == mech.PML {
		_, m := p.Dims()
		for j := 0; j < m; j++ {
			var cleared []int
			for i := range p {
				if v := p[i][j]; v > 0 && v <= VertexEntryNoise {
					cleared = append(cleared, i)
				}
			}
			if len(cleared) == 0 {
				continue
			}
			before := breaks(pi, p, j, b)
			saved := make([]float64, len(cleared))
			for k, i := range cleared {
				saved[k], p[i][j] = p[i][j], 0
			}
			if !before && breaks(pi, p, j, b) {
				for k, i := range cleared {
					p[i][j] = saved[k]
				}
			}
		}
	}
	dropNoise(pi, p, b, VertexColumnNoise)
	return nil
}

// Interior turns an interior point into an eps-PML mechanism in
// place:
//
//  1. Outputs of noise that break the budget are dropped and the rows
//     renormalised (DropNoise with InteriorColumnNoise); the rows lose
//     at most M·InteriorColumnNoise.
//  2. If its PML still exceeds eps, it is mixed into the budget
//     (MixToBudget).
//
// Small entries of the other outputs stay: clearing them lowers their
// output's marginal, and in an output of little mass that raises the
// largest ratio by orders of magnitude, which the mixing then pays for in
// expected utility (5e-4 of a value of 144 on a 101-letter counting
// query). The interior point's vertex (package ipm) removes them, on an
// optimal vertex's support. It fails, changing nothing, on the inputs
// Vertex refuses.
func Interior(pi mech.Prior, p mech.Mechanism, eps float64) (mech.Mechanism, error) {
	if err := cleanable(pi, p, pmlBudget(eps)); err != nil {
		return nil, err
	}
	dropNoise(pi, p, pmlBudget(eps), InteriorColumnNoise)
	return mixToBudget(pi, p, eps), nil
}

// ClearTiny sets to zero, in place, the entries of p below entry, except
// each row's largest.
func ClearTiny(p mech.Mechanism, entry float64) {
	for _, row := range p {
		top := 0.0
		for _, v := range row {
			top = max(top, v)
		}
		for j, v := range row {
			if v < entry && v < top {
				row[j] = 0
			}
		}
	}
}

// DropNoise drops from p, in place, every output whose entries are all at
// most largest and that breaks the budget b by more than a relative
// breakSlack (solver noise: a row feasible to 1e-9 turns a tiny q_j into an
// arbitrary ratio), and renormalises the rows (a row with nothing left
// stays zero). Dropping an output and renormalising changes the other
// outputs' ratios a little (by at most the mass dropped from a row), which
// can push another tiny output over the budget: it repeats until no tiny
// output breaks it (each pass drops at least one output, so at most M
// passes). A larger output moved over by the renormalisation is left to
// the caller's audit. It fails, changing nothing, on the inputs
// Vertex refuses.
func DropNoise(pi mech.Prior, p mech.Mechanism, b mech.Budget, largest float64) error {
	if err := cleanable(pi, p, b); err != nil {
		return err
	}
	dropNoise(pi, p, b, largest)
	return nil
}

func dropNoise(pi mech.Prior, p mech.Mechanism, b mech.Budget, largest float64) {
	_, m := p.Dims()
	for pass := 0; pass <= m; pass++ {
		dropped := false
		for j, mx := range p.ColumnMax() {
			if mx > 0 && mx <= largest && breaks(pi, p, j, b) {
				for i := range p {
					p[i][j] = 0
				}
				dropped = true
			}
		}
		for _, row := range p {
			mech.Normalise(row)
		}
		if !dropped {
			break
		}
	}
}

// WithoutNoise returns a copy of p without the outputs whose PML exceeds
// eps and whose entries are all at most VertexColumnNoise, rows
// renormalised once; nil if there are none or a row would be left empty.
// Unlike Vertex it judges outputs by their audited PML (no
// breakSlack), as a search does with a point that audits above its ε.
// It fails on the inputs Vertex refuses.
func WithoutNoise(pi mech.Prior, p mech.Mechanism, eps float64) (mech.Mechanism, error) {
	if err := cleanable(pi, p, pmlBudget(eps)); err != nil {
		return nil, err
	}
	return withoutNoise(pi, p, eps), nil
}

func withoutNoise(pi mech.Prior, p mech.Mechanism, eps float64) mech.Mechanism {
	per := leakage.PMLPerOutput(pi, p)
	var drop []int
	for j, l := range per {
		if l <= eps {
			continue
		}
		small := true
		for i := range p {
			small = small && p[i][j] <= VertexColumnNoise
		}
		if small {
			drop = append(drop, j)
		}
	}
	if len(drop) == 0 {
		return nil
	}
	c := p.Clone()
	for i := range c {
		for _, j := range drop {
			c[i][j] = 0
		}
		if mech.Normalise(c[i]) <= 0 {
			return nil
		}
	}
	return c
}

// MixToBudget returns p, mixed in place with the independent mechanism of
// its own output marginal if its PML exceeds eps: that keeps the marginal
// and moves every ratio p_ij/q_j towards 1, so θ = (R − e^ε)/(R − 1) for
// the largest ratio R brings the PML to ε. It fails, changing nothing, on
// the inputs Vertex refuses.
func MixToBudget(pi mech.Prior, p mech.Mechanism, eps float64) (mech.Mechanism, error) {
	if err := cleanable(pi, p, pmlBudget(eps)); err != nil {
		return nil, err
	}
	return mixToBudget(pi, p, eps), nil
}

// MixUntil returns the mixture (1−θ)p + θQ, Q the mechanism whose every
// row is p's output marginal under pi, at the least θ that meets (found by
// bisection: 60 halvings, so within 2^-60 of it); p is left as it is.
// Every ratio p_ij/q_j, at pi and at any other prior, moves towards 1 as θ
// grows, so meets must hold at θ = 1, where every ratio is 1: a budget on
// any of the ratio measures, at one prior or over a set of them. The
// mixture returned is, bit for bit, the last one meets accepted (θ = 1
// where it accepted none), so a caller may keep what its audit found.
func MixUntil(pi mech.Prior, p mech.Mechanism, meets func(mech.Mechanism) bool) mech.Mechanism {
	return mixFrom(p, outputMarginal(pi, p), 0, meets)
}

// MixOver is MixUntil for the budget b over the prior set s, where meets
// is the audit of b over s: its weight comes first in closed form, and
// the bisection runs only where the audit refuses that one. A column c
// mixed with the constant q_j has least and largest masses over s
// (1−θ)·min_{π∈s} π·c + θq_j·T and (1−θ)·max_{π∈s} π·c + θq_j·T', T
// and T' the totals of the priors that reach them (the estimate's sum S
// over a ball; min(1, S) and max(1, S) over a box, which holds every
// distribution within its bounds of total between 1 and S), and each of
// the budget's ratios to the column's extreme entries (the largest over
// the least mass, the largest mass over the least entry, the largest
// entry over the least for LDP) is a ratio of two functions affine in θ:
// it meets its bound from the root of one linear equation on. The weight
// is the largest of those roots for bounds a relative mixMargin tighter,
// so that rounding leaves the mixture within b; the utility it costs over
// the least weight is of that relative order.
func MixOver(pi mech.Prior, p mech.Mechanism, s *mech.PriorSet, b mech.Budget, meets func(mech.Mechanism) bool) mech.Mechanism {
	q := outputMarginal(pi, p)
	sum := total(s.Center)
	low, high := sum, sum
	if s.IsBox() {
		low, high = min(1, sum), max(1, sum)
	}
	least := func(_ int, c []float64) float64 { return s.MinMass(c) }
	most := func(_ int, c []float64) float64 { return s.MaxMass(c) }
	return mixFrom(p, q, weight(p, q, b, least, most, low, high), meets)
}

// MixAt is MixOver at the one prior pi, where meets is the audit of b
// at pi: a column's mass there is π·c, moved by the mixture to
// (1−θ)π·c + θq_j·Σπ.
func MixAt(pi mech.Prior, p mech.Mechanism, b mech.Budget, meets func(mech.Mechanism) bool) mech.Mechanism {
	marginal := p.Marginal(pi)
	sum := total(pi)
	q := perUnit(marginal, sum)
	mass := func(j int, _ []float64) float64 { return marginal[j] }
	return mixFrom(p, q, weight(p, q, b, mass, mass, sum, sum), meets)
}

// weight is the closed-form weight of MixOver and MixAt, 0 for a measure
// without one (the bisection then runs from 0): least and most are the
// least and largest mass over the priors of column j, entries c, reached
// by priors of totals low and high.
func weight(p mech.Mechanism, q []float64, b mech.Budget, least, most func(j int, c []float64) float64, low, high float64) float64 {
	var up, down float64 // e^ε of the upper and lower bounds, 0 for none
	switch b.Measure {
	case mech.PML:
		up = math.Exp(b.Epsilon)
	case mech.LIP, mech.LDP:
		up, down = math.Exp(b.Epsilon), math.Exp(b.Epsilon)
	case mech.ALIP:
		up, down = math.Exp(b.EpsilonUpper), math.Exp(b.EpsilonLower)
	default:
		return 0
	}
	up *= 1 - mixMargin
	down *= 1 - mixMargin
	// root is the least θ with (1−θ)a + θqa ≤ e((1−θ)c + θqc), for a
	// above e·c: 1 where e·qc ≤ qa (no weight below 1 does).
	root := func(a, qa, c, qc, e float64) float64 {
		d := a - e*c
		if !(d > 0) {
			return 0
		}
		if g := e*qc - qa; g > 0 {
			return d / (d + g)
		}
		return 1
	}
	n, m := p.Dims()
	col := make([]float64, n)
	theta := 0.0
	for j := range m {
		lo, hi := math.Inf(1), 0.0
		for i := range n {
			col[i] = p[i][j]
			lo, hi = min(lo, col[i]), max(hi, col[i])
		}
		if !(hi > 0) {
			continue // an unused output stays unused
		}
		qj := q[j]
		switch {
		case b.Measure == mech.LDP:
			theta = max(theta, root(hi, qj, lo, qj, up))
		default:
			theta = max(theta, root(hi, qj, least(j, col), qj*low, up))
			if down > 0 {
				theta = max(theta, root(most(j, col), qj*high, lo, qj, down))
			}
		}
	}
	if math.IsNaN(theta) {
		return 0
	}
	return min(theta, 1)
}

// mixFrom is MixUntil with Q's row q, its first weight tried theta
// (MixOver's closed form, or 0): kept where it meets, else the lower end
// of the bisection.
func mixFrom(p mech.Mechanism, q []float64, theta float64, meets func(mech.Mechanism) bool) mech.Mechanism {
	n, m := p.Dims()
	mix := func(theta float64) mech.Mechanism {
		out := mech.Zeros(n, m)
		for i, row := range p {
			for j, v := range row {
				out[i][j] = (1-theta)*v + theta*q[j]
			}
		}
		return out
	}
	lo, hi := 0.0, 1.0
	if theta > 0 && theta < 1 {
		if out := mix(theta); meets(out) {
			return out
		}
		lo = theta
	}
	for range 60 {
		mid := (lo + hi) / 2
		if meets(mix(mid)) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return mix(hi)
}

// outputMarginal is p's output marginal under pi divided by Σ_i π_i, which
// may differ from 1 by 1e-9: a row of it sums to 1, as p's rows do.
func outputMarginal(pi mech.Prior, p mech.Mechanism) []float64 {
	return perUnit(p.Marginal(pi), total(pi))
}

// perUnit returns a copy of v divided by t.
func perUnit(v []float64, t float64) []float64 {
	q := make([]float64, len(v))
	for j, x := range v {
		q[j] = x / t
	}
	return q
}

// total is Σ_i π_i.
func total(pi []float64) float64 {
	t := 0.0
	for _, v := range pi {
		t += v
	}
	return t
}

func mixToBudget(pi mech.Prior, p mech.Mechanism, eps float64) mech.Mechanism {
	a := leakage.PML(pi, p)
	if a <= eps {
		return p
	}
	q := outputMarginal(pi, p)
	r, b := math.Exp(a), math.Exp(eps)
	theta := (r - b) / (r - 1)
	theta = min(1, theta*(1+mixMargin)+1e-16)
	for _, row := range p {
		for j := range row {
			row[j] = (1-theta)*row[j] + theta*q[j]
		}
	}
	return p
}

// breaks reports whether output j of p violates budget b by more than a
// relative breakSlack: for PML and ALIP/LIP p_ij/q_j must lie in
// [e^{−ε_l}, e^{ε_u}], for LDP the column's largest and smallest entries
// must be within a factor e^ε. An unused output breaks nothing.
func breaks(pi mech.Prior, p mech.Mechanism, j int, b mech.Budget) bool {
	const slack = 1 + breakSlack
	if b.Measure == mech.LIP {
		b.EpsilonLower, b.EpsilonUpper = b.Epsilon, b.Epsilon
	}
	q, lo, hi := 0.0, math.Inf(1), 0.0
	for i := range p {
		q += pi[i] * p[i][j]
		lo, hi = min(lo, p[i][j]), max(hi, p[i][j])
	}
	if q == 0 {
		return false
	}
	switch b.Measure {
	case mech.PML:
		return hi > math.Exp(b.Epsilon)*q*slack
	case mech.LDP:
		return hi > math.Exp(b.Epsilon)*lo*slack
	default: // ALIP, LIP
		return hi > math.Exp(b.EpsilonUpper)*q*slack || lo*slack < math.Exp(-b.EpsilonLower)*q
	}
}

func pmlBudget(eps float64) mech.Budget { return mech.Budget{Measure: mech.PML, Epsilon: eps} }

// WithoutDust returns a copy of p with every entry below certify.DustEntry set to
// 0 (each row keeps its largest) and the rows renormalised, or nil when p
// has no such entry. The copy keeps p's zero pattern; its privacy level
// differs from p's by about the mass moved, so a caller re-audits it.
// It fails if p is empty or ragged.
func WithoutDust(p mech.Mechanism) (mech.Mechanism, error) {
	if err := certify.CheckRectangular(p); err != nil {
		return nil, err
	}
	return withoutDust(p), nil
}

func withoutDust(p mech.Mechanism) mech.Mechanism {
	dusty := false
	for _, row := range p {
		for _, v := range row {
			dusty = dusty || (v > 0 && v < certify.DustEntry)
		}
	}
	if !dusty {
		return nil
	}
	// An output whose entries are all small is dropped whole: clearing
	// only its smallest entries would lower its marginal and raise the
	// ratio of the others.
	c := p.Clone()
	for j, mx := range c.ColumnMax() {
		if mx > 0 && mx <= VertexColumnNoise {
			for i := range c {
				c[i][j] = 0
			}
		}
	}
	ClearTiny(c, certify.DustEntry)
	for _, row := range c {
		if mech.Normalise(row) <= 0 {
			return nil
		}
	}
	return c
}

// cleanable checks what the cleaners index by and divide by: one row of p
// per letter of pi, all of one positive width, prior masses finite and
// non-negative, and a valid budget. The prior's sum is not checked: the
// callers' priors may differ from 1 by rounding.
func cleanable(pi mech.Prior, p mech.Mechanism, b mech.Budget) error {
	if err := certify.CheckShape(pi, p); err != nil {
		return err
	}
	return b.Check()
}
