package worstcase

import (
	"context"
	"slices"
	"sync"
)

// slots hands a curve's worker slots to the waiting search of the lowest
// index. The divide and conquer then resolves the curve mostly from its
// left end (a slot freed goes to a search already waiting, before the
// children of the one that freed it ask), so that a value curve can let go
// of the mechanisms of thresholds that will not be reported
// (curveRun.settle) while it runs, instead of at the end. The order
// changes neither the brackets nor the LPs: every search starts from the
// results of its two endpoints, whenever it runs.
type slots struct {
	mu      sync.Mutex
	free    int
	waiting []waiter
}

type waiter struct {
	k     int
	ready chan struct{} // closed when the slot is handed over
}

func newSlots(n int) *slots { return &slots{free: n} }

// acquire waits for a slot for the search of index k, and reports false if
// ctx ended first (then it holds no slot).
func (s *slots) acquire(ctx context.Context, k int) bool {
	s.mu.Lock()
	if s.free > 0 {
		s.free--
		s.mu.Unlock()
		return true
	}
	w := waiter{k: k, ready: make(chan struct{})}
	s.waiting = append(s.waiting, w)
	s.mu.Unlock()
	select {
	case <-w.ready:
		return true
	case <-ctx.Done():
	}
	s.mu.Lock()
	i := slices.IndexFunc(s.waiting, func(o waiter) bool { return o.ready == w.ready })
	if i >= 0 {
		s.waiting = slices.Delete(s.waiting, i, i+1)
		s.mu.Unlock()
		return false
	}
	// The slot was handed over as ctx ended: pass it on.
	s.mu.Unlock()
	s.release()
	return false
}

// release gives a slot back, to the lowest waiting index if any.
func (s *slots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.waiting) == 0 {
		s.free++
		return
	}
	i := 0
	for j, w := range s.waiting {
		if w.k < s.waiting[i].k {
			i = j
		}
	}
	close(s.waiting[i].ready)
	s.waiting = slices.Delete(s.waiting, i, i+1)
}
