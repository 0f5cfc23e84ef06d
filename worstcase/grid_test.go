package worstcase

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

// plainBestValue is the textbook answer to BestValue: the largest reachable
// value threshold whose fresh, unpruned feasibility LP at eps (rows scaled
// as the search scales them) the solver calls feasible, found by binary
// search over the thresholds, trusting the solver's status.
func plainBestValue(t *testing.T, s solver.Solver, pi mech.Prior, u mech.Utility, eps float64) float64 {
	t.Helper()
	vs := u.ReachableValues()
	yes, no := 0, len(vs) // vs[0] forbids nothing that matters
	for no-yes > 1 {
		mid := yes + (no-yes)/2
		m, err := polytope.Build(polytope.Spec{Prior: pi, Budget: pmlBudget(eps), Pattern: u.Pattern(vs[mid])})
		require.NoError(t, err)
		sol, err := s.Solve(m.LP.ScaledRows(rowScale))
		require.NoError(t, err)
		if sol.Status == solver.Optimal {
			yes = mid
		} else {
			no = mid
		}
	}
	return vs[yes]
}

// TestGridBestValueMatchesPlainSearch: on small Euclidean grids, uniform
// and clustered priors, BestValue (column generation, seeded from one
// decision to the next) finds the best worst-case value that plain binary
// search with full LPs finds, and the least ε of its threshold that plain
// bisection finds, within a certified bracket, with the column generation
// and with the interior point, with and without the covers deciding first;
// with two workers every number is the same as with one.
func TestGridBestValueMatchesPlainSearch(t *testing.T) {
	s, err := solver.Get("revised")
	require.NoError(t, err)
	type grid struct {
		w, h    int
		prior   string
		budgets []float64
	}
	grids := []grid{{5, 5, "uniform", []float64{1.5}}, {6, 4, "clustered", []float64{0.5}}}
	if !testlong.Short() {
		grids = append(grids, grid{5, 5, "uniform", []float64{0.7}}, grid{6, 4, "clustered", []float64{1}}, grid{7, 7, "clustered", []float64{1.2}})
	}
	for _, g := range grids {
		u, err := instance.Grid(g.w, g.h)
		require.NoError(t, err)
		pi, err := instance.Uniform(g.w * g.h)
		if g.prior == "clustered" {
			pi, err = instance.GridClusters(rand.New(rand.NewPCG(3, 4)), g.w, g.h, 20*g.w*g.h)
		}
		require.NoError(t, err)
		for _, eps := range g.budgets {
			name := func() string { return g.prior }
			v1, r1, err := BestValue(context.Background(), pi, u, eps, Options{Workers: 1})
			require.NoError(t, err)
			want := plainBestValue(t, s, pi, u, eps)
			require.Equal(t, want, v1, "%d×%d %s ε = %v", g.w, g.h, name(), eps)
			pat := u.Pattern(v1)
			audit(t, pi, pat, r1, DefaultTol)
			require.LessOrEqual(t, r1.OptimalEpsilon, eps)
			require.Greater(t, r1.GoProbes, 0, "the column generation answered nothing")
			star := plainLeastEpsilon(t, s, pi, pat, 1e-11)
			require.InDelta(t, star, r1.OptimalEpsilon, 1.5e-9, "%d×%d %s ε = %v: bracket [%v, %v]", g.w, g.h, name(), eps, r1.OptimalEpsilonLower, r1.OptimalEpsilon)

			v2, r2, err := BestValue(context.Background(), pi, u, eps, Options{Workers: 2})
			require.NoError(t, err)
			require.Equal(t, v1, v2)
			require.Equal(t, r1.OptimalEpsilonLower, r2.OptimalEpsilonLower)
			require.Equal(t, r1.OptimalEpsilon, r2.OptimalEpsilon)
			require.Equal(t, r1.Mechanism, r2.Mechanism)
			require.Equal(t, r1.Proof, r2.Proof)
			require.Equal(t, r1.LPSolves, r2.LPSolves)
			require.Equal(t, r1.GoProbes, r2.GoProbes)

			// Without the covers (coverer): the master decides.
			v5, r5, err := bestValue(context.Background(), pi, u, eps, Options{Workers: 1}, false)
			require.NoError(t, err)
			require.Equal(t, want, v5)
			audit(t, pi, pat, r5, DefaultTol)
			require.InDelta(t, star, r5.OptimalEpsilon, 1.5e-9)

			// The interior point's probes, with one and two workers.
			v3, r3, err := BestValue(context.Background(), pi, u, eps, Options{Workers: 1, Probes: ProbesIPM})
			require.NoError(t, err)
			require.Equal(t, want, v3)
			require.InDelta(t, star, r3.OptimalEpsilon, 1.5e-9)
			v4, r4, err := BestValue(context.Background(), pi, u, eps, Options{Workers: 2, Probes: ProbesIPM})
			require.NoError(t, err)
			require.Equal(t, v3, v4)
			require.Equal(t, r3.OptimalEpsilon, r4.OptimalEpsilon)
			require.Equal(t, r3.OptimalEpsilonLower, r4.OptimalEpsilonLower)
			require.Equal(t, r3.Mechanism, r4.Mechanism)
		}
	}
}
