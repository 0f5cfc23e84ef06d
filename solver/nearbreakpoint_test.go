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

// TestNearBreakpointFeasibility: ε-PML feasibility LPs of 16 and 24
// letters, rows multiplied by 1024 (as plain bisection solves them), at
// budgets just below ε*, where phase 1 ends a few tolerances from a
// feasible point: there the revised simplex can go round cycles of
// nondegenerate steps, or of degenerate ones under Bland's rule, and
// Clp's dual simplex can stop on numerical errors (status 4, the
// abs-uniform LP at h = 13). Each backend but gonum must decide them soon,
// infeasible; and 1e-6 above each budget, feasible.
func TestNearBreakpointFeasibility(t *testing.T) {
	for _, c := range []struct {
		family string
		n, h   int
		value  float64 // the pattern of this utility value when h is 0
		eps    float64
		iters  int
	}{
		{"counting-uniform", 16, 14, 0, 1.6739764334076614, 1000}, // 1.6e-10 below log(16/3)
		{"abs-uniform", 16, 14, 0, 1.6739764334076614, 1000},
		{"abs-uniform", 16, 13, 0, 1.163150809622334, 1000},
		{"fine", 16, 24, 0, 1.1631508094274574, 1000},
		{"fine", 16, 29, 0, 2.0794415210224404, 1000}, // 2e-8 below log 8
		// 8e-10 below log 6: Bland's rule can go round two degenerate
		// steps at a sum of infeasibilities of 9.3e-9 (58 800 steps and
		// more); the decision must come within 20 000.
		{"fine", 24, 0, -168, 1.7917594684533564, 20000},
	} {
		f, err := instance.Lookup(c.family)
		require.NoError(t, err)
		in, err := f.New(c.n, 2026)
		require.NoError(t, err)
		pat := in.Order().Pattern(c.h)
		if c.h == 0 {
			pat = in.Utility.Pattern(c.value)
		}
		m, err := polytope.Build(polytope.Spec{Prior: in.Prior, Budget: mech.Budget{Measure: mech.PML, Epsilon: c.eps}, Pattern: pat})
		require.NoError(t, err)
		for _, name := range solver.Names() {
			if name == "gonum" {
				continue
			}
			what := fmt.Sprintf("%s, N = %d, h = %d, value %v, ε = %v, %s", c.family, c.n, c.h, c.value, c.eps, name)
			s, err := solver.Get(name)
			require.NoError(t, err)
			sol, err := s.Solve(m.LP.ScaledRows(polytope.RowScale))
			require.NoError(t, err, what)
			require.Equal(t, solver.Infeasible, sol.Status, what)
			require.Less(t, sol.Iterations, c.iters, what)

			above, err := polytope.Build(polytope.Spec{Prior: in.Prior, Budget: mech.Budget{Measure: mech.PML, Epsilon: c.eps + 1e-6}, Pattern: pat})
			require.NoError(t, err)
			sol, err = s.Solve(above.LP.ScaledRows(polytope.RowScale))
			require.NoError(t, err, what)
			require.Equal(t, solver.Optimal, sol.Status, "%s, 1e-6 above", what)
		}
	}
}
