package colgen

import (
	"math"
)

// vectorSet holds the column vectors one pricing round adds, so that it
// adds each vector once. Outputs whose allowed inputs coincide as far as
// the fill reaches (neighbouring outputs of a banded or a threshold
// pattern) price the same vector: a third to a half of a master's columns
// were such twins on the banded families of package instance at 128
// letters, and twins make runs of degenerate pivots (a twin of a basic
// column has a zero reduced cost up to rounding). A vector the master held
// before the round is not a candidate: its reduced cost at the master's
// optimum is at least −priceTol. A vector is its entries as a set of
// (input, value) pairs, whatever the order of the fill.
type vectorSet struct {
	byKey map[uint64][]vecRef
}

type vecRef struct {
	rows []int
	vals []float64
}

func newVectorSet() vectorSet {
	return vectorSet{byKey: make(map[uint64][]vecRef)}
}

// key hashes the entries independently of their order: a sum of mixed
// (input, value) pairs.
func (s vectorSet) key(rows []int, vals []float64) uint64 {
	var sum uint64
	for e, i := range rows {
		h := (uint64(i)+1)*0x9e3779b97f4a7c15 ^ math.Float64bits(vals[e])
		h ^= h >> 29
		h *= 0xbf58476d1ce4e5b9
		sum += h ^ h>>32
	}
	return sum
}

// has reports whether the set holds the vector (rows, vals).
func (s vectorSet) has(rows []int, vals []float64) bool {
	for _, r := range s.byKey[s.key(rows, vals)] {
		if sameVector(r.rows, r.vals, rows, vals) {
			return true
		}
	}
	return false
}

// put adds the vector (rows, vals); the set keeps the slices.
func (s vectorSet) put(rows []int, vals []float64) {
	k := s.key(rows, vals)
	s.byKey[k] = append(s.byKey[k], vecRef{rows: rows, vals: vals})
}

// sameVector reports whether two sparse vectors, each with distinct rows,
// have the same entries.
func sameVector(ra []int, va []float64, rb []int, vb []float64) bool {
	if len(ra) != len(rb) {
		return false
	}
	at := make(map[int]float64, len(ra))
	for e, i := range ra {
		at[i] = va[e]
	}
	for e, i := range rb {
		if v, ok := at[i]; !ok || v != vb[e] {
			return false
		}
	}
	return true
}
