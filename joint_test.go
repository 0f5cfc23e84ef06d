package pmlopt_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// handLP is the joint objective written directly from the definitions,
// without package polytope: maximise Σ π_i u_ij p_ij over p ≥ 0 with rows
// summing to 1, p_ij = 0 where pat forbids, and the PML of every output at
// most ε, p_ij ≤ e^ε Σ_k π_k p_kj (PML = log max_i p_ij / P(y_j)).
func handLP(pi mech.Prior, u mech.Utility, pat mech.Pattern, eps float64) *lp.Model {
	n, m := u.Dims()
	mod := &lp.Model{Maximize: true}
	col := make([][]int, n)
	for i := range n {
		col[i] = make([]int, m)
		for j := range m {
			col[i][j] = -1
			if pat[i][j] {
				col[i][j] = mod.AddCol(pi[i]*u[i][j], 0, lp.Inf, "")
			}
		}
	}
	for i := range n {
		var e []lp.Nonzero
		for j := range m {
			if col[i][j] >= 0 {
				e = append(e, lp.Entry(col[i][j], 1))
			}
		}
		mod.AddRow(1, 1, "", e...)
	}
	for j := range m {
		for i := range n {
			if col[i][j] < 0 {
				continue
			}
			coef := map[int]float64{col[i][j]: 1}
			for k := range n {
				if col[k][j] >= 0 {
					coef[col[k][j]] -= math.Exp(eps) * pi[k]
				}
			}
			var e []lp.Nonzero
			for c, v := range coef {
				e = append(e, lp.Entry(c, v))
			}
			mod.AddRow(math.Inf(-1), 0, "", e...)
		}
	}
	return mod
}

// TestJointMatchesHandLP: the best expected utility keeping a worst-case
// order equals the optimum of the hand-written LP under both pure-Go
// backends, its bound brackets that optimum, its mechanism keeps the worst
// case within the budget, and its value lies between the expected utility
// of the least-PML worst-case optimum and the unconstrained optimum.
func TestJointMatchesHandLP(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		file string
		eps  float64
	}{{"counting-query.yaml", 1.3}, {"counting-query.yaml", 2}, {"expected-utility.yaml", 0.5}, {"expected-utility.yaml", 1.2}} {
		p, err := problem.Load("testdata/" + c.file)
		require.NoError(t, err)
		p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: c.eps}
		p.Objective = problem.WorstCaseOrder
		wc, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
		require.NoError(t, err)
		p.Objective = problem.ExpectedUtility
		free, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
		require.NoError(t, err)
		for h := 1; h <= wc.WorstCaseOrder; h++ {
			js, err := pmlopt.SolveJoint(ctx, p, pmlopt.Floor{Order: h}, pmlopt.Options{})
			require.NoError(t, err, "%s ε=%g h=%d", c.file, c.eps, h)
			sol := js.Solution
			pat := p.Order.Pattern(h)
			assert.True(t, pat.Holds(sol.Mechanism))
			assert.GreaterOrEqual(t, p.Order.WorstCaseOrder(sol.Mechanism), h)
			assert.LessOrEqual(t, leakage.PML(p.Prior, sol.Mechanism), c.eps+1e-7)
			assert.LessOrEqual(t, js.LeastEpsilonUpper, c.eps+1e-9)
			for _, slv := range []solver.Solver{solver.Revised(), solver.Gonum()} {
				res, err := slv.Solve(handLP(p.Prior, p.Utility, pat, c.eps))
				require.NoError(t, err)
				require.Equal(t, solver.Optimal, res.Status)
				assert.InDelta(t, res.Objective, sol.ExpectedUtility, 1e-7, "%s ε=%g h=%d %s", c.file, c.eps, h, slv.Name())
				assert.GreaterOrEqual(t, sol.ExpectedUtilityBound, res.Objective-1e-9)
				assert.InDelta(t, res.Objective, sol.ExpectedUtilityBound, 1e-6)
			}
			assert.LessOrEqual(t, sol.ExpectedUtility, free.ExpectedUtility+1e-7)
			if h == wc.WorstCaseOrder {
				assert.GreaterOrEqual(t, sol.ExpectedUtility, wc.ExpectedUtility-1e-7)
			}
		}
	}
}

// TestJointByValue: keeping a utility value V is the pattern u ≥ V.
func TestJointByValue(t *testing.T) {
	p, err := problem.Load("testdata/counting-query.yaml")
	require.NoError(t, err)
	p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: 1.3}
	p.Objective = problem.ExpectedUtility
	js, err := pmlopt.SolveJoint(context.Background(), p, pmlopt.Floor{Value: -2, ByValue: true}, pmlopt.Options{})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, p.Utility.WorstCaseValue(js.Mechanism), -2.0)
	res, err := solver.Revised().Solve(handLP(p.Prior, p.Utility, p.Utility.Pattern(-2), 1.3))
	require.NoError(t, err)
	assert.InDelta(t, res.Objective, js.ExpectedUtility, 1e-7)
}

// TestJointRefusesBelowLeastEpsilon: the counting query's order 6 needs
// ε ≥ log 7/2 and order 7 needs log 7 (Song & Oechtering (2026), §IV-A);
// below, the refusal names that ε.
func TestJointRefusesBelowLeastEpsilon(t *testing.T) {
	p, err := problem.Load("testdata/counting-query.yaml")
	require.NoError(t, err)
	p.Objective = problem.ExpectedUtility
	for h, want := range map[int]float64{6: math.Log(3.5), 7: math.Log(7)} {
		p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: want - 0.01}
		_, err := pmlopt.SolveJoint(context.Background(), p, pmlopt.Floor{Order: h}, pmlopt.Options{})
		var below *pmlopt.BelowLeastEpsilonError
		require.True(t, errors.As(err, &below), "h=%d: %v", h, err)
		assert.LessOrEqual(t, below.Lower, want+1e-12)
		assert.GreaterOrEqual(t, below.Upper, want-1e-12)
		assert.InDelta(t, want, below.Upper, 1e-8)
		p.Privacy.Epsilon = want + 1e-6
		_, err = pmlopt.SolveJoint(context.Background(), p, pmlopt.Floor{Order: h}, pmlopt.Options{})
		assert.NoError(t, err, "h=%d just above the least ε", h)
	}
}
