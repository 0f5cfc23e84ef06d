package ipm

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
)

// TestLeanBallMatchesTheLP solves ε-PML over L1 balls of several radii
// and budgets on every family at 8 letters by the lean ball route alone,
// and checks its answer against the dualised LP (robustLP): the value
// within 1e-9 of the LP's optimum, the bound proven by its own
// multipliers and priors and not below the LP's, the priors in the set
// and the mechanism within the budget over the set.
func TestLeanBallMatchesTheLP(t *testing.T) {
	for _, f := range instance.Families() {
		in := familyInstance(t, f.Name, 8)
		for _, r := range []float64{1e-3, 0.1, 0.3} {
			set, err := mech.NewL1Set(in.Prior, r)
			if err != nil {
				t.Fatal(err)
			}
			for _, eps := range []float64{0.3, 1, 3} {
				name := fmt.Sprintf("%s ball %g ε %g", f.Name, r, eps)
				b := mech.Budget{Measure: mech.PML, Epsilon: eps}
				p := RobustProblem{Utility: in.Utility, Budget: b, Set: set}
				mu, kap, lip, _ := robustRates(b)
				res, err := solveRobustLeanBall(context.Background(), p, normalised(set.Center), mu, kap, lip, 200, robustGap, AcceptedGap)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				checkOneRunAgainstLP(t, name, p, res)
			}
		}
	}
}

// TestLeanBallDirectionsSolveTheNewtonSystem runs the lean ball
// iterations on every family at 12 letters close to the optimum, where
// the blocks are nearly singular and the deflation carries the outputs'
// columns and the soft pairs, and checks each corrector direction in the
// unreduced equations (the row sums' and the dual ones): their residuals
// below 1e-8 of the direction's multipliers (grid's come to 2.5·10⁻⁹).
func TestLeanBallDirectionsSolveTheNewtonSystem(t *testing.T) {
	for _, f := range instance.Families() {
		in := familyInstance(t, f.Name, 12)
		set, err := mech.NewL1Set(in.Prior, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		x := newLeanBall(normalised(set.Center), in.Utility, set, math.Exp(-1))
		worst, deflated := 0.0, 0
		for it := 0; it < 40; it++ {
			x.residuals()
			if x.comp < 1e-12 {
				break
			}
			if err := x.step(); err != nil {
				t.Fatalf("%s: iteration %d: %v", f.Name, it, err)
			}
			res := x.dirResiduals(&x.cor)
			worst = math.Max(worst, res/x.dirSize(&x.cor))
			deflated = max(deflated, len(x.dj))
		}
		if !(worst < 1e-8) {
			t.Errorf("%s: a direction's residual %.3g of its multipliers", f.Name, worst)
		}
		if !(x.comp < 1e-12) {
			t.Errorf("%s: complementarity %.3g after 40 iterations", f.Name, x.comp)
		}
		if deflated == 0 {
			t.Errorf("%s: no output deflated", f.Name)
		}
	}
}

// TestBallBorderInverse checks ballBorderInverse against the border
// matrix it inverts, formed entry by entry, with t kept and dropped.
func TestBallBorderInverse(t *testing.T) {
	cw := [6]float64{0.7, 2, 1e-3, 5, 0.3, 11}
	v := [3]float64{-0.4, 1.3, -0.2}
	ze := 0.9
	for _, drop := range []bool{false, true} {
		var s [4][4]float64
		for d, dir := range ballDirs {
			for r := range 3 {
				for c := range 3 {
					s[r][c] += cw[d] * dir[r] * dir[c]
				}
			}
		}
		for r := range 3 {
			s[r][3], s[3][r] = v[r], v[r]
		}
		s[3][3] = -ze
		lo := 0
		if drop {
			lo = 1
		}
		sb := make([]float64, 16)
		if !ballBorderInverse(sb, &cw, v, ze, drop) {
			t.Fatal("singular")
		}
		for r := lo; r < 4; r++ {
			for c := lo; c < 4; c++ {
				e := 0.0
				for k := lo; k < 4; k++ {
					e += s[r][k] * sb[4*k+c]
				}
				if r == c {
					e--
				}
				if math.Abs(e) > 1e-12 {
					t.Errorf("drop %v: (S S⁻¹ − I)[%d][%d] = %g", drop, r, c, e)
				}
			}
		}
	}
}

// TestLeanBallApplies: the lean ball routes take a ball of positive
// radius, leanBall under ε-PML and leanBallTwo under LIP and ALIP, and
// nothing else.
func TestLeanBallApplies(t *testing.T) {
	pi := mech.Prior{0.2, 0.3, 0.5}
	ball, err := mech.NewL1Set(pi, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	point, err := mech.NewL1Set(pi, 0)
	if err != nil {
		t.Fatal(err)
	}
	box, err := mech.NewBoxSet(pi, []float64{0.1, 0.2, 0.4}, []float64{0.3, 0.4, 0.6})
	if err == nil {
		if leanBallApplies(box, false) || leanBallTwoApplies(box, true) {
			t.Error("a lean ball route takes a box")
		}
	}
	for _, c := range []struct {
		set       *mech.PriorSet
		lip       bool
		ball, two bool // leanBallApplies, leanBallTwoApplies
	}{{ball, false, true, false}, {ball, true, false, true}, {point, false, false, false}, {point, true, false, false}} {
		if got := leanBallApplies(c.set, c.lip); got != c.ball {
			t.Errorf("radius %g lip %v: leanBallApplies %v, want %v", c.set.Radius, c.lip, got, c.ball)
		}
		if got := leanBallTwoApplies(c.set, c.lip); got != c.two {
			t.Errorf("radius %g lip %v: leanBallTwoApplies %v, want %v", c.set.Radius, c.lip, got, c.two)
		}
	}
}
