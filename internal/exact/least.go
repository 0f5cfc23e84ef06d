package exact

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/pmlopt/pmlopt/mech"
)

// MaxLetters bounds the inputs and the outputs of a problem that LeastT
// takes: exact rationals grow with every pivot, and the point of the
// exact pass is the small examples of papers and tests.
const MaxLetters = 20

// Result is the least t = e^ε at which a mechanism on the pattern exists,
// proven in exact arithmetic for the prior Prior.
type Result struct {
	Prior []*big.Rat
	// TLower ≤ t* ≤ TUpper, both proven; Rational when they are equal,
	// t* then being TUpper exactly (ε* = log t*).
	TLower, TUpper *big.Rat
	Rational       bool
	// Mechanism is on the pattern, its rows sum to 1 exactly and every
	// p_ij ≤ TUpper·q_j (CheckUpper).
	Mechanism [][]*big.Rat
	// Alpha and Nu prove that no t < TLower is reachable (CheckLower);
	// Nu[j] is nil where α ≤ 0 on all inputs allowed for output j.
	Alpha, Nu []*big.Rat
	// Irrational is set when the bracket holds a root of the optimal
	// basis's polynomial (of degree Degree) that is proven irrational.
	// Neither Rational nor Irrational: the search found no exact value
	// within its rounds, and the bracket is what it proved.
	Irrational bool
	Degree     int
	// Solves and Pivots count the exact master LPs and their pivots.
	Solves, Pivots int
}

// ErrTooLarge is returned for a problem beyond MaxLetters.
var ErrTooLarge = errors.New("exact: more than 20 inputs or outputs")

// LeastT returns t* = e^{ε*}, the least t for which a mechanism P on pat
// (rows summing to 1, p ≥ 0, zero off the pattern) has p_ij ≤ t q_j,
// for the prior pi, exact and proven: a rational t* with a mechanism at it
// and multipliers ruling out every t < t*, or, when t* is irrational, a
// proven bracket [TLower, TUpper] of relative width below 2^-80 (wider in
// the rare case that the rounds run out before a candidate is proven).
//
// epsLower ≤ ε* ≤ epsUpper is a floating-point bracket (the search's) that
// places the first exact solve (just above μ = e^{−epsLower}) and the first
// bisection (just below e^{−epsUpper}); a wrong one costs solves, not
// correctness.
//
// notify, if not nil, is told after each exact LP where it was solved,
// its verdict and the pivots so far, so that a caller can show progress:
// exact arithmetic on priors with tiny masses, whose numbers have
// hundreds of digits, can take minutes.
func LeastT(ctx context.Context, pi []*big.Rat, pat mech.Pattern, epsLower, epsUpper float64, notify func(string)) (*Result, error) {
	if err := pat.Check(len(pi)); err != nil {
		return nil, err
	}
	if len(pi) > MaxLetters || len(pat[0]) > MaxLetters {
		return nil, ErrTooLarge
	}
	for i, p := range pi {
		if p.Sign() <= 0 {
			return nil, fmt.Errorf("exact: prior entry %d is %s, not positive", i+1, p.RatString())
		}
	}
	s := &search{pi: pi, pat: pat, sets: allowedSets(pat), res: &Result{Prior: pi}, rounds: maxRounds, notify: notify}
	if err := s.run(ctx, epsLower, epsUpper); err != nil {
		return nil, err
	}
	return s.res, nil
}

type search struct {
	pi   []*big.Rat
	pat  mech.Pattern
	sets [][]int
	res  *Result
	// rounds bounds the rounds of root and solve (maxRounds).
	rounds int
	// below is μ just below the floating-point μ* (from the search's
	// upper end of ε), the first place to bisect at.
	below *big.Rat
	// feas is the largest μ known feasible, with its mechanism; inf the
	// least known infeasible, with its optimal basis.
	feas, inf *answer
	notify    func(string)
}

