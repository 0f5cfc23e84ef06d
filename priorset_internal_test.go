package pmlopt

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/internal/overset"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/verify"
)

// The expected-utility bound over a set with one prior per output: on
// small PML problems it closes on the robust optimum (the plain dualised
// LP's, solved here), where the bound at one prior of the set for every
// output may stay above it, and the certificate verifies.
func TestSetExpectedLP(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(43, 2))
	closed, better := 0, 0
	for trial := range 8 {
		pi := randinst.Prior(r, 3, 0.1)
		u := randinst.RoundedUtility(r, 3, 4, 10)
		p := &problem.Problem{Prior: pi, Utility: u, Order: u.Order()}
		p.Objective = problem.ExpectedUtility
		p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: 0.3 + r.Float64()}
		p.PriorSet, _ = randinst.SetAround(r, p.Prior, trial%2 == 0)
		sol, err := Solve(ctx, p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		vp := verify.Problem{Prior: p.Prior, Utility: p.Utility, Order: p.Order, Mechanism: sol.Mechanism, PriorSet: VerifyPriorSet(p.PriorSet)}
		if cs := verify.Check(vp, *sol.Certificate); !verify.AllOK(cs) {
			t.Fatalf("trial %d: %v", trial, cs)
		}
		single, _ := overset.ExpectedBound(ctx, p, p.Utility, *p.Privacy, nil, nil, Options{}.overSet())
		if single > sol.ExpectedUtilityBound+1e-6 {
			better++
		}
		// The robust optimum, by the plain dualised LP.
		mod, err := polytope.BuildRobust(polytope.Spec{Prior: p.Prior, Budget: *p.Privacy, Objective: polytope.ExpectedUtility, Utility: p.Utility}, p.PriorSet)
		if err != nil {
			t.Fatal(err)
		}
		lp, err := solver.Revised().Solve(mod.LP)
		if err != nil || lp.Status != solver.Optimal {
			t.Fatalf("trial %d: dualised LP %v %v", trial, err, lp)
		}
		want := lp.Objective
		if math.Abs(sol.ExpectedUtility-want) > 1e-7 || sol.ExpectedUtilityBound < want-1e-9 {
			t.Fatalf("trial %d: [%.12g, %.12g] misses the dualised LP's optimum %.12g", trial, sol.ExpectedUtility, sol.ExpectedUtilityBound, want)
		}
		if sol.ExpectedUtilityBound-want < 1e-7 {
			closed++
		}
		t.Logf("trial %d: [%.12g, %.12g], one prior for every output %.12g", trial, sol.ExpectedUtility, sol.ExpectedUtilityBound, single)
	}
	if closed < 6 || better == 0 {
		t.Fatalf("the bound closed on the optimum in %d of 8 trials, below the one-prior bound in %d", closed, better)
	}
}
