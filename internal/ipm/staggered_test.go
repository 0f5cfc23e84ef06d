package ipm

import (
	"testing"
	"unsafe"
)

// take's slices are zeroed even from a chunk the pool hands back written
// over, start one cache line past the previous one's end (modulo the
// 4 KiB way, across chunks too), and do not overlap.
func TestStaggeredTakeFromThePool(t *testing.T) {
	for round := range 3 {
		a := new(staggered)
		var got [][]float64
		for i := range 40 {
			s := a.take(200 + 37*i)
			for k, v := range s {
				if v != 0 {
					t.Fatalf("round %d, slice %d: entry %d is %v, not zeroed", round, i, k, v)
				}
				s[k] = float64(i + 1) // dirty the chunk for the next round
			}
			got = append(got, s)
		}
		lines := 0
		for i, s := range got {
			line := int(uintptr(unsafe.Pointer(&s[0])) / 64 % staggeredWay)
			if want := lines % staggeredWay; line != want && i > 0 && sameChunk(got[i-1], s) {
				t.Fatalf("round %d, slice %d starts at line %d of its way, want %d", round, i, line, want)
			}
			lines += (len(s)+staggeredLine-1)/staggeredLine + 1
			for k, v := range s {
				if v != float64(i+1) {
					t.Fatalf("round %d: slice %d entry %d is %v: slices overlap", round, i, k, v)
				}
			}
		}
		a.release()
	}
}

// sameChunk reports b starting right after a's stride in memory.
func sameChunk(a, b []float64) bool {
	end := uintptr(unsafe.Pointer(&a[0])) + uintptr(len(a))*8
	start := uintptr(unsafe.Pointer(&b[0]))
	return start > end && start-end <= 128
}
