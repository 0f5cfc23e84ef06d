package ipm

import (
	"errors"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// RatioProblem is an expected-utility problem under a budget whose
// constraints bound every entry of an output from both sides by one
// auxiliary per output: maximise Σ_ij π_i u_ij p_ij subject to
//
//	LIP, ALIP:  e^{−ε_l} q_j ≤ p_ij ≤ e^{ε_u} q_j   (LIP: ε_l = ε_u = ε)
//	LDP:        l_j ≤ p_ij ≤ e^ε l_j
//
// (the formulations of package polytope).
type RatioProblem struct {
	Prior   mech.Prior
	Utility mech.Utility
	Budget  mech.Budget
}

// capForm is the common form of the polytopes the iterations run on: with
// t_j the upper cap of output j, κ t_j ≤ p_ij ≤ t_j and, when marg is set,
// Σ_i π_i p_ij = μ t_j. ε-PML is κ = 0, μ = e^{−ε}.
type capForm struct {
	marg      bool
	mu, kappa float64
}

// pmlForm is the form of the ε-PML polytope.
func pmlForm(eps float64) capForm { return capForm{marg: true, mu: math.Exp(-eps)} }

func (p RatioProblem) form() (capForm, error) {
	b := p.Budget
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v < 0 }
	switch b.Measure {
	case mech.LIP:
		if bad(b.Epsilon) {
			return capForm{}, fmt.Errorf("ipm: budget %g is not a finite number ≥ 0", b.Epsilon)
		}
		return capForm{marg: true, mu: math.Exp(-b.Epsilon), kappa: math.Exp(-2 * b.Epsilon)}, nil
	case mech.ALIP:
		if bad(b.EpsilonLower) || bad(b.EpsilonUpper) {
			return capForm{}, fmt.Errorf("ipm: budget (%g, %g) is not finite and ≥ 0", b.EpsilonLower, b.EpsilonUpper)
		}
		return capForm{marg: true, mu: math.Exp(-b.EpsilonUpper), kappa: math.Exp(-b.EpsilonLower - b.EpsilonUpper)}, nil
	case mech.LDP:
		if bad(b.Epsilon) {
			return capForm{}, fmt.Errorf("ipm: budget %g is not a finite number ≥ 0", b.Epsilon)
		}
		return capForm{kappa: math.Exp(-b.Epsilon)}, nil
	}
	return capForm{}, fmt.Errorf("ipm: SolveRatio takes lip, alip or ldp budgets, not %q", b.Measure)
}

// SolveRatio returns an optimal mechanism of p, certified to within
// opt.Gap by certify.RatioUpperBound. It runs Solve's iterations on the
// form
//
//	max Σ c_k p_k  s.t.  Σ_j p_ij = 1,  [Σ_i π_i p_ij = μ t_j],
//	                     p_ij + s_ij = t_j,  p_ij − r_ij = κ t_j,  s, r ≥ 0,
//
// where the lower caps replace Solve's p ≥ 0 (r plays p's part in the
// complementarity; the marginal rows are absent for LDP).
func SolveRatio(p RatioProblem, opt Options) (*Result, error) {
	if _, err := mech.NewPrior(p.Prior); err != nil {
		return nil, err
	}
	if _, err := mech.NewUtility(p.Utility); err != nil {
		return nil, err
	}
	n, m := p.Utility.Dims()
	if n != len(p.Prior) {
		return nil, &mech.FieldError{Field: "utility", Row: -1, Col: -1,
			Msg: fmt.Sprintf("has %d rows but the prior has %d letters", n, len(p.Prior))}
	}
	form, err := p.form()
	if err != nil {
		return nil, err
	}
	gap, accept, maxIter, err := opt.settings()
	if err != nil {
		return nil, err
	}
	p.Prior = normalised(p.Prior)
	if form.kappa == 1 || (form.marg && (form.mu == 1 || form.kappa == form.mu)) {
		return identicalRows(p), nil
	}
	w := newWorkspace(p.Prior, p.Utility, allPairs(n, m), form)
	w.lowRank = opt.LowRank
	w.workers = opt.Workers
	best := w.bestPoint(opt.ctx(), maxIter, gap, func() *Result { return w.ratioResult(p) })
	if err := opt.ctx().Err(); err != nil {
		return nil, err
	}
	if best != nil && best.Bound-best.Value > ratioVertexGap*max(1, math.Abs(best.Value)) && best.face != nil {
		// The point's value is the interior point's mixed into the
		// budget, which costs where rounding ended the iterations; a
		// vertex of the face the point lies in has no mixing to pay, and
		// the face LP's multipliers may be sharper.
		var v *Result
		err := errNotTried
		if purifyOutputs*m <= n {
			v, err = purifiedRatioVertex(p, best)
		}
		if err != nil && best.Bound-best.Value > accept*max(1, math.Abs(best.Value)) {
			// The face LP, whose simplex grows faster than the face,
			// where the point is not certified as it is.
			v, err = ratioVertex(opt.ctx(), p, form, best)
		}
		if err == nil && v.Bound-v.Value < best.Bound-best.Value {
			best = v
		}
	}
	if best != nil && best.Bound-best.Value <= accept*max(1, math.Abs(best.Value)) {
		return best, nil
	}
	if _, _, ok := form.pmlCaps(); ok && opt.LowRank && p.Budget.Measure == mech.LIP && opt.ctx().Err() == nil {
		// The ratio form's iterations stall on large restricted LIP
		// problems (pairs crossing their box between the two caps, then
		// multipliers losing their digits); the same problem as
		// ε'-PML has no lower caps (ratiopml.go).
		if r, err := solveRatioAsPML(p, opt); err == nil {
			return r, nil
		}
	}
	return best, ErrNotConverged
}

