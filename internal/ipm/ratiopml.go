package ipm

import (
	"errors"
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/mech"
)

// The LIP and ALIP expected-utility problems are ε-PML problems in
// disguise. With lower and upper caps l q_j ≤ p_ij ≤ h q_j on the output
// marginal q_j = Σ_i π_i p_ij (LIP: l = e^{−ε}, h = e^ε; ALIP: l =
// e^{−ε_l}, h = e^{ε_u}), the map
//
//	p_ij = l q_j + (1 − l) y_ij,   y_ij = (p_ij − l q_j) / (1 − l)
//
// is a linear bijection, column by column, between those mechanisms and
// the mechanisms y with 0 ≤ y_ij ≤ λ q_j, λ = (h − l)/(1 − l): y has the
// same marginal q (Σ_i π_i y_ij = (q_j − l q_j)/(1 − l)), its rows sum to
// 1 (Σ_j p_ij = l + (1 − l) Σ_j y_ij), and y ≥ 0 and y ≤ λ q_j are the
// lower and upper caps of p. These y are the ε'-PML mechanisms, ε' = ln λ
// (LIP: λ = e^ε + 1), and the expected utility is
//
//	Σ_ij π_i u_ij p_ij = Σ_ij π_i y_ij ((1 − l) u_ij + l U_j),  U_j = Σ_k π_k u_kj,
//
// so the LIP or ALIP optimum is the ε'-PML optimum of the utility u' =
// (1 − l) u + l U. Its iterations (Solve) have only the upper caps: no
// pair crosses a box between two caps of one output, the long path of the
// ratio form's iterations on the restricted problems of an active set
// (docs/performance.md, "Where a grid solve's time goes"). The vertices map
// to vertices, zero columns to zero columns.
//
// The Lagrangian of the row sums maps too: with multipliers α' of the
// ε'-PML rows and A = Σ_k α'_k, the multipliers α_k = (α'_k − l A π_k)/(1
// − l) of the ratio problem's rows give the same dual function (Σ_k α_k
// = A, and Σ_k α_k Σ_j p_kj = Σ_kj ((1 − l) α_k + l A π_k) y_kj), so
// certify.RatioUpperBound proves from them what certify.UpperBound proves
// from α' (TestRatioAsPMLSameDual checks it for LIP): the returned bound
// is computed that way, on the ratio problem itself, and holds whatever
// the multipliers. SolveRatio takes this route for LIP, on the low-rank
// problems its own iterations leave uncertified.

// pmlCaps returns l and λ = (h − l)/(1 − l) of the form's ratio caps
// l q_j ≤ p_ij ≤ h q_j (t_j = h q_j: h = 1/μ, l = κ/μ), and whether the
// form is one SolveRatio answers through ε'-PML (marginal rows and a
// lower cap below the marginal).
func (fm capForm) pmlCaps() (l, lambda float64, ok bool) {
	if !fm.marg || !(fm.kappa > 0) || !(fm.mu > 0) {
		return 0, 0, false
	}
	l, h := fm.kappa/fm.mu, 1/fm.mu
	if !(l < 1) || !(h > 1) || math.IsInf(h, 0) {
		return 0, 0, false
	}
	return l, (h - l) / (1 - l), true
}

// solveRatioAsPML answers p (LIP or ALIP) by
// Solve on the ε'-PML problem above, that of p's budget a relative
// budgetShrink inside itself (shrunkForm), so that the mapped mechanism
// meets p's budget on both sides without slack; its
// vertex is PurifiedVertex's where the problem has purifyOutputs times as
// many inputs as outputs (else the interior point, mixed into the budget
// where rounding left it above). The prior is p's, normalised.
func solveRatioAsPML(p RatioProblem, opt Options) (*Result, error) {
	n, m := p.Utility.Dims()
	_, sf, err := shrunkForm(p)
	if err != nil {
		return nil, err
	}
	l, lambda, ok := sf.pmlCaps()
	if !ok {
		return nil, errors.Join(ErrNotConverged, errors.New("ipm: the shrunk budget has no ε'-PML form"))
	}
	eps := math.Log(lambda)
	up := make(mech.Utility, n)
	for i := range up {
		up[i] = make([]float64, m)
	}
	for j := range m {
		mean := 0.0
		for k := range n {
			mean += p.Prior[k] * p.Utility[k][j]
		}
		for i := range n {
			up[i][j] = (1-l)*p.Utility[i][j] + l*mean
		}
	}
	pp := Problem{Prior: p.Prior, Utility: up, Epsilon: eps}
	r, err := Solve(pp, opt)
	if r == nil {
		return nil, err
	}
	if cerr := opt.ctx().Err(); cerr != nil {
		return nil, cerr
	}
	_, accept, _, _ := opt.settings()
	point := r
	if purifyOutputs*m <= n {
		if v, verr := PurifiedVertex(pp, r, Options{Context: opt.Context}); verr == nil {
			point = v
		}
	}
	out := fromPML(p, l, point)
	if point != r && !(out.Bound-out.Value <= accept*max(1, math.Abs(out.Value))) {
		// A vertex the audit of p refuses or whose value lost more than
		// the interior point's: the point itself.
		if alt := fromPML(p, l, r); alt.Bound-alt.Value < out.Bound-out.Value {
			out = alt
		}
	}
	out.Iterations, out.DenseFactors, out.Rescued = r.Iterations, r.DenseFactors, r.Rescued
	if !out.valid() {
		return nil, errors.Join(ErrNotConverged, errors.New("ipm: the ε'-PML point does not map to a ratio mechanism within its bound"))
	}
	if out.Bound-out.Value <= accept*max(1, math.Abs(out.Value)) {
		return out, nil
	}
	return out, ErrNotConverged
}

// fromPML maps r, a mechanism y of the ε'-PML problem with its row
// multipliers, to p's mechanism l q + (1 − l) y, mixed into p's budget
// where rounding left it above, with its value and the bound
// certify.RatioUpperBound proves from the mapped multipliers.
func fromPML(p RatioProblem, l float64, r *Result) *Result {
	n, m := p.Utility.Dims()
	y := r.Mechanism
	q := make([]float64, m)
	for i := range n {
		for j, v := range y[i] {
			q[j] += p.Prior[i] * v
		}
	}
	P := mech.Zeros(n, m)
	for i := range n {
		for j, v := range y[i] {
			P[i][j] = l*q[j] + (1-l)*v
		}
	}
	P = mixIntoRatio(p.Prior, P, p.Budget)
	A := 0.0
	for _, a := range r.Alpha {
		A += a
	}
	alpha := make([]float64, n)
	for k, a := range r.Alpha {
		alpha[k] = (a - l*A*p.Prior[k]) / (1 - l)
	}
	return &Result{
		Mechanism: P,
		Value:     p.Utility.ExpectedUtility(p.Prior, P),
		Bound:     certify.RatioUpperBound(p.Prior, p.Utility, p.Budget, alpha),
		Alpha:     alpha,
	}
}
