package bisect

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/instance"
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
	f, err := instance.Lookup("random")
	require.NoError(t, err)
	in, err := f.New(10, 3)
	require.NoError(t, err)
	fam, _, err := valueFamily(in.Prior, in.Utility)
	require.NoError(t, err)
	point := func(k int, r *Result) Point { return Point{H: k + 1} }
	all, err := func() ([]*Result, error) {
		cfg, err := Options{Workers: 1}.config()
		require.NoError(t, err)
		return runCurve(context.Background(), in.Prior, fam, cfg, false, point)
	}()
	require.NoError(t, err)
	for _, workers := range []int{1, 3} {
		cfg, err := Options{Workers: workers}.config()
		require.NoError(t, err)
		res, err := runCurve(context.Background(), in.Prior, fam, cfg, true, point)
		require.NoError(t, err)
		start, dropped := 0, 0
		for k, r := range res {
			require.NotNil(t, r)
			assert.Equal(t, all[k].EpsLower, r.EpsLower, "k = %d", k)
			assert.Equal(t, all[k].EpsUpper, r.EpsUpper, "k = %d", k)
			if k > 0 && r.EpsUpper-res[start].EpsLower > cfg.tol {
				start = k
			}
			ends := k == len(res)-1 || res[k+1].EpsUpper-res[start].EpsLower > cfg.tol
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
