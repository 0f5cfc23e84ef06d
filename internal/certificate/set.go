package certificate

import (
	"math"
	"math/big"
	"slices"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/fsum"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
)

// Certificates of answers over a prior set (docs/certificates.md, "Over a
// set of priors"). They are built from the problem, the set, the
// mechanism, the reported ends and whatever proofs the engine left
// (Hint), whichever engine found the answer: a hint that does not prove
// the reported end is dropped, and an end that nothing proves goes out
// without its multipliers, which verify refuses.

// Hint is a proof an engine found for an answer over a set: multipliers
// Alpha proven at one prior Prior of the set (a lower end by
// certify.DualBound, an expected-utility bound by certify.UpperBound for
// the utility u_ij π̂_i / π_i, whose weights π_i u_ij π̂_i/π_i are those of
// the estimate).
//
// An engine that proves a lower end with a prior per output (the
// multipliers of a relaxation over several priors of the set, say) gives
// them in Priors, one per output, instead of Prior.
type Hint struct {
	Prior  []float64
	Priors [][]float64
	Alpha  []float64
}

// PriorSet is s in the certificate's form (package verify); nil for a
// problem without a prior set.
func PriorSet(s *mech.PriorSet) *verify.PriorSet {
	if s == nil {
		return nil
	}
	if s.IsBox() {
		return &verify.PriorSet{Lower: append([]float64(nil), s.Lower...), Upper: append([]float64(nil), s.Upper...)}
	}
	r := s.Radius
	return &verify.PriorSet{L1Radius: &r}
}

// exactSum returns Σ v exactly: fsum's partials added in big.Float, or v
// itself where a partial sum overflowed float64.
func exactSum(v []float64) *big.Float {
	parts, ok := fsum.Partials(nil, v)
	if !ok {
		parts = v
	}
	s := new(big.Float).SetPrec(1 << 13)
	var t big.Float
	for _, x := range parts {
		s.Add(s, t.SetFloat64(x))
	}
	return s
}

// sumAtLeast reports Σ v ≥ Σ w exactly, false where it cannot tell
// (fsum.Sign).
func sumAtLeast(v, w []float64) bool {
	t := make([]float64, 0, len(v)+len(w))
	t = append(t, v...)
	for _, x := range w {
		t = append(t, -x)
	}
	s, ok := fsum.Sign(t)
	return ok && s >= 0
}

// ballDeficitWithin reports Σ_k max(0, π_k − v_k) ≤ r/2 exactly, false
// where it cannot tell: each term twice against r, so that no halving
// rounds.
func ballDeficitWithin(v, pi []float64, r float64) bool {
	t := make([]float64, 0, 4*len(v)+1)
	for k, x := range v {
		if x < pi[k] {
			t = append(t, pi[k], pi[k], -x, -x)
		}
	}
	s, ok := fsum.Sign(append(t, -r))
	return ok && s <= 0
}

// addUp returns the least float64 at least x + r (r ≥ 0 exact).
func addUp(x float64, r *big.Float) float64 {
	want := new(big.Float).SetPrec(1 << 13).SetFloat64(x)
	want.Add(want, r)
	y, _ := want.Float64()
	for new(big.Float).SetFloat64(y).Cmp(want) < 0 {
		y = math.Nextafter(y, math.Inf(1))
	}
	return y
}

