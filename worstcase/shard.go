package worstcase

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pmlopt/pmlopt/mech"
)

// Shard selects the thresholds of a curve that one of N independent runs
// solves, so that a curve can be spread over the machines of a cluster and
// its parts merged afterwards. The zero value (N = 0) selects every
// threshold, as does K = N = 1.
//
// Shard K of N holds a contiguous block of the curve's m thresholds, the
// indices (0-based, in the order of the curve) ⌊(K−1)m/N⌋ to ⌊Km/N⌋ − 1.
// A block keeps what makes the divide and conquer cheap: neighbours whose
// brackets meet settle the thresholds between them without a search, and
// a mechanism found for one threshold often reaches many after it. With
// Interleaved, shard K holds the indices i with i mod N = K − 1 instead,
// which spreads the costly parts of the curve evenly but loses most of
// that: the interleaved shards of a value curve together do several times
// the work of the whole curve (docs/performance.md, "Sharded curves").
type Shard struct {
	K, N        int
	Interleaved bool
}

// ParseShard reads "K/N" with 1 ≤ K ≤ N.
func ParseShard(s string) (Shard, error) {
	ks, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("want K/N (shard K of N, 1 ≤ K ≤ N), got %q", s)
	}
	k, errK := strconv.Atoi(strings.TrimSpace(ks))
	n, errN := strconv.Atoi(strings.TrimSpace(ns))
	if errK != nil || errN != nil {
		return Shard{}, fmt.Errorf("want K/N with whole numbers K and N, got %q", s)
	}
	sh := Shard{K: k, N: n}
	if err := sh.Check(); err != nil {
		return Shard{}, err
	}
	return sh, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// All reports whether s selects every threshold.
func (s Shard) All() bool { return s.N == 0 && s.K == 0 || s.N == 1 && s.K == 1 }

// Check returns an error unless s is the zero value or has 1 ≤ K ≤ N.
func (s Shard) Check() error {
	if s.N == 0 && s.K == 0 {
		return nil
	}
	if s.N < 1 || s.K < 1 || s.K > s.N {
		return fmt.Errorf("shard %d/%d: want 1 ≤ K ≤ N", s.K, s.N)
	}
	return nil
}

// Indices returns the 0-based indices, ascending, of the thresholds of
// shard s among m. A shard of a curve with fewer than N thresholds can
// be empty.
func (s Shard) Indices(m int) []int {
	if s.All() {
		out := make([]int, m)
		for i := range out {
			out[i] = i
		}
		return out
	}
	var out []int
	if s.Interleaved {
		for i := s.K - 1; i < m; i += s.N {
			out = append(out, i)
		}
		return out
	}
	for i := (s.K - 1) * m / s.N; i < s.K*m/s.N; i++ {
		out = append(out, i)
	}
	return out
}

// Holds reports whether index i (0-based) of a curve of m thresholds is in
// shard s.
func (s Shard) Holds(i, m int) bool {
	switch {
	case s.All():
		return i >= 0 && i < m
	case s.Interleaved:
		return i >= 0 && i < m && i%s.N == s.K-1
	}
	return i >= (s.K-1)*m/s.N && i < s.K*m/s.N
}

// sub is the family of fam's thresholds at the given indices, in order:
// still a chain of shrinking patterns.
func (fam family) sub(idx []int) family {
	return family{k: len(idx), pattern: func(k int) mech.Pattern { return fam.pattern(idx[k]) }}
}
