package colgen

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDensePlateau: phase 2 pivots that leave the sum of the slacks flat
// (above stallFloor) end a solve as stalled once there are more than
// stallPivots·(n + columns) + stallPivotsMin of them. With at most `allow`
// such pivots allowed (none, then five), the random masters whose phase 2
// takes more stop, never before `allow` pivots, and the others reach the
// optimum of the same master let through; with the defaults every master
// is solved to the reference optimum (rounding makes no such long plateau
// on masters this small).
func TestDensePlateau(t *testing.T) {
	for _, allow := range []int{0, 5} {
		stalled := 0
		for trial := range 40 {
			// Copies of the same master, one let through, one not.
			master := func() (*dense, []denseCol) {
				rng := rand.New(rand.NewPCG(21, uint64(trial)))
				return randomMaster(rng, 10+rng.IntN(30))
			}
			e, cs := master()
			held, _ := master()
			n := e.n

			full, err := e.run()
			require.NoError(t, err, "trial %d", trial)
			checkOptimal(t, e, cs, full)
			require.InDelta(t, reference(t, n, cs), full.Objective, 1e-9, "trial %d", trial)

			held.stallPivots, held.stallPivotsMin = 0, allow
			r, err := held.run()
			if errors.Is(err, errStalled) {
				stalled++
				require.Greater(t, r.Iterations, allow, "allow %d, trial %d: stopped before its flat pivots", allow, trial)
				continue
			}
			require.NoError(t, err, "allow %d, trial %d", allow, trial)
			require.InDelta(t, full.Objective, r.Objective, 1e-12, "allow %d, trial %d", allow, trial)
		}
		require.Greater(t, stalled, 10, "allow %d: masters stopped on their flat phase 2 pivots", allow)
		t.Logf("allow %d: %d of 40 stalled", allow, stalled)
	}
}
