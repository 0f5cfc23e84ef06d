package ipm

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/randinst"
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
// sides does not settle at any of its step lengths: bands at 12 letters
// (seed 2026) under LIP at 5 nats over the ball of radius 0.1, with its
// estimate and rates.
func leanBallTwoStall(t *testing.T) (RobustProblem, mech.Prior, float64, float64, bool) {
	t.Helper()
	return leanBallTwoProblem(t, "bands", 12, 5, 0.1)
}

// leanBallTwoProblem is family f at n letters (seed 2026) under LIP at
// eps nats over the L1 ball of radius rad around its prior, with its
// estimate and rates.
func leanBallTwoProblem(t *testing.T, f string, n int, eps, rad float64) (RobustProblem, mech.Prior, float64, float64, bool) {
	t.Helper()
	in := familyInstance(t, f, n)
	set, err := mech.NewL1Set(in.Prior, rad)
	if err != nil {
		t.Fatal(err)
	}
	b := mech.Budget{Measure: mech.LIP, Epsilon: eps}
	mu, kap, lip, _ := robustRates(b)
	return RobustProblem{Utility: in.Utility, Budget: b, Set: set}, normalised(set.Center), mu, kap, lip
}

// TestSolveRobustPastLeanBallTwo: where the lean ball route for two sides
// does not settle (leanBallTwoStall), SolveRobust answers as the routes
// past it do (solveRobustRounds), bit for bit.
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

// The lean ball route's first run on the binomial prior at 32 letters (LIP
// at 1 nat over the L1 ball of radius 0.1) ends at the optimum, but its
// multipliers of the end letters' caps (masses down to 6e-17) are noise: with
// the point's totals of each output's caps the two-prior bound lies about
// 31 above the value. TightenBoundTwo chooses the totals again and the
// bound comes within the accepted gap; every total stays finite and at
// least 0, each output's κ only falls, and the outputs whose κ was within
// the target keep their totals.
func TestTightenCapsOnBinomialTails(t *testing.T) {
	_, u, set, err := randinst.CountingBinomialBall(32, 0.3, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	p := RobustProblem{Utility: u, Budget: mech.Budget{Measure: mech.LIP, Epsilon: 1}, Set: set}
	mu, kap, _, err := robustRates(p.Budget)
	if err != nil {
		t.Fatal(err)
	}
	pi := normalised(set.Center)
	x := newLeanBallTwo(pi, p.Utility, set, mu, kap)
	if _, _, err := x.runTo(context.Background(), leanMaxIter(len(pi)), robustGap); err != nil {
		t.Fatal(err)
	}
	out := x.reading().result(p, pi)
	room := AcceptedGap * math.Max(1, math.Abs(out.Value))
	before := out.BoundTwo
	t.Logf("value %.12g, two-prior bound %.12g with the point's totals", out.Value, before)
	if !(before-out.Value > room) {
		t.Fatalf("the point's totals prove %.12g, within the accepted gap of the value %.12g: the instance no longer tests TightenCaps", before, out.Value)
	}
	lo, hi, _ := twoPriorRates(p.Budget)
	C, sum := 0.0, 0.0
	for i, v := range set.Center {
		C, sum = C+v, sum+out.Alpha[i]
	}
	target := out.Value - sum + room/2
	kappas := func() []float64 {
		o := newTwoPriorOutput(len(pi))
		k := make([]float64, len(out.CapWeights))
		for j := range k {
			o.set(set.Center, p.Utility, j, out.Alpha, out.PriorsUpper[j], out.PriorsLower[j], lo, hi, C)
			k[j], _ = o.kappa(set.Center, out.CapWeights[j][0], out.CapWeights[j][1])
		}
		return k
	}
	k0 := kappas()
	caps0 := make([][]float64, len(out.CapWeights))
	for j, rt := range out.CapWeights {
		caps0[j] = slices.Clone(rt)
	}
	out.BoundTwo = TightenBoundTwo(set.Center, p.Utility, p.Budget, out.Alpha, out.PriorsUpper, out.PriorsLower, out.CapWeights, out.Value, AcceptedGap)
	t.Logf("after: %.12g", out.BoundTwo)
	if !(out.BoundTwo >= out.Value && out.BoundTwo-out.Value <= room) {
		t.Errorf("bound %.12g after TightenBoundTwo, value %.12g: want it within %.3g above", out.BoundTwo, out.Value, room)
	}
	for j, k := range kappas() {
		R, T := out.CapWeights[j][0], out.CapWeights[j][1]
		if !(R >= 0 && T >= 0) || math.IsInf(R, 0) || math.IsInf(T, 0) {
			t.Errorf("output %d: totals (%v, %v)", j, R, T)
		}
		if k > k0[j] {
			t.Errorf("output %d: κ %.6g raised to %.6g", j, k0[j], k)
		}
		if !(k0[j] > target) && !slices.Equal(out.CapWeights[j], caps0[j]) {
			t.Errorf("output %d: κ %.6g within the target %.6g, yet its totals moved", j, k0[j], target)
		}
	}
}
