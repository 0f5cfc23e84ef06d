package pmlopt_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/worstcase"
)

// TestExpectedCurveMatchesSolve: each point is Solve's expected-utility
// optimum for its budget (the LDP LP here, an independent route from the
// curve's loop), within the budget by the audit; a cancelled context
// returns no point and the context's error.
func TestExpectedCurveMatchesSolve(t *testing.T) {
	p, err := problem.Load("testdata/expected-utility.yaml")
	require.NoError(t, err)
	var budgets []mech.Budget
	for _, e := range []float64{0, 0.4, 1.1} {
		budgets = append(budgets, mech.Budget{Measure: mech.LDP, Epsilon: e}, pmlopt.ALIPBudget(e, 0.5))
	}
	pts, err := pmlopt.ExpectedCurve(context.Background(), p, budgets, pmlopt.Options{})
	require.NoError(t, err)
	require.Len(t, pts, len(budgets))
	for k, pt := range pts {
		q := *p
		q.Objective, q.Privacy = problem.ExpectedUtility, &budgets[k]
		sol, err := pmlopt.Solve(context.Background(), &q, pmlopt.Options{Solver: solver.Gonum()})
		require.NoError(t, err)
		assert.InDelta(t, sol.ExpectedUtility, pt.ExpectedUtility, 1e-7, "%+v", budgets[k])
		assert.InDelta(t, p.Utility.ExpectedUtility(p.Prior, pt.Mechanism), pt.ExpectedUtility, 1e-12)
		switch b := budgets[k]; b.Measure {
		case mech.LDP:
			assert.LessOrEqual(t, leakage.LDP(p.Prior, pt.Mechanism), b.Epsilon+1e-7)
			assert.Equal(t, b.Epsilon, pt.Epsilon)
		case mech.ALIP:
			lo, up := leakage.ALIP(p.Prior, pt.Mechanism)
			assert.LessOrEqual(t, lo, b.EpsilonLower+1e-7)
			assert.LessOrEqual(t, up, b.EpsilonUpper+1e-7)
			assert.Equal(t, b.EpsilonUpper, pt.Epsilon)
			assert.Equal(t, 0.5*b.EpsilonUpper, b.EpsilonLower)
		}
		// The structured interior point proves a bound for every
		// measure; a full LP proves none.
		if !math.IsNaN(pt.ExpectedUtilityBound) {
			assert.GreaterOrEqual(t, pt.ExpectedUtilityBound, pt.ExpectedUtility-1e-12)
			assert.InDelta(t, sol.ExpectedUtility, pt.ExpectedUtilityBound, 1e-7, "the bound is that of the optimum")
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	pts, err = pmlopt.ExpectedCurve(ctx, p, budgets, pmlopt.Options{})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, pts)
}

// TestBaselineALIPIsTight: calibrated to an ALIP budget, randomized
// response meets both levels and a slightly larger ε̄ breaks one.
func TestBaselineALIPIsTight(t *testing.T) {
	p, err := problem.Load("testdata/expected-utility-alip.yaml")
	require.NoError(t, err)
	b := *p.Privacy
	sol, err := pmlopt.SolveBaseline(context.Background(), p, pmlopt.RandomizedResponse)
	require.NoError(t, err)
	lo, up := leakage.ALIP(p.Prior, sol.Mechanism)
	assert.LessOrEqual(t, lo, b.EpsilonLower)
	assert.LessOrEqual(t, up, b.EpsilonUpper)
	assert.Equal(t, up, sol.Epsilon)
	assert.Equal(t, lo, sol.ALIPLower)
	above := sol.Parameter * (1 + 1e-9)
	q := make(mech.Mechanism, p.N())
	for i := range q {
		q[i] = make([]float64, p.N())
		for j := range q[i] {
			q[i][j] = math.Exp(-above) / (1 + float64(p.N()-1)*math.Exp(-above))
			if i == j {
				q[i][j] = 1 / (1 + float64(p.N()-1)*math.Exp(-above))
			}
		}
	}
	lo2, up2 := leakage.ALIP(p.Prior, q)
	assert.True(t, lo2 > b.EpsilonLower || up2 > b.EpsilonUpper, "ε̄ = %v is not the largest", sol.Parameter)
	assert.GreaterOrEqual(t, sol.Parameter, sol.Start)
}

// TestBaselineClaimsNoLeastEpsilon: a baseline's OptimalEpsilonLower is read as a
// certified lower bound on the least ε of its worst case; randomized
// response on example 1 uses every pair (worst-case order 1, ε* = 0 by a
// constant mechanism), so it must not claim its own level.
func TestBaselineClaimsNoLeastEpsilon(t *testing.T) {
	p, err := problem.Load("testdata/example1.yaml")
	require.NoError(t, err)
	for _, kind := range []pmlopt.Baseline{pmlopt.RandomizedResponse, pmlopt.Extremal, pmlopt.UtilitySafe} {
		sol, err := pmlopt.SolveBaseline(context.Background(), p, kind)
		require.NoError(t, err)
		r, err := worstcase.LeastEpsilon(context.Background(), p.Prior, p.Order.Pattern(sol.WorstCaseOrder), worstcase.Options{})
		require.NoError(t, err)
		assert.LessOrEqual(t, sol.OptimalEpsilonLower, r.OptimalEpsilon, "%s: worst-case order %d at ε = %g", kind, sol.WorstCaseOrder, sol.Epsilon)
	}
}

// TestExpectedCurveRefusesBudgetsBeyondTheLimit: a LIP or ALIP budget of
// 800 nats (beyond the 700 a problem file may hold) is refused before any
// solve, naming the budget, rather than answered as if it were ε = 0; the
// largest allowed budget is still solved and within it.
func TestExpectedCurveRefusesBudgetsBeyondTheLimit(t *testing.T) {
	p, err := problem.Load("testdata/expected-utility.yaml")
	require.NoError(t, err)
	for _, b := range []mech.Budget{
		{Measure: mech.LIP, Epsilon: 800},
		pmlopt.ALIPBudget(800, 0.5),
		{Measure: mech.PML, Epsilon: math.NaN()},
		{Measure: mech.LDP, Epsilon: -1},
	} {
		budgets := []mech.Budget{{Measure: mech.LDP, Epsilon: 1}, b}
		pts, err := pmlopt.ExpectedCurve(context.Background(), p, budgets, pmlopt.Options{})
		require.Error(t, err, "%+v", b)
		assert.Contains(t, err.Error(), "budget 2", "%+v", b)
		assert.Empty(t, pts)
	}
	pts, err := pmlopt.ExpectedCurve(context.Background(), p, []mech.Budget{{Measure: mech.LIP, Epsilon: problem.MaxEpsilon}}, pmlopt.Options{})
	require.NoError(t, err)
	require.Len(t, pts, 1)
	assert.LessOrEqual(t, pts[0].Audited, problem.MaxEpsilon)
	// A budget this large constrains nothing: the optimum is the best
	// output of every row, Σ_i π_i max_j u_ij.
	best := 0.0
	for i, row := range p.Utility {
		best += p.Prior[i] * slices.Max(row)
	}
	assert.InDelta(t, best, pts[0].ExpectedUtility, 1e-9)
}
