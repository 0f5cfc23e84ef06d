package pmlopt

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
)

func lpTestProblem(r *rand.Rand, n, m int) *problem.Problem {
	pi := make(mech.Prior, n)
	for i := range pi {
		pi[i] = 0.1 + r.Float64()
	}
	mech.Normalise(pi)
	u := make(mech.Utility, n)
	for i := range u {
		u[i] = make([]float64, m)
		for j := range u[i] {
			u[i][j] = math.Round(10 * r.Float64())
		}
	}
	return &problem.Problem{Prior: pi, Utility: u, Order: u.Order()}
}

// Without any engine's proof, the LP of one prior per output proves the
// lower end over the set, and more: at the robust optimum it is tight (the
// mechanism's level over the set is within the search's tolerance of what
// it proves), where one prior for every output need not be.
func TestSetLowerLP(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(43, 1))
	proven := map[bool]int{} // by box
	for trial := range 16 {
		p := lpTestProblem(r, 3, 4)
		p.Objective = problem.WorstCaseOrder
		p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: 3}
		if trial%2 == 0 {
			n := len(p.Prior)
			lo, up := make([]float64, n), make([]float64, n)
			for k := range n {
				lo[k], up[k] = p.Prior[k]*(0.5+0.5*r.Float64()), math.Min(1, p.Prior[k]*(1+r.Float64()))
			}
			p.PriorSet, _ = mech.NewBoxSet(p.Prior, lo, up)
		} else {
			p.PriorSet, _ = mech.NewL1Set(p.Prior, 0.1+0.2*r.Float64())
			p.Privacy.Epsilon = 8 // the best order over a ball needs more
		}
		sol, err := Solve(ctx, p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !(sol.OptimalEpsilonLower > 0) {
			t.Logf("trial %d: h %d in [%g, %g]", trial, sol.WorstCaseOrder, sol.OptimalEpsilonLower, sol.Epsilon)
			continue
		}
		pat := worstPattern(p, p.Objective, sol.WorstCaseOrder, 0)
		// The engine's lower end, with no hint: proven by the LP.
		l := setLowerCertificate(p, pat, sol.OptimalEpsilonLower, math.Inf(1), nil)
		if l.Alpha == nil || l.OptimalEpsilonLower < sol.OptimalEpsilonLower-1e-7 {
			t.Fatalf("trial %d: no LP proof of %g: %+v", trial, sol.OptimalEpsilonLower, l)
		}
		c := *sol.Certificate
		c.Lower = l
		vp := verify.Problem{Prior: p.Prior, Utility: p.Utility, Order: p.Order, Mechanism: sol.Mechanism, PriorSet: VerifyPriorSet(p.PriorSet)}
		if cs := verify.Check(vp, c); !verify.AllOK(cs) {
			t.Fatalf("trial %d: %v", trial, cs)
		}
		// At the upper end: the LP proves nearly the robust optimum.
		lc, priors, ok := setLowerFromLP(p, pat, sol.Epsilon-1e-6)
		if !ok || lc.Epsilon < sol.Epsilon-1e-5 {
			t.Fatalf("trial %d: over the set ε* ∈ [%g, %g], the LP proves %g (ok %v)", trial, sol.OptimalEpsilonLower, sol.Epsilon, lc.Epsilon, ok)
		}
		c.Lower = &verify.Lower{OptimalEpsilonLower: math.Min(lc.Epsilon, c.Epsilon), Alpha: lc.Alpha, Nu: lc.Nu, Priors: priors}
		if cs := verify.Check(vp, c); !verify.AllOK(cs) {
			t.Fatalf("trial %d at the upper end: %v", trial, cs)
		}
		// The same proof given as an engine's hint with a prior per output.
		hl := setLowerCertificate(p, pat, math.Min(lc.Epsilon, sol.Epsilon), math.Inf(1), []setHint{{Priors: priors, Alpha: lc.Alpha}})
		if len(hl.Priors) != len(priors) || hl.Alpha == nil {
			t.Fatalf("trial %d: the per-output hint was not used: %+v", trial, hl)
		}
		c.Lower = hl
		if cs := verify.Check(vp, c); !verify.AllOK(cs) {
			t.Fatalf("trial %d from the hint: %v", trial, cs)
		}
		t.Logf("trial %d: answer [%g, %g], one prior per output proves %g", trial, sol.OptimalEpsilonLower, sol.Epsilon, lc.Epsilon)
		// The answer's bracket closed by its certificate's LP.
		if sol.Epsilon-sol.OptimalEpsilonLower > 1e-6*math.Max(1, sol.Epsilon) {
			t.Fatalf("trial %d: the answer's bracket [%g, %g] stays open", trial, sol.OptimalEpsilonLower, sol.Epsilon)
		}
		proven[p.PriorSet.IsBox()]++
	}
	if proven[true] < 2 || proven[false] < 2 {
		t.Fatalf("positive lower ends proven over boxes %d, balls %d times", proven[true], proven[false])
	}
}

// The expected-utility bound over a set with one prior per output: on
// small PML problems it closes on the robust LP's optimum, where the
// bound at one prior of the set for every output may stay above it, and
// the certificate verifies.
func TestSetExpectedLP(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(43, 2))
	closed, better := 0, 0
	for trial := range 8 {
		p := lpTestProblem(r, 3, 4)
		p.Objective = problem.ExpectedUtility
		p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: 0.3 + r.Float64()}
		if trial%2 == 0 {
			n := len(p.Prior)
			lo, up := make([]float64, n), make([]float64, n)
			for k := range n {
				lo[k], up[k] = p.Prior[k]*(0.5+0.5*r.Float64()), math.Min(1, p.Prior[k]*(1+r.Float64()))
			}
			p.PriorSet, _ = mech.NewBoxSet(p.Prior, lo, up)
		} else {
			p.PriorSet, _ = mech.NewL1Set(p.Prior, 0.1+0.2*r.Float64())
		}
		sol, err := Solve(ctx, p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		vp := verify.Problem{Prior: p.Prior, Utility: p.Utility, Order: p.Order, Mechanism: sol.Mechanism, PriorSet: VerifyPriorSet(p.PriorSet)}
		if cs := verify.Check(vp, *sol.Certificate); !verify.AllOK(cs) {
			t.Fatalf("trial %d: %v", trial, cs)
		}
		single, _ := expectedBoundOverSet(ctx, p, p.Utility, *p.Privacy, nil, nil, Options{})
		if single > sol.ExpectedUtilityBound+1e-6 {
			better++
		}
		gap := sol.ExpectedUtilityBound - sol.ExpectedUtility
		if gap < -1e-9 {
			t.Fatalf("trial %d: bound %g below the mechanism's %g", trial, sol.ExpectedUtilityBound, sol.ExpectedUtility)
		}
		if gap < 1e-7 {
			closed++
		}
		t.Logf("trial %d: [%.12g, %.12g], one prior for every output %.12g", trial, sol.ExpectedUtility, sol.ExpectedUtilityBound, single)
	}
	if closed < 6 || better == 0 {
		t.Fatalf("the bound closed on the optimum in %d of 8 trials, below the one-prior bound in %d", closed, better)
	}
}
