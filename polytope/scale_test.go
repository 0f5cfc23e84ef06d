package polytope

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// TestExpectedUtilityAtLargeBudgets brackets the expected-utility optimum at
// budgets of 10 and 20 nats, where a model holding t_j = e^ε q_j ≈ 5e8 or a
// coefficient e^{−ε_l−ε_u} ≈ 4e-18 makes Clp and the revised backend return
// optima 10–30 % low (0.61 for 0.93). The optimum lies between
// the expected utility of an almost deterministic mechanism that meets the
// budget (argmax with weight 1 − δ, uniform with δ) and that of the argmax
// mechanism, Σ_i π_i max_j u_ij.
func TestExpectedUtilityAtLargeBudgets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 6 {
		n, m := 2+rng.IntN(8), 2+rng.IntN(8)
		pi := randinst.Dirichlet(rng, n)
		u := randinst.Utility(rng, n, m, 0)
		top := 0.0
		for i := range u {
			best := math.Inf(-1)
			for _, v := range u[i] {
				best = math.Max(best, v)
			}
			top += pi[i] * best
		}
		for _, b := range []mech.Budget{
			{Measure: mech.PML, Epsilon: 20},
			{Measure: mech.LIP, Epsilon: 10},
			{Measure: mech.LIP, Epsilon: 20},
			{Measure: mech.ALIP, EpsilonLower: 20, EpsilonUpper: 20},
			{Measure: mech.ALIP, EpsilonLower: 15, EpsilonUpper: 1},
		} {
			near := nearArgmax(u, 1e-5)
			if lvl := level(pi, near, b.Measure); lvl > math.Min(b.EpsilonLower+b.Epsilon, b.EpsilonUpper+b.Epsilon) {
				// ALIP with ε_u = 1 needs a flatter mechanism; only the
				// upper end of the bracket is checked then.
				near = nil
			}
			mod, err := Build(Spec{Prior: pi, Utility: u, Objective: ExpectedUtility, Budget: b})
			require.NoError(t, err)
			for _, name := range solver.Names() {
				if name == "gonum" {
					continue // its Simplex cycles on some of these models
				}
				s, err := solver.Get(name)
				require.NoError(t, err)
				sol, err := s.Solve(mod.LP)
				require.NoError(t, err)
				require.Equal(t, solver.Optimal, sol.Status)
				require.LessOrEqual(t, sol.Objective, top+1e-9, "trial %d %+v %s", trial, b, name)
				if near != nil {
					require.GreaterOrEqual(t, sol.Objective, u.ExpectedUtility(pi, near)-1e-9, "trial %d %+v %s", trial, b, name)
				}
			}
		}
	}
}

// nearArgmax sends each input to its best output with weight 1 − δ and
// spreads δ evenly.
func nearArgmax(u mech.Utility, delta float64) mech.Mechanism {
	n, m := u.Dims()
	p := mech.Zeros(n, m)
	for i := range p {
		best := 0
		for j := range u[i] {
			if u[i][j] > u[i][best] {
				best = j
			}
			p[i][j] = delta / float64(m)
		}
		p[i][best] += 1 - delta
	}
	return p
}

// level is the audited level of a mechanism under the measure (the larger
// side for ALIP).
func level(pi mech.Prior, p mech.Mechanism, m mech.Measure) float64 {
	switch m {
	case mech.PML:
		return leakage.PML(pi, p)
	case mech.ALIP:
		lo, up := leakage.ALIP(pi, p)
		return math.Max(lo, up)
	}
	return leakage.LIP(pi, p)
}