// AboveSet returns a copy of v raised (by a few units in the last place
// where the float greedy rounded) so that it lies above some prior of the
// set entrywise in exact arithmetic, the condition verify checks on a
// per-output prior: box, v ≥ l and Σ_k min(u_k, v_k) ≥ S; ball, v ≥ 0,
// Σ_k v_k ≥ S and Σ_k max(0, π̂_k − v_k) ≤ r/2 (S = Σ_k π̂_k exactly).
// Raising v only helps each condition. ok is false when it can not.
func AboveSet(set *mech.PriorSet, pi mech.Prior, v []float64) ([]float64, bool) {
	n := len(pi)
	if len(v) != n {
		return nil, false
	}
	w := make([]float64, n)
	copy(w, v)
	// S − Σ_k c_k exactly, for the raises (the checks above them are
	// fsum's signs).
	short := func(c []float64) *big.Float {
		t := make([]float64, 0, 2*n)
		t = append(t, pi...)
		for _, x := range c {
			t = append(t, -x)
		}
		return exactSum(t)
	}
	if set.IsBox() {
		for k := range w {
			w[k] = max(w[k], set.Lower[k])
		}
		for range 3 {
			c := make([]float64, n)
			for k := range w {
				c[k] = min(w[k], set.Upper[k])
			}
			if sumAtLeast(c, pi) {
				return w, true
			}
			sh := short(c)
			if sh.Sign() <= 0 {
				return w, true
			}
			best := -1
			for k := range w {
				if best < 0 || set.Upper[k]-w[k] > set.Upper[best]-w[best] {
					best = k
				}
			}
			w[best] = addUp(w[best], sh)
		}
		return nil, false
	}
	for k := range w {
		w[k] = max(w[k], 0)
	}
	for range 3 {
		if sumAtLeast(w, pi) && ballDeficitWithin(w, pi, set.Radius) {
			return w, true
		}
		// The deficit Σ_k max(0, π̂_k − w_k) less r/2, exactly.
		t := make([]float64, 0, 2*n)
		for k := range w {
			if w[k] < pi[k] {
				t = append(t, pi[k], -w[k])
			}
		}
		excess := exactSum(t)
		half := new(big.Float).SetPrec(1 << 13).SetFloat64(set.Radius)
		excess.Sub(excess, half.SetMantExp(half, -1))
		short := short(w)
		if excess.Sign() <= 0 && short.Sign() <= 0 {
			return w, true
		}
		if excess.Sign() > 0 {
			// Raise the letters below the estimate, the most deficient
			// first: each unit cuts the deficit by one.
			for excess.Sign() > 0 {
				best := -1
				for k := range w {
					if w[k] < pi[k] && (best < 0 || pi[k]-w[k] > pi[best]-w[best]) {
						best = k
					}
				}
				if best < 0 {
					break
				}
				gap := new(big.Float).SetPrec(1 << 13).SetFloat64(pi[best])
				gap.Sub(gap, new(big.Float).SetFloat64(w[best]))
				if gap.Cmp(excess) >= 0 {
					w[best] = addUp(w[best], excess)
					break
				}
				w[best] = pi[best]
				excess.Sub(excess, gap)
			}
			continue
		}
		best := 0
		for k := range w {
			if w[k] > w[best] {
				best = k
			}
		}
		w[best] = addUp(w[best], short)
	}
	return nil, false
}

// LowerOver writes out the proof of a lower end L over p's prior set for
// the pattern pat: from the engine's hints (multipliers proven at one
// prior of the set, which then serves every output), else from pruning
// over the set (α the unit vector of one letter i, ν = 0, and on each
// output j the prior of the set that gives the allowed inputs A_j the
// least mass: no mechanism over the set is then below −log max_{j ∋ i}
// min_{π∈Π} π(A_j)), else from an LP of its own (setLowerLP) with one
// prior per output. The proof's own bound, computed with rounding
// margins, may lie a hair below L: the certificate then claims that bound
// (the caller reports it as the answer's lower end), never more. An L
// that no proof reaches goes out without multipliers.
//
// One prior for every output may prove less than the robust optimum,
// which one prior per output reaches at the saddle point. So when the
// bracket [L, U] is wider than the search's tolerance and the problem is
// small, setLowerLP is asked for a proof just below the upper end U, and
// a better bound it proves becomes the lower end.
func LowerOver(p *problem.Problem, pat mech.Pattern, L, U float64, hints []Hint) *verify.Lower {
	if !(L > 0) && !(U > 0) {
		return &verify.Lower{OptimalEpsilonLower: max(L, 0)}
	}
	set := p.PriorSet
	var found *verify.Lower
	if L > 0 {
		reaches := func(e float64) bool { return e >= L-1e-12*max(1, L) }
		for _, h := range hints {
			raw := h.Priors
			if raw == nil && h.Prior != nil {
				raw = [][]float64{h.Prior}
			}
			if h.Alpha == nil || raw == nil {
				continue
			}
			priors := make([][]float64, len(raw))
			ok := true
			raised := map[*float64][]float64{} // outputs that share a prior share its raise
			for j, v := range raw {
				if len(v) > 0 {
					if w, seen := raised[&v[0]]; seen {
						priors[j] = w
						continue
					}
				}
				priors[j], ok = AboveSet(set, p.Prior, v)
				if !ok {
					break
				}
				if len(v) > 0 {
					raised[&v[0]] = priors[j]
				}
			}
			if !ok {
				continue
			}
			if c, ok := certify.DualCertificateColumns(priors, pat, h.Alpha); ok && reaches(c.Epsilon) {
				found = &verify.Lower{OptimalEpsilonLower: min(L, c.Epsilon), Alpha: c.Alpha, Nu: c.Nu, Priors: priors}
				break
			}
		}
		if found == nil {
			if l := setPruning(p, pat); l != nil && reaches(l.OptimalEpsilonLower) {
				l.OptimalEpsilonLower = min(L, l.OptimalEpsilonLower)
				found = l
			}
		}
	}
	proven := max(L, 0)
	if found != nil {
		proven = found.OptimalEpsilonLower
	}
	n, m := len(pat), len(pat[0])
	if finite := !math.IsInf(U, 0) && !math.IsNaN(U); finite && U-proven > setTightenGap*max(1, U) && n*m <= setTightenMaxCells {
		// Just below U (the robust search stops within its tolerance of
		// it, 1e-9 by default), then a little lower.
		for _, below := range []float64{setTightenGap / 10, setTightenGap / 2} {
			if c, priors, ok := setLowerFromLP(p, pat, U-below*max(1, U)); ok && c.Epsilon > proven {
				return &verify.Lower{OptimalEpsilonLower: min(U, c.Epsilon), Alpha: c.Alpha, Nu: c.Nu, Priors: priors}
			}
		}
	}
	if found != nil || !(L > 0) {
		if found == nil {
			return &verify.Lower{OptimalEpsilonLower: 0}
		}
		return found
	}
	// At L, then a little below: an L within the LP's tolerance of ε*
	// (a bracket closed at the search's default tolerance of 1e-9)
	// leaves its optimum at 0.
	for _, below := range []float64{0, 1e-8, 5e-8} {
		if c, priors, ok := setLowerFromLP(p, pat, L-below*max(1, L)); ok && c.Epsilon >= L-1e-7*max(1, L) {
			return &verify.Lower{OptimalEpsilonLower: min(L, c.Epsilon), Alpha: c.Alpha, Nu: c.Nu, Priors: priors}
		}
	}
	return &verify.Lower{OptimalEpsilonLower: L}
}

