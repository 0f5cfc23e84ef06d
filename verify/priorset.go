package verify

import (
	"fmt"
	"math/big"
	"slices"
)

// PriorSet is a closed convex set Π of priors around the problem's prior
// π̂ (the prior as written, S = Σ_i π̂_i): the box {π : l ≤ π ≤ u, Σ_i π_i
// between 1 and S} when Lower and Upper are given, else the L1 ball {π ≥
// 0 : Σ_i π_i = S, Σ_i |π_i − π̂_i| ≤ L1Radius}. Both hold π̂ exactly, and
// the box every distribution within its bounds (docs/certificates.md).
type PriorSet struct {
	Lower    []float64 `json:"lower,omitempty" yaml:"lower,omitempty"`
	Upper    []float64 `json:"upper,omitempty" yaml:"upper,omitempty"`
	L1Radius *float64  `json:"l1_radius,omitempty" yaml:"l1_radius,omitempty"`
}

// ClaimSet is the claim that the certificate's prior set is the
// problem's, and a valid set holding the estimate.
const ClaimSet = "prior set"

func (s *PriorSet) isBox() bool { return s.Lower != nil || s.Upper != nil }

// String names the set in a claim's message: a box's bounds one by one up
// to shownBounds letters, their ranges beyond (the problem file has them
// all).
func (s *PriorSet) String() string {
	if !s.isBox() {
		return fmt.Sprintf("the L1 ball of radius %v", *s.L1Radius)
	}
	if len(s.Lower) <= shownBounds {
		return fmt.Sprintf("the box lower %v, upper %v", s.Lower, s.Upper)
	}
	return fmt.Sprintf("the box on %d letters, lower bounds %v to %v, upper bounds %v to %v", len(s.Lower),
		slices.Min(s.Lower), slices.Max(s.Lower), slices.Min(s.Upper), slices.Max(s.Upper))
}

// shownBounds is the most letters whose bounds a claim's message lists.
const shownBounds = 8

// firstDifference returns the first letter at which two boxes of the same
// size differ, or −1.
func firstDifference(a, b *PriorSet) int {
	if !a.isBox() || !b.isBox() || len(a.Lower) != len(b.Lower) || len(a.Upper) != len(b.Upper) {
		return -1
	}
	for i := range a.Lower {
		if a.Lower[i] != b.Lower[i] || a.Upper[i] != b.Upper[i] {
			return i
		}
	}
	return -1
}

// sameSet reports whether a and b are the same set, number for number.
func sameSet(a, b *PriorSet) bool {
	if a.isBox() != b.isBox() {
		return false
	}
	if !a.isBox() {
		return *a.L1Radius == *b.L1Radius
	}
	return slices.Equal(a.Lower, b.Lower) && slices.Equal(a.Upper, b.Upper)
}

// setShape checks the set's sizes and numbers (part of the shape claim):
// a box with n lower and n upper bounds, or a ball with a radius.
func (k *checker) setShape(s *PriorSet, where string) string {
	if s == nil {
		return ""
	}
	if s.isBox() {
		if s.L1Radius != nil {
			return where + ": a prior set is a box (lower, upper) or a ball (l1_radius), not both"
		}
		if len(s.Lower) != k.n || len(s.Upper) != k.n {
			return fmt.Sprintf("%s: a box needs %d lower and %d upper bounds, it has %d and %d", where, k.n, k.n, len(s.Lower), len(s.Upper))
		}
		for i := range k.n {
			if !finite(s.Lower[i]) || !finite(s.Upper[i]) {
				return fmt.Sprintf("%s: bound %d is not finite", where, i)
			}
		}
		return ""
	}
	if s.L1Radius == nil || !finite(*s.L1Radius) {
		return where + ": a ball needs a finite l1_radius"
	}
	return ""
}

// setClaim: the problem and the certificate name the same set, and the set
// holds the estimate (box: 0 ≤ l ≤ π̂ ≤ u; ball: r ≥ 0), so that it is not
// empty. Without a set on either side there is nothing to claim.
func (k *checker) setClaim() {
	ps, cs := k.p.PriorSet, k.c.PriorSet
	switch {
	case ps == nil && cs == nil:
		return
	case ps == nil:
		k.claim(ClaimSet, false, "the certificate is over %s, but the problem has no prior set", cs)
		return
	case cs == nil:
		k.claim(ClaimSet, false, "the problem has a prior set, but the certificate's claims are at its prior only")
		return
	case !sameSet(ps, cs):
		if i := firstDifference(ps, cs); i >= 0 {
			k.claim(ClaimSet, false, "letter %d: the problem's box is [%v, %v], the certificate's [%v, %v]", i, ps.Lower[i], ps.Upper[i], cs.Lower[i], cs.Upper[i])
			return
		}
		k.claim(ClaimSet, false, "the problem's set is %s, the certificate was made for %s", ps, cs)
		return
	}
	if ps.isBox() {
		for i, v := range k.p.Prior {
			if !(0 <= ps.Lower[i] && ps.Lower[i] <= v && v <= ps.Upper[i]) {
				k.claim(ClaimSet, false, "letter %d: the box [%v, %v] does not hold 0 ≤ lower ≤ π̂_%d = %v ≤ upper", i, ps.Lower[i], ps.Upper[i], i, v)
				return
			}
		}
	} else if !(*ps.L1Radius >= 0) {
		k.claim(ClaimSet, false, "the L1 radius %v is negative", *ps.L1Radius)
		return
	}
	k.claim(ClaimSet, true, "the certificate is over the problem's set, %s, which holds the estimate", ps)
}

