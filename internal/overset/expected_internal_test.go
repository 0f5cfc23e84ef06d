package overset

import (
	"context"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// Where the interior points' answer is refused (counting query,
// binomial(7, 0.2) prior, LIP at 14 nats over the L1 ball of radius 0.5:
// its value falls short of the bound its multipliers prove), the LP
// route decides and keeps their result, whose two-prior bound lies within
// the accepted gap of the LP's optimum: the bound the root's certificate
// takes from it.
func TestLPRouteKeepsTheInteriorPointsResult(t *testing.T) {
	pi, u, ball, err := randinst.CountingBinomialBall(8, 0.2, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	b := mech.Budget{Measure: mech.LIP, Epsilon: 14}
	p := &problem.Problem{Prior: pi, Utility: u, PriorSet: ball, Objective: problem.ExpectedUtility, Privacy: &b}
	r, err := MaximizeExpected(context.Background(), p, u, b, Options{Solver: solver.Revised()})
	if err != nil {
		t.Fatal(err)
	}
	if r.Route != LP || r.Robust == nil {
		t.Fatalf("route %v, interior points' result kept: %v", r.Route, r.Robust != nil)
	}
	value := u.ExpectedUtility(pi, r.Mechanism)
	if gap := r.Robust.BoundTwo - value; !(gap >= -1e-9 && gap <= 1e-8) {
		t.Errorf("two-prior bound %.15g for the LP's value %.15g", r.Robust.BoundTwo, value)
	}
}

// From 500×500 letters MaximizeExpected tells its caller, before the
// interior points, that they can take a while over the set;
// below that it says nothing. (The context is cancelled beforehand: the
// routes end at once.)
func TestMaximizeExpectedNotesLargeSets(t *testing.T) {
	for _, n := range []int{499, 500} {
		pi, _ := instance.Uniform(n)
		u, err := instance.AbsLoss(n)
		if err != nil {
			t.Fatal(err)
		}
		set, err := randinst.FactorBox(pi, 0.5, 2)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var notes []string
		o := Options{Solver: solver.Revised()}
		o.Expected.Notify = func(s string) { notes = append(notes, s) }
		p := &problem.Problem{Prior: pi, Utility: u, PriorSet: set}
		_, err = MaximizeExpected(ctx, p, u, mech.Budget{Measure: mech.PML, Epsilon: 1}, o)
		if err == nil {
			t.Fatalf("%d letters: no error from a cancelled context", n)
		}
		want := 0
		if n == 500 {
			want = 1
		}
		if len(notes) != want || (want == 1 && !strings.Contains(notes[0], "on the 500×500 problem")) {
			t.Errorf("%d letters: notes %q", n, notes)
		}
	}
}