// TestWideBudgetForm: the marg rows become inequalities with t_j ≤ 1 only
// above 5 nats of the upper level (ε_u for ALIP and LIP, ε for PML); the
// infeasibility model and LDP keep their forms.
func TestWideBudgetForm(t *testing.T) {
	pi := mech.Prior{0.5, 0.3, 0.2}
	u := mech.Utility{{1, 0}, {0, 1}, {1, 1}}
	for _, c := range []struct {
		b    mech.Budget
		obj  problem.Objective
		wide bool
	}{
		{mech.Budget{Measure: mech.LIP, Epsilon: 3}, ExpectedUtility, false},
		{mech.Budget{Measure: mech.LIP, Epsilon: 6}, Feasibility, true},
		{mech.Budget{Measure: mech.ALIP, EpsilonLower: 9, EpsilonUpper: 4}, ExpectedUtility, false},
		{mech.Budget{Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 5.5}, ExpectedUtility, true},
		{mech.Budget{Measure: mech.PML, Epsilon: 4.9}, ExpectedUtility, false},
		{mech.Budget{Measure: mech.PML, Epsilon: 6}, ExpectedUtility, true},
		{mech.Budget{Measure: mech.PML, Epsilon: 6}, Feasibility, true},
		{mech.Budget{Measure: mech.PML, Epsilon: 4.9}, Feasibility, false},
	} {
		mod, err := Build(Spec{Prior: pi, Utility: u, Objective: c.obj, Budget: c.b})
		require.NoError(t, err)
		for j := range mod.M {
			wide := mod.LP.ColUpper[mod.Aux[j]] == 1
			require.Equal(t, c.wide, wide, "%+v %v: t_j bounded", c.b, c.obj)
			require.Equal(t, c.wide, math.IsInf(mod.LP.RowLower[mod.Marg[j]], -1), "%+v %v: marg an inequality", c.b, c.obj)
		}
	}
}

// TestWideBudgetPoints: in the form used above 5 nats, a mechanism's point
// is feasible at its own audited level (leakage.PML, LIP, ALIP) and above
// it, and infeasible below it, as in the equality form (checkPML).
func TestWideBudgetPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	skipped := 0
	for trial := range 40 {
		n, m := 2+rng.IntN(5), 2+rng.IntN(5)
		// A rare first letter whose best output no other letter prefers
		// gives a PML near −log π_1 ≈ 9; δ down to 1e-5 gives LIP and
		// ALIP levels up to about 12.
		pi := randinst.Prior(rng, n, 1e-3)
		pi[0] *= 1e-4
		mech.Normalise(pi)
		u := randinst.Utility(rng, n, m, 0)
		for i := 1; i < n; i++ {
			u[i][0] = -1
		}
		u[0][0] = 2
		p := nearArgmax(u, math.Pow(10, -2-3*rng.Float64()))
		for _, meas := range []mech.Measure{mech.PML, mech.LIP, mech.ALIP} {
			lvl := level(pi, p, meas)
			lo, up := leakage.ALIP(pi, p)
			budget := func(shift float64) mech.Budget {
				switch meas {
				case mech.ALIP:
					return mech.Budget{Measure: meas, EpsilonLower: lo + shift, EpsilonUpper: up + shift}
				}
				return mech.Budget{Measure: meas, Epsilon: lvl + shift}
			}
			b := budget(0)
			if upperLevel(normBudget(b)) <= wideBudget+margin {
				skipped++
				continue // the equality form, checked elsewhere
			}
			// Below, the lower side of LIP/ALIP moves a row by only
			// e^{−ε_l} q_j (e^{0.1} − 1), about 1e-7 at 10 nats.
			for _, shift := range []float64{0, margin, -0.1} {
				mod, err := Build(Spec{Prior: pi, Utility: u, Objective: ExpectedUtility, Budget: budget(shift)})
				require.NoError(t, err)
				require.Equal(t, 1.0, mod.LP.ColUpper[mod.Aux[0]], "the wide form")
				v := mod.LP.MaxViolation(mustPoint(t, mod, p))
				if shift >= 0 {
					require.LessOrEqual(t, v, feasTol, "trial %d %s at level %g%+g", trial, meas, lvl, shift)
				} else {
					require.Greater(t, v, 10*feasTol, "trial %d %s below level %g", trial, meas, lvl)
				}
			}
		}
	}
	require.Less(t, skipped, 30, "most of the 120 cases must reach the wide form")
}
