package ipm

import "sync"

// staggered hands out the slices of a few large allocations, each
// starting one cache line past the previous one's end. The lean routes'
// loops walk a dozen or more per-pair slices at one index; allocated one
// by one, slices of a power-of-two length start at one offset modulo the
// L1 cache's way size, and those loops evict each other's lines (and
// stall loads behind stores to an aliased address). A new allocation
// (page aligned, being large) skips as many lines as continue the
// stagger of the ones before.
type staggered struct {
	buf    []float64
	lines  int         // cache lines handed out
	chunks [][]float64 // the pool's chunks in use, for release
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
		if skip+stride <= staggeredPooled {
			c := staggeredPool.Get().(*[]float64)
			a.chunks = append(a.chunks, *c)
			a.buf = (*c)[skip:]
		} else {
			a.buf = make([]float64, skip+max(stride, staggeredChunk))[skip:]
		}
	}
	s := a.buf[:l:l]
	clear(s)
	a.buf = a.buf[stride:]
	a.lines += stride / staggeredLine
	return s
}

// release hands the pool's chunks back: no slice a handed out may be
// used after it. An allocator never released leaves its chunks to the
// collector.
func (a *staggered) release() {
	for i := range a.chunks {
		staggeredPool.Put(&a.chunks[i])
	}
	a.chunks, a.buf = nil, nil
}

// staggeredPool keeps the chunks of the lean routes' allocators between
// solves: a robust solve allocates several hundred kilobytes of them,
// whose zeroing by the allocator and collection cost more than reusing
// them (take clears what it hands out).
var staggeredPool = sync.Pool{New: func() any {
	c := make([]float64, staggeredPooled)
	return &c
}}

// staggeredPooled is the length of a pooled chunk: an allocation's least
// size past the largest skip.
const staggeredPooled = staggeredChunk + staggeredWay*staggeredLine
