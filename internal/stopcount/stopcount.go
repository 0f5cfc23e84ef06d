// Package stopcount is a test backend: a warm solver whose sessions count
// how often the engine polls its stop (solver.StoppableSession) and end a
// context at a chosen poll. Tests use it to show that a route hands the
// caller's context to the engine, and that a context ended at any poll
// ends the route there, at a point fixed by the engine's iterations, not
// by the clock.
package stopcount

import (
	"context"
	"sync/atomic"

	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/solver"
)

// Backend is Engine with its sessions' stop polls counted in Polls; the
// At-th poll (none when At is 0) calls Cancel before the engine reads its
// stop, which then reports the context ended. Engine's sessions must be
// stoppable and limitable (the pure-Go simplex's are).
type Backend struct {
	Engine solver.WarmSolver
	Polls  *atomic.Int64
	At     int64
	Cancel context.CancelFunc
}

// New returns a Backend over the pure-Go simplex that cancels the context
// it returns at the at-th poll (never when at is 0), and that context.
func New(at int64) (*Backend, context.Context) {
	ctx, cancel := context.WithCancel(context.Background())
	return &Backend{Engine: solver.Revised().(solver.WarmSolver), Polls: new(atomic.Int64), At: at, Cancel: cancel}, ctx
}

// Name is the engine's.
func (b *Backend) Name() string { return b.Engine.Name() }

// Solve solves m in a session of its own, so that its polls count too.
func (b *Backend) Solve(m *lp.Model) (*solver.Solution, error) {
	sess, err := b.Load(m)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	return sess.Solve()
}

// Load loads m into one of the engine's sessions, wrapped.
func (b *Backend) Load(m *lp.Model) (solver.Session, error) {
	sess, err := b.Engine.Load(m)
	if err != nil {
		return nil, err
	}
	return &session{Session: sess, b: b}, nil
}

type session struct {
	solver.Session
	b *Backend
}

func (s *session) SetStop(stop func() bool) {
	s.Session.(solver.StoppableSession).SetStop(func() bool {
		if n := s.b.Polls.Add(1); n == s.b.At {
			s.b.Cancel()
		}
		return stop()
	})
}

func (s *session) SetIterationLimit(n int) {
	s.Session.(solver.LimitedSession).SetIterationLimit(n)
}
