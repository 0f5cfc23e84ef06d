package ipm

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
)

// ratioVertex is Vertex for SolveRatio's polytopes: the LP of the face r's
// complementarity indicates, with the pairs at a cap replaced by t_j or
// κ t_j, solved by the pure-Go revised simplex at budgets a relative
// budgetShrink inside p's. Its vertex is a vertex of the polytope (a face
// has no others); it must meet the budget and reach r's value, and its
// bound is the lesser of r's and the one its row multipliers prove.
//
//	max Σ_j t_j (Σ_{U_j} π_i u_ij + κ Σ_{L_j} π_i u_ij) + Σ_free π_i u_ij p_ij
//	sum[i]:  Σ_{j: i∈U_j} t_j + κ Σ_{j: i∈L_j} t_j + Σ_{j: ij free} p_ij = 1
//	marg[j]: (μ − Σ_{U_j} π_i − κ Σ_{L_j} π_i) t_j − Σ_free π_i p_ij = 0   (LIP, ALIP)
//	up[i,j]: p_ij − t_j ≤ 0,  lo[i,j]: p_ij − κ t_j ≥ 0                  (ij free)
//
// with U_j and L_j the pairs of output j at the upper and the lower cap.
// Above wideBudget (ε_u) the column of t_j holds t_j/e^{ε_u} = q_j and the
// cap rows are divided by e^{ε_u}.
func ratioVertex(ctx context.Context, p RatioProblem, form capForm, r *Result) (*Result, error) {
	n, m := p.Utility.Dims()
	b := p.Budget
	shrink := func(e float64) float64 { return math.Max(0, e*(1-budgetShrink)-budgetShrink) }
	b.Epsilon, b.EpsilonLower, b.EpsilonUpper = shrink(b.Epsilon), shrink(b.EpsilonLower), shrink(b.EpsilonUpper)
	sf, err := RatioProblem{Prior: p.Prior, Utility: p.Utility, Budget: b}.form()
	if err != nil {
		return nil, err
	}
	sigma, top := 1.0, b.Epsilon
	if form.marg {
		top = b.EpsilonUpper
		if b.Measure == mech.LIP {
			top = b.Epsilon
		}
	}
	if form.marg && top > wideBudget {
		sigma = math.Exp(top)
	}
	f := r.face
	kap := sf.kappa
	l := &lp.Model{Maximize: true}
	tcol := make([]int, m)
	pcol := make([][]int, n)
	for i := range n {
		pcol[i] = make([]int, m)
	}
	for j := range m {
		tcol[j] = -1
		if !f.used[0][j] {
			continue
		}
		cost := 0.0
		for i := range n {
			switch {
			case f.capped[i][j]:
				cost += p.Prior[i] * p.Utility[i][j]
			case f.lower[i][j]:
				cost += kap * p.Prior[i] * p.Utility[i][j]
			}
		}
		tcol[j] = l.AddCol(sigma*cost, 0, lp.Inf, fmt.Sprintf("t[%d]", j+1))
	}
	for i := range n {
		for j := range m {
			pcol[i][j] = -1
			if f.used[i][j] && !f.capped[i][j] && !f.lower[i][j] {
				pcol[i][j] = l.AddCol(p.Prior[i]*p.Utility[i][j], 0, lp.Inf, fmt.Sprintf("p[%d,%d]", i+1, j+1))
			}
		}
	}
	for i := range n {
		var e []lp.Nonzero
		for j := range m {
			switch {
			case tcol[j] < 0:
			case f.capped[i][j]:
				e = append(e, lp.Entry(tcol[j], sigma))
			case f.lower[i][j]:
				e = append(e, lp.Entry(tcol[j], sigma*kap))
			default:
				e = append(e, lp.Entry(pcol[i][j], 1))
			}
		}
		l.AddRow(1, 1, fmt.Sprintf("sum[%d]", i+1), e...)
	}
	for j := range m {
		if tcol[j] < 0 {
			continue
		}
		if sf.marg {
			c := sf.mu
			var e []lp.Nonzero
			for i := range n {
				switch {
				case f.capped[i][j]:
					c -= p.Prior[i]
				case f.lower[i][j]:
					c -= kap * p.Prior[i]
				default:
					e = append(e, lp.Entry(pcol[i][j], -p.Prior[i]))
				}
			}
			l.AddRow(0, 0, fmt.Sprintf("marg[%d]", j+1), append([]lp.Nonzero{lp.Entry(tcol[j], sigma*c)}, e...)...)
		}
		for i := range n {
			if k := pcol[i][j]; k >= 0 {
				l.AddRow(math.Inf(-1), 0, fmt.Sprintf("up[%d,%d]", i+1, j+1), lp.Entry(k, 1/sigma), lp.Entry(tcol[j], -1))
				l.AddRow(0, lp.Inf, fmt.Sprintf("lo[%d,%d]", i+1, j+1), lp.Entry(k, 1/sigma), lp.Entry(tcol[j], -kap))
			}
		}
	}
	sol, err := solveVertexLP(ctx, l, r.Value, false)
	if err != nil {
		return nil, err
	}
	P := mech.Zeros(n, m)
	for i := range n {
		for j := range m {
			switch {
			case tcol[j] < 0:
			case f.capped[i][j]:
				P[i][j] = sigma * sol.X[tcol[j]]
			case f.lower[i][j]:
				P[i][j] = sigma * kap * sol.X[tcol[j]]
			default:
				P[i][j] = sol.X[pcol[i][j]]
			}
			P[i][j] = math.Max(0, P[i][j])
		}
	}
	if !certify.RowsSumToOne(P) || !ratioMeets(p.Prior, P, p.Budget, 0) {
		return nil, fmt.Errorf("%w: the face LP's vertex fails the audit", ErrNoVertex)
	}
	v := p.Utility.ExpectedUtility(p.Prior, P)
	if v < r.Value-valueSlack*math.Max(1, math.Abs(r.Value)) {
		return nil, fmt.Errorf("%w: the vertex's value %.17g is below the interior point's %.17g", ErrNoVertex, v, r.Value)
	}
	out := &Result{Mechanism: P, Value: v, Bound: r.Bound, Alpha: r.Alpha, Iterations: r.Iterations}
	for _, sign := range []float64{1, -1} {
		alpha := make([]float64, n)
		for i := range alpha {
			alpha[i] = sign * sol.RowDuals[i]
		}
		if bd := certify.RatioUpperBound(p.Prior, p.Utility, p.Budget, alpha); bd < out.Bound {
			out.Bound, out.Alpha = bd, alpha
		}
	}
	if !out.valid() {
		return nil, fmt.Errorf("%w: the vertex's value %.17g exceeds the bound %.17g", ErrNoVertex, v, out.Bound)
	}
	return out, nil
}
