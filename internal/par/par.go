// Package par splits a loop over goroutines for the engines' O(N·M) passes.
package par

import "sync"

// Split calls f on consecutive ranges [lo, hi) covering [0, n), on up to
// workers goroutines when the work (n ranges of cost each) is at least
// least, else once on the whole range in the calling goroutine. The ranges
// depend only on n and the number of goroutines, and f writes disjoint
// entries, so a caller whose f sums nothing across ranges gets the same
// result for any workers.
func Split(workers, least, n, cost int, f func(lo, hi int)) {
	if !Splits(workers, least, n, cost) {
		f(0, n)
		return
	}
	w := min(workers, n)
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

// Counts lists the worker counts a speed-up measurement times: 1, 2, 4, …
// below n, then n itself (n < 1 is taken as 1).
func Counts(n int) []int {
	var out []int
	for w := 1; w < n; w *= 2 {
		out = append(out, w)
	}
	return append(out, max(n, 1))
}

// Splits reports whether Split with these arguments runs f on more than
// one goroutine: a caller on a hot path can then call its loop directly
// where it does not, without building the closure Split would take.
func Splits(workers, least, n, cost int) bool {
	return workers > 1 && n >= 2 && n*cost >= least
}
