package par

import (
	"sync"
	"testing"
)

// TestSplitCoversOnce: every index of [0, n) is visited exactly once, for
// worker counts below, at and above n, and below the work threshold; and
// Splits says whether more than one call did so.
func TestSplitCoversOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100} {
		for _, w := range []int{0, 1, 2, 3, 8, 200} {
			for _, least := range []int{0, 1 << 20} {
				seen := make([]int, n)
				var mu sync.Mutex
				calls := 0
				Split(w, least, n, 1, func(lo, hi int) {
					mu.Lock()
					calls++
					mu.Unlock()
					for i := lo; i < hi; i++ {
						seen[i]++
					}
				})
				for i, c := range seen {
					if c != 1 {
						t.Fatalf("n %d workers %d least %d: index %d visited %d times", n, w, least, i, c)
					}
				}
				if want := 1; (least > n || w <= 1 || n < 2) && calls != want {
					t.Fatalf("n %d workers %d least %d: %d calls, want one", n, w, least, calls)
				}
				if Splits(w, least, n, 1) != (calls > 1) {
					t.Fatalf("n %d workers %d least %d: %d calls, Splits says %v", n, w, least, calls, Splits(w, least, n, 1))
				}
			}
		}
	}
}

// TestCounts: powers of two below n, then n, and never an empty list.
func TestCounts(t *testing.T) {
	for n, want := range map[int][]int{
		0: {1}, 1: {1}, 2: {1, 2}, 6: {1, 2, 4, 6}, 16: {1, 2, 4, 8, 16},
	} {
		got := Counts(n)
		if len(got) != len(want) {
			t.Fatalf("Counts(%d) = %v, want %v", n, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("Counts(%d) = %v, want %v", n, got, want)
			}
		}
	}
}
