package polytope

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

func TestInfeasibilityObjective(t *testing.T) {
	// Song & Oechtering (2026), Example 1 with π_2 + π_3 < 1/2: ε*(2) = log 2. G vanishes
	// above it, is positive below it, and the duals below it certify a
	// lower bound between the tested ε and log 2.
	pi := mech.Prior{0.6, 0.25, 0.15}
	pat := order3.Pattern(2)
	for _, name := range solver.Names() {
		s, err := solver.Get(name)
		require.NoError(t, err)
		for _, eps := range []float64{0.3, 0.6, math.Log(2) - 1e-3, math.Log(2) + 1e-3, 1.2} {
			m, err := Build(Spec{Prior: pi, Budget: mech.Budget{Measure: mech.PML, Epsilon: eps}, Pattern: pat, Objective: Infeasibility})
			require.NoError(t, err)
			require.Len(t, m.Slack, 3)
			sol, err := s.Solve(m.LP)
			require.NoError(t, err)
			require.Equal(t, solver.Optimal, sol.Status, "%s ε %v", name, eps)
			lb, ok := m.LowerBound(sol.RowDuals)
			if eps > math.Log(2) {
				assert.InDelta(t, 0, sol.Objective, 1e-9, "%s ε %v", name, eps)
				assert.False(t, ok && lb > math.Log(2), "%s: bound %v above ε*", name, lb)
				continue
			}
			assert.Greater(t, sol.Objective, 1e-6, "%s ε %v", name, eps)
			if sol.RowDuals != nil {
				require.True(t, ok, "%s ε %v", name, eps)
				assert.GreaterOrEqual(t, lb, eps-1e-9, name)
				assert.Less(t, lb, math.Log(2), name)
			}
		}
	}
}

func TestLowerBoundRefusesNonCertificates(t *testing.T) {
	pi := mech.Prior{0.6, 0.25, 0.15}
	m, err := Build(Spec{Prior: pi, Budget: mech.Budget{Measure: mech.PML, Epsilon: 0.5}, Pattern: order3.Pattern(2), Objective: Infeasibility})
	require.NoError(t, err)
	_, ok := m.LowerBound(make([]float64, m.LP.NumRows()))
	assert.False(t, ok, "zero duals prove nothing")
	_, ok = m.LowerBound([]float64{1})
	assert.False(t, ok, "wrong length")
	// α = (1,1,1) is shifted to a tiny positive multiple of (1,1,1): every
	// output then needs λ_j → ∞ and the proof is only min_j c_j, the least
	// output bound −log Σ_{i allowed} π_i (weaker than the pruning bound).
	y := make([]float64, m.LP.NumRows())
	y[0], y[1], y[2] = 1, 1, 1
	lb, ok := m.LowerBound(y)
	require.True(t, ok)
	assert.InDelta(t, slices.Min(order3.Pattern(2).OutputBounds(pi)), lb, 1e-12)
	assert.Less(t, lb, math.Log(2))
	_, err = Build(Spec{Prior: pi, Budget: mech.Budget{Measure: mech.LDP, Epsilon: 0.5}, Pattern: order3.Pattern(2), Objective: Infeasibility})
	require.Error(t, err)
}
