package certificate_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
)

// lpTestProblem is a random problem of n inputs and m outputs: a prior
// with no letter below a tenth of the uniform's, utilities the integers 0
// to 10.
func lpTestProblem(r *rand.Rand, n, m int) *problem.Problem {
	pi := randinst.Prior(r, n, 0.1)
	u := randinst.RoundedUtility(r, n, m, 10)
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
		p.PriorSet, _ = randinst.SetAround(r, p.Prior, trial%2 == 0)
		if trial%2 != 0 {
			p.Privacy.Epsilon = 8 // the best order over a ball needs more
		}
		sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !(sol.OptimalEpsilonLower > 0) {
			t.Logf("trial %d: h %d in [%g, %g]", trial, sol.WorstCaseOrder, sol.OptimalEpsilonLower, sol.Epsilon)
			continue
		}
		pat := certificate.WorstPattern(p, p.Objective, sol.WorstCaseOrder, 0)
		// The engine's lower end, with no hint: proven by the LP.
		l := certificate.LowerOver(p, pat, sol.OptimalEpsilonLower, math.Inf(1), nil)
		if l.Alpha == nil || l.OptimalEpsilonLower < sol.OptimalEpsilonLower-1e-7 {
			t.Fatalf("trial %d: no LP proof of %g: %+v", trial, sol.OptimalEpsilonLower, l)
		}
		c := *sol.Certificate
		c.Lower = l
		vp := verify.Problem{Prior: p.Prior, Utility: p.Utility, Order: p.Order, Mechanism: sol.Mechanism, PriorSet: certificate.PriorSet(p.PriorSet)}
		if cs := verify.Check(vp, c); !verify.AllOK(cs) {
			t.Fatalf("trial %d: %v", trial, cs)
		}
		// At the upper end: the LP proves nearly the robust optimum.
		lc, priors, ok := certificate.LowerFromLP(p, pat, sol.Epsilon-1e-6)
		if !ok || lc.Epsilon < sol.Epsilon-1e-5 {
			t.Fatalf("trial %d: over the set ε* ∈ [%g, %g], the LP proves %g (ok %v)", trial, sol.OptimalEpsilonLower, sol.Epsilon, lc.Epsilon, ok)
		}
		c.Lower = &verify.Lower{OptimalEpsilonLower: math.Min(lc.Epsilon, c.Epsilon), Alpha: lc.Alpha, Nu: lc.Nu, Priors: priors}
		if cs := verify.Check(vp, c); !verify.AllOK(cs) {
			t.Fatalf("trial %d at the upper end: %v", trial, cs)
		}
		// The same proof given as an engine's hint with a prior per output.
		hl := certificate.LowerOver(p, pat, math.Min(lc.Epsilon, sol.Epsilon), math.Inf(1), []certificate.Hint{{Priors: priors, Alpha: lc.Alpha}})
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
