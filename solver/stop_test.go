package solver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/solver"
)

// TestRevisedSessionStops: the pure-Go backend's sessions can be stopped
// (solver.StoppableSession), and a stopped Solve is an error; cleared, the
// stop no longer interferes.
func TestRevisedSessionStops(t *testing.T) {
	// max 3x + 5y s.t. x ≤ 4, 2y ≤ 12, 3x + 2y ≤ 18: optimum 36 at (2, 6).
	m := &lp.Model{Maximize: true}
	x := m.AddCol(3, 0, lp.Inf, "x")
	y := m.AddCol(5, 0, lp.Inf, "y")
	m.AddRow(-lp.Inf, 4, "a", lp.Entry(x, 1))
	m.AddRow(-lp.Inf, 12, "b", lp.Entry(y, 2))
	m.AddRow(-lp.Inf, 18, "c", lp.Entry(x, 3), lp.Entry(y, 2))
	ws, ok := solver.Revised().(solver.WarmSolver)
	require.True(t, ok)
	sess, err := ws.Load(m)
	require.NoError(t, err)
	defer sess.Close()
	ss, ok := sess.(solver.StoppableSession)
	require.True(t, ok)
	ss.SetStop(func() bool { return true })
	_, err = sess.Solve()
	assert.ErrorContains(t, err, "stopped")
	ss.SetStop(func() bool { return false })
	sol, err := sess.Solve()
	require.NoError(t, err)
	assert.Equal(t, solver.Optimal, sol.Status)
	assert.InDelta(t, 36, sol.Objective, 1e-12)
}