// setTightenGap is the relative width of a bracket over a set above which
// LowerOver asks its own LP for a better lower end (far above the robust
// search's default tolerance: a bracket the search left that wide), and
// setTightenMaxCells the largest problem (inputs × outputs) it does so
// for: the LP has 3NM columns, and at 16 × 16 letters it takes a fraction
// of a second.
const (
	setTightenGap      = 1e-6
	setTightenMaxCells = 256
)

// setPruning is the pruning proof over the set (see LowerOver):
// the letter whose allowed outputs have the least largest least mass, the
// per-output priors that reach those masses, and the bound with a margin
// for the rounding of the float sums.
func setPruning(p *problem.Problem, pat mech.Pattern) *verify.Lower {
	if len(pat) == 0 {
		return nil
	}
	set := p.PriorSet
	n, m := len(pat), len(pat[0])
	priors := make([][]float64, m)
	mass := make([]float64, m)
	for j := range m {
		c := make([]float64, n)
		for i := range n {
			if pat[i][j] {
				c[i] = 1
			}
		}
		v, ok := AboveSet(set, p.Prior, set.Extreme(c, false))
		if !ok {
			return nil
		}
		priors[j] = v
		for i := range n {
			if pat[i][j] {
				mass[j] += v[i]
			}
		}
		mass[j] *= 1 + 4*float64(n)*0x1p-53
	}
	best, bi := leastLargestMass(pat, mass)
	if bi < 0 || !(best > 0) || best >= 1 {
		return nil
	}
	eps := -math.Log(best) - 1e-15*(1-math.Log(best))
	if !(eps > 0) {
		return nil
	}
	alpha := make([]float64, n)
	alpha[bi] = 1
	for j := range m {
		if !pat[bi][j] {
			priors[j] = p.Prior // no check on these outputs
		}
	}
	return &verify.Lower{OptimalEpsilonLower: eps, Alpha: alpha, Nu: make([]float64, m), Priors: priors}
}

// NoFiniteLevel reports whether no mechanism with the pattern keeps
// any finite PML for every prior of p's set: whether some letter i has,
// for each output j it may use, a prior of the set that puts no mass on
// the inputs A_j allowed to use j. Row i puts mass p_ij > 0 on one of
// them, and under that prior the output's mass Σ_{k∈A_j} π_k p_kj is 0,
// so p_ij ≤ e^ε Σ_k π_k p_kj fails at every ε: ε* = +∞. This is the
// pruning argument of setPruning at a least mass of 0, decided in exact
// arithmetic (zeroMassPrior), so that a float rounding to 0 proves
// nothing.
func NoFiniteLevel(p *problem.Problem, pat mech.Pattern) bool {
	if len(pat) == 0 || p.PriorSet == nil {
		return false
	}
	n, m := len(pat), len(pat[0])
	zero := make([]bool, m) // output j's allowed inputs can get no mass
	for j := range m {
		in := make([]bool, n)
		for i := range n {
			in[i] = pat[i][j]
		}
		zero[j] = zeroMassPrior(p.PriorSet, p.Prior, in)
	}
	for i := range n {
		all, uses := true, false
		for j := range m {
			if pat[i][j] {
				uses = true
				all = all && zero[j]
			}
		}
		if uses && all {
			return true
		}
	}
	return false
}

