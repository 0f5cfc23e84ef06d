package colgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

// randomProblem draws a prior and an order threshold's pattern with 6 to 15
// inputs and 4 to 13 outputs, and a master for them.
func randomProblem(t *testing.T, rng *rand.Rand) (mech.Prior, mech.Pattern, *Master) {
	t.Helper()
	n, m := 6+rng.IntN(10), 4+rng.IntN(10)
	pi, o := randinst.Prior(rng, n, 0.01), randinst.StrictOrder(rng, n, m)
	pat := o.Pattern(1 + rng.IntN(m))
	g, err := New(pi, pat)
	require.NoError(t, err)
	return pi, pat, g
}

// TestTrim checks the pool management of a master: trim keeps every basic
// column, keeps the columns and the engine's columns in step, removes the
// nonbasic columns with the smallest y·v first, and leaves a master that
// still answers a probe as a fresh one does.
func TestTrim(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 20 {
		pi, pat, g := randomProblem(t, rng)
		n := len(pi)
		var y []float64
		for _, eps := range []float64{0.3, 0.8, 0.5, 1.5} {
			r, err := g.Probe(eps)
			require.NoError(t, err)
			y = r.Alpha
		}
		type entry struct {
			j     int
			order []int
			basic bool
			d     float64
		}
		before := make(map[*int]entry) // keyed by the order slice's first element
		nonbasic := 0
		for k, c := range g.cols {
			e := entry{j: c.j, order: c.order, basic: g.sx.isBasic(n + k), d: g.sx.dotColumn(n+k, y)}
			before[&c.order[0]] = e
			if !e.basic {
				nonbasic++
			}
		}
		keep := len(g.cols) - nonbasic/2
		require.NoError(t, g.trim(y, keep), "trial %d", trial)
		require.Len(t, g.cols, keep)
		require.Len(t, g.sx.cols, len(g.cols))
		kept := make(map[*int]bool)
		minKept := 1e300
		for k, c := range g.cols {
			e, ok := before[&c.order[0]]
			require.True(t, ok)
			kept[&c.order[0]] = true
			require.Equal(t, e.basic, g.sx.isBasic(n+k), "basis moved")
			require.InDelta(t, e.d, g.sx.dotColumn(n+k, y), 1e-15, "engine column out of step")
			if !e.basic {
				minKept = min(minKept, e.d)
			}
		}
		for key, e := range before {
			if kept[key] {
				continue
			}
			require.False(t, e.basic, "a basic column was removed")
			require.LessOrEqual(t, e.d, minKept, "a better column was removed")
		}
		// The trimmed master answers as a fresh one does.
		r, err := g.Probe(0.7)
		require.NoError(t, err)
		f, err := New(pi, pat)
		require.NoError(t, err)
		rf, err := f.Probe(0.7)
		require.NoError(t, err)
		feasible := func(r *Result) bool { return r.PML <= 0.7+1e-12 }
		require.Equal(t, feasible(rf), feasible(r), "trial %d", trial)
		require.Equal(t, rf.Lower >= 0.7-1e-12, r.Lower >= 0.7-1e-12, "trial %d", trial)
		require.NotEqual(t, feasible(r), r.Lower >= 0.7-1e-12, "trial %d: no verdict", trial)
	}
}

// TestLagrangian checks the bound that steers the stabilised pricing: from
// any duals it is at most the master's optimum G, and from the master's
// optimal duals (an infeasible probe's) it is G itself. G is checked first against the full LP
// that the master decomposes (the feasibility LP (10) with a slack on each
// row Σ_j p_ij = 1, minimising their sum), solved by internal/revised.
func TestLagrangian(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	lps, err := solver.Get("revised")
	require.NoError(t, err)
	checked := 0
	for trial := range 30 {
		pi, pat, g := randomProblem(t, rng)
		n := len(pi)
		eps := 0.05 + rng.Float64()
		_, err := g.Probe(eps)
		require.NoError(t, err)
		sol, err := g.sx.solve() // the optimum of the full master: pricing is done
		require.NoError(t, err)
		require.InDelta(t, slackLP(t, lps, pi, pat, eps), sol.Objective, 1e-7, "trial %d: master optimum", trial)
		if sol.Objective > 1e-9 {
			// Pricing ran to the end (a probe that reaches G = 0 stops
			// pricing, so its duals need not be optimal for the full
			// master).
			_, best := g.priceAt(sol.RowDuals, sol.RowDuals)
			require.InDelta(t, sol.Objective, g.lagrangian(sol.RowDuals, best), 1e-9, "trial %d: not tight at the optimal duals", trial)
		}
		for range 20 {
			y := make([]float64, n)
			for i := range y {
				y[i] = sol.RowDuals[i] + rng.NormFloat64()*0.3
			}
			_, best := g.priceAt(y, y)
			require.LessOrEqual(t, g.lagrangian(y, best), sol.Objective+1e-12, "trial %d", trial)
		}
		if sol.Objective > 1e-6 && sol.Objective < float64(n)-1e-6 {
			checked++ // infeasible, with some output usable
		}
	}
	require.Greater(t, checked, 5, "too few infeasible masters that use a column")
}

// slackLP solves min Σ_i s_i over the feasibility LP of the pattern at eps
// with s_i added to row sum[i], by an LP solver: the master's optimum.
func slackLP(t *testing.T, s solver.Solver, pi mech.Prior, pat mech.Pattern, eps float64) float64 {
	t.Helper()
	m, err := polytope.Build(polytope.Spec{Prior: pi, Budget: mech.Budget{Measure: mech.PML, Epsilon: eps}, Pattern: pat})
	require.NoError(t, err)
	l := m.LP.Clone()
	for i := range pi { // rows 0..N−1 are sum[i]
		c := l.AddCol(1, 0, math.Inf(1), fmt.Sprintf("s[%d]", i+1))
		l.ConstMatrix = append(l.ConstMatrix, lp.Nonzero{Row: i, Col: c, Val: 1})
	}
	l.Maximize = false
	sol, err := s.Solve(l)
	require.NoError(t, err)
	require.Equal(t, solver.Optimal, sol.Status)
	return sol.Objective
}
