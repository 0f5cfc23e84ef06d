package certificate_test

import (
	"context"
	"math"
	"testing"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
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