// purifyOutputs is how many times as many inputs as outputs a problem
// needs for SolveRatio to purify its point: the purification moves the
// caps once per free direction, each at the cost of an SVD of the trees'
// equations: a small part of the solve on the restricted problems of an
// active set (thousands of inputs, hundreds of outputs), more than the
// solve itself on square problems (binomial priors of 256 letters), where
// it found no vertex either.
const purifyOutputs = 4

// errNotTried stands for a vertex SolveRatio did not look for.
var errNotTried = errors.New("ipm: not tried")

// identicalRows answers the budgets that force every row to be the same
// (LDP or LIP at ε = 0, ALIP with ε_l = 0 or ε_u = 0: Σ_i π_i p_ij = q_j
// with every p_ij on one side of q_j leaves p_ij = q_j), where the
// interior-point method has no interior: such a mechanism is worth
// Σ_j q_j Σ_i π_i u_ij, at most max_j Σ_i π_i u_ij, which the constant
// mechanism on the best output reaches. The multipliers 0 prove it.
func identicalRows(p RatioProblem) *Result {
	n, m := p.Utility.Dims()
	best, value := 0, math.Inf(-1)
	for j := range m {
		v := 0.0
		for i := range n {
			v += p.Prior[i] * p.Utility[i][j]
		}
		if v > value {
			best, value = j, v
		}
	}
	P := mech.Zeros(n, m)
	for i := range n {
		P[i][best] = 1
	}
	alpha := make([]float64, n)
	return &Result{Mechanism: P, Value: p.Utility.ExpectedUtility(p.Prior, P),
		Bound: certify.RatioUpperBound(p.Prior, p.Utility, p.Budget, alpha), Alpha: alpha}
}

// ratioResult turns the current point of SolveRatio's iterations into an
// audited mechanism (outputs of noise dropped, rows renormalised, mixed
// into the budget by mixIntoRatio) with its value and the bound its
// multipliers prove. Pair k = j·n + i is (i, j) (allPairs).
func (w *workspace) ratioResult(p RatioProblem) *Result {
	n, m := w.st.n, w.st.m
	P := mech.Zeros(n, m)
	for j := range m {
		// An output the optimum leaves unused keeps entries of the
		// order of the complementarity, whose ratios are noise: it is
		// dropped, or the mixing would pay for that noise.
		top := 0.0
		for i := range n {
			top = max(top, w.p[j*n+i])
		}
		if top <= clean.InteriorColumnNoise {
			continue
		}
		for i := range n {
			P[i][j] = max(0, w.p[j*n+i])
		}
	}
	for i := range n {
		s := 0.0
		for j := range m {
			s += P[i][j]
		}
		for j := range m {
			P[i][j] /= s
		}
	}
	P = mixIntoRatio(p.Prior, P, p.Budget)
	alpha := make([]float64, n)
	for i, a := range w.a {
		alpha[i] = -a * w.scale
	}
	return &Result{
		Mechanism: P,
		Value:     p.Utility.ExpectedUtility(p.Prior, P),
		Bound:     certify.RatioUpperBound(p.Prior, p.Utility, p.Budget, alpha),
		Alpha:     alpha,
		face:      w.ratioFace(),
	}
}

// ratioFace reads the optimal face off the current point by complementarity,
// as workspace.face does: an output is used when its largest entry is not
// noise, a pair of it is at its cap when s_ij < w_ij and at its lower cap
// when r_ij < z_ij.
func (w *workspace) ratioFace() *face {
	n, m := w.st.n, w.st.m
	f := &face{used: make(mech.Pattern, n), capped: make(mech.Pattern, n), lower: make(mech.Pattern, n)}
	for i := range n {
		f.used[i], f.capped[i], f.lower[i] = make([]bool, m), make([]bool, m), make([]bool, m)
	}
	for j := range m {
		top := 0.0
		for i := range n {
			top = max(top, w.p[j*n+i])
		}
		for i := range n {
			k := j*n + i
			f.used[i][j] = top > clean.InteriorColumnNoise
			f.capped[i][j] = f.used[i][j] && w.s[k] < w.w[k]
			f.lower[i][j] = f.used[i][j] && !f.capped[i][j] && w.r[k] < w.z[k]
		}
	}
	return f
}

// ratioMeets reports whether P meets the budget b (LIP, ALIP or LDP)
// under package leakage, without slack.
func ratioMeets(pi mech.Prior, P mech.Mechanism, b mech.Budget) bool {
	_, _, excess := leakage.Level(pi, P, b)
	return excess <= 0
}

// mixIntoRatio returns P, mixed in place with the mechanism whose every
// row is P's output marginal q (LIP 0, ALIP 0, LDP 0) when P exceeds the
// budget: the mixture keeps q and moves every ratio p_ij/q_j and
// p_ij/p_i'j towards 1. The least mixing weight that meets the budget is
// clean.MixAt's, checked by the audit, which must hold without slack. (At
// a budget of 0 no weight may: a ratio 1/q_j is 1 only up to the rounding
// of the prior's sum; the weight is then 1.)
func mixIntoRatio(pi mech.Prior, P mech.Mechanism, b mech.Budget) mech.Mechanism {
	if ratioMeets(pi, P, b) {
		return P
	}
	return clean.MixAt(pi, P, b, func(M mech.Mechanism) bool { return ratioMeets(pi, M, b) })
}