// at solves the master at μ and records the answer.
func (s *search) at(ctx context.Context, mu *big.Rat) (*answer, error) {
	a, err := solveAt(ctx, s.pi, s.sets, mu)
	if err != nil {
		return nil, err
	}
	s.res.Solves++
	s.res.Pivots += a.pivots
	if s.notify != nil {
		// 0 − log μ: at μ = 1 the message says ε = 0, not −0.
		s.notify(fmt.Sprintf("exact LP %d at ε = %.6g: %s after %s (%d in all)", s.res.Solves, 0-math.Log(ratFloat(mu)), feasibleWord(a.feasible), pivots(a.pivots), s.res.Pivots))
	}
	if a.feasible && (s.feas == nil || mu.Cmp(s.feas.mu) > 0) {
		s.feas = a
	}
	if !a.feasible && (s.inf == nil || mu.Cmp(s.inf.mu) < 0) {
		s.inf = a
	}
	return a, nil
}

// maxRounds bounds the rounds of root and solve; each round either closes
// the bracket or moves one of its ends.
const maxRounds = 40

func (s *search) run(ctx context.Context, epsLower, epsUpper float64) error {
	// μ* ≤ μ_max = max_j π(A_j): above it no output can be used at all.
	muMax := new(big.Rat)
	for _, set := range s.sets {
		m := new(big.Rat)
		for _, i := range set {
			m.Add(m, s.pi[i])
		}
		if m.Cmp(muMax) > 0 {
			muMax = m
		}
	}
	a, err := s.at(ctx, muMax)
	if err != nil {
		return err
	}
	if a.feasible {
		// ε* is the least opening: every output's π(A_j) ≤ μ_max, which
		// α = e_1 with ν = 0 turns into the proof.
		alpha := zeros(len(s.pi))
		alpha[0].SetInt64(1)
		return s.close(muMax, a.mech, alpha, 0)
	}
	// The first solve just above the floating-point μ* (from the proven
	// lower end of ε): its optimal basis is the one whose root is μ*.
	if !(epsLower >= 0) || math.IsInf(epsLower, 0) {
		epsLower = 0
	}
	if epsUpper >= epsLower && !math.IsInf(epsUpper, 0) {
		s.below = new(big.Rat).SetFloat64(math.Exp(-epsUpper) * (1 - 0x1p-40))
	}
	mu1 := new(big.Rat).SetFloat64(math.Exp(-epsLower) * (1 + 0x1p-40))
	if mu1.Cmp(muMax) < 0 {
		if _, err := s.at(ctx, mu1); err != nil {
			return err
		}
	}
	for round := 0; round < s.rounds; round++ {
		if done, err := s.round(ctx); done || err != nil {
			return err
		}
	}
	// No candidate proven: the bracket of the solves is proven all the
	// same, by the mechanism of the largest feasible μ (every mechanism
	// is feasible at μ = min_i π_i, t = 1/p_min) and the duals of the
	// least infeasible one.
	if s.feas == nil {
		least := s.pi[0]
		for _, p := range s.pi {
			if p.Cmp(least) < 0 {
				least = p
			}
		}
		if _, err := s.at(ctx, least); err != nil {
			return err
		}
		if s.feas == nil {
			return fmt.Errorf("exact: no mechanism at t = 1/p_min")
		}
	}
	return s.bracket(s.feas, s.inf)
}

