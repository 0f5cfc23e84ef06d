package expected_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// TestMaximizeAgreesWithTheFullLP: on random ε-PML instances the interior
// point's bracket [Value, Bound] holds the optimum of the whole LP solved
// by a backend (steps 3-4 alone), whose duals prove that optimum to 1e-9;
// the LP on the support (step 2) reaches it, and every mechanism is
// within the budget by the audit's measure.
func TestMaximizeAgreesWithTheFullLP(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 21))
		pi := randinst.Prior(rng, 8, 0.01)
		u := randinst.Utility(rng, 8, 8, 5)
		b := mech.Budget{Measure: mech.PML, Epsilon: 0.4 + 0.2*float64(seed)}
		full, err := expected.Maximize(ctx, pi, u, b, expected.Options{Solver: solver.Revised(), FullLP: true})
		require.NoError(t, err)
		ip, err := expected.Maximize(ctx, pi, u, b, expected.Options{})
		require.NoError(t, err)
		assert.Equal(t, "ipm", ip.Solver)
		slack := 1e-8 * math.Max(1, math.Abs(full.Value))
		// The full LP's duals prove its optimum, and bound the interior
		// point's value too.
		assert.LessOrEqual(t, full.Bound-full.Value, 1e-9*math.Max(1, math.Abs(full.Value)), "seed %d", seed)
		assert.GreaterOrEqual(t, full.Bound, ip.Value-slack, "seed %d", seed)
		assert.LessOrEqual(t, ip.Value, full.Value+slack, "seed %d", seed)
		assert.GreaterOrEqual(t, ip.Bound, full.Value-slack, "seed %d", seed)
		sup, err := expected.Maximize(ctx, pi, u, b, expected.Options{Solver: solver.Revised()})
		require.NoError(t, err)
		assert.InDelta(t, full.Value, sup.Value, slack, "seed %d", seed)
		for _, r := range []expected.Result{full, ip, sup} {
			assert.LessOrEqual(t, leakage.PML(pi, r.Mechanism), b.Epsilon+1e-7)
			assert.InDelta(t, u.ExpectedUtility(pi, r.Mechanism), r.Value, 1e-15)
		}
	}
}

// TestMaximizeHonoursContext: a cancelled context stops the pipeline
// before its first step, whatever the measure.
func TestMaximizeHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	pi := mech.Prior{0.5, 0.3, 0.2}
	u := mech.Utility{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for _, b := range []mech.Budget{{Measure: mech.PML, Epsilon: 0.5}, {Measure: mech.LDP, Epsilon: 1}} {
		_, err := expected.Maximize(ctx, pi, u, b, expected.Options{Solver: solver.Revised()})
		assert.ErrorIs(t, err, context.Canceled, "%s", b.Measure)
	}
}

// TestMaximizeTinyMassPriors: on counting queries with binomial priors,
// whose masses fall to 1e-29 (binomial(29, 0.1)), the default solve takes
// the interior point's route for every measure, certifies, and returns an
// optimal vertex: the optimum of the whole LP solved by the revised
// simplex, within the budget, without dust. Outside the long suites each
// size meets one of the probabilities.
func TestMaximizeTinyMassPriors(t *testing.T) {
	ctx := context.Background()
	probs := []float64{0.1, 0.3, 0.9}
	for a, n := range []int{30, 20, 12} {
		for b, p := range probs {
			if testlong.Short() && a != b {
				continue
			}
			pi, u := expected.CountingBinomial(t, n, p)
			budgets := []mech.Budget{{Measure: mech.LIP, Epsilon: 1}, {Measure: mech.LDP, Epsilon: 2}}
			for _, eps := range []float64{0.1, 1, 5, 20} {
				budgets = append(budgets, mech.Budget{Measure: mech.PML, Epsilon: eps})
			}
			for _, b := range budgets {
				full, err := expected.Maximize(ctx, pi, u, b, expected.Options{Solver: solver.Revised(), FullLP: true})
				require.NoError(t, err)
				got, err := expected.Maximize(ctx, pi, u, b, expected.Options{})
				require.NoError(t, err)
				what := fmt.Sprintf("N = %d, binomial p = %g, %s %g", n, p, b.Measure, b.Epsilon)
				assert.Equal(t, "ipm", got.Solver, what)
				slack := 1e-9 * math.Max(1, math.Abs(full.Value))
				assert.InDelta(t, full.Value, got.Value, slack, what)
				assert.GreaterOrEqual(t, got.Bound, full.Value-slack, what)
				a, err := certify.Audit(pi, got.Mechanism, b)
				require.NoError(t, err, what)
				assert.LessOrEqual(t, a.Excess, 1e-12, what)
				for _, row := range got.Mechanism {
					for _, v := range row {
						assert.True(t, v == 0 || v >= certify.DustEntry, "%s: entry %g", what, v)
					}
				}
			}
		}
	}
}
