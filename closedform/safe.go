package closedform

import (
	"math"
	"math/bits"

	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// UtilitySafe returns the utility-safe mechanism M*(h) of Song & Oechtering (2026), Thm 1:
// row i is uniform over its allowed outputs {j : U_ij ≥ h} and zero
// elsewhere. For a strict order (each row a permutation of 1..M) every row
// has M−h+1 allowed outputs, so M*(h)_ij = 1/(M−h+1) as in the paper.
//
// Under the max-rank tie rule of package mech, a tie group is allowed or
// forbidden as a whole, so row i has k_i(h) ≥ 1 allowed outputs (its largest
// value always has rank M) and M*(h)_ij = 1/k_i(h). The k_i(h) can then
// differ between rows, and the PML of M*(h) can exceed SafeEpsilon; see
// SafeEpsilon.
//
// h outside 1..M or an invalid order is an error.
func UtilitySafe(o mech.Order, h int) (mech.Mechanism, error) {
	_, m, err := checkOrder(o)
	if err != nil {
		return nil, err
	}
	if err := checkH(h, m); err != nil {
		return nil, err
	}
	return UniformOnAllowed(o.Pattern(h)), nil
}

// UniformOnAllowed returns the mechanism whose row i is uniform over the
// outputs pat allows for i: the utility-safe mechanism of a general zero
// pattern (UtilitySafe is the pattern of an order threshold). A row that
// allows nothing stays all zero; a ragged pattern gives nil.
func UniformOnAllowed(pat mech.Pattern) mech.Mechanism {
	m := 0
	if len(pat) > 0 {
		m = len(pat[0])
	}
	for _, row := range pat {
		if len(row) != m {
			return nil
		}
	}
	p := mech.Zeros(len(pat), m)
	for i, row := range pat {
		k := 0
		for _, a := range row {
			if a {
				k++
			}
		}
		for j, a := range row {
			if a {
				p[i][j] = 1 / float64(k)
			}
		}
	}
	return p
}

// SafeEpsilon returns ε_S(h) of Song & Oechtering (2026), Cor 1,
//
//	ε_S(h) = −log min_{j ∈ Y+(h)} Σ_{i : U_ij ≥ h} π_i,
//
// where Y+(h) is the set of outputs allowed for at least one input. It is a
// lower bound on the PML of every mechanism that respects the zero pattern
// of threshold h and uses every output of Y+(h), since the PML of an output
// y is at least −log P_X(S_{X|Y=y}).
//
// ε_S(h) equals the PML of UtilitySafe(o, h) exactly when every row has the
// same number of allowed outputs at h, which always holds for strict orders:
// then each used column of M*(h) is constant on its support, and the PML of
// output j is −log Σ_{i : U_ij ≥ h} π_i (Cor 2). With ties and unequal row
// counts the PML of M*(h) may be larger.
//
// Unlike the optimum ε*(h) of problem (2), which is non-decreasing in h
// (Song & Oechtering (2026), Lemma 1), ε_S(h) need not be monotone: with U = [[3,1,2],[3,2,1]]
// and π = (0.9, 0.1), ε_S(1) = 0, ε_S(2) = log 10 and ε_S(3) = 0, because
// M*(3) sends both inputs to y_1 while M*(2) gives y_2 to x_2 alone.
func SafeEpsilon(pi mech.Prior, o mech.Order, h int) (float64, error) {
	n, m, err := checkOrder(o)
	if err != nil {
		return 0, err
	}
	if err := checkPrior(pi, n); err != nil {
		return 0, err
	}
	if err := checkH(h, m); err != nil {
		return 0, err
	}
	eps := 0.0 // max over Y+(h) of the Cor 1 terms
	for _, c := range o.Pattern(h).OutputBounds(pi) {
		if !math.IsInf(c, 1) {
			eps = max(eps, c)
		}
	}
	return eps, nil
}

// SafeCurve returns ε_S(h) for h = 1..M (element h−1 holds ε_S(h)), in one
// sweep of O(NM log M) time: entries are bucketed by rank, the column sums
// S_j(h) = Σ_{i : U_ij ≥ h} π_i are accumulated from h = M down to 1, and
// the smallest positive S_j is kept in a lazy heap (as h falls, sums only
// grow and columns only join Y+(h)).
//
// ε_S(1) = 0 always. The curve need not be monotone (see SafeEpsilon).
func SafeCurve(pi mech.Prior, o mech.Order) ([]float64, error) {
	n, m, err := checkOrder(o)
	if err != nil {
		return nil, err
	}
	if err := checkPrior(pi, n); err != nil {
		return nil, err
	}

	// Counting sort of the N·M entries by rank: start[r] .. start[r+1]
	// index the entries of rank r in ent.
	start := make([]int, m+2)
	for _, row := range o {
		for _, r := range row {
			start[r+1]++
		}
	}
	for r := 1; r <= m+1; r++ {
		start[r] += start[r-1]
	}
	type entry struct{ i, j int32 }
	ent := make([]entry, n*m)
	next := make([]int, m+1)
	copy(next, start[:m+1])
	for i, row := range o {
		for j, r := range row {
			ent[next[r]] = entry{int32(i), int32(j)}
			next[r]++
		}
	}

	h := newColHeap(m)
	curve := make([]float64, m)
	for r := m; r >= 1; r-- {
		bucket := ent[start[r]:start[r+1]]
		for _, e := range bucket {
			h.add(e.j, pi[e.i])
		}
		// When a step touches many columns, a linear scan is cheaper than
		// refreshing the heap; it costs O(M) ≤ O(len(bucket)·log M).
		if len(bucket)*bits.Len(uint(m)) >= len(h.cols) {
			curve[r-1] = negLog(h.scanMin())
		} else {
			curve[r-1] = negLog(h.min())
		}
	}
	return curve, nil
}

// colHeap is a lazy binary min-heap of columns. Column sums only grow, so
// the heap is ordered by keys that may lag behind the sums (key[j] ≤
// sum[j]); min refreshes stale keys only while they are on top. A top whose
// key is current is the true minimum, since every other sum is at least its
// key, which is at least the top key. Additions cost O(1), insertions and
// refreshes O(log M).
type colHeap struct {
	cols []int32   // heap order by key
	pos  []int32   // pos[j] is j's index in cols, or −1 before j joins
	key  []float64 // key[j] ≤ sum[j]
	sum  []float64 // sum[j] is the current S_j

	stale bool // the heap order needs a rebuild before min
}

func newColHeap(m int) *colHeap {
	h := &colHeap{cols: make([]int32, 0, m), pos: make([]int32, m), key: make([]float64, m), sum: make([]float64, m)}
	for j := range h.pos {
		h.pos[j] = -1
	}
	return h
}

// add increases the sum of column j by v ≥ 0, inserting j if needed.
func (h *colHeap) add(j int32, v float64) {
	h.sum[j] += v
	if h.pos[j] < 0 {
		h.key[j] = h.sum[j]
		h.cols = append(h.cols, j)
		h.up(int32(len(h.cols) - 1))
	}
}

// scanMin returns the least sum of the columns in the heap by a linear
// scan, and marks the heap for a rebuild.
func (h *colHeap) scanMin() float64 {
	// Columns outside the heap have sum 0 (the prior has full support).
	lo := math.Inf(1)
	for _, v := range h.sum {
		if v > 0 && v < lo {
			lo = v
		}
	}
	h.stale = true
	return lo
}

// min returns the least sum of the columns in the heap.
func (h *colHeap) min() float64 {
	if h.stale {
		// Rebuild with current keys in O(M).
		for _, j := range h.cols {
			h.key[j] = h.sum[j]
		}
		for k := int32(len(h.cols)/2 - 1); k >= 0; k-- {
			h.down(k)
		}
		h.stale = false
	}
	for {
		j := h.cols[0]
		if h.key[j] == h.sum[j] {
			return h.sum[j]
		}
		h.key[j] = h.sum[j]
		h.down(0)
	}
}

func (h *colHeap) up(k int32) {
	j := h.cols[k]
	for k > 0 {
		parent := (k - 1) / 2
		pj := h.cols[parent]
		if h.key[pj] <= h.key[j] {
			break
		}
		h.cols[k], h.pos[pj] = pj, k
		k = parent
	}
	h.cols[k], h.pos[j] = j, k
}

func (h *colHeap) down(k int32) {
	j := h.cols[k]
	n := int32(len(h.cols))
	for {
		c := 2*k + 1
		if c >= n {
			break
		}
		if c+1 < n && h.key[h.cols[c+1]] < h.key[h.cols[c]] {
			c++
		}
		cj := h.cols[c]
		if h.key[j] <= h.key[cj] {
			break
		}
		h.cols[k], h.pos[cj] = cj, k
		k = c
	}
	h.cols[k], h.pos[j] = j, k
}

// scheduleTol is the relative tolerance of SafeSchedule, so that a budget
// typed as the breakpoint itself (e.g. ε = log(7/2)) selects it despite
// rounding in ε_S.
const scheduleTol = 1e-12

// SafeSchedule returns the utility-safe schedule for the budget eps: the
// largest threshold h whose utility-safe mechanism M*(h) = UtilitySafe(o, h)
// is eps-PML, and the PML epsS of that mechanism. For strict orders (and
// whenever all rows have the same number of allowed outputs) this is the
// largest h with ε_S(h) ≤ eps and epsS = ε_S(h), as in Song & Oechtering (2026), §IV-A.
// Under ties with unequal row counts, ε_S(h) is only a lower bound on the
// PML of M*(h) (see SafeEpsilon), so such candidates are audited directly
// and skipped if they leak more than eps; the result is therefore always a
// valid eps-PML mechanism. h = 1 always qualifies: M*(1) is uniform and has
// PML 0.
//
// Comparisons allow a tolerance of 1e-12·max(1, eps). Since ε_S need not be
// monotone, every h is examined.
//
// Invalid input (a NaN or negative eps, or a prior or order that SafeCurve
// refuses) yields h = 0 and epsS = NaN; validate with SafeCurve or
// SafeEpsilon to obtain the error.
func SafeSchedule(pi mech.Prior, o mech.Order, eps float64) (h int, epsS float64) {
	if math.IsNaN(eps) || eps < 0 {
		return 0, math.NaN()
	}
	curve, err := SafeCurve(pi, o)
	if err != nil {
		return 0, math.NaN()
	}
	limit := eps + scheduleTol*max(1, eps)
	for h := len(curve); h > 1; h-- {
		if curve[h-1] > limit {
			continue
		}
		if equalRowCounts(o, h) {
			return h, curve[h-1]
		}
		if v := safePML(pi, o, h); v <= limit {
			return h, v
		}
	}
	return 1, 0
}

// equalRowCounts reports whether every row of o has the same number of
// entries ≥ h.
func equalRowCounts(o mech.Order, h int) bool {
	k0 := -1
	for _, row := range o {
		k := 0
		for _, r := range row {
			if r >= h {
				k++
			}
		}
		if k0 >= 0 && k != k0 {
			return false
		}
		k0 = k
	}
	return true
}

// safePML returns the PML of UtilitySafe(o, h) directly from its
// definition, max_j log max_i p_ij / q_j.
func safePML(pi mech.Prior, o mech.Order, h int) float64 {
	p, _ := UtilitySafe(o, h) // o and h were validated by the caller
	_, m := p.Dims()
	q, mx := p.Marginal(pi), p.ColumnMax()
	best := 0.0
	for j := 0; j < m; j++ {
		if q[j] > 0 {
			best = max(best, mathx.LogRatio(mx[j], q[j]))
		}
	}
	return best
}

// SafeEpsilonOver is SafeEpsilon over a set of priors: the PML over the
// set of the utility-safe mechanism of the pattern when every row allows
// the same number of outputs (a lower bound on it otherwise, as at one
// prior):
// −log min_j min_{π∈Π} π(A_j) over the outputs some input may use.
func SafeEpsilonOver(set *mech.PriorSet, pat mech.Pattern) float64 {
	if len(pat) == 0 {
		return math.NaN()
	}
	worst := 0.0
	c := make([]float64, len(pat)) // the indicator of A_j
	for j := range pat[0] {
		used := false
		for i := range pat {
			c[i] = 0
			if pat[i][j] {
				c[i] = 1
				used = true
			}
		}
		if used {
			worst = max(worst, -mathx.Log(set.MinMass(c)))
		}
	}
	return worst
}
