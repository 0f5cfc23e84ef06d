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

// splitRows calls f on ranges [lo, hi) of the inputs, for the passes that
// sum over the outputs into each input: on up to w.workers goroutines
// when every output has every input in order (st.full), else once on all
// of them. cost is the work per input. Each input's sum runs over the
// outputs in order whatever the split, so results do not depend on it.
func (w *workspace) splitRows(cost int, f func(lo, hi int)) {
	if !w.st.full {
		f(0, w.st.n)
		return
	}
	w.split(w.st.n, cost, f)
}

// pairsOf returns the pairs [k0, k1) of output j whose inputs lie in a
// range [lo, hi) of splitRows.
func (st *structure) pairsOf(j, lo, hi int) (k0, k1 int) {
	if st.full {
		return st.colStart[j] + lo, st.colStart[j] + hi
	}
	return st.colStart[j], st.colStart[j+1]
}
