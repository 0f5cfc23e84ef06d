package colgen

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/randinst"
)

// TestWorkersSameResult runs the same probes on masters with one and with
// three workers, every operation split (minWork 1), and requires the same
// results bit for bit: pivots, rounds, mechanisms, multipliers and bounds.
// The split must never change a number.
func TestWorkersSameResult(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	probes, splits := 0, 0
	for trial := 0; trial < 12; trial++ {
		n, m := 6+rng.IntN(30), 3+rng.IntN(20)
		pi, o := randinst.Prior(rng, n, 0.01), randinst.StrictOrder(rng, n, m)
		pat := o.Pattern(1 + rng.IntN(m))
		one, err := New(pi, pat)
		require.NoError(t, err)
		many, err := New(pi, pat)
		require.NoError(t, err)
		many.SetWorkers(3)
		many.sx.minWork = 1
		for k := 0; k < 4; k++ {
			eps := 3 * rng.Float64()
			a, errA := one.Probe(eps)
			b, errB := many.Probe(eps)
			require.Equal(t, errA, errB)
			require.Equal(t, a, b, "trial %d probe %d at ε = %v", trial, k, eps)
			probes++
			if a != nil && a.Pivots > 0 {
				splits++
			}
		}
	}
	require.Greater(t, splits, probes/2, "too few probes pivoted: the split went untested")
}