// massOver returns min (max when hi) over π ∈ Π of Σ_k π_k c_k for the
// column c, exactly, read within [min c, max c] (where every
// distribution's mass lies: priors of total S ≠ 1 can leave it by a
// factor S, and a constant column would get the level |log S|), by the
// greedy fill: the box starts from l and pours
// the rest T − Σ l into the cheapest letters (dearest for the maximum) up
// to u, T = min(1, S) for the minimum and max(1, S) for the maximum (the
// box's priors total anything between 1 and the estimate's S); the ball
// moves min(r/2, S − π̂_b) of mass onto the cheapest letter
// b (dearest for the maximum) from the dearest others (cheapest), each at
// most down to 0. Each unit moved adds 2 to the L1 distance.
func (k *checker) massOver(c []float64, hi bool) *big.Float {
	s := k.p.PriorSet
	n := k.n
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := c[a], c[b]
		if hi {
			x, y = y, x
		}
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	sum, t, rest, amt := k.a.zero(), k.a.zero(), k.a.zero(), k.a.zero()
	if s.isBox() {
		rest.Set(k.mass)
		if one := k.a.num(1); (rest.Cmp(one) > 0) != hi {
			rest.Set(one)
		}
		for i := range n {
			k.a.sub(rest, rest, k.a.num(s.Lower[i]))
			k.a.add(sum, sum, k.a.mulf(t, s.Lower[i], c[i]))
		}
		for _, i := range order {
			if rest.Sign() <= 0 {
				break
			}
			k.a.sub(amt, k.a.num(s.Upper[i]), k.a.num(s.Lower[i]))
			if amt.Cmp(rest) > 0 {
				amt.Set(rest)
			}
			if amt.Sign() <= 0 {
				continue
			}
			k.a.add(sum, sum, k.a.mul(t, amt, k.a.num(c[i])))
			k.a.sub(rest, rest, amt)
		}
		return k.withinCosts(sum, c)
	}
	for i := range n {
		k.a.add(sum, sum, k.a.mulf(t, k.p.Prior[i], c[i]))
	}
	b := order[0]
	rest.SetMantExp(k.a.num(*s.L1Radius), -1) // r/2, exact
	if other := k.a.sub(k.a.zero(), k.mass, k.prior[b]); other.Cmp(rest) < 0 {
		rest.Set(other)
	}
	cb := k.a.num(c[b])
	for idx := n - 1; idx > 0 && rest.Sign() > 0; idx-- {
		i := order[idx]
		amt.Set(k.prior[i])
		if amt.Cmp(rest) > 0 {
			amt.Set(rest)
		}
		// moving amt from i to b changes the sum by amt·(c_b − c_i)
		k.a.sub(t, cb, k.a.num(c[i]))
		k.a.add(sum, sum, k.a.mul(t, t, amt))
		k.a.sub(rest, rest, amt)
	}
	return k.withinCosts(sum, c)
}

// withinCosts clamps the mass v of the column c to [min c, max c].
func (k *checker) withinCosts(v *big.Float, c []float64) *big.Float {
	if lo := k.a.num(slices.Min(c)); v.Cmp(lo) < 0 {
		return lo
	}
	if hi := k.a.num(slices.Max(c)); v.Cmp(hi) > 0 {
		return hi
	}
	return v
}

