package solver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/solver"
)

// wyndor is max 3x + 5y s.t. x ≤ 4, 2y ≤ 12, 3x + 2y ≤ 18: optimum 36 at
// (2, 6), two pivots from the slack basis.
func wyndor() *lp.Model {
	m := &lp.Model{Maximize: true}
	x := m.AddCol(3, 0, lp.Inf, "x")
	y := m.AddCol(5, 0, lp.Inf, "y")
	m.AddRow(-lp.Inf, 4, "a", lp.Entry(x, 1))
	m.AddRow(-lp.Inf, 12, "b", lp.Entry(y, 2))
	m.AddRow(-lp.Inf, 18, "c", lp.Entry(x, 3), lp.Entry(y, 2))
	return m
}

// wyndorSession loads wyndor into a session of the pure-Go backend.
func wyndorSession(t *testing.T) solver.Session {
	t.Helper()
	m := wyndor()
	ws, ok := solver.Revised().(solver.WarmSolver)
	require.True(t, ok)
	sess, err := ws.Load(m)
	require.NoError(t, err)
	return sess
}

// TestRevisedSessionStops: the pure-Go backend's sessions can be stopped
// (solver.StoppableSession), and a stopped Solve is an error; cleared, the
// stop no longer interferes.
func TestRevisedSessionStops(t *testing.T) {
	sess := wyndorSession(t)
	defer sess.Close()
	ss, ok := sess.(solver.StoppableSession)
	require.True(t, ok)
	ss.SetStop(func() bool { return true })
	_, err := sess.Solve()
	assert.ErrorContains(t, err, "stopped")
	ss.SetStop(func() bool { return false })
	sol, err := sess.Solve()
	require.NoError(t, err)
	assert.Equal(t, solver.Optimal, sol.Status)
	assert.InDelta(t, 36, sol.Objective, 1e-12)
}

// TestRevisedSessionIterationLimit: a Solve of the pure-Go backend's
// session past its iteration limit (solver.LimitedSession) ends with
// Status Limit, and the default restored, the same session solves.
func TestRevisedSessionIterationLimit(t *testing.T) {
	sess := wyndorSession(t)
	defer sess.Close()
	ls, ok := sess.(solver.LimitedSession)
	require.True(t, ok)
	ls.SetIterationLimit(1) // the optimum is two pivots from the slack basis
	sol, err := sess.Solve()
	require.NoError(t, err)
	assert.Equal(t, solver.Limit, sol.Status)
	ls.SetIterationLimit(0)
	sol, err = sess.Solve()
	require.NoError(t, err)
	assert.Equal(t, solver.Optimal, sol.Status)
	assert.InDelta(t, 36, sol.Objective, 1e-12)
}
