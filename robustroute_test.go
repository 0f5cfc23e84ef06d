package pmlopt_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// Expected utility over random boxes and L1 balls under every measure of
// the robust route: Solve reaches the optimum of the plain dualised LP
// (polytope.BuildRobust, solved here independently), its mechanism keeps
// the budget for every prior of the set, and the certified bound is not
// below it.
func TestSolveOverPriorSetAgainstDualisedLP(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(37, 21))
	for trial := range 12 {
		p := setProblem(r, 3+r.IntN(4), 3+r.IntN(4))
		var set *mech.PriorSet
		if trial%2 == 0 {
			var err error
			if set, err = randinst.SetAround(r, p.Prior, true); err != nil {
				t.Fatal(err)
			}
		} else {
			set, _ = mech.NewL1Set(p.Prior, 0.3*r.Float64())
		}
		e := 0.3 + r.Float64()
		for _, b := range []mech.Budget{{Measure: mech.PML, Epsilon: e}, {Measure: mech.LIP, Epsilon: e},
			{Measure: mech.ALIP, EpsilonLower: e, EpsilonUpper: 0.3 + r.Float64()}} {
			mod, err := polytope.BuildRobust(polytope.Spec{Prior: p.Prior, Budget: b, Objective: polytope.ExpectedUtility, Utility: p.Utility}, set)
			if err != nil {
				t.Fatal(err)
			}
			want, err := solver.Revised().Solve(mod.LP)
			if err != nil || want.Status != solver.Optimal {
				t.Fatalf("trial %d %v: dualised LP %v %v", trial, b, err, want)
			}
			q := *p
			q.PriorSet, q.Objective, q.Privacy = set, problem.ExpectedUtility, &b
			got, err := pmlopt.Solve(ctx, &q, pmlopt.Options{})
			if err != nil {
				t.Fatalf("trial %d %v: %v", trial, b, err)
			}
			if math.Abs(got.ExpectedUtility-want.Objective) > 1e-7 {
				t.Fatalf("trial %d %v (box %v): Solve %.12g, dualised LP %.12g", trial, b, set.IsBox(), got.ExpectedUtility, want.Objective)
			}
			if got.ExpectedUtilityBound < got.ExpectedUtility-1e-9 {
				t.Fatalf("trial %d %v: bound %g below the utility %g", trial, b, got.ExpectedUtilityBound, got.ExpectedUtility)
			}
			switch b.Measure {
			case mech.PML:
				if v := leakage.PMLOver(set, got.Mechanism); v > b.Epsilon+1e-7 {
					t.Fatalf("trial %d: PML over the set %g > %g", trial, v, b.Epsilon)
				}
			case mech.LIP:
				if v := leakage.LIPOver(set, got.Mechanism); v > b.Epsilon+1e-7 {
					t.Fatalf("trial %d: LIP over the set %g > %g", trial, v, b.Epsilon)
				}
			case mech.ALIP:
				if l, u := leakage.ALIPOver(set, got.Mechanism); l > b.EpsilonLower+1e-7 || u > b.EpsilonUpper+1e-7 {
					t.Fatalf("trial %d: ALIP over the set (%g, %g) > (%g, %g)", trial, l, u, b.EpsilonLower, b.EpsilonUpper)
				}
			}
		}
	}
}
