package solver_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/solver"
)

// TestGonumDegenerateBisectionReturns runs gonum through bisections on ε of
// small ε-PML feasibility LPs, which end at degenerate vertices where gonum's
// Simplex can lose feasibility in phase II or fail to return. It is a
// liveness check: the whole run must finish within a generous deadline,
// and every verdict must agree with revised (up to the 1e-6 ε-band where the
// engines' 1e-9 tolerances may disagree). Without the long suites (package
// testlong) it runs the first bisection.
func TestGonumDegenerateBisectionReturns(t *testing.T) {
	reps := 3
	if testlong.Short() {
		reps = 1
	}
	done := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(done)
		for rep := range reps {
			rng := rand.New(rand.NewPCG(41, uint64(rep)))
			n := 6 + 2*(rep%2)
			f := randomPMLFeas(rng, n, n, 1+rng.IntN(n/2+1), 1)
			lo, hi := 0.0, 4.0
			for it := 0; it < 25; it++ {
				eps := (lo + hi) / 2
				f.setEps(nil, eps)
				g, err := solver.Gonum().Solve(f.model)
				if err != nil {
					errs <- err
					return
				}
				r, err := solver.Revised().Solve(f.model)
				if err != nil {
					errs <- err
					return
				}
				if g.Status != r.Status && hi-lo > 1e-6 {
					errs <- errors.New("gonum and revised disagree away from the threshold")
					return
				}
				if g.Status == solver.Optimal {
					if v := f.model.MaxViolation(g.X); v > 1e-8 {
						errs <- errors.New("gonum's point violates the model")
						return
					}
					hi = eps
				} else {
					lo = eps
				}
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Minute):
		t.Fatal("gonum did not return within 5 minutes")
	}
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
}

// TestGonumRefusesLargeModels checks that a model beyond the documented size
// is an error wrapping ErrTooLarge, returned at once and without the dense
// copy (for this 96×96 model 9 408 × 18 624 float64s, 1.4 GB; the sparse
// standard form takes a few MB).
func TestGonumRefusesLargeModels(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	f := randomPMLFeas(rng, 96, 96, 1, 1)
	f.setEps(nil, math.Log(2))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := solver.Gonum().Solve(f.model)
	runtime.ReadMemStats(&after)
	require.Error(t, err)
	assert.True(t, errors.Is(err, solver.ErrTooLarge), "%v", err)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(100<<20), "bytes allocated to refuse the model")
	small := randomPMLFeas(rng, 8, 8, 1, 1)
	sol, err := solver.Gonum().Solve(small.model)
	require.NoError(t, err)
	assert.Equal(t, solver.Optimal, sol.Status)
}
