package main

import (
	"fmt"
	"math"
	"testing"

	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

// BenchmarkRobustExpectedUtilityLP times the ε-PML expected-utility LP at
// the prior against the same LP over a box of priors around it (each mass
// between 0.8 and 1.25 times the prior's) and an L1 ball of radius 0.1,
// both dualised by polytope.BuildRobust, with the revised backend: the
// cost of a guarantee over a set of priors on the LP route.
func BenchmarkRobustExpectedUtilityLP(b *testing.B) {
	s := solver.Revised()
	for _, n := range []int{16, 32} {
		in := randomInstance(n, 2026)
		lo, up := make([]float64, n), make([]float64, n)
		for k, v := range in.Prior {
			lo[k], up[k] = 0.8*v, math.Min(1, 1.25*v)
		}
		box, err := mech.NewBoxSet(in.Prior, lo, up)
		if err != nil {
			b.Fatal(err)
		}
		ball, _ := mech.NewL1Set(in.Prior, 0.1)
		spec := polytope.Spec{Prior: in.Prior, Utility: in.Utility, Objective: polytope.ExpectedUtility,
			Budget: mech.Budget{Measure: mech.PML, Epsilon: euEpsilon}}
		solve := func(b *testing.B, m *lp.Model) {
			sol, err := s.Solve(m)
			if err != nil || sol.Status != solver.Optimal {
				b.Fatal(err, sol.Status)
			}
		}
		b.Run(fmt.Sprintf("nominal/N=%d", n), func(b *testing.B) {
			for b.Loop() {
				mod, err := polytope.Build(spec)
				if err != nil {
					b.Fatal(err)
				}
				solve(b, mod.LP)
			}
		})
		for _, set := range []struct {
			name string
			s    *mech.PriorSet
		}{{"box", box}, {"l1", ball}} {
			b.Run(fmt.Sprintf("%s/N=%d", set.name, n), func(b *testing.B) {
				for b.Loop() {
					mod, err := polytope.BuildRobust(spec, set.s)
					if err != nil {
						b.Fatal(err)
					}
					solve(b, mod.LP)
				}
			})
		}
	}
}
