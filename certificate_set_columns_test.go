package pmlopt_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// feasibleOverSet asks the dualised robust LP of polytope.BuildRobust,
// independently of the column generation, whether a mechanism with the
// pattern keeps ε-PML over the set.
func feasibleOverSet(t *testing.T, set *mech.PriorSet, pat mech.Pattern, eps float64) bool {
	t.Helper()
	mod, err := polytope.BuildRobust(polytope.Spec{Prior: set.Center, Budget: mech.Budget{Measure: mech.PML, Epsilon: eps}, Pattern: pat}, set)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := solver.Revised().Solve(mod.LP)
	if err != nil {
		t.Fatal(err)
	}
	return sol.Status == solver.Optimal
}

// The worst case over a set goes through the column generation over the
// set and no LP: the strongest order threshold and its least ε agree with
// the dualised robust LP (the threshold feasible at the budget, the next
// one not; the LP feasible just above the bracket and not just below it),
// the bracket is closed, and the certificate, whose lower end carries a
// prior per output, passes the exact checker.
func TestSetCertificateWorstCaseByColumns(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 71))
	ctx := context.Background()
	for trial := range 10 {
		n := 5 + r.IntN(4)
		pi := make(mech.Prior, n)
		for i := range pi {
			pi[i] = 0.1 + r.Float64()
		}
		mech.Normalise(pi)
		u := make(mech.Utility, n)
		for i := range u {
			u[i] = make([]float64, n)
			for j := range u[i] {
				u[i][j] = -math.Abs(float64(i-j)) - 0.01*r.Float64()
			}
		}
		set := randomBox(r, pi)
		if trial%2 == 1 {
			set, _ = mech.NewL1Set(pi, 0.2*r.Float64())
		}
		p := &problem.Problem{Prior: pi, Utility: u, Order: u.Order(), Objective: problem.WorstCaseOrder,
			Privacy: &mech.Budget{Measure: mech.PML, Epsilon: 0.5 + r.Float64()}, PriorSet: set}
		sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sol.LPSolves != 0 {
			t.Errorf("trial %d: %d LPs, want the column generation alone", trial, sol.LPSolves)
		}
		h := sol.WorstCaseOrder
		eps := p.Privacy.Epsilon
		if !feasibleOverSet(t, set, p.Order.Pattern(h), eps+1e-9) {
			t.Errorf("trial %d: h = %d, which the dualised LP finds no mechanism for at ε = %g", trial, h, eps)
		}
		if h < n && feasibleOverSet(t, set, p.Order.Pattern(h+1), eps-1e-7) {
			t.Errorf("trial %d: h = %d, but the dualised LP finds one for h + 1 at ε = %g", trial, h, eps)
		}
		if sol.Epsilon-sol.OptimalEpsilonLower > 1e-6 {
			t.Errorf("trial %d: bracket [%g, %g] not closed", trial, sol.OptimalEpsilonLower, sol.Epsilon)
		}
		pat := p.Order.Pattern(h)
		if sol.OptimalEpsilonLower > 1e-6 && feasibleOverSet(t, set, pat, sol.OptimalEpsilonLower-1e-6) {
			t.Errorf("trial %d: the dualised LP is feasible below the proven %g", trial, sol.OptimalEpsilonLower)
		}
		if !feasibleOverSet(t, set, pat, sol.Epsilon+1e-7) {
			t.Errorf("trial %d: the dualised LP is infeasible above the audited %g", trial, sol.Epsilon)
		}
		t.Logf("trial %d: n %d, h %d at [%.10g, %.10g], lower proof with %d priors", trial, n, h, sol.OptimalEpsilonLower, sol.Epsilon, len(sol.Certificate.Lower.Priors))
		c := sol.Certificate
		mustVerify(t, "worst case by columns", p, sol.Mechanism, c)
		if c.Lower.OptimalEpsilonLower > 0 && c.Lower.Alpha == nil {
			t.Errorf("trial %d: lower end %g without multipliers", trial, c.Lower.OptimalEpsilonLower)
		}
	}
}
