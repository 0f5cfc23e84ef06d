package colgen

import "sync"

// parallelWork is the least number of multiply-adds an operation of the
// dense engine must hold before it is split over goroutines: below it the
// start and the wait of the goroutines (a few microseconds) cost more than
// the arithmetic they share.
const parallelWork = 1 << 16

// SetWorkers lets every later Probe spread the engine's O(N²) vector work
// (the rank-one update of the basis inverse, the forward transformation,
// the pricing dot products, the duals and the inversion) over up to w
// goroutines; w ≤ 1 keeps it on the caller's. The work is split by
// entries, never inside a sum, so every number computed, and hence every
// result, is the same for any w.
func (g *Master) SetWorkers(w int) { g.sx.workers = max(w, 1) }

// split calls f on consecutive ranges [lo, hi) covering [0, n), on up to
// e.workers goroutines when the work (n ranges of cost each) is large
// enough, else once on the whole range.
func (e *dense) split(n, cost int, f func(lo, hi int)) {
	w := e.workers
	if w <= 1 || n < 2 || n*cost < e.minWork {
		f(0, n)
		return
	}
	w = min(w, n)
	var wg sync.WaitGroup
	for t := 1; t < w; t++ {
		lo, hi := t*n/w, (t+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	f(0, n/w)
	wg.Wait()
}
