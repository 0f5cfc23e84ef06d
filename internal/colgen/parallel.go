package colgen

import "github.com/pmlopt/pmlopt/internal/par"

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
	par.Split(e.workers, e.minWork, n, cost, f)
}

// splits reports whether split(n, cost, ·) goes over more than one
// goroutine. The callers on every pivot check it first and call their
// loop directly otherwise: a closure handed to split escapes to the heap,
// and one per pivot was the master's largest allocation.
func (e *dense) splits(n, cost int) bool {
	return par.Splits(e.workers, e.minWork, n, cost)
}
