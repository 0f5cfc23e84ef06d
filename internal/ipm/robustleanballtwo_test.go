package ipm

import (
	"context"
	"fmt"
	"testing"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
)

// TestLeanBallTwoMatchesTheLP solves LIP and ALIP (ε_l ≠ ε_u too) over L1
// balls of several radii on every family at 8 letters by the lean ball
// route for two sides alone, and checks its answer against the dualised
// LP (robustLP): the value within 1e-9 of the LP's optimum, the bounds
// proven by its own multipliers, priors (two per output) and cap weights
// and not below the LP's, the priors in the set and the mechanism within
// the budget over the set.
func TestLeanBallTwoMatchesTheLP(t *testing.T) {
	budgets := []mech.Budget{{Measure: mech.LIP, Epsilon: 0.5}, {Measure: mech.LIP, Epsilon: 2},
		{Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 1}, {Measure: mech.ALIP, EpsilonLower: 0.4, EpsilonUpper: 1.5}}
	for _, f := range instance.Families() {
		in := familyInstance(t, f.Name, 8)
		for _, rad := range []float64{1e-3, 0.1, 0.3} {
			set, err := mech.NewL1Set(in.Prior, rad)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range budgets {
				name := fmt.Sprintf("%s ball %g %v", f.Name, rad, b)
				p := RobustProblem{Utility: in.Utility, Budget: b, Set: set}
				mu, kap, lip, _ := robustRates(b)
				r, err := solveRobustLeanBallTwo(context.Background(), p, normalised(set.Center), mu, kap, lip, 200, robustGap, AcceptedGap)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				checkOneRunAgainstLP(t, name, p, r)
			}
		}
	}
}

// leanBallTwoStall is a problem on which the lean ball route for two
// sides does not settle at either step length: coarse at 5 letters under
// LIP at 5 nats over the ball of radius 0.3, with its estimate and rates.
func leanBallTwoStall(t *testing.T) (RobustProblem, mech.Prior, float64, float64, bool) {
	t.Helper()
	f, err := instance.Lookup("coarse")
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.New(5, 2026)
	if err != nil {
		t.Fatal(err)
	}
	set, err := mech.NewL1Set(in.Prior, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	b := mech.Budget{Measure: mech.LIP, Epsilon: 5}
	mu, kap, lip, _ := robustRates(b)
	return RobustProblem{Utility: in.Utility, Budget: b, Set: set}, normalised(set.Center), mu, kap, lip
}

// TestSolveRobustPastLeanBallTwo: where the lean ball route for two sides
// does not settle (coarse at 5 letters under LIP at 5 nats over the ball
// of radius 0.3: its iterations stall near a relative gap of 1e-8),
// SolveRobust answers as the routes past it do
// (solveRobustRounds), bit for bit.
func TestSolveRobustPastLeanBallTwo(t *testing.T) {
	p, pi, mu, kap, lip := leanBallTwoStall(t)
	ctx := context.Background()
	if _, err := solveRobustLeanBallTwo(ctx, p, pi, mu, kap, lip, 200, robustGap, AcceptedGap); err == nil {
		t.Fatal("the lean route answered: the instance no longer tests the fall-through")
	}
	r, err := SolveRobust(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := solveRobustRounds(ctx, p, pi, mu, kap, lip, 200, robustGap, AcceptedGap)
	if err != nil {
		t.Fatal(err)
	}
	if r.Value != want.Value || r.Rounds != want.Rounds || r.Iterations != want.Iterations {
		t.Errorf("value %.17g in %d rounds, %d iterations; past the lean route %.17g in %d, %d", r.Value, r.Rounds, r.Iterations, want.Value, want.Rounds, want.Iterations)
	}
}