// round takes the largest candidate for μ* in the bracket [lo, hi) of
// the known feasible and infeasible μ: a root of the polynomial of the
// least infeasible μ's basis, or an opening π(A_j), where the master's
// value jumps (at μ just above π(A_j) output j can not be used at all,
// so F need not fall to 0 at μ*; there μ* is that opening). A rational
// candidate is proven or refuted; an irrational root is bracketed; with no
// candidate the bracket is bisected.
func (s *search) round(ctx context.Context) (bool, error) {
	lo := new(big.Rat) // largest μ known feasible (0: none)
	if s.feas != nil {
		lo = s.feas.mu
	}
	hi := s.inf.mu
	q := basisPoly(s.pi, s.inf.basis)
	root, ok := s.root(q, lo, hi)
	var cand *big.Rat
	if ok && root.rational != nil {
		cand = root.rational
	}
	for _, set := range s.sets {
		o := new(big.Rat)
		for _, i := range set {
			o.Add(o, s.pi[i])
		}
		if o.Cmp(lo) >= 0 && o.Cmp(hi) < 0 && (cand == nil || o.Cmp(cand) > 0) {
			if !ok || root.rational != nil || o.Cmp(root.hi) >= 0 {
				cand = o
			}
		}
	}
	if cand != nil {
		return s.candidate(ctx, cand, hi, len(q)-1)
	}
	if !ok {
		return false, s.bisect(ctx, lo, hi)
	}
	// Irrational: prove a bracket of relative width 2^-80 around it.
	a, b := root.lo, root.hi
	if a.Cmp(lo) <= 0 || b.Cmp(hi) >= 0 {
		return false, s.bisect(ctx, lo, hi)
	}
	fa, err := s.at(ctx, a)
	if err != nil || !fa.feasible {
		return false, err
	}
	fb, err := s.at(ctx, b)
	if err != nil || fb.feasible {
		return false, err
	}
	s.res.Irrational, s.res.Degree = root.irrational, len(q)-1
	return true, s.bracket(fa, fb)
}

// bisect solves between lo and hi: first just below the floating-point
// μ*, then at midpoints.
func (s *search) bisect(ctx context.Context, lo, hi *big.Rat) error {
	mid := new(big.Rat).Add(lo, hi)
	mid.Quo(mid, big.NewRat(2, 1))
	if b := s.below; b != nil && b.Cmp(lo) > 0 && b.Cmp(hi) < 0 {
		mid, s.below = b, nil
	}
	_, err := s.at(ctx, mid)
	return err
}

// candidate proves μ* = r, or moves an end of the bracket: a solve at r
// (feasible: the mechanism), and the limit at r of the duals of the basis
// optimal just above it (the multipliers).
func (s *search) candidate(ctx context.Context, r, hi *big.Rat, degree int) (bool, error) {
	up := s.feas
	if up == nil || up.mu.Cmp(r) != 0 {
		var err error
		if up, err = s.at(ctx, r); err != nil || !up.feasible {
			return false, err // μ* < r: the bracket moved down
		}
	}
	if alpha, ok := limitDuals(s.pi, s.inf.basis, r); ok {
		if _, err := CheckLower(s.pi, s.pat, alpha, inv(r)); err == nil {
			return true, s.close(r, up.mech, alpha, degree)
		}
	}
	// μ* > r, or the optimal basis changes between r and hi: solve
	// closer to r.
	next := new(big.Rat).Sub(hi, r)
	next.Quo(next, big.NewRat(1<<16, 1))
	_, err := s.at(ctx, next.Add(next, r))
	return false, err
}

// close records the exact optimum μ* = mu and checks its proof.
func (s *search) close(mu *big.Rat, p [][]*big.Rat, alpha []*big.Rat, degree int) error {
	t := inv(mu)
	if err := CheckUpper(s.pi, s.pat, p, t); err != nil {
		return fmt.Errorf("exact: the mechanism at t = %s fails its check: %w", t.RatString(), err)
	}
	nu, err := CheckLower(s.pi, s.pat, alpha, t)
	if err != nil {
		return fmt.Errorf("exact: the multipliers at t = %s fail their check: %w", t.RatString(), err)
	}
	s.res.TLower, s.res.TUpper, s.res.Rational = t, t, true
	s.res.Mechanism, s.res.Alpha, s.res.Nu, s.res.Degree = p, alpha, nu, degree
	return nil
}

// bracket records the proven bracket of an irrational t*: the mechanism of
// the feasible solve fa, the duals of the infeasible solve fb.
func (s *search) bracket(fa, fb *answer) error {
	tHi, tLo := inv(fa.mu), inv(fb.mu)
	if err := CheckUpper(s.pi, s.pat, fa.mech, tHi); err != nil {
		return fmt.Errorf("exact: the mechanism at t = %s fails its check: %w", tHi.FloatString(30), err)
	}
	nu, err := CheckLower(s.pi, s.pat, fb.y, tLo)
	if err != nil {
		return fmt.Errorf("exact: the multipliers at t = %s fail their check: %w", tLo.FloatString(30), err)
	}
	s.res.TLower, s.res.TUpper = tLo, tHi
	s.res.Mechanism, s.res.Alpha, s.res.Nu = fa.mech, fb.y, nu
	return nil
}

