package ipm

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// TestLeanFinishSteps: the finishing step is taken only in the tail, on a
// short step, where the predicted gap measure is below leanFinishShare of
// the target; it stops leanFinishCut short of the largest steps, a point
// it leaves within the target is kept, and any other is moved on to the
// route's own step along the same direction. The route is a leanRun
// whose residuals, after a move, report the measures given.
func TestLeanFinishSteps(t *testing.T) {
	const eta = 0.999
	apMax, adMax := 0.9999, 1.0
	ap, ad := eta*apMax, eta*adMax
	keep := 1 - leanFinishCut
	fp, fd := keep*apMax, min(1, keep*adMax)
	tail := leanRun{comp: 1e-6, primI: 1e-9, dualI: 1e-10, obj: -3}
	within := leanRun{comp: 1e-12, primI: 1e-13, dualI: 1e-14, obj: -3}
	outside := leanRun{comp: 1e-9, primI: 1e-13, dualI: 1e-14, obj: -3}
	cases := []struct {
		name         string
		target       float64
		at, after    leanRun
		apMax, adMax float64
		predicted    float64 // the complementarity comp reports
		want         [][2]float64
		tried        int
		taken        int
	}{
		{"no target", 0, tail, within, apMax, adMax, 0, [][2]float64{{ap, ad}}, 0, 0},
		{"full steps", 1e-11, tail, within, 1.002, 1.002, 0, [][2]float64{{1, 1}}, 0, 0},
		{"far from the optimum", 1e-11, leanRun{comp: 0.1, obj: 3}, within, apMax, adMax, 0, [][2]float64{{ap, ad}}, 0, 0},
		{"predicted above the share", 1e-11, tail, within, apMax, adMax, 3 * 0.6e-11, [][2]float64{{ap, ad}}, 0, 0},
		{"residuals left above the share", 1e-11, leanRun{comp: 1e-6, primI: 1e-6, obj: -3}, within, apMax, adMax, 0, [][2]float64{{ap, ad}}, 0, 0},
		{"ends the run", 1e-11, tail, within, apMax, adMax, 3 * 0.4e-11, [][2]float64{{fp, fd}}, 1, 1},
		{"moved back", 1e-11, tail, outside, apMax, adMax, 3 * 0.4e-11, [][2]float64{{fp, fd}, {ap - fp, ad - fd}}, 1, 0},
	}
	for _, c := range cases {
		r := c.at
		r.target = c.target
		var asked, moves [][2]float64
		updates := 0
		r.advance(func() {
			updates++
			r.comp, r.primI, r.dualI, r.obj = c.after.comp, c.after.primI, c.after.dualI, c.after.obj
		}, c.apMax, c.adMax, eta, func(p, d float64) float64 {
			asked = append(asked, [2]float64{p, d})
			return c.predicted
		}, func(p, d float64) { moves = append(moves, [2]float64{p, d}) })
		if fmt.Sprint(moves) != fmt.Sprint(c.want) {
			t.Errorf("%s: moves %v, want %v", c.name, moves, c.want)
		}
		if r.tried != c.tried || r.taken != c.taken || updates != c.tried {
			t.Errorf("%s: tried %d, taken %d, residuals %d; want %d, %d, %d", c.name, r.tried, r.taken, updates, c.tried, c.taken, c.tried)
		}
		if len(asked) > 0 && asked[0] != [2]float64{fp, fd} {
			t.Errorf("%s: complementarity asked at %v, want %v", c.name, asked[0], [2]float64{fp, fd})
		}
		if p, d := sumMoves(moves); c.tried > c.taken && (math.Abs(p-ap) > 1e-15 || math.Abs(d-ad) > 1e-15) {
			t.Errorf("%s: moved %g, %g in all; want the route's %g, %g", c.name, p, d, ap, ad)
		}
	}
}

func sumMoves(moves [][2]float64) (p, d float64) {
	for _, m := range moves {
		p, d = p+m[0], d+m[1]
	}
	return p, d
}

