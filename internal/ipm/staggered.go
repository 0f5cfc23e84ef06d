package ipm

// staggered hands out the slices of a few large allocations, each
// starting one cache line past the previous one's end. The lean routes'
// loops walk a dozen or more per-pair slices at one index; allocated one
// by one, slices of a power-of-two length start at one offset modulo the
// L1 cache's way size, and those loops evict each other's lines (and
// stall loads behind stores to an aliased address). A new allocation
// (page aligned, being large) skips as many lines as continue the
// stagger of the ones before.
type staggered struct {
	buf   []float64
	lines int // cache lines handed out
}

const (
	staggeredLine  = 8       // float64s in a cache line
	staggeredWay   = 64      // cache lines in 4 KiB
	staggeredChunk = 1 << 13 // float64s in an allocation, at least
)

// take returns a zeroed slice of length l.
func (a *staggered) take(l int) []float64 {
	stride := (l+staggeredLine-1)/staggeredLine*staggeredLine + staggeredLine
	if len(a.buf) < stride {
		skip := a.lines % staggeredWay * staggeredLine
		a.buf = make([]float64, skip+max(stride, staggeredChunk))[skip:]
	}
	s := a.buf[:l:l]
	a.buf = a.buf[stride:]
	a.lines += stride / staggeredLine
	return s
}
