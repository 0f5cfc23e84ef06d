package solver_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

// TestNearBreakpointFeasibility: ε-PML feasibility LPs of 16 letters, rows
// multiplied by 1024 (as plain bisection solves them), at budgets just
// below ε*. Each backend but gonum must decide them. The revised simplex's
// phase 1 ended a few tolerances from a feasible point and went round
// cycles of nondegenerate steps (two of them; or, under perturbed bounds
// and Bland's rule, four steps of reduced costs 1.7e-9) until its
// iteration limit, 24 400 on 80 rows; Clp's dual simplex stopped on
// numerical errors (status 4) on the abs-uniform one at h = 13.
func TestNearBreakpointFeasibility(t *testing.T) {
	for _, c := range []struct {
		family string
		h      int
		eps    float64
	}{
		{"counting-uniform", 14, 1.6739764334076614}, // 1.6e-10 below log(16/3)
		{"abs-uniform", 14, 1.6739764334076614},
		{"abs-uniform", 13, 1.163150809622334},
		{"fine", 24, 1.1631508094274574},
		{"fine", 29, 2.0794415210224404}, // 2e-8 below log 8
	} {
		f, err := instance.Lookup(c.family)
		require.NoError(t, err)
		in, err := f.New(16, 2026)
		require.NoError(t, err)
		m, err := polytope.Build(polytope.Spec{Prior: in.Prior, Budget: mech.Budget{Measure: mech.PML, Epsilon: c.eps}, Pattern: in.Order().Pattern(c.h)})
		require.NoError(t, err)
		for _, name := range solver.Names() {
			if name == "gonum" {
				continue
			}
			what := fmt.Sprintf("%s, h = %d, ε = %v, %s", c.family, c.h, c.eps, name)
			s, err := solver.Get(name)
			require.NoError(t, err)
			sol, err := s.Solve(m.LP.ScaledRows(polytope.RowScale))
			require.NoError(t, err, what)
			require.Contains(t, []solver.Status{solver.Optimal, solver.Infeasible}, sol.Status, what)
			require.Less(t, sol.Iterations, 1000, what)
		}
	}
}
