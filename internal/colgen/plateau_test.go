package colgen

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDensePlateau: phase 2 pivots that leave the sum of the slacks flat
// (above stallFloor) end a solve as stalled once there are more than
// stallPivots·(n + columns) + stallPivotsMin of them. With none allowed,
// the random masters whose phase 2 takes such a pivot stop there, sooner
// than the solve that is let through; with the defaults every master is
// solved to the reference optimum (rounding makes no such long plateau on
// masters this small).
func TestDensePlateau(t *testing.T) {
	stalled := 0
	for trial := range 40 {
		// Two copies of the same master, one let through, one not.
		master := func() (*dense, []denseCol) {
			rng := rand.New(rand.NewPCG(21, uint64(trial)))
			return randomMaster(rng, 10+rng.IntN(30))
		}
		e, cs := master()
		fresh, _ := master()
		n := e.n

		full, err := e.run()
		require.NoError(t, err, "trial %d", trial)
		checkOptimal(t, e, cs, full)
		require.InDelta(t, reference(t, n, cs), full.Objective, 1e-9, "trial %d", trial)

		fresh.stallPivots, fresh.stallPivotsMin = 0, 0
		r, err := fresh.run()
		if errors.Is(err, errStalled) {
			stalled++
			require.Less(t, r.Iterations, full.Iterations, "trial %d: stopped on the plateau, not after", trial)
			continue
		}
		require.NoError(t, err, "trial %d", trial)
		require.InDelta(t, full.Objective, r.Objective, 1e-12, "trial %d", trial)
	}
	require.Greater(t, stalled, 20, "masters stopped on their first flat phase 2 pivot")
}
