package certificate_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/verify"
)

// ProvenBound on certificates of expected-utility answers over a box
// (random family, 8 letters, PML and LIP): a bound lowered just below what
// verify's exact check accepts is raised by a few sizes of rounding to one
// it accepts, no lower than the lowered bound and at least the answer's
// value; a bound far below the optimum is dropped with its proof; an
// accepted bound is kept as it is.
func TestProvenBound(t *testing.T) {
	in, set, err := randinst.StudyBox("random", 8)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []mech.Budget{{Measure: mech.PML, Epsilon: 1}, {Measure: mech.LIP, Epsilon: 1}} {
		p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
		sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		vp := verify.Problem{Prior: p.Prior, Utility: p.Utility, Mechanism: sol.Mechanism, PriorSet: certificate.PriorSet(set)}
		withBound := func(B float64) *verify.Certificate {
			c := *sol.Certificate
			u := *c.Utility
			u.Bound = &B
			c.Utility = &u
			return &c
		}
		B0 := *sol.Certificate.Utility.Bound
		if got := certificate.ProvenBound(p, p.Utility, sol.Mechanism, withBound(B0)); got != B0 {
			t.Errorf("%v: the accepted bound %v became %v", b, B0, got)
		}
		mag := 0.0
		for _, v := range sol.Certificate.Utility.Alpha {
			mag += math.Abs(v)
		}
		lowered := math.NaN()
		for _, rel := range []float64{1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10} {
			if B := B0 - rel*math.Max(1, mag); !verify.BoundHolds(vp, *withBound(B)) {
				lowered = B
				break
			}
		}
		if math.IsNaN(lowered) {
			t.Fatalf("%v: every bound down to 1e-10 below %v holds: the test proves nothing", b, B0)
		}
		c := withBound(lowered)
		got := certificate.ProvenBound(p, p.Utility, sol.Mechanism, c)
		if !(got >= lowered && got <= lowered+1e-9*math.Max(1, mag)) || *c.Utility.Bound != got || !verify.BoundHolds(vp, *c) {
			t.Errorf("%v: the bound %v lowered to %v came back as %v", b, B0, lowered, got)
		}
		c = withBound(sol.ExpectedUtility - 1e-3)
		if got := certificate.ProvenBound(p, p.Utility, sol.Mechanism, c); !math.IsNaN(got) || c.Utility.Bound != nil || c.Utility.Alpha != nil {
			t.Errorf("%v: a bound below the value was kept as %v", b, got)
		}
	}
}

