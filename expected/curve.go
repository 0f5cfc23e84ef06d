package expected

import (
	"context"
	"fmt"

	"github.com/pmlopt/pmlopt/mech"
)

// Axis is a budget's level on a curve's axis: Epsilon, or EpsilonUpper for
// ALIP (whose ε_l a curve ties to ε_u by a ratio, ALIPBudget).
func Axis(b mech.Budget) float64 {
	if b.Measure == mech.ALIP {
		return b.EpsilonUpper
	}
	return b.Epsilon
}

// ALIPBudget returns the (ε_l, ε_u)-ALIP budget on a curve's axis at ε:
// ε_u = ε and ε_l = ratio·ε.
func ALIPBudget(eps, ratio float64) mech.Budget {
	return mech.Budget{Measure: mech.ALIP, EpsilonLower: ratio * eps, EpsilonUpper: eps}
}

// Curve maximises the expected utility of u for every budget in budgets,
// in order, and hands each result to point with the budget's index. It
// stops at the first budget that fails, with that error naming the
// budget's measure and level on the axis; if ctx is cancelled, it stops
// with ctx.Err(), the points before it handed over.
func Curve(ctx context.Context, pi mech.Prior, u mech.Utility, budgets []mech.Budget, opt Options, point func(k int, b mech.Budget, r Result)) error {
	for k, b := range budgets {
		if err := ctx.Err(); err != nil {
			return err
		}
		r, err := Maximize(ctx, pi, u, b, opt)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%s budget %g: %w", b.Measure, Axis(b), err)
		}
		point(k, b, r)
	}
	return nil
}
