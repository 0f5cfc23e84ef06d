package ipm

import "github.com/pmlopt/pmlopt/internal/par"

// parallelWork is the least number of multiply-adds an update must hold
// before factor splits it over goroutines: below it their start and wait
// (a few microseconds) cost more than the arithmetic they share.
const parallelWork = 1 << 16

// split calls f on consecutive ranges [lo, hi) covering [0, n), on up to
// w.workers goroutines when the work (n ranges of cost each) reaches
// w.minWork (parallelWork when 0), else once on the whole range. Each
// range's numbers are computed as they would be in one call, so results
// do not depend on the split.
func (w *workspace) split(n, cost int, f func(lo, hi int)) {
	least := w.minWork
	if least == 0 {
		least = parallelWork
	}
	par.Split(w.workers, least, n, cost, f)
}
