package ipm

import (
	"fmt"
	"math"
	"testing"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
)

// RobustLean is SolveRobust's lean route: on every
// family at 8 letters over a box and an L1 ball, at three budgets, where
// SolveRobust answers by the lean route (no cutting-plane rounds) the two
// bounds are the same number, and every bound is at least the robust
// optimum that SolveRobust's audited mechanism reaches. Without a set's
// interior, or under LDP, it gives none.
func TestRobustLeanIsTheLeanRoute(t *testing.T) {
	same := 0
	for _, f := range instance.Families() {
		in := familyInstance(t, f.Name, 8)
		box, err := randinst.FactorBox(in.Prior, 0.8, 1.25)
		if err != nil {
			t.Fatal(err)
		}
		ball, err := mech.NewL1Set(in.Prior, 0.2)
		if err != nil {
			t.Fatal(err)
		}
		for _, set := range []*mech.PriorSet{box, ball} {
			for _, eps := range []float64{0.3, 1, 3} {
				name := fmt.Sprintf("%s %v ε %g", f.Name, set.IsBox(), eps)
				p := RobustProblem{Utility: in.Utility, Budget: mech.Budget{Measure: mech.PML, Epsilon: eps}, Set: set}
				lean := RobustLean(p, Options{})
				r, err := SolveRobust(p, Options{})
				if err != nil {
					t.Fatal(name, err)
				}
				if lean == nil {
					continue
				}
				bound := lean.Bound
				if value := in.Utility.ExpectedUtility(in.Prior, r.Mechanism); bound < value-1e-9*max(1, math.Abs(value)) {
					t.Errorf("%s: bound %.12g below the value %.12g a mechanism reaches", name, bound, value)
				}
				if r.Rounds <= 2 && r.Cuts == 0 {
					if bound != r.Bound {
						t.Errorf("%s: lean bound %.15g, SolveRobust's %.15g", name, bound, r.Bound)
					}
					same++
				}
			}
		}
	}
	if same < 48 {
		t.Fatalf("%d problems answered by the lean route", same)
	}
	pi := mech.Prior{0.5, 0.5}
	u := mech.Utility{{1, 0}, {0, 1}}
	point, err := mech.NewBoxSet(pi, pi, pi)
	if err != nil {
		t.Fatal(err)
	}
	if RobustLean(RobustProblem{Utility: u, Budget: mech.Budget{Measure: mech.PML, Epsilon: 1}, Set: point}, Options{}) != nil {
		t.Error("a bound over a set of one prior, which has no interior")
	}
	if RobustLean(RobustProblem{Utility: u, Budget: mech.Budget{Measure: mech.LDP, Epsilon: 1}, Set: mech.Simplex(pi)}, Options{}) != nil {
		t.Error("a bound under LDP")
	}
}
