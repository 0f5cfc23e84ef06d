package certify_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

// TestDualBoundIsSound checks the proof against mechanisms: whatever α is,
// the bound it proves is at most the PML of every mechanism respecting the
// pattern.
func TestDualBoundIsSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	proofs := 0
	for trial := range 3000 {
		n, m := 2+rng.IntN(5), 2+rng.IntN(5)
		pi := randinst.Prior(rng, n, 0.02)
		p := randinst.Mechanism(rng, n, m, 0.4)
		pat := make(mech.Pattern, n)
		for i := range pat {
			pat[i] = make([]bool, m)
			for j := range pat[i] {
				pat[i][j] = p[i][j] > 0 || rng.Float64() < 0.3
			}
		}
		eps := leakage.PML(pi, p)
		alpha := make([]float64, n)
		for i := range alpha {
			alpha[i] = rng.NormFloat64()
		}
		lb, ok := certify.DualBound(pi, pat, alpha)
		if ok {
			proofs++
			require.LessOrEqual(t, lb, eps+1e-12, "trial %d: α %v proves %v but P %v has PML %v (π %v, pattern %v)", trial, alpha, lb, p, eps, pi, pat)
		}
	}
	require.Greater(t, proofs, 500, "random α prove something about a quarter of the time")
}

// TestDualBoundFromDuals takes α from the infeasibility LP's optimal duals,
// the proofs the search relies on, and checks them against the feasibility
// LP: just below the proven bound it must be infeasible, and the proof at ε
// must reach ε itself (the multipliers are re-optimised, so a proof from an
// optimal dual point is never weaker than the point's own).
func TestDualBoundFromDuals(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, name := range solver.Names() {
		if name == "gonum" {
			continue
		}
		s, err := solver.Get(name)
		require.NoError(t, err)
		proofs := 0
		for trial := range 40 {
			n := 3 + rng.IntN(5)
			pi := randinst.Prior(rng, n, 0.05)
			pat := randinst.StrictOrder(rng, n, n).Pattern(2 + rng.IntN(n-1))
			eps := 2 * rng.Float64()
			m, err := polytope.Build(polytope.Spec{Prior: pi, Budget: mech.Budget{Measure: mech.PML, Epsilon: eps}, Pattern: pat, Objective: polytope.Infeasibility})
			require.NoError(t, err)
			sol, err := s.Solve(m.LP)
			require.NoError(t, err)
			require.Equal(t, solver.Optimal, sol.Status)
			lb, ok := m.LowerBound(sol.RowDuals)
			if sol.Objective < 1e-7 {
				continue // feasible at ε: nothing to prove
			}
			require.True(t, ok, "%s trial %d: G = %g > 0 but the duals prove nothing", name, trial, sol.Objective)
			proofs++
			require.GreaterOrEqual(t, lb, eps-1e-9, "%s trial %d", name, trial)
			below := lb - 1e-7
			f, err := polytope.Build(polytope.Spec{Prior: pi, Budget: mech.Budget{Measure: mech.PML, Epsilon: below}, Pattern: pat})
			require.NoError(t, err)
			fs, err := s.Solve(f.LP)
			require.NoError(t, err)
			if fs.Status == solver.Optimal {
				assert.Greater(t, leakage.PML(pi, must(f.Mechanism(fs.X))), below+1e-9, "%s trial %d: a mechanism below the proven bound %v", name, trial, lb)
			}
		}
		require.Greater(t, proofs, 10, name)
	}
}

// TestDualBoundTinyPriors: with π = (1−p, p) and the identity pattern the
// least ε is exactly −log p, and the proof from α = (−1, 1) must not exceed
// it even where −log p is in the hundreds (math.Log's error grows with ε).
func TestDualBoundTinyPriors(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	pat := mech.Pattern{{true, false}, {false, true}}
	proved := 0
	for range 20000 {
		e := 2 + 338*rng.Float64()
		p := math.Exp(-e)
		pi := mech.Prior{1 - p, p}
		lb, ok := certify.DualBound(pi, pat, []float64{-1, 1})
		if !ok {
			continue
		}
		proved++
		// math.Log(p) itself may err by an ulp: the proof must stay two
		// ulps below it to be below the exact −log p.
		ref := -math.Log(p)
		ulp := math.Nextafter(ref, math.Inf(1)) - ref
		require.LessOrEqual(t, lb, ref-2*ulp, "p = %v", p)
		require.Greater(t, lb, -math.Log(p)*(1-1e-13), "p = %v: the proof should be nearly exact", p)
	}
	require.Greater(t, proved, 19000)
}

// TestDualBoundSubnormalPriors is TestDualBoundTinyPriors with the small
// mass below 2^-1022, where Go's amd64 math.Log errs by up to 36 nats: the
// exact level is −log p with p = m·2^-1074, m its bits, that is
// 1074·log 2 − log m.
func TestDualBoundSubnormalPriors(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	pat := mech.Pattern{{true, false}, {false, true}}
	const ln2 = 0.693147180559945309417232121458176568
	for k := range 2000 {
		p := math.Exp(-(708.5 + 36*rng.Float64()))
		if k == 0 {
			p = 5e-324
		}
		require.True(t, p > 0 && p < 0x1p-1022)
		ref := 1074*ln2 - math.Log(float64(math.Float64bits(p)))
		lb, ok := certify.DualBound(mech.Prior{1 - p, p}, pat, []float64{-1, 1})
		require.True(t, ok, "p = %v", p)
		ulp := math.Nextafter(ref, math.Inf(1)) - ref
		require.LessOrEqual(t, lb, ref-2*ulp, "p = %v", p)
		require.Greater(t, lb, ref*(1-1e-13), "p = %v: the proof should be nearly exact", p)
	}
}

// TestDualBoundHeavyLetterAtBreakpoint: a proof of 55 nats whose output
// mixes a letter of mass ≈ 1 (α = −1, its term zero at the minimising ν)
// with one of mass e^{−60} (α = e^{−55}), and whose α sums to e^{−55},
// which DualBound must raise above rounding. Raising every α_i by 1e-14,
// and margins proportional to the heavy letter's mass, capped the proof
// near 32 nats; it must come within 1e-12 of the exact level
// −log(π_t + π_h e^{−55}) and stay below it.
func TestDualBoundHeavyLetterAtBreakpoint(t *testing.T) {
	pt, pr := math.Exp(-60), math.Exp(-70)
	pi := mech.Prior{1 - pt - pr, pt, pr}
	pat := mech.Pattern{{true, false}, {true, false}, {false, true}}
	delta := math.Exp(-55)
	lb, ok := certify.DualBound(pi, pat, []float64{-1, delta, 1})
	require.True(t, ok)
	exact := -math.Log(pt + pi[0]*delta)
	assert.LessOrEqual(t, lb, exact)
	assert.Greater(t, lb, exact*(1-1e-12))
}
