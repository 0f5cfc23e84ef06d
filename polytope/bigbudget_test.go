package polytope

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// bigBudgets are the budgets of TestExpectedUtilityLargeBudgets: each
// measure at ε = 6, 12, 20, 30, 40 and 50, and ALIP with one level large
// and the other small.
func bigBudgets() []mech.Budget {
	var bs []mech.Budget
	for _, e := range []float64{6, 12, 20, 30, 40, 50} {
		bs = append(bs,
			mech.Budget{Measure: mech.PML, Epsilon: e},
			mech.Budget{Measure: mech.LIP, Epsilon: e},
			mech.Budget{Measure: mech.ALIP, EpsilonLower: e, EpsilonUpper: e},
			mech.Budget{Measure: mech.ALIP, EpsilonLower: e, EpsilonUpper: 0.5},
			mech.Budget{Measure: mech.ALIP, EpsilonLower: 0.5, EpsilonUpper: e},
			mech.Budget{Measure: mech.LDP, Epsilon: e})
	}
	return bs
}

// TestExpectedUtilityLargeBudgets maximises the expected utility of random
// 2×9 and 3×4 problems at budgets up to 50 nats with every backend. With
// e^{ε} as a coefficient Clp stops on errors (status 4), gonum's phase I
// finds its basis singular, and the optima have zeros that the lower
// level forbids (audited at +Inf). Every optimum must pass the audit
// within 1e-9 and have the same value on every backend; above 30 nats the
// value must be Σ_i π_i max_j u'_ij, the supremum over all mechanisms
// (deterministic best responses, mixed with e^{−ε}-small mass to keep every
// column positive, come within 2 M e^{−ε} max|u'| of it), and at lower
// levels of 6 and 12 nats, where the floors e^{−ε_l} q_j lie far above the
// engines' tolerances, it must equal the optimum of the unfloored model.
func TestExpectedUtilityLargeBudgets(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, dims := range [][2]int{{2, 9}, {3, 4}} {
		for k := range 3 {
			n, m := dims[0], dims[1]
			pi := randinst.Prior(r, n, 0.05)
			u := make(mech.Utility, n)
			best := 0.0
			for i := range u {
				u[i] = make([]float64, m)
				mx := math.Inf(-1)
				for j := range u[i] {
					u[i][j] = r.NormFloat64()
					mx = math.Max(mx, u[i][j])
				}
				best += pi[i] * mx
			}
			for _, b := range bigBudgets() {
				spec := Spec{Prior: pi, Budget: b, Objective: ExpectedUtility, Utility: u}
				var values []float64
				for _, name := range solver.Names() {
					mod, err := Build(spec)
					require.NoError(t, err)
					s, err := solver.Get(name)
					require.NoError(t, err)
					res, err := s.Solve(mod.LP)
					if !assert.NoError(t, err, "%s %dx%d #%d %+v", name, n, m, k, b) {
						continue
					}
					require.Equal(t, solver.Optimal, res.Status, "%s %+v", name, b)
					p := mustMechanism(t, mod, res.X)
					if audit(pi, p, b) > 1e-9 {
						// Engines keep rows feasible to an absolute 1e-9;
						// the row-scaled LP (exact) tightens that 1024×.
						res, err = s.Solve(mod.LP.ScaledRows(RowScale))
						require.NoError(t, err, "%s %+v scaled", name, b)
						require.Equal(t, solver.Optimal, res.Status, "%s %+v scaled", name, b)
						p = mustMechanism(t, mod, res.X)
					}
					assert.LessOrEqual(t, audit(pi, p, b), 1e-9, "%s %dx%d #%d %+v", name, n, m, k, b)
					values = append(values, u.ExpectedUtility(pi, p))
				}
				for _, v := range values[1:] {
					assert.InDelta(t, values[0], v, 1e-9*math.Max(1, math.Abs(v)), "%+v: %.12g", b, values)
				}
				nb := normBudget(b)
				lower, upper := lowerLevel(nb), upperLevel(nb)
				switch {
				case math.Min(upper, math.Max(lower, nb.Epsilon)) >= 30 && (b.Measure == mech.PML || lower >= 30):
					assert.InDelta(t, best, values[0], 1e-9*math.Max(1, math.Abs(best)), "%+v", b)
				case b.Measure != mech.PML && lower > wideBudget && lower <= 12:
					mod, err := build(spec, math.Inf(1))
					require.NoError(t, err)
					require.False(t, mod.Floored)
					res, err := solver.Get("revised")
					require.NoError(t, err)
					sol, err := res.Solve(mod.LP)
					require.NoError(t, err)
					require.Equal(t, solver.Optimal, sol.Status)
					assert.InDelta(t, sol.Objective, values[0], 1e-9*math.Max(1, math.Abs(values[0])), "%+v", b)
				}
			}
		}
	}
}