func inv(x *big.Rat) *big.Rat { return new(big.Rat).Inv(x) }

// rootOf is a root of the basis polynomial in (lo, hi): rational, or
// between lo and hi (dyadic, relative width 2^-80), proven irrational
// when irrational is set.
type rootOf struct {
	rational   *big.Rat
	lo, hi     *big.Rat
	irrational bool
}

// root returns the root of q nearest below hi, found by Newton's method
// from hi.
func (s *search) root(q poly, lo, hi *big.Rat) (rootOf, bool) {
	q = q.squarefree()
	if len(q) < 2 {
		return rootOf{}, false
	}
	z := q.integer()
	lead := new(big.Int).Abs(z[len(z)-1])
	// A rational root a/b has b | lead; |x − a/b| < 1/(2b²) makes it a
	// convergent of x.
	x, ok := q.newton(hi, uint(2*lead.BitLen()+16))
	if !ok {
		return rootOf{}, false
	}
	xr, _ := x.Rat(nil)
	// Within 2^-(2·bits(lead)+4) of x: below 1/(2 lead²).
	w := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(2*lead.BitLen()+4)))
	if r, ok := q.rationalRoot(x, w); ok {
		// lo itself is a candidate: a feasible μ whose proof failed
		// with an earlier basis.
		if r.Cmp(lo) < 0 || r.Cmp(hi) >= 0 {
			return rootOf{}, false
		}
		return rootOf{rational: r}, true
	}
	if xr.Cmp(lo) <= 0 || xr.Cmp(hi) >= 0 {
		return rootOf{}, false
	}
	// The proven bracket: x rounded out to 84 bits. A sign change of Q
	// across it holds a root; the root is irrational when no rational
	// root lies within w of x (the search above was conclusive there), so
	// when the bracket lies within w of x, or when a sign change within w
	// of x lies inside the bracket.
	a, b := roundOut(x)
	fine, fineHi := new(big.Rat).Sub(xr, w), new(big.Rat).Add(xr, w)
	irr := false
	if q.at(a).Sign()*q.at(b).Sign() < 0 {
		switch {
		case fine.Cmp(a) <= 0 && fineHi.Cmp(b) >= 0:
			irr = true
		case fine.Cmp(a) >= 0 && fineHi.Cmp(b) <= 0:
			irr = q.at(fine).Sign()*q.at(fineHi).Sign() < 0
		}
	}
	return rootOf{lo: a, hi: b, irrational: irr}, true
}

// roundOut returns dyadic rationals a < x < b with (b − a)/x about 2^-80.
func roundOut(x *big.Float) (*big.Rat, *big.Rat) {
	down := new(big.Float).SetPrec(84).SetMode(big.ToNegativeInf).Set(x)
	up := new(big.Float).SetPrec(84).SetMode(big.ToPositiveInf).Set(x)
	a, _ := down.Rat(nil)
	b, _ := up.Rat(nil)
	ulp := new(big.Float).SetPrec(84).SetMantExp(big.NewFloat(1), x.MantExp(nil)-84)
	u, _ := ulp.Rat(nil)
	a.Sub(a, u)
	b.Add(b, u)
	return a, b
}

// ratFloat is r's nearest float64, for messages.
func ratFloat(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}

// feasibleWord names an exact LP's verdict for messages.
func feasibleWord(feasible bool) string {
	if feasible {
		return "a mechanism"
	}
	return "no mechanism"
}

// pivots is "1 pivot" or "n pivots".
func pivots(n int) string {
	if n == 1 {
		return "1 pivot"
	}
	return fmt.Sprintf("%d pivots", n)
}
