package worstcase

import (
	"context"
	"math/bits"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSlotsLowestIndexFirst: a released slot goes to the lowest waiting
// index, whatever the order of the requests; a request whose context ends
// leaves holding nothing.
func TestSlotsLowestIndexFirst(t *testing.T) {
	s := newSlots(1)
	ctx := context.Background()
	require.True(t, s.acquire(ctx, 0))
	got := make(chan int, 3)
	wait := func(n int) {
		for {
			s.mu.Lock()
			l := len(s.waiting)
			s.mu.Unlock()
			if l == n {
				return
			}
		}
	}
	for i, k := range []int{5, 2, 9} {
		go func() {
			if s.acquire(ctx, k) {
				got <- k
			}
		}()
		wait(i + 1)
	}
	cancelled, cancel := context.WithCancel(ctx)
	done := make(chan bool)
	go func() { done <- s.acquire(cancelled, 1) }()
	wait(4)
	cancel()
	assert.False(t, <-done)
	var order []int
	for range 3 {
		s.release()
		order = append(order, <-got)
	}
	assert.Equal(t, []int{2, 5, 9}, order)
	s.release()
	assert.Equal(t, 1, s.free)
	assert.Empty(t, s.waiting)
}

// TestValueCurveLetsGoOfStepInteriors: a value curve keeps the mechanism of
// every step's last threshold and of no other threshold, with one worker or
// several, and reports the same steps as the run that keeps them all.
func TestValueCurveLetsGoOfStepInteriors(t *testing.T) {
	in := familyInstance(t, "random", 10, 3)
	fam, _, err := valueFamily(in.Prior, in.Utility)
	require.NoError(t, err)
	point := func(k int, r *Result) Point { return Point{H: k + 1} }
	all, err := func() ([]*Result, error) {
		cfg, err := Options{Workers: 1}.config()
		require.NoError(t, err)
		return runCurve(context.Background(), in.Prior, fam, cfg, false, point, nil)
	}()
	require.NoError(t, err)
	for _, workers := range []int{1, 3} {
		cfg, err := Options{Workers: workers}.config()
		require.NoError(t, err)
		res, err := runCurve(context.Background(), in.Prior, fam, cfg, true, point, nil)
		require.NoError(t, err)
		start, dropped := 0, 0
		for k, r := range res {
			require.NotNil(t, r)
			assert.Equal(t, all[k].OptimalEpsilonLower, r.OptimalEpsilonLower, "k = %d", k)
			assert.Equal(t, all[k].OptimalEpsilon, r.OptimalEpsilon, "k = %d", k)
			assert.Equal(t, all[k].Lower, r.Lower, "k = %d", k)
			assert.Equal(t, all[k].GoProbes, r.GoProbes, "k = %d", k)
			assert.Equal(t, all[k].LPSolves, r.LPSolves, "k = %d", k)
			if k > 0 && r.OptimalEpsilon-res[start].OptimalEpsilonLower > cfg.tol {
				start = k
			}
			ends := k == len(res)-1 || res[k+1].OptimalEpsilon-res[start].OptimalEpsilonLower > cfg.tol
			if ends {
				assert.Equal(t, all[k].Mechanism, r.Mechanism, "step end k = %d", k)
				require.NotNil(t, r.Mechanism, "step end k = %d", k)
			} else {
				assert.Nil(t, r.Mechanism, "inside a step, k = %d", k)
				dropped++
			}
		}
		require.Greater(t, dropped, len(res)/2, "%d workers: nothing inside the steps, the test proves nothing", workers)
	}
}

// TestValueCurveResolvesFromTheLeft: with one worker the curve resolves its
// thresholds from the left end, so that settle lets go of mechanisms while
// it runs: beyond the resolved prefix lie only the right ends of the
// intervals being divided, one per level of the division, and the last
// threshold. (In the order of the searches' arrival it is a third of the
// curve and more, which the test shows with two workers.)
func TestValueCurveResolvesFromTheLeft(t *testing.T) {
	in := familyInstance(t, "random", 24, 5)
	most := map[int]int{}
	for _, workers := range []int{1, 2} {
		resolved := map[int]bool{}
		prefix := 0
		opt := Options{Workers: workers, Settled: func(p Point) {
			resolved[p.H-1] = true
			for resolved[prefix] {
				prefix++
			}
			most[workers] = max(most[workers], len(resolved)-prefix)
		}}
		_, err := ValueCurve(context.Background(), in.Prior, in.Utility, opt)
		require.NoError(t, err)
		require.Equal(t, prefix, len(resolved))
		if workers == 1 {
			levels := bits.Len(uint(prefix))
			require.LessOrEqual(t, most[1], levels+1, "%d thresholds", prefix)
		}
	}
	require.Greater(t, most[2], 2*most[1], "the test proves nothing")
}

// TestValueCurveCancelled: a value curve stopped halfway returns steps
// whose mechanisms reach what each step claims: its ThresholdMax is
// resolved, the mechanism keeps every row's utility at or above it, and
// its audited PML is the step's upper end, within Tol of the step's lower
// end. Every step of the whole curve that the stopped one resolved
// entirely is among them, unchanged.
func TestValueCurveCancelled(t *testing.T) {
	in := familyInstance(t, "random", 16, 7)
	whole, err := ValueCurve(context.Background(), in.Prior, in.Utility, Options{Workers: 1})
	require.NoError(t, err)
	for _, workers := range []int{1, 2} {
		ctx, cancel := context.WithCancel(context.Background())
		opt := Options{Workers: workers, Progress: func(done, total int) {
			if 2*done >= total {
				cancel()
			}
		}}
		pts, err := ValueCurve(ctx, in.Prior, in.Utility, opt)
		cancel()
		require.ErrorIs(t, err, context.Canceled)
		require.NotEmpty(t, pts)
		same := 0
		for k, p := range pts {
			require.NotNil(t, p.Mechanism, "%d workers, step %d", workers, k)
			audit(t, in.Prior, in.Utility.Pattern(p.ThresholdMax), Result{OptimalEpsilonLower: p.OptimalEpsilonLower, OptimalEpsilon: p.OptimalEpsilon, Mechanism: p.Mechanism, Lower: p.Lower, Proof: p.Proof}, DefaultTol)
			if k > 0 {
				require.Greater(t, p.Threshold, pts[k-1].ThresholdMax)
			}
			for _, w := range whole {
				if w.Threshold == p.Threshold && w.ThresholdMax == p.ThresholdMax {
					assert.Equal(t, w.OptimalEpsilon, p.OptimalEpsilon)
					same++
				}
			}
		}
		assert.Positive(t, same, "%d workers: no step resolved whole", workers)
	}
}
