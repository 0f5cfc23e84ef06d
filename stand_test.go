package pmlopt_test

import (
	"context"
	"math"
	"testing"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/worstcase"
)

// A worst-case solve tells where it stands: first its decisions at the
// budget, counted against the binary search's bound over the reachable
// values (⌈log₂ k⌉ at the prior, whose first value is known to hold;
// ⌈log₂(k+1)⌉ over a set, where none is), then brackets that narrow to
// the one it returns (up to the tolerance a mechanism cleaned of dust may
// take). Telling changes nothing: the same answer as a
// solve told nothing.
func TestSolveTellsWhereItStands(t *testing.T) {
	ctx := context.Background()
	for _, family := range []string{"square-geometric", "counting-binomial", "random"} {
		in, set, err := randinst.FamilyBox(family, 32, 2026, 0.8, 1.25)
		if err != nil {
			t.Fatal(err)
		}
		k := len(in.Utility.ReachableValues())
		for _, over := range []*mech.PriorSet{nil, set} {
			for _, obj := range []problem.Objective{problem.WorstCaseValue, problem.WorstCaseOrder} {
				name := family + " " + string(obj)
				if over != nil {
					name += " over the box"
				}
				p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, Order: in.Utility.Order(), PriorSet: over,
					Objective: obj, Privacy: &mech.Budget{Measure: mech.PML, Epsilon: 1}}
				var told []worstcase.Stand
				sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{Workers: 1, Stand: func(s worstcase.Stand) { told = append(told, s) }})
				if err != nil {
					t.Fatal(name, err)
				}
				plain, err := pmlopt.Solve(ctx, p, pmlopt.Options{Workers: 1})
				if err != nil {
					t.Fatal(name, err)
				}
				if sol.Epsilon != plain.Epsilon || sol.OptimalEpsilonLower != plain.OptimalEpsilonLower || sol.WorstCaseOrder != plain.WorstCaseOrder {
					t.Errorf("%s: told [%v, %v] order %d, untold [%v, %v] order %d", name, sol.OptimalEpsilonLower, sol.Epsilon, sol.WorstCaseOrder,
						plain.OptimalEpsilonLower, plain.Epsilon, plain.WorstCaseOrder)
				}
				checkStands(t, name, told, sol)
				if obj != problem.WorstCaseValue {
					continue
				}
				want := int(math.Ceil(math.Log2(float64(k))))
				if over != nil {
					want = int(math.Ceil(math.Log2(float64(k + 1))))
				}
				if got := told[0].Decisions; got != want {
					t.Errorf("%s: first stand bounds the decisions by %d, want %d (%d reachable values)", name, got, want, k)
				}
			}
		}
	}
}

// checkStands checks the stands a solve told against its answer.
func checkStands(t *testing.T, name string, told []worstcase.Stand, sol *pmlopt.Solution) {
	t.Helper()
	if len(told) == 0 {
		t.Errorf("%s: no stand told", name)
		return
	}
	if s := told[0]; s.Decided != 0 || !math.IsNaN(s.Lower) {
		t.Errorf("%s: first stand %+v, want no decision and no bracket", name, s)
	}
	bracketed := false
	for i := 1; i < len(told); i++ {
		a, b := told[i-1], told[i]
		if b.Decided < a.Decided || b.Decided > a.Decided+1 || b.Decided > b.Decisions || b.Decisions > a.Decisions {
			t.Errorf("%s: stand %d %+v after %+v", name, i, b, a)
		}
		if math.IsNaN(b.Lower) {
			if bracketed {
				t.Errorf("%s: stand %d without a bracket after one", name, i)
			}
			continue
		}
		if b.Decided != b.Decisions || !(b.Lower <= b.Upper) {
			t.Errorf("%s: bracket stand %d %+v", name, i, b)
		}
		if bracketed && (b.Lower < a.Lower || b.Upper > a.Upper+1e-9) {
			t.Errorf("%s: bracket %d [%v, %v] after [%v, %v]", name, i, b.Lower, b.Upper, a.Lower, a.Upper)
		}
		bracketed = true
	}
	last := told[len(told)-1]
	if !bracketed || math.Abs(last.Lower-sol.OptimalEpsilonLower) > 1e-9 || math.Abs(sol.Epsilon-last.Upper) > 1e-9 {
		t.Errorf("%s: last bracket [%v, %v], answer [%v, %v]", name, last.Lower, last.Upper, sol.OptimalEpsilonLower, sol.Epsilon)
	}
}
