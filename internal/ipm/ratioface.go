package ipm

import (
	"context"
	"errors"
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
	b, sf, err := shrunkForm(p)
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
	t := make([]float64, m)
	for j := range m {
		if tcol[j] >= 0 {
			t[j] = sigma * sol.X[tcol[j]]
		}
	}
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
			P[i][j] = max(0, P[i][j])
		}
	}
	// The simplex meets its rows to its tolerance, not to rounding: the
	// vertex it names is solved for again from its equations.
	if T, err := solveRatioTree(p.Prior, sf, ratioState(P, t, kap, ratioStateTol)); err == nil {
		P = T
	}
	out, err := auditedRatioVertex(p, r, P)
	if err != nil {
		return nil, err
	}
	for _, sign := range []float64{1, -1} {
		alpha := make([]float64, n)
		for i := range alpha {
			alpha[i] = sign * sol.RowDuals[i]
		}
		// A bound below the value beyond rounding would be a broken
		// proof: such multipliers are not taken.
		bd := certify.RatioUpperBound(p.Prior, p.Utility, p.Budget, alpha)
		if bd < out.Bound && bd >= out.Value-boundSlack*max(1, math.Abs(out.Value)) {
			out.Bound, out.Alpha = bd, alpha
		}
	}
	return out, nil
}

// ratioVertexGap is the relative gap of SolveRatio's point above which it
// looks for a vertex of the point's face: the iterations end at about
// 1e-11 of the value when rounding does not end them early, and mixing
// the point into the budget at an earlier point costs up to 1e-9.
const ratioVertexGap = 2e-11

// ratioStateTol is the relative distance to a cap within which a pair of
// the face LP's vertex counts as at it: the simplex meets its bounds to
// about 1e-9 in the units of t_j.
const ratioStateTol = 1e-8

// interiorState is the state of every pair on the face f that an interior
// point's complementarity indicates.
func interiorState(f *face) [][]int8 {
	state := make([][]int8, len(f.used))
	for i := range state {
		state[i] = make([]int8, len(f.used[i]))
		for j := range state[i] {
			switch {
			case !f.used[i][j]:
				state[i][j] = ratioOff
			case f.capped[i][j]:
				state[i][j] = ratioUpper
			case f.lower[i][j]:
				state[i][j] = ratioLower
			default:
				state[i][j] = ratioFree
			}
		}
	}
	return state
}

// shrunkForm returns p's budget a relative budgetShrink inside itself and
// its form, on which the vertices are found: solved to rounding, they then
// meet p's budget without slack.
func shrunkForm(p RatioProblem) (mech.Budget, capForm, error) {
	b := p.Budget
	shrink := func(e float64) float64 { return max(0, e*(1-budgetShrink)-budgetShrink) }
	b.Epsilon, b.EpsilonLower, b.EpsilonUpper = shrink(b.Epsilon), shrink(b.EpsilonLower), shrink(b.EpsilonUpper)
	sf, err := RatioProblem{Prior: p.Prior, Utility: p.Utility, Budget: b}.form()
	return b, sf, err
}

// purifiedRatioVertex is the vertex purifyRatio finds from r, a point of
// SolveRatio on p, on the face r's complementarity indicates, at the
// shrunk budget, audited by auditedRatioVertex and certified by r's bound.
func purifiedRatioVertex(p RatioProblem, r *Result) (*Result, error) {
	_, sf, err := shrunkForm(p)
	if err != nil {
		return nil, err
	}
	P, err := purifyRatio(p.Prior, p.Utility, sf, r.Mechanism, interiorState(r.face))
	if err != nil {
		return nil, errors.Join(ErrNoVertex, err)
	}
	return auditedRatioVertex(p, r, P)
}

// auditedRatioVertex returns P as a vertex of p certified by r's bound:
// its rows must sum to 1, it must meet the budget without slack, and its
// value must reach r's within a relative valueSlack.
func auditedRatioVertex(p RatioProblem, r *Result, P mech.Mechanism) (*Result, error) {
	if !certify.RowsSumToOne(P) || !ratioMeets(p.Prior, P, p.Budget) {
		return nil, fmt.Errorf("%w: the face's vertex fails the audit", ErrNoVertex)
	}
	v := p.Utility.ExpectedUtility(p.Prior, P)
	if v < r.Value-valueSlack*max(1, math.Abs(r.Value)) {
		return nil, fmt.Errorf("%w: the vertex's value %.17g is below the interior point's %.17g", ErrNoVertex, v, r.Value)
	}
	out := &Result{Mechanism: P, Value: v, Bound: r.Bound, Alpha: r.Alpha, Iterations: r.Iterations}
	if !out.valid() {
		return nil, fmt.Errorf("%w: the vertex's value %.17g exceeds the bound %.17g", ErrNoVertex, v, out.Bound)
	}
	return out, nil
}