// TwoPriorBoundLP on LIP and ALIP answers over a box and a ball (random
// and bands families, 6 and 8 letters) whose bound is left loose: the LP
// for two priors per output proves a bound within the accepted gap of
// the dualised robust LP's optimum (polytope.BuildRobust, solved by the
// revised simplex), and verify's exact check accepts it.
func TestTwoPriorBoundLP(t *testing.T) {
	checked := 0
	for _, c := range []struct {
		family string
		n      int
	}{{"random", 6}, {"bands", 8}} {
		in, box, err := randinst.StudyBox(c.family, c.n)
		if err != nil {
			t.Fatal(err)
		}
		ball, err := mech.NewL1Set(in.Prior, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		for _, set := range []*mech.PriorSet{box, ball} {
			for _, b := range []mech.Budget{{Measure: mech.LIP, Epsilon: 1}, {Measure: mech.ALIP, EpsilonLower: 0.7, EpsilonUpper: 1.5}} {
				mod, err := polytope.BuildRobust(polytope.Spec{Prior: in.Prior, Budget: b, Objective: polytope.ExpectedUtility, Utility: in.Utility}, set)
				if err != nil {
					t.Fatal(err)
				}
				want, err := solver.Revised().Solve(mod.LP)
				if err != nil || want.Status != solver.Optimal {
					t.Fatalf("dualised LP: %v %v", want, err)
				}
				p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
				sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
				if err != nil {
					t.Fatal(err)
				}
				loose := sol.ExpectedUtility + 0.1
				cert := *sol.Certificate
				u := *cert.Utility
				u.Bound = &loose
				cert.Utility = &u
				got, ok := certificate.TwoPriorBoundLP(p, p.Utility, b, sol.Mechanism, sol.ExpectedUtility, &cert)
				what := fmt.Sprintf("%s %d, %v, box %v", c.family, c.n, b, set.IsBox())
				tol := 1e-8 * math.Max(1, math.Abs(want.Objective))
				if !ok || got < want.Objective-tol || got > want.Objective+tol {
					t.Errorf("%s: bound %.12g (%v), the dualised LP's optimum %.12g", what, got, ok, want.Objective)
					continue
				}
				vp := verify.Problem{Prior: p.Prior, Utility: p.Utility, Mechanism: sol.Mechanism, PriorSet: certificate.PriorSet(set)}
				if *cert.Utility.Bound != got || !verify.BoundHolds(vp, cert) {
					t.Errorf("%s: the certificate's bound %v is not the one returned (%v) or fails verify", what, *cert.Utility.Bound, got)
				}
				checked++
			}
		}
	}
	if checked < 8 {
		t.Errorf("%d of 8 bounds checked", checked)
	}
}

// TightenExpectedOver at a large budget: counting-binomial at PML 12
// nats, where the LP for one prior per output carries each prior times
// e^ε into its rows, so that an engine's tolerance on a prior's entry
// (1e-9 on a box's lower end 0) weighs e^ε times as much there unless the
// LP holds the priors scaled (over the box [0, 1.5π̂] at 12 letters); and
// where the revised simplex gives up on that LP with its priors times 1e6
// but not with them times 1e4 (over the L1 ball of radius 0.3 at 16
// letters). From a loose bound, each comes within 1e-10 of the dualised
// robust LP's optimum (polytope.BuildRobust, solved by the revised simplex
// at its cost scale), and verify accepts it.
func TestTightenExpectedOverAtALargeBudget(t *testing.T) {
	f, err := instance.Lookup("counting-binomial")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n    int
		ball bool
	}{{12, false}, {16, true}} {
		in, err := f.New(c.n, 1)
		if err != nil {
			t.Fatal(err)
		}
		set, err := randinst.FactorBox(in.Prior, 0, 1.5)
		if c.ball {
			set, err = mech.NewL1Set(in.Prior, 0.3)
		}
		if err != nil {
			t.Fatal(err)
		}
		b := mech.Budget{Measure: mech.PML, Epsilon: 12}
		p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
		sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		mod, err := polytope.BuildRobust(polytope.Spec{Prior: in.Prior, Budget: b, Objective: polytope.ExpectedUtility, Utility: in.Utility}, set)
		if err != nil {
			t.Fatal(err)
		}
		opt, _, err := solver.SolveContext(context.Background(), solver.Revised(), mod.LP, solver.Start{CostScale: mod.CostScale()})
		if err != nil || opt.Status != solver.Optimal {
			t.Fatalf("%d letters: the dualised LP: %v %+v", c.n, err, opt)
		}
		cert := *sol.Certificate
		u := *cert.Utility
		loose := sol.ExpectedUtility + 1e-3
		u.Bound = &loose
		cert.Utility = &u
		got := certificate.TightenExpectedOver(p, p.Utility, b, nil, sol.Mechanism, &cert)
		vp := verify.Problem{Prior: p.Prior, Utility: p.Utility, Mechanism: sol.Mechanism, PriorSet: certificate.PriorSet(set)}
		if !(got >= opt.Objective-1e-12) || got > opt.Objective+1e-10 || !verify.BoundHolds(vp, cert) {
			t.Errorf("%d letters: bound %.15g (verified: %v), the dualised LP's optimum %.15g", c.n, got, verify.BoundHolds(vp, cert), opt.Objective)
		}
	}
}
