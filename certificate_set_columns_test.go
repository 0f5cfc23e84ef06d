package pmlopt_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/instance"
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

// bracketAgainstLP checks a worst case's bracket of the least ε over the
// set for the pattern: within width, the dualised LP feasible 1e-7 above
// its upper end and infeasible 1e-6 below its lower end.
func bracketAgainstLP(t *testing.T, what string, set *mech.PriorSet, pat mech.Pattern, sol *pmlopt.Solution, width float64) {
	t.Helper()
	if sol.Epsilon-sol.OptimalEpsilonLower > width {
		t.Errorf("%s: bracket [%g, %g] not closed", what, sol.OptimalEpsilonLower, sol.Epsilon)
	}
	if sol.OptimalEpsilonLower > 1e-6 && feasibleOverSet(t, set, pat, sol.OptimalEpsilonLower-1e-6) {
		t.Errorf("%s: the dualised LP is feasible below the proven %g", what, sol.OptimalEpsilonLower)
	}
	if !feasibleOverSet(t, set, pat, sol.Epsilon+1e-7) {
		t.Errorf("%s: the dualised LP is infeasible above the audited %g", what, sol.Epsilon)
	}
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
		bracketAgainstLP(t, fmt.Sprintf("trial %d", trial), set, p.Order.Pattern(h), sol, 1e-6)
		t.Logf("trial %d: n %d, h %d at [%.10g, %.10g], lower proof with %d priors", trial, n, h, sol.OptimalEpsilonLower, sol.Epsilon, len(sol.Certificate.Lower.Priors))
		c := sol.Certificate
		mustVerify(t, "worst case by columns", p, sol.Mechanism, c)
		if c.Lower.OptimalEpsilonLower > 0 && c.Lower.Alpha == nil {
			t.Errorf("trial %d: lower end %g without multipliers", trial, c.Lower.OptimalEpsilonLower)
		}
	}
}

// The worst-case value over a set that a reflection keeps (a uniform
// grid's, a uniform line's, buckets of a line's), where the column
// generation folds its master by the reflections: the strongest value the
// budget keeps and its least ε agree with the dualised robust LP of the
// whole problem (the threshold feasible at the budget, the next one not;
// the LP feasible just above the bracket and not just below it), no LP is
// solved, the bracket is closed, and the certificate passes the exact
// checker.
func TestSetCertificateWorstCaseFolded(t *testing.T) {
	ctx := context.Background()
	grid := func(w, h int) mech.Utility {
		u, err := instance.Grid(w, h)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	abs, err := instance.AbsLoss(9)
	if err != nil {
		t.Fatal(err)
	}
	buckets, err := instance.Buckets(12, 4)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		u    mech.Utility
		eps  float64
		ball bool
	}{
		{"grid 4×4", grid(4, 4), 1, false},
		{"grid 4×4", grid(4, 4), 0.7, true},
		{"grid 4×3", grid(4, 3), 1.2, false},
		{"grid 3×3", grid(3, 3), 1.5, true},
		{"abs 9", abs, 1, false},
		{"abs 9", abs, 1.2, true},
		{"buckets 12→4", buckets, 0.9, false},
	}
	for _, c := range cases {
		n := len(c.u)
		pi := make(mech.Prior, n)
		for i := range pi {
			pi[i] = 1 / float64(n)
		}
		lower, upper := make([]float64, n), make([]float64, n)
		for i := range pi {
			lower[i], upper[i] = 0.8*pi[i], 1.25*pi[i]
		}
		set, err := mech.NewBoxSet(pi, lower, upper)
		if c.ball {
			set, err = mech.NewL1Set(pi, 0.1)
		}
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s over the %s at ε = %g", c.name, map[bool]string{false: "box", true: "ball"}[c.ball], c.eps)
		p := &problem.Problem{Prior: pi, Utility: c.u, Objective: problem.WorstCaseValue,
			Privacy: &mech.Budget{Measure: mech.PML, Epsilon: c.eps}, PriorSet: set}
		sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
		if err != nil {
			t.Fatal(name, err)
		}
		if sol.LPSolves != 0 {
			t.Errorf("%s: %d LPs, want the column generation alone", name, sol.LPSolves)
		}
		v := sol.WorstCaseValue
		if !feasibleOverSet(t, set, c.u.Pattern(v), c.eps+1e-9) {
			t.Errorf("%s: value %g, which the dualised LP finds no mechanism for", name, v)
		}
		for _, next := range c.u.ReachableValues() {
			if next > v {
				if feasibleOverSet(t, set, c.u.Pattern(next), c.eps-1e-7) {
					t.Errorf("%s: value %g, but the dualised LP finds one for %g", name, v, next)
				}
				break
			}
		}
		bracketAgainstLP(t, name, set, c.u.Pattern(v), sol, 1e-8)
		t.Logf("%s: value %g at [%.10g, %.10g]", name, v, sol.OptimalEpsilonLower, sol.Epsilon)
		mustVerify(t, name, p, sol.Mechanism, sol.Certificate)
	}
}
