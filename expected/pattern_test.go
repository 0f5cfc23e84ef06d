package expected_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// TestPatternAllowingAll: a pattern that forbids nothing gives the optimum
// of the unrestricted problem (found by the interior point), with a proven
// bound from the LP's duals that meets it.
func TestPatternAllowingAll(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 20))
		pi := randinst.Prior(rng, 6, 0.02)
		u := randinst.Utility(rng, 6, 6, 4)
		b := mech.Budget{Measure: mech.PML, Epsilon: 0.5 + 0.3*float64(seed)}
		all := make(mech.Pattern, 6)
		for i := range all {
			all[i] = []bool{true, true, true, true, true, true}
		}
		ip, err := expected.Maximize(ctx, pi, u, b, expected.Options{})
		require.NoError(t, err)
		for _, slv := range []solver.Solver{solver.Revised(), solver.Gonum()} {
			r, err := expected.Maximize(ctx, pi, u, b, expected.Options{Solver: slv, Pattern: all})
			require.NoError(t, err)
			assert.InDelta(t, ip.Value, r.Value, 1e-7, "seed %d %s", seed, slv.Name())
			// gonum's simplex does not always return duals: then no bound.
			if slv.Name() == "revised" || !math.IsNaN(r.Bound) {
				assert.GreaterOrEqual(t, r.Bound, r.Value)
				assert.InDelta(t, r.Value, r.Bound, 1e-6, "the duals prove the optimum")
			}
			assert.LessOrEqual(t, leakage.PML(pi, r.Mechanism), b.Epsilon+1e-7)
		}
	}
}

// TestPatternKeepsZeros: with the pattern of a worst-case order the
// optimum is zero where the pattern forbids, at least the utility-safe
// mechanism's utility when that is within the budget, and below the least
// ε of the pattern there is no mechanism at all.
func TestPatternKeepsZeros(t *testing.T) {
	ctx := context.Background()
	pi := mech.Prior{0.4, 0.3, 0.2, 0.1}
	u := mech.Utility{{0, -1, -4, -9}, {-1, 0, -1, -4}, {-4, -1, 0, -1}, {-9, -4, -1, 0}}
	o := u.Order()
	for h := 1; h <= 4; h++ {
		pat := o.Pattern(h)
		safe, err := closedform.UtilitySafe(o, h)
		require.NoError(t, err)
		eps := leakage.PML(pi, safe)
		r, err := expected.Maximize(ctx, pi, u, mech.Budget{Measure: mech.PML, Epsilon: eps}, expected.Options{Pattern: pat})
		require.NoError(t, err, "h=%d", h)
		assert.True(t, pat.Holds(r.Mechanism))
		assert.GreaterOrEqual(t, r.Value, u.ExpectedUtility(pi, safe)-1e-9, "h=%d", h)
	}
	// Order 4 keeps every row on its best output alone, the diagonal: the
	// only mechanism is the identity, of PML −log π_min = log 10.
	_, err := expected.Maximize(ctx, pi, u, mech.Budget{Measure: mech.PML, Epsilon: math.Log(10) - 0.1}, expected.Options{Pattern: o.Pattern(4)})
	assert.True(t, errors.Is(err, expected.ErrInfeasible), "%v", err)
}
