package closedform

import (
	"container/heap"
	"math"

	"github.com/pmlopt/pmlopt/mech"
)

// UtilitySafe returns the utility-safe mechanism M*(h) of seed 002 Thm 1:
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
	n, m, err := checkOrder(o)
	if err != nil {
		return nil, err
	}
	if err := checkH(h, m); err != nil {
		return nil, err
	}
	p := mech.Zeros(n, m)
	for i, row := range o {
		k := 0
		for _, r := range row {
			if r >= h {
				k++
			}
		}
		v := 1 / float64(k)
		for j, r := range row {
			if r >= h {
				p[i][j] = v
			}
		}
	}
	return p, nil
}

// SafeEpsilon returns ε_S(h) of seed 002 Cor 1,
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
// (seed 002 Lemma 1), ε_S(h) need not be monotone: with U = [[3,1,2],[3,2,1]]
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
	s := make([]float64, m)
	for i, row := range o {
		for j, r := range row {
			if r >= h {
				s[j] += pi[i]
			}
		}
	}
	lo := math.Inf(1)
	for _, v := range s {
		if v > 0 {
			lo = math.Min(lo, v)
		}
	}
	return negLog(lo), nil
}

// SafeCurve returns ε_S(h) for h = 1..M (element h−1 holds ε_S(h)), in one
// sweep of O(NM log M) time: entries are bucketed by rank, the column sums
// S_j(h) = Σ_{i : U_ij ≥ h} π_i are accumulated from h = M down to 1, and
// the smallest positive S_j is kept in an indexed heap (as h falls, sums
// only grow and columns only join Y+(h)).
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

	h := &colHeap{sum: make([]float64, m), pos: make([]int, m)}
	for j := range h.pos {
		h.pos[j] = -1
	}
	curve := make([]float64, m)
	for r := m; r >= 1; r-- {
		for _, e := range ent[start[r]:start[r+1]] {
			h.sum[e.j] += pi[e.i]
		}
		for _, e := range ent[start[r]:start[r+1]] {
			j := int(e.j)
			if h.pos[j] < 0 {
				heap.Push(h, j)
			} else {
				heap.Fix(h, h.pos[j])
			}
		}
		curve[r-1] = negLog(h.sum[h.cols[0]])
	}
	return curve, nil
}

// colHeap is a min-heap of columns keyed by their current sums, with the
// position of every column so that a grown sum can be fixed in O(log M).
type colHeap struct {
	cols []int
	sum  []float64
	pos  []int // pos[j] is j's index in cols, or −1 when j is not in the heap
}

func (h *colHeap) Len() int           { return len(h.cols) }
func (h *colHeap) Less(a, b int) bool { return h.sum[h.cols[a]] < h.sum[h.cols[b]] }
func (h *colHeap) Swap(a, b int) {
	h.cols[a], h.cols[b] = h.cols[b], h.cols[a]
	h.pos[h.cols[a]] = a
	h.pos[h.cols[b]] = b
}
func (h *colHeap) Push(x any) {
	j := x.(int)
	h.pos[j] = len(h.cols)
	h.cols = append(h.cols, j)
}
func (h *colHeap) Pop() any {
	j := h.cols[len(h.cols)-1]
	h.cols = h.cols[:len(h.cols)-1]
	h.pos[j] = -1
	return j
}

// scheduleTol is the relative tolerance of SafeSchedule, so that a budget
// typed as the breakpoint itself (e.g. ε = log(7/2)) selects it despite
// rounding in ε_S.
const scheduleTol = 1e-12

// SafeSchedule returns the utility-safe schedule for the budget eps: the
// largest threshold h whose utility-safe mechanism M*(h) = UtilitySafe(o, h)
// is eps-PML, and the PML epsS of that mechanism. For strict orders (and
// whenever all rows have the same number of allowed outputs) this is the
// largest h with ε_S(h) ≤ eps and epsS = ε_S(h), as in seed 002 §IV-A.
// Under ties with unequal row counts, ε_S(h) is only a lower bound on the
// PML of M*(h) (see SafeEpsilon), so such candidates are audited directly
// and skipped if they leak more than eps; the result is therefore always a
// valid eps-PML mechanism. h = 1 always qualifies: M*(1) is uniform and has
// PML 0.
//
// Comparisons allow a tolerance of 1e-12·max(1, eps). Since ε_S need not be
// monotone, every h is examined. eps must be a non-negative number.
func SafeSchedule(pi mech.Prior, o mech.Order, eps float64) (h int, epsS float64, err error) {
	if math.IsNaN(eps) || eps < 0 {
		return 0, 0, &mech.FieldError{Field: "epsilon", Row: -1, Col: -1, Msg: "must be a non-negative number"}
	}
	curve, err := SafeCurve(pi, o)
	if err != nil {
		return 0, 0, err
	}
	limit := eps + scheduleTol*math.Max(1, eps)
	for h := len(curve); h > 1; h-- {
		if curve[h-1] > limit {
			continue
		}
		if equalRowCounts(o, h) {
			return h, curve[h-1], nil
		}
		if v := safePML(pi, o, h); v <= limit {
			return h, v, nil
		}
	}
	return 1, 0, nil
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
	q := p.Marginal(pi)
	best := 0.0
	for j := 0; j < m; j++ {
		if q[j] <= 0 {
			continue
		}
		mx := 0.0
		for i := range p {
			mx = math.Max(mx, p[i][j])
		}
		best = math.Max(best, math.Log(mx/q[j]))
	}
	return best
}