// TestLeanFinishEndsRuns: on each lean route, over the box 0.8–1.25 times
// the estimate and the L1 ball of radius 0.1, under ε-PML and LIP at 1
// nat, the finishing step ends the run at least one iteration before the
// same run without it, within the run's gap. On counting-binomial at 24
// letters under LIP over the box the run stalls, with or without it, and
// every finishing step it tries is moved back to the route's own step;
// the route's answer is certified within the accepted gap by its proof
// and keeps the budget over the box. Every other answer is the dualised
// LP's optimum, certified and within the budget over the set.
func TestLeanFinishEndsRuns(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		family string
		n      int
		ball   bool
		lip    bool
		stalls bool
	}{
		{"fine", 16, false, true, false},
		{"bands", 8, true, true, false},
		{"grid", 16, false, false, false},
		{"counting-uniform", 16, true, false, false},
		{"counting-binomial", 24, false, true, true},
	} {
		in := familyInstance(t, c.family, c.n)
		var set *mech.PriorSet
		var err error
		if c.ball {
			set, err = mech.NewL1Set(in.Prior, 0.1)
		} else {
			set, err = randinst.FactorBox(in.Prior, 0.8, 1.25)
		}
		if err != nil {
			t.Fatal(err)
		}
		b := mech.Budget{Measure: mech.PML, Epsilon: 1}
		if c.lip {
			b.Measure = mech.LIP
		}
		p := RobustProblem{Utility: in.Utility, Budget: b, Set: set}
		mu, kap, lip, _ := robustRates(b)
		pi := normalised(set.Center)
		route := func() leanRoute {
			switch {
			case !c.ball && lip:
				return newLeanTwo(pi, p.Utility, set, mu, kap)
			case !c.ball:
				return newLeanBox(pi, p.Utility, set, mu)
			case lip:
				return newLeanBallTwo(pi, p.Utility, set, mu, kap)
			}
			return newLeanBall(pi, p.Utility, set, mu)
		}
		maxIter := leanMaxIter(len(pi))
		plain := route()
		name := fmt.Sprintf("%s %d (%s)", c.family, c.n, plain)
		plainIters, plainDone, _, err := runKeepingBest(ctx, plain, maxIter, robustGap, nil)
		if err != nil || plainDone == c.stalls {
			t.Fatalf("%s: the run without the finishing step: done %v, %v", name, plainDone, err)
		}
		x := route()
		iters, done, err := x.runTo(ctx, maxIter, robustGap)
		if err != nil || done == c.stalls {
			t.Fatalf("%s: done %v, %v", name, done, err)
		}
		f := x.lean()
		switch {
		case c.stalls:
			if f.tried == 0 || f.taken != 0 {
				t.Errorf("%s: %d finishing steps tried, %d kept; want some tried, none kept", name, f.tried, f.taken)
			}
		case f.taken != 1 || iters > plainIters-1 || x.heldGap() > robustGap:
			t.Errorf("%s: %d iterations (%d finishing steps of %d tried), gap %g; without it %d", name, iters, f.taken, f.tried, x.heldGap(), plainIters)
		}
		r, tried, err := solveRobustLeanRoute(ctx, p, pi, mu, kap, lip, 200, robustGap, AcceptedGap)
		if err != nil || !tried {
			t.Fatalf("%s: %v", name, err)
		}
		if !c.stalls {
			checkRunsAgainstLP(t, name, p, r, 1)
			continue
		}
		// The dualised LP takes seconds at 24 letters: the stalled run's
		// answer is checked by its own proof and the audit over the box.
		level, lower, _ := leakage.LevelOver(set, r.Mechanism, b)
		bound := provenBound(p, r)
		if !withinBudget(level, lower, b, RobustBudgetSlack) || bound != r.BoundTwo || !(bound-r.Value <= AcceptedGap*max(1, math.Abs(r.Value))) {
			t.Errorf("%s: level %g over the box, value %.15g, bound %.15g (proven %.15g)", name, level, r.Value, r.BoundTwo, bound)
		}
	}
}

// leanRoute is a lean route as TestLeanFinishEndsRuns runs it.
type leanRoute interface {
	keptIterand
	runTo(ctx context.Context, maxIter int, tol float64) (iters int, done bool, err error)
	heldGap() float64
	lean() *leanRun
}

// lean returns the lean route's run, for the tests.
func (r *leanRun) lean() *leanRun { return r }
