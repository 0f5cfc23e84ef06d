package worstcase

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

// plainLeastEpsilon is the textbook search the package replaces: bisection
// on ε over [0, ε_S] with a fresh, unpruned feasibility LP (rows scaled as
// the search scales them) per point, trusting the solver's status. It
// returns the least ε found feasible.
func plainLeastEpsilon(t *testing.T, s solver.Solver, pi mech.Prior, pat mech.Pattern, tol float64) float64 {
	lo, hi := 0.0, leakage.PML(pi, closedform.UniformOnAllowed(pat))
	for hi-lo > tol {
		mid := lo + (hi-lo)/2
		m, err := polytope.Build(polytope.Spec{Prior: pi, Budget: pmlBudget(mid), Pattern: pat})
		require.NoError(t, err)
		sol, err := s.Solve(m.LP.ScaledRows(rowScale))
		require.NoError(t, err)
		if sol.Status == solver.Optimal {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// TestCurveMatchesPlainBisection: the search (proofs, predictions,
// pruning, bracket passing along the curve) finds the same ε*(h) as plain
// bisection, to the tolerance, on every backend.
func TestCurveMatchesPlainBisection(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, s := range backends(t) {
		if s.Name() == "gonum" {
			continue // cycles on degenerate feasibility LPs (see TestBackendsAgree)
		}
		for trial := range 6 {
			n := 4 + rng.IntN(7)
			pi := randinst.Prior(rng, n, 0.02) // p_min ≳ 0.002: the status-trusting reference is accurate to ~1e-10
			o := randinst.Utility(rng, n, n, 0).Order()
			pts, err := OrderCurve(context.Background(), pi, o, Options{Solver: s})
			require.NoError(t, err)
			for _, p := range pts {
				pat := o.Pattern(p.H)
				audit(t, pi, pat, Result{OptimalEpsilonLower: p.OptimalEpsilonLower, OptimalEpsilon: p.OptimalEpsilon, Mechanism: p.Mechanism, Lower: p.Lower, Proof: p.Proof}, 1e-9)
				want := plainLeastEpsilon(t, s, pi, pat, 1e-11)
				require.InDelta(t, want, p.OptimalEpsilon, 1.5e-9, "%s trial %d (N = %d) h %d: bracket [%v, %v]", s.Name(), trial, n, p.H, p.OptimalEpsilonLower, p.OptimalEpsilon)
			}
		}
	}
}