// zeroMassPrior reports whether the set holds a prior with no mass on the
// letters in: whether the prior that is 0 there, and as large as the set
// lets it be elsewhere, passes verify's exact test of lying above a prior
// of the set (AboveSet) without raising any letter of in.
func zeroMassPrior(set *mech.PriorSet, pi mech.Prior, in []bool) bool {
	n := len(pi)
	v := make([]float64, n)
	out := -1 // a letter outside in
	for k := range n {
		switch {
		case in[k] && set.IsBox() && set.Lower[k] != 0:
			return false
		case in[k]:
		case set.IsBox():
			v[k] = set.Upper[k]
			out = k
		default:
			v[k] = pi[k]
			out = k
		}
	}
	if out < 0 {
		return false
	}
	// The engines and the audit read a box as the priors of total 1
	// within it, verify as those above a prior of the estimate's total S
	// (a problem file's prior may sum to 1 ± 1e-9): the zero mass must
	// hold in both, so the outside's upper ends must also reach 1.
	if set.IsBox() && exactSum(v).Cmp(big.NewFloat(1)) < 0 {
		return false
	}
	if !set.IsBox() {
		// The ball moves the mass of in onto one other letter.
		var moved []float64
		for k := range n {
			if in[k] {
				moved = append(moved, pi[k])
			}
		}
		v[out] = addUp(v[out], exactSum(moved))
	}
	w, ok := AboveSet(set, pi, v)
	if !ok {
		return false
	}
	for k := range n {
		if in[k] && w[k] != 0 {
			return false
		}
	}
	return true
}

// WorstCaseOver is WorstCase over p's prior set: the mechanism
// a.Mechanism at level a.Epsilon over the set, its support's worst case,
// and the lower end a.Lower over the set, proven from the engine's hints
// or by LowerOver's own means (a.Proof is not read).
func WorstCaseOver(p *problem.Problem, objective problem.Objective, a Answer, hints []Hint, budget *mech.Budget) *verify.Certificate {
	c := WorstCase(p, objective, Answer{Mechanism: a.Mechanism, Epsilon: a.Epsilon}, budget)
	if c == nil {
		return nil
	}
	// The level audited over the set, as the checker reads it
	// (ExpectedOver).
	up, _, _ := leakage.LevelOver(p.PriorSet, a.Mechanism, mech.Budget{Measure: mech.PML})
	c.Epsilon = claimedLevel(up)
	c.PriorSet = PriorSet(p.PriorSet)
	var pat mech.Pattern
	if c.WorstCaseOrder != nil {
		pat = WorstPattern(p, objective, *c.WorstCaseOrder, 0)
	} else {
		pat = WorstPattern(p, objective, 0, *c.WorstCaseValue)
	}
	c.Lower = LowerOver(p, pat, a.Lower, a.Epsilon, hints)
	return c
}

// ExpectedOver is Expected over p's prior set: the levels over the set,
// and the bound proven by the hint's multipliers with the hint's prior
// (raised above the set) for every output's column; LDP needs no prior,
// nor a bound proven at the estimate. a.Alpha is not read.
func ExpectedOver(p *problem.Problem, b mech.Budget, a Answer, hint Hint) *verify.Certificate {
	a.Alpha = nil
	c := Expected(b, a)
	// The levels audited over the set, as the checker reads it
	// (mech.PriorSet.MinMass, to the last bit), whatever route gave a's:
	// the level a document reports beside the certificate is held to it.
	up, low, _ := leakage.LevelOver(p.PriorSet, a.Mechanism, b)
	c.Epsilon = claimedLevel(up)
	if b.Measure == mech.ALIP {
		lo := claimedLevel(low)
		c.ALIPLower = &lo
	}
	c.PriorSet = PriorSet(p.PriorSet)
	if c.Utility.Bound == nil || hint.Alpha == nil {
		return c
	}
	switch {
	case b.Measure == mech.LDP, slices.Equal(hint.Prior, p.Prior):
		c.Utility.Alpha = hint.Alpha
	default:
		if v, ok := AboveSet(p.PriorSet, p.Prior, hint.Prior); ok {
			c.Utility.Alpha = hint.Alpha
			c.Utility.Priors = [][]float64{v}
		}
	}
	return c
}

// JointOver is Joint over p's prior set: the expected-utility certificate
// over the set with the floor kept, and the lower end over the set of the
// least ε that reaches the floor, bracketed in [lower, upper] and proven
// from the engine's hints or by LowerOver's own means.
func JointOver(p *problem.Problem, b mech.Budget, a Answer, floor Floor, pat mech.Pattern, lower, upper float64, hints []Hint, hint Hint) *verify.Certificate {
	c := ExpectedOver(p, b, a, hint)
	floor.state(c)
	c.Lower = LowerOver(p, pat, lower, upper, hints)
	return c
}