// aboveSet reports whether the vector v lies above some prior of the set
// entrywise (v ≥ π for a π ∈ Π), and if not, why. Then every mechanism
// that is ε-PML for every prior of Π has p_ij ≤ e^ε Σ_k π_k p_kj ≤ e^ε
// Σ_k v_k p_kj. Box: v ≥ l and Σ_k min(u_k, v_k) ≥ S (fill from l up to
// min(u, v)). Ball: v ≥ 0, Σ_k v_k ≥ S and Σ_k max(0, π̂_k − v_k) ≤ r/2
// (take π = min(v, π̂) plus that deficit D spread under v where v > π̂:
// its distance to π̂ is 2D). Without a set, v must be the prior itself.
func (k *checker) aboveSet(v []float64) (bool, string) {
	s := k.p.PriorSet
	if s == nil {
		if !slices.Equal(v, k.p.Prior) {
			return false, "without a prior set the prior must be the problem's"
		}
		return true, ""
	}
	if k.aboveSetByPartials(v) {
		return true, ""
	}
	return k.aboveSetExact(v)
}

// aboveSetExact is aboveSet in big.Float, with the reason of a refusal.
func (k *checker) aboveSetExact(v []float64) (bool, string) {
	s := k.p.PriorSet
	sum, t := k.a.zero(), k.a.zero()
	if s.isBox() {
		for i, x := range v {
			if x < s.Lower[i] {
				return false, fmt.Sprintf("entry %d = %v lies below the box's lower bound %v", i, x, s.Lower[i])
			}
			k.a.add(sum, sum, k.a.num(min(x, s.Upper[i])))
		}
		if sum.Cmp(k.mass) < 0 {
			return false, fmt.Sprintf("Σ_k min(u_k, π_k) = %.17g is below Σ_k π̂_k: no prior of the box lies below it", f64(sum))
		}
		return true, ""
	}
	def := k.a.zero()
	for i, x := range v {
		if x < 0 {
			return false, fmt.Sprintf("entry %d = %v is negative", i, x)
		}
		k.a.add(sum, sum, k.a.num(x))
		if x < k.p.Prior[i] {
			k.a.add(def, def, k.a.sub(t, k.prior[i], k.a.num(x)))
		}
	}
	if sum.Cmp(k.mass) < 0 {
		return false, fmt.Sprintf("its sum %.17g is below Σ_k π̂_k", f64(sum))
	}
	half := k.a.zero().SetMantExp(k.a.num(*s.L1Radius), -1)
	if def.Cmp(half) > 0 {
		return false, fmt.Sprintf("Σ_k max(0, π̂_k − π_k) = %.17g exceeds half the radius %v: every prior below it lies outside the ball", f64(def), *s.L1Radius)
	}
	return true, ""
}

// aboveSetByPartials is aboveSet's test in exact float64 sums
// (exactSign): true where v passes it, false where it fails or the sums
// overflowed, which aboveSet then decides (and explains) in big.Float.
func (k *checker) aboveSetByPartials(v []float64) bool {
	s := k.p.PriorSet
	n := len(v)
	t := make([]float64, 0, 4*n+1)
	if s.isBox() {
		for i, x := range v {
			if x < s.Lower[i] {
				return false
			}
			t = append(t, min(x, s.Upper[i]), -k.p.Prior[i])
		}
		sg, ok := exactSign(t)
		return ok && sg >= 0
	}
	for i, x := range v {
		if x < 0 {
			return false
		}
		t = append(t, x, -k.p.Prior[i])
	}
	if sg, ok := exactSign(t); !ok || sg < 0 {
		return false
	}
	// Σ_k max(0, π̂_k − v_k) ≤ r/2, each term twice against r.
	t = t[:0]
	for i, x := range v {
		if p := k.p.Prior[i]; x < p {
			t = append(t, p, p, -x, -x)
		}
	}
	sg, ok := exactSign(append(t, -*s.L1Radius))
	return ok && sg <= 0
}

// columnPriors returns the prior of each output from priors (one per
// output, or one for all; the problem's prior when empty), after checking
// each lies above a prior of the set; ok false (with the claim failed)
// otherwise.
func (k *checker) columnPriors(claim string, priors [][]float64) ([][]float64, bool) {
	out := make([][]float64, k.m)
	if len(priors) == 0 {
		for j := range out {
			out[j] = k.p.Prior
		}
		return out, true
	}
	for r, v := range priors {
		if ok, why := k.aboveSet(v); !ok {
			what := fmt.Sprintf("the prior of output %d", r)
			if len(priors) == 1 {
				what = "the prior of every output"
			}
			k.claim(claim, false, "%s is outside the prior set: %s", what, why)
			return nil, false
		}
	}
	for j := range out {
		if len(priors) == 1 {
			out[j] = priors[0]
		} else {
			out[j] = priors[j]
		}
	}
	return out, true
}

