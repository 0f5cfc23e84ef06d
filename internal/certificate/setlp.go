package certificate

import (
	"context"
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// setLowerLPMaxCols bounds the size of setLowerLP's model: it is for the
// answers whose engine left no proof of their lower end, and a certificate
// is not worth a large LP of its own.
const setLowerLPMaxCols = 3 * 24 * 24

// setLowerLP looks for multipliers and one prior per output that prove the
// lower end L over p's prior set for the pattern pat, whatever engine
// found L: the proof of docs/certificates.md ("Over a set of priors") with
// λ_j = 1/ν_j, written as an LP in α, λ_j, y_·j = λ_j π^(j) (so that π^(j)
// ranges over the set as y ranges over the cone λ_j Π) and s_ij ≥
// max(0, y_ij + α_i):
//
//	max Σ_i α_i  s.t.  Σ_{i∈A_j} s_ij ≤ e^{−L} λ_j,  s_ij ≥ y_ij + α_i,
//	                   y_·j ∈ λ_j Π,  Σ_j λ_j ≤ 1,  s, λ ≥ 0.
//
// A positive optimum gives a proof at L (the Lagrangian dual of the
// robust feasibility LP, one prior per output after aggregating its
// multipliers). The LP's point is approximate: the priors are raised above
// the set and certify.DualCertificateColumns recomputes the bound with
// its margins, which the caller compares with L. ok is false when the LP
// finds no positive optimum or is too large.
func setLowerLP(p *problem.Problem, pat mech.Pattern, L float64) (priors [][]float64, alpha []float64, ok bool) {
	set := p.PriorSet
	n, m := len(pat), len(pat[0])
	cols := n + m + 3*n*m
	if cols > setLowerLPMaxCols {
		return nil, nil, false
	}
	S := 0.0
	for _, v := range p.Prior {
		S += v
	}
	kappa := math.Exp(-L)
	x := &lp.Model{Maximize: true}
	a := make([]int, n)
	for i := range a {
		a[i] = x.AddCol(1, -lp.Inf, lp.Inf, "")
	}
	lam := make([]int, m)
	norm := []lp.Nonzero{}
	for j := range lam {
		lam[j] = x.AddCol(0, 0, lp.Inf, "")
		norm = append(norm, lp.Entry(lam[j], 1))
	}
	x.AddRow(-lp.Inf, 1, "", norm...)
	y := make([][]int, m)
	for j := range m {
		y[j] = addScaledPrior(x, p.Prior, set, S, lam[j], 1)
		cap := []lp.Nonzero{lp.Entry(lam[j], -kappa)}
		for i := range n {
			if !pat[i][j] {
				continue
			}
			s := x.AddCol(0, 0, lp.Inf, "")
			cap = append(cap, lp.Entry(s, 1))
			x.AddRow(0, lp.Inf, "", lp.Entry(s, 1), lp.Entry(y[j][i], -1), lp.Entry(a[i], -1))
		}
		x.AddRow(-lp.Inf, 0, "", cap...)
	}
	sol, ok := solveSetLP(x, 1)
	if !ok || !(sol.Objective > 0) {
		return nil, nil, false
	}
	alpha, priors, ok = setLPProof(sol.X, a, lam, y, 1, p.Prior, set)
	return priors, alpha, ok
}

// setLPIterations bounds a certificate LP's simplex iterations, per row
// and column: these LPs take a few hundred at 16 × 16 letters, but at
// large budgets, where their entries reach e^ε, the engine can creep along
// degenerate vertices for minutes. Past the bound the answer keeps the
// bound it had.
const setLPIterations = 10

// solveSetLP solves a certificate's LP over a set with the revised simplex
// (the default backend where that is not built in), up to setLPIterations,
// at the cost scale of its scaled priors (addScaledPrior's mult: their
// columns range that far, solver.Start.CostScale); ok when it is optimal.
func solveSetLP(x *lp.Model, costScale float64) (*solver.Solution, bool) {
	slv, err := solver.Get("revised")
	if err != nil {
		slv = solver.Auto()
	}
	limit := setLPIterations * (x.NumRows() + x.NumCols())
	sol, _, err := solver.SolveContext(context.Background(), slv, x, solver.Start{IterationLimit: limit, CostScale: costScale})
	if err != nil || sol.Status != solver.Optimal {
		return nil, false
	}
	return sol, true
}

// setLPProof reads a proof over the set off the solution X of a
// certificate's LP: the multipliers α_i = X[a_i] and, for each output j,
// the prior X[y_j]/(mult·X[scale_j]) its scaled prior columns hold (the estimate
// where the scale is negligible), moved into the set (AboveSet).
func setLPProof(X []float64, a, scale []int, y [][]int, mult float64, pi mech.Prior, set *mech.PriorSet) (alpha []float64, priors [][]float64, ok bool) {
	n, m := len(a), len(scale)
	alpha = make([]float64, n)
	for i := range n {
		alpha[i] = X[a[i]]
	}
	top := 0.0
	for j := range m {
		top = max(top, X[scale[j]])
	}
	priors = make([][]float64, m)
	for j := range m {
		v := []float64(pi)
		if l := X[scale[j]]; l > 1e-9*top {
			v = make([]float64, n)
			for i := range n {
				v[i] = max(0, X[y[j][i]]/(mult*l))
			}
		}
		w, ok := AboveSet(set, pi, v)
		if !ok {
			return nil, nil, false
		}
		priors[j] = w
	}
	return alpha, priors, true
}

// setLowerFromLP is setLowerLP's proof written out: the certificate's
// multipliers and the bound they prove.
func setLowerFromLP(p *problem.Problem, pat mech.Pattern, L float64) (certify.LowerCertificate, [][]float64, bool) {
	priors, alpha, ok := setLowerLP(p, pat, L)
	if !ok {
		return certify.LowerCertificate{}, nil, false
	}
	c, ok := certify.DualCertificateColumns(priors, pat, alpha)
	return c, priors, ok
}

// addScaledPrior adds to x the columns y_i of a prior of the set scaled by
// the column scale and by mult, y ∈ mult·scale·Π: Σ_i y_i = mult·S·scale
// (S the prior's own total) and the box's bounds, or the L1 ball's
// distance to mult·scale·prior, times mult·scale. It returns the columns
// y_i. A y that enters a row times e^ε is written with mult =
// polytope.MassScale(e^ε), as the dualised model holds its least masses
// (docs/theory.md §7): an engine then holds the prior's own
// rows to its tolerance over e^ε, and the row the prior enters to its
// tolerance, where unscaled a y_i of −1e-9 on a box's lower end 0 would
// count −e^ε·1e-9 in that row.
func addScaledPrior(x *lp.Model, prior mech.Prior, set *mech.PriorSet, S float64, scale int, mult float64) []int {
	n := len(prior)
	y := make([]int, n)
	sum := []lp.Nonzero{lp.Entry(scale, -mult*S)}
	for i := range n {
		y[i] = x.AddCol(0, 0, lp.Inf, "")
		sum = append(sum, lp.Entry(y[i], 1))
	}
	x.AddRow(0, 0, "", sum...)
	if set.IsBox() {
		for i := range n {
			x.AddRow(0, lp.Inf, "", lp.Entry(y[i], 1), lp.Entry(scale, -mult*set.Lower[i]))
			x.AddRow(-lp.Inf, 0, "", lp.Entry(y[i], 1), lp.Entry(scale, -mult*set.Upper[i]))
		}
		return y
	}
	dist := []lp.Nonzero{lp.Entry(scale, -mult*set.Radius)}
	for i := range n {
		d := x.AddCol(0, 0, lp.Inf, "")
		dist = append(dist, lp.Entry(d, 1))
		x.AddRow(0, lp.Inf, "", lp.Entry(d, 1), lp.Entry(y[i], -1), lp.Entry(scale, mult*prior[i]))
		x.AddRow(0, lp.Inf, "", lp.Entry(d, 1), lp.Entry(y[i], 1), lp.Entry(scale, -mult*prior[i]))
	}
	x.AddRow(-lp.Inf, 0, "", dist...)
	return y
}

// fallbackPriorMult is the smaller mult priorMults offers after
// polytope.MassScale's: the revised simplex can give up, at its iteration limit, on
// an LP whose prior rows span 1e5 to 1e6 and more (counting-binomial at 16
// letters, 12 nats, an L1 ball), and solve the same LP with its priors
// times 1e4; where that leaves the cap rows e^ε·1e-13 of error, the proof
// is only looser, and verify decides.
const fallbackPriorMult = 1e4

// priorMults is the mults to try in turn for a prior that enters its row
// times lam: polytope.MassScale's, then fallbackPriorMult where that is
// smaller.
func priorMults(lam float64) []float64 {
	m := polytope.MassScale(lam)
	if m > fallbackPriorMult {
		return []float64{m, fallbackPriorMult}
	}
	return []float64{m}
}
