package ipm

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/mech"
)

// TestProbeWorkersSameResult: a probe with its updates split over three
// workers (minWork 1, so that every update is split) returns the same
// result, bit for bit, as with one: iterations, mechanism, multipliers and
// bound, in either form of the problem (every pair, or the pattern's
// pairs scattered into the Newton system). The split must never change a
// number.
func TestProbeWorkersSameResult(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 10; trial++ {
		n, m := 4+rng.IntN(20), 3+rng.IntN(16)
		pi, o := randinst.Prior(rng, n, 0.01), randinst.StrictOrder(rng, n, m)
		pat := o.Pattern(1 + rng.IntN(m))
		eps := 2 * rng.Float64()
		for _, form := range []probeForm{formWhole, formOutlet} {
			one, err := probe(context.Background(), pi, pat, eps, 1, 0, form)
			require.NoError(t, err)
			many, err := probe(context.Background(), pi, pat, eps, 3, 1, form)
			require.NoError(t, err)
			require.Greater(t, one.Iterations, 0)
			require.Equal(t, one, many, "trial %d (N = %d, M = %d, ε = %v, form %d)", trial, n, m, eps, form)
		}
	}
}

// TestSolveWorkersSameResult: Solve and SolveRatio with their passes over
// the pairs split among three workers (a problem large enough for every
// pass to be split) return the same result, bit for bit, as with one.
func TestSolveWorkersSameResult(t *testing.T) {
	if testlong.Short() {
		t.Skip("150×120 instances")
	}
	rng := rand.New(rand.NewPCG(5, 7))
	n, m := 150, 120
	pi := randinst.Prior(rng, n, 0.01)
	u := randinst.Utility(rng, n, m, 0)
	for _, lowRank := range []bool{false, true} {
		one, err := Solve(Problem{Prior: pi, Utility: u, Epsilon: 1}, Options{LowRank: lowRank})
		require.NoError(t, err)
		many, err := Solve(Problem{Prior: pi, Utility: u, Epsilon: 1}, Options{LowRank: lowRank, Workers: 3})
		require.NoError(t, err)
		require.Greater(t, one.Iterations, 0)
		require.Equal(t, one, many, "ε-PML, low rank %v", lowRank)
		rp := RatioProblem{Prior: pi, Utility: u, Budget: mech.Budget{Measure: mech.LIP, Epsilon: 1}}
		one, err = SolveRatio(rp, Options{LowRank: lowRank})
		require.NoError(t, err)
		many, err = SolveRatio(rp, Options{LowRank: lowRank, Workers: 3})
		require.NoError(t, err)
		require.Equal(t, one, many, "LIP, low rank %v", lowRank)
	}
}