// priorsShape checks a list of per-output priors: none, one, or one per
// output, each with n finite entries.
func (k *checker) priorsShape(priors [][]float64, where string) string {
	if len(priors) == 0 {
		return ""
	}
	if len(priors) != 1 && len(priors) != k.m {
		return fmt.Sprintf("%s: %d priors for %d outputs (want one, or one per output)", where, len(priors), k.m)
	}
	for r, v := range priors {
		if len(v) != k.n {
			return fmt.Sprintf("%s: prior %d has %d entries for %d letters", where, r, len(v), k.n)
		}
		for _, x := range v {
			if !finite(x) {
				return fmt.Sprintf("%s: prior %d has a number that is not finite (%v)", where, r, x)
			}
		}
	}
	return ""
}

// lowerPriorsShape checks utility.priors_lower and utility.cap_weights:
// both absent, or (LIP and ALIP only) one prior and one pair [R, T] of
// finite numbers ≥ 0 per output, with one utility.priors per output.
func (k *checker) lowerPriorsShape(measure string, u *Utility) string {
	if len(u.PriorsLower) == 0 && len(u.CapWeights) == 0 {
		return ""
	}
	if measure != "lip" && measure != "alip" {
		return fmt.Sprintf("utility.priors_lower and cap_weights: only for lip and alip budgets, not %q", measure)
	}
	if len(u.PriorsLower) != k.m || len(u.CapWeights) != k.m || len(u.Priors) != k.m {
		return fmt.Sprintf("utility: %d priors, %d priors_lower and %d cap_weights for %d outputs (want one of each per output)", len(u.Priors), len(u.PriorsLower), len(u.CapWeights), k.m)
	}
	if msg := k.priorsShape(u.PriorsLower, "utility.priors_lower"); msg != "" {
		return msg
	}
	for j, rt := range u.CapWeights {
		if len(rt) != 2 || !finite(rt[0]) || !finite(rt[1]) || rt[0] < 0 || rt[1] < 0 {
			return fmt.Sprintf("utility.cap_weights: output %d: want two finite numbers ≥ 0, got %v", j, rt)
		}
	}
	return ""
}

// ClaimUnreachable is the claim that no budget reaches a worst case over
// the problem's prior set.
const ClaimUnreachable = "no budget"

// Unreachable re-checks, in exact arithmetic, that no mechanism on the
// zero pattern pat (pat[i][j]: input i may use output j) keeps any budget
// over p's prior set, the claim behind a worst case whose least ε over the
// set is +∞: some letter i may only use outputs j whose allowed inputs A_j
// all get mass 0 under some prior of the set. Row i puts mass on such an
// output j, and under that prior output j has mass 0 while p_ij > 0, so
// p_ij ≤ e^ε · 0 fails at every ε. p's mechanism is not read.
func Unreachable(p Problem, pat [][]bool) []Claim {
	k := &checker{p: p, c: Certificate{Measure: "pml", PriorSet: p.PriorSet}}
	k.n = len(p.Prior)
	if k.n == 0 || len(pat) != k.n || len(pat[0]) == 0 {
		k.claim(ClaimShape, false, "the prior has %d letters, the pattern %d rows", k.n, len(pat))
		return k.out
	}
	k.m = len(pat[0])
	for i, v := range p.Prior {
		if !finite(v) || len(pat[i]) != k.m {
			k.claim(ClaimShape, false, "row %d: a number that is not finite, or %d outputs, not %d", i, len(pat[i]), k.m)
			return k.out
		}
	}
	if p.PriorSet == nil {
		k.claim(ClaimUnreachable, false, "at one prior every worst case that some mechanism reaches has a finite least ε")
		return k.out
	}
	if msg := k.setShape(p.PriorSet, "the problem's"); msg != "" {
		k.claim(ClaimShape, false, "%s", msg)
		return k.out
	}
	k.readPrior()
	k.claim(ClaimShape, true, "%d inputs, %d outputs, every number finite", k.n, k.m)
	k.priorClaim()
	k.setClaim()
	// zero[j]: some prior of the set puts no mass on A_j.
	zero := make([]int8, k.m) // 0 unknown, 1 zero, −1 positive
	col := make([]float64, k.n)
	for i := range k.n {
		all := true
		for j, ok := range pat[i] {
			if !ok {
				continue
			}
			if zero[j] == 0 {
				for r := range k.n {
					col[r] = 0
					if pat[r][j] {
						col[r] = 1
					}
				}
				zero[j] = -1
				if k.massOver(col, false).Sign() == 0 {
					zero[j] = 1
				}
			}
			if zero[j] < 0 {
				all = false
				break
			}
		}
		if all {
			k.claim(ClaimUnreachable, true, "letter %d may only use outputs whose allowed inputs some prior of the set leaves without mass: no mechanism on the pattern keeps any budget over the set", i)
			return k.out
		}
	}
	k.claim(ClaimUnreachable, false, "every letter may use an output whose allowed inputs keep a positive mass over the set: the pattern's least ε is finite")
	return k.out
}
