package revised

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStop: Options.Stop is polled during the iterations; while it says
// go on the answer is the one without it, and once it says stop Solve ends
// with ErrStopped, also on a session (SetStop), whose next Solve without a
// stop finishes the LP.
func TestStop(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	m := randomModel(rng, 150, 300, 0.05)
	plain, err := Solve(m, nil)
	require.NoError(t, err)
	require.Greater(t, plain.Iterations, 2*stopEvery, "the LP must take several polls")

	polls := 0
	r, err := Solve(m, &Options{Stop: func() bool { polls++; return false }})
	require.NoError(t, err)
	assert.Equal(t, plain.Status, r.Status)
	assert.Equal(t, plain.Objective, r.Objective)
	assert.GreaterOrEqual(t, polls, plain.Iterations/stopEvery)

	polls = 0
	_, err = Solve(m, &Options{Stop: func() bool { polls++; return polls == 2 }})
	assert.ErrorIs(t, err, ErrStopped)
	assert.Equal(t, 2, polls, "no retry from the slack basis after a stop")

	s, err := New(m, nil)
	require.NoError(t, err)
	s.SetStop(func() bool { return true })
	_, err = s.Solve()
	assert.ErrorIs(t, err, ErrStopped)
	s.SetStop(nil)
	r, err = s.Solve()
	require.NoError(t, err)
	assert.Equal(t, plain.Status, r.Status)
	assert.InDelta(t, plain.Objective, r.Objective, 1e-9*(1+math.Abs(plain.Objective)))
}
