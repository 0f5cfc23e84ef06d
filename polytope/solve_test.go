package polytope

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// audit returns how far p exceeds budget b (≤ 0 when within it).
func audit(pi mech.Prior, p mech.Mechanism, b mech.Budget) float64 {
	switch b.Measure {
	case mech.PML:
		return leakage.PML(pi, p) - b.Epsilon
	case mech.ALIP:
		lo, up := alipOf(pi, p)
		return math.Max(lo-b.EpsilonLower, up-b.EpsilonUpper)
	case mech.LIP:
		lo, up := alipOf(pi, p)
		return math.Max(lo, up) - b.Epsilon
	}
	return ldpOf(p) - b.Epsilon
}

// TestVerticesPassAudit maximises random objectives over each polytope: the
// optimal vertices must satisfy the pattern and pass the audit.
func TestVerticesPassAudit(t *testing.T) {
	sol := solver.Auto()
	r := rand.New(rand.NewPCG(5, 6))
	budgets := []mech.Budget{
		{Measure: mech.PML, Epsilon: 0.4},
		{Measure: mech.ALIP, EpsilonLower: 0.3, EpsilonUpper: 0.5},
		{Measure: mech.LIP, Epsilon: 0.6},
		{Measure: mech.LDP, Epsilon: 1},
	}
	for k := range 40 {
		n, m := 2+r.IntN(3), 2+r.IntN(3)
		pi := randinst.Prior(r, n, 0.05)
		u := make(mech.Utility, n)
		for i := range u {
			u[i] = make([]float64, m)
			for j := range u[i] {
				u[i][j] = r.NormFloat64()
			}
		}
		var pat mech.Pattern
		if k%2 == 1 {
			pat = u.Order().Pattern(2)
		}
		for _, b := range budgets {
			mod, err := Build(Spec{Prior: pi, Budget: b, Pattern: pat, Objective: ExpectedUtility, Utility: u, Prune: true})
			require.NoError(t, err)
			res, err := sol.Solve(mod.LP)
			require.NoError(t, err)
			if res.Status == solver.Infeasible && pat != nil {
				// A pattern can make the budget unreachable. Without one,
				// the data-independent mechanism (PML 0, LDP 0, …) is
				// always feasible.
				continue
			}
			require.Equal(t, solver.Optimal, res.Status, "%v", b)
			require.LessOrEqual(t, mod.LP.MaxViolation(res.X), 1e-7)
			p := mustMechanism(t, mod, res.X)
			if pat != nil {
				assert.True(t, pat.Holds(p))
			}
			assert.LessOrEqual(t, audit(pi, p, b), 1e-6, "%v %v", b, p)
			assert.InDelta(t, res.Objective, u.ExpectedUtility(pi, p), 1e-7)
		}
	}
}

// TestInfeasibleExactlyWhenExpected: with a pattern in which every output
// has a forbidden pair, ALIP/LIP/LDP are infeasible and PML is not.
func TestInfeasibleExactlyWhenExpected(t *testing.T) {
	sol := solver.Auto()
	pat := order3.Pattern(2)
	for _, b := range []mech.Budget{
		{Measure: mech.PML, Epsilon: 1},
		{Measure: mech.LIP, Epsilon: 5},
		{Measure: mech.LDP, Epsilon: 5},
		{Measure: mech.ALIP, EpsilonLower: 5, EpsilonUpper: 5},
	} {
		mod, err := Build(Spec{Prior: prior3, Budget: b, Pattern: pat})
		require.NoError(t, err)
		res, err := sol.Solve(mod.LP)
		require.NoError(t, err)
		if b.Measure == mech.PML {
			assert.Equal(t, solver.Optimal, res.Status)
		} else {
			assert.Equal(t, solver.Infeasible, res.Status, "%v", b)
		}
	}
}

// TestPruningKeepsOptimum compares expected-utility optima with and
// without pruning, and the least feasible ε found by bisection through
// SetBudget with the value log 2 of Song & Oechtering (2026), Example 1.
func TestPruningKeepsOptimum(t *testing.T) {
	sol := solver.Auto()
	r := rand.New(rand.NewPCG(7, 8))
	pruned := 0
	for range 30 {
		n, m := 3+r.IntN(2), 3+r.IntN(2)
		pi := randinst.Prior(r, n, 0.05)
		u := make(mech.Utility, n)
		for i := range u {
			u[i] = make([]float64, m)
			for j := range u[i] {
				u[i][j] = r.NormFloat64()
			}
		}
		pat := u.Order().Pattern(1 + r.IntN(m))
		s := Spec{Prior: pi, Budget: mech.Budget{Measure: mech.PML, Epsilon: 0.2 + 1.5*r.Float64()},
			Pattern: pat, Objective: ExpectedUtility, Utility: u}
		full, err := Build(s)
		require.NoError(t, err)
		s.Prune = true
		pr, err := Build(s)
		require.NoError(t, err)
		for _, d := range pr.Dropped {
			if d {
				pruned++
			}
		}
		a, err := sol.Solve(full.LP)
		require.NoError(t, err)
		b, err := sol.Solve(pr.LP)
		require.NoError(t, err)
		require.Equal(t, a.Status, b.Status)
		if a.Status == solver.Optimal {
			assert.InDelta(t, a.Objective, b.Objective, 1e-9)
		}
	}
	assert.Greater(t, pruned, 5, "the test must exercise pruning")
}

func TestBisectionWithSetBudget(t *testing.T) {
	// Song & Oechtering (2026), Example 1: π_2 + π_3 ≤ 1/2, h = 2: ε*(2) = log 2.
	pi := mech.Prior{0.6, 0.25, 0.15}
	s := Spec{Prior: pi, Budget: mech.Budget{Measure: mech.PML, Epsilon: -math.Log(pi.Min())}, Pattern: order3.Pattern(2)}
	mod, err := Build(s)
	require.NoError(t, err)
	var sess solver.Session
	if ws, ok := solver.Auto().(solver.WarmSolver); ok {
		sess, err = ws.Load(mod.LP)
	} else {
		sess, err = solver.ColdSession(solver.Auto(), mod.LP)
	}
	require.NoError(t, err)
	defer sess.Close()
	lo, hi := 0.0, s.Budget.Epsilon
	var best mech.Mechanism
	for hi-lo > 1e-10 {
		mid := (lo + hi) / 2
		require.NoError(t, mod.SetBudget(sess, mech.Budget{Measure: mech.PML, Epsilon: mid}))
		res, err := sess.Solve()
		require.NoError(t, err)
		if res.Status == solver.Optimal {
			hi, best = mid, mustMechanism(t, mod, res.X)
		} else {
			lo = mid
		}
	}
	// A status-only bisection is as sharp as the engine's feasibility
	// tolerance (1e-9 on the rows: a few 1e-9 in ε on Clp); the audited
	// PML of the last feasible point is exact and can not beat log 2.
	assert.InDelta(t, math.Log(2), hi, 1e-8)
	require.NotNil(t, best)
	assert.GreaterOrEqual(t, leakage.PML(pi, best), math.Log(2)-1e-12)
	assert.InDelta(t, math.Log(2), leakage.PML(pi, best), 1e-8, "%v", best)
}
