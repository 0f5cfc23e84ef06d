package worstcase

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/solver"
)

// brokenEngine fails every solve, as an LP engine that stops "on errors"
// does.
type brokenEngine struct{}

var errBroken = errors.New("broken engine: stopped on errors")

func (brokenEngine) Name() string                              { return "broken" }
func (brokenEngine) Solve(*lp.Model) (*solver.Solution, error) { return nil, errBroken }

// A curve whose engine fails does not stop: each threshold is retried by
// another route (here the pure-Go backend), and the curve equals the one
// computed with that backend from the start. Settled reports every
// threshold once, with the bracket the curve returns.
func TestCurveSurvivesEngineFailure(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	n := 9
	pi := randinst.Prior(rng, n, 0.05)
	o := randinst.StrictOrder(rng, n, n)
	revised, err := solver.Get("revised")
	require.NoError(t, err)
	want, err := OrderCurve(context.Background(), pi, o, Options{Solver: revised, Probes: ProbesLP})
	require.NoError(t, err)

	var mu sync.Mutex
	seen := map[int]Point{}
	got, err := OrderCurve(context.Background(), pi, o, Options{Solver: brokenEngine{}, Probes: ProbesLP,
		Settled: func(p Point) {
			mu.Lock()
			defer mu.Unlock()
			_, dup := seen[p.H]
			require.False(t, dup, "threshold %d settled twice", p.H)
			seen[p.H] = p
		}})
	require.NoError(t, err)
	require.Len(t, got, len(want))
	require.Len(t, seen, len(want))
	for k, p := range got {
		require.NoError(t, p.Failure, "h %d", p.H)
		require.InDelta(t, want[k].OptimalEpsilon, p.OptimalEpsilon, DefaultTol, "h %d", p.H)
		require.LessOrEqual(t, p.OptimalEpsilon-p.OptimalEpsilonLower, DefaultTol, "h %d", p.H)
		audit(t, pi, o.Pattern(p.H), Result{OptimalEpsilonLower: p.OptimalEpsilonLower, OptimalEpsilon: p.OptimalEpsilon,
			Lower: p.Lower, Mechanism: p.Mechanism, Proof: p.Proof}, DefaultTol)
		require.Equal(t, p.OptimalEpsilon, seen[p.H].OptimalEpsilon)
		require.Equal(t, p.OptimalEpsilonLower, seen[p.H].OptimalEpsilonLower)
	}
}

// tighter keeps the higher lower end and the lower upper end of two
// certified brackets of one pattern.
func TestTighter(t *testing.T) {
	a := Result{OptimalEpsilonLower: 0.1, Lower: BoundPruning, OptimalEpsilon: 0.9, LPSolves: 2}
	b := Result{OptimalEpsilonLower: 0.3, Lower: BoundInfeasible, Proof: []float64{1}, OptimalEpsilon: 0.95, LPSolves: 3}
	r := tighter(a, b)
	require.Equal(t, 0.3, r.OptimalEpsilonLower)
	require.Equal(t, BoundInfeasible, r.Lower)
	require.Equal(t, 0.9, r.OptimalEpsilon)
	require.Equal(t, 5, r.LPSolves)
}
