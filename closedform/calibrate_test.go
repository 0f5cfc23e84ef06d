package closedform

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// sizes is a Problem of n inputs and m outputs without a utility or an
// order.
type sizes struct{ n, m int }

func (s sizes) N() int { return s.n }
func (s sizes) M() int { return s.m }
func (s sizes) RequireUtility() (mech.Utility, error) {
	return nil, errors.New("utility: the problem has none")
}
func (s sizes) RequireOrder() (mech.Order, error) {
	return nil, errors.New("utility: the problem has no order")
}

// TestCalibrateReachesTheBudget: randomized response's LDP is its ε̄ and
// the extremal mechanism's PML its ε, so each calibrates to the budget
// itself, to the bisection's width, and its mechanism is within it.
func TestCalibrateReachesTheBudget(t *testing.T) {
	pi := mech.Prior{0.1, 0.2, 0.3, 0.4}
	ctx := context.Background()
	ldp := mech.Budget{Measure: mech.LDP, Epsilon: 1.3}
	within := func(b mech.Budget) func(mech.Mechanism) bool {
		return func(q mech.Mechanism) bool { _, _, e := leakage.Level(pi, q, b); return e <= 0 }
	}
	c, err := Calibrate(ctx, FamilyRandomizedResponse, pi, sizes{4, 4}, ldp, within(ldp))
	require.NoError(t, err)
	assert.InDelta(t, 1.3, c.Parameter, 1e-12)
	assert.Equal(t, 1.3, c.Start)
	assert.LessOrEqual(t, leakage.LDP(pi, c.Mechanism), 1.3)
	assert.Equal(t, "ε̄", c.ParameterName)

	pml := mech.Budget{Measure: mech.PML, Epsilon: 0.05}
	require.Less(t, 0.05, ExtremalLimit(pi))
	c, err = Calibrate(ctx, FamilyExtremal, pi, sizes{4, 4}, pml, within(pml))
	require.NoError(t, err)
	assert.InDelta(t, 0.05, c.Parameter, 1e-12)
	assert.LessOrEqual(t, leakage.PML(pi, c.Mechanism), 0.05)
	assert.Equal(t, "ε", c.ParameterName)
}

// TestCalibrateErrors: the families that need a square problem, a utility
// or an order say so, and an unknown family is named.
func TestCalibrateErrors(t *testing.T) {
	pi := mech.Uniform(3)
	b := mech.Budget{Measure: mech.PML, Epsilon: 1}
	all := func(mech.Mechanism) bool { return true }
	ctx := context.Background()
	_, err := Calibrate(ctx, FamilyRandomizedResponse, pi, sizes{3, 4}, b, all)
	assert.ErrorContains(t, err, "randomized response needs as many outputs as inputs, the problem has 3 and 4")
	_, err = Calibrate(ctx, FamilyExponential, pi, sizes{3, 3}, b, all)
	assert.ErrorContains(t, err, "the problem has none")
	_, err = Calibrate(ctx, FamilyUtilitySafe, pi, sizes{3, 3}, b, all)
	assert.ErrorContains(t, err, "no order")
	_, err = Calibrate(ctx, "bogus", pi, sizes{3, 3}, b, all)
	assert.ErrorContains(t, err, `unknown baseline "bogus"`)
	// A budget nothing meets.
	_, err = Calibrate(ctx, FamilyRandomizedResponse, pi, sizes{3, 3}, b, func(mech.Mechanism) bool { return false })
	assert.ErrorContains(t, err, "even the parameter 0 exceeds the budget")
}
