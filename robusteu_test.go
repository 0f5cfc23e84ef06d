package pmlopt_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// The expected utility over a box or an L1 ball under PML, LIP and ALIP
// goes to the interior point over the set: its value is the optimum of
// the plain LP with the set's constraints dualised (polytope.BuildRobust,
// solved by the gonum backend, an independent engine), under PML its
// certified bound is that optimum too, verify accepts its certificate,
// and its mechanism keeps the budget at priors drawn from the set.
func TestExpectedOverSetByInteriorPoint(t *testing.T) {
	ctx := context.Background()
	gonum, err := solver.Get("gonum")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(37, 3))
	trials := 10
	if testlong.Short() {
		trials = 4
	}
	byIPM, total := 0, 0
	defer func() {
		// The interior point answers every ε-PML solve of these
		// instances and most LIP and ALIP ones; where its iterations
		// stall short of the gap, the LP does.
		t.Logf("the interior point answered %d of %d solves", byIPM, total)
		if 3*byIPM < 2*total {
			t.Errorf("the interior point answered %d of %d solves", byIPM, total)
		}
	}()
	for trial := range trials {
		n, m := 2+r.IntN(3), 2+r.IntN(3)
		pi := make(mech.Prior, n)
		for i := range pi {
			pi[i] = 0.1 + r.Float64()
		}
		mech.Normalise(pi)
		u := make(mech.Utility, n)
		for i := range u {
			u[i] = make([]float64, m)
			for j := range u[i] {
				u[i][j] = r.Float64()
			}
		}
		set := randomBox(r, pi)
		if trial%2 == 1 {
			set, _ = mech.NewL1Set(pi, 0.05+0.25*r.Float64())
		}
		e := 0.3 + 1.5*r.Float64()
		for _, b := range []mech.Budget{{Measure: mech.PML, Epsilon: e}, {Measure: mech.LIP, Epsilon: e},
			{Measure: mech.ALIP, EpsilonLower: e, EpsilonUpper: 0.3 + r.Float64()}} {
			what := func() string { return string(b.Measure) + map[bool]string{true: " box", false: " ball"}[set.IsBox()] }
			mod, err := polytope.BuildRobust(polytope.Spec{Prior: pi, Budget: b, Objective: polytope.ExpectedUtility, Utility: u}, set)
			if err != nil {
				t.Fatal(err)
			}
			want, err := gonum.Solve(mod.LP)
			if err != nil || want.Status != solver.Optimal {
				t.Fatalf("trial %d %s: dualised LP %v %v", trial, what(), err, want)
			}
			p := &problem.Problem{Prior: pi, Utility: u, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
			sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
			if err != nil {
				t.Fatalf("trial %d %s: %v", trial, what(), err)
			}
			switch {
			case sol.Solver == "ipm":
				byIPM++
			case b.Measure == mech.PML:
				t.Fatalf("trial %d %s: solved by %q, not the interior point over the set", trial, what(), sol.Solver)
			}
			total++
			tol := 1e-7 * math.Max(1, math.Abs(want.Objective))
			if math.Abs(sol.ExpectedUtility-want.Objective) > tol || sol.ExpectedUtilityBound < want.Objective-tol {
				t.Fatalf("trial %d %s: [%.12g, %.12g], dualised LP %.12g", trial, what(), sol.ExpectedUtility, sol.ExpectedUtilityBound, want.Objective)
			}
			if b.Measure == mech.PML && sol.ExpectedUtilityBound > want.Objective+tol {
				t.Fatalf("trial %d %s: bound %.12g above the optimum %.12g", trial, what(), sol.ExpectedUtilityBound, want.Objective)
			}
			mustVerify(t, what(), p, sol.Mechanism, sol.Certificate)
			for range 20 {
				q := randinst.SetPrior(r, set, nil)
				rep, err := certify.Audit(q, sol.Mechanism, b)
				if err != nil {
					t.Fatal(err)
				}
				up := b.Epsilon
				if b.Measure == mech.ALIP {
					up = b.EpsilonUpper
					if rep.ALIPLower > b.EpsilonLower+certify.AuditTol {
						t.Fatalf("trial %d %s: ALIP lower level %g at a prior of the set", trial, what(), rep.ALIPLower)
					}
				}
				if rep.Level > up+certify.AuditTol {
					t.Fatalf("trial %d %s: level %g at a prior of the set, budget %+v", trial, what(), rep.Level, b)
				}
			}
		}
	}
}
