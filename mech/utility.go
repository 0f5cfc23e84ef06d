package mech

import (
	"context"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/internal/mathx"
)

// Utility is an N×M matrix of real utilities u'(x_i, y_j); higher is better.
type Utility [][]float64

// NewUtility validates u: non-empty, rectangular and finite.
func NewUtility(u [][]float64) (Utility, error) {
	if _, _, err := checkMatrix("utility", u); err != nil {
		return nil, err
	}
	return Utility(u), nil
}

// Dims returns the number of inputs N and outputs M.
func (u Utility) Dims() (n, m int) {
	if len(u) == 0 {
		return 0, 0
	}
	return len(u), len(u[0])
}

// Column writes column j of u into dst, which has N entries (see Columns).
func (u Utility) Column(j int, dst []float64) {
	for i := range dst {
		dst[i] = u[i][j]
	}
}

// Order returns the utility order U of u under the package's tie rule: the
// rank of u_ij is the number of entries of row i that are ≤ u_ij.
func (u Utility) Order() Order {
	o, _ := u.OrderContext(context.Background())
	return o
}

// PollRows is how many rows OrderContext and NewOrderContext rank between
// two looks at their context: each row is a sort of its M entries, and a
// location grid has thousands of rows of thousands of entries.
const PollRows = 8

// OrderContext is Order stopping when ctx ends: it looks at ctx before
// every PollRows rows, and returns nil and ctx.Err() once it has ended.
func (u Utility) OrderContext(ctx context.Context) (Order, error) {
	o := make(Order, len(u))
	for i, row := range u {
		if i%PollRows == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		o[i] = maxRanks(row)
	}
	return o, nil
}

// Values returns the distinct utility values of u in ascending order: the
// candidate thresholds of the worst-case-value objective.
func (u Utility) Values() []float64 {
	var vs []float64
	for _, row := range u {
		vs = append(vs, row...)
	}
	slices.Sort(vs)
	return slices.Compact(vs)
}

// ReachableValues returns the distinct utility values v of u that a
// mechanism can guarantee, in ascending order: those at most
// min_i max_j u_ij, so that every row has an entry of utility at least v
// (u.Pattern(v) leaves every input an output). They are the thresholds of
// the worst-case-value objective.
func (u Utility) ReachableValues() []float64 {
	reach := math.Inf(1)
	for _, row := range u {
		top := math.Inf(-1)
		for _, v := range row {
			top = max(top, v)
		}
		reach = min(reach, top)
	}
	vs := u.Values()
	k := 0
	for k < len(vs) && vs[k] <= reach {
		k++
	}
	return vs[:k]
}

// Pattern returns the zero pattern that forbids every pair with u_ij < v.
func (u Utility) Pattern(v float64) Pattern {
	pat := make(Pattern, len(u))
	for i, row := range u {
		pat[i] = make([]bool, len(row))
		for j, x := range row {
			pat[i][j] = x >= v
		}
	}
	return pat
}

// maxRanks ranks the entries of row: rank = #{k : row[k] ≤ row[j]}.
func maxRanks(row []float64) []int {
	m := len(row)
	idx := make([]int, m)
	for j := range idx {
		idx[j] = j
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case row[a] < row[b]:
			return -1
		case row[a] > row[b]:
			return 1
		}
		return 0
	})
	r := make([]int, m)
	for k := 0; k < m; {
		e := k
		for e+1 < m && row[idx[e+1]] == row[idx[k]] {
			e++
		}
		for t := k; t <= e; t++ {
			r[idx[t]] = e + 1
		}
		k = e + 1
	}
	return r
}

// Order is an N×M utility order: U[i][j] is the rank of u'(x_i, y_j) inside
// row i, ascending, 1 = lowest. Each row is a permutation of 1..M or, with
// ties, a ranking under the package's tie rule (see the package doc).
type Order [][]int

// NewOrder validates o: non-empty, rectangular, and each row a ranking, that
// is, each row equals the max-rank of its own entries (a permutation of 1..M
// when there are no ties).
func NewOrder(o [][]int) (Order, error) {
	return NewOrderContext(context.Background(), o)
}

// NewOrderContext is NewOrder stopping when ctx ends: it looks at ctx
// before every PollRows rows, and returns nil and ctx.Err() once it has
// ended.
func NewOrderContext(ctx context.Context, o [][]int) (Order, error) {
	if len(o) == 0 {
		return nil, errorf("order", -1, -1, "has no rows")
	}
	m := len(o[0])
	if m == 0 {
		return nil, errorf("order", 0, -1, "has no columns")
	}
	f := make([]float64, m)
	for i, row := range o {
		if i%PollRows == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if len(row) != m {
			return nil, errorf("order", i, -1, "has %d entries, row 1 has %d", len(row), m)
		}
		for j, v := range row {
			if v < 1 || v > m {
				return nil, errorf("order", i, j, "is %d, outside 1..%d", v, m)
			}
			f[j] = float64(v)
		}
		want := maxRanks(f)
		for j, v := range row {
			if want[j] != v {
				return nil, errorf("order", i, j, "row %v is not a ranking of 1..%d (a tie group of size c must share the rank of its largest position, e.g. 1 3 3 or 2 2 3)", row, m)
			}
		}
	}
	return Order(o), nil
}

// Dims returns the number of inputs N and outputs M.
func (o Order) Dims() (n, m int) {
	if len(o) == 0 {
		return 0, 0
	}
	return len(o), len(o[0])
}

// Pattern returns the zero pattern of threshold h: pair (i, j) is allowed iff
// U[i][j] ≥ h.
func (o Order) Pattern(h int) Pattern {
	pat := make(Pattern, len(o))
	for i, row := range o {
		pat[i] = make([]bool, len(row))
		for j, r := range row {
			pat[i][j] = r >= h
		}
	}
	return pat
}

// Pattern is a zero pattern: Pattern[i][j] is true when p_ij may be positive
// and false when the mechanism must have p_ij = 0.
type Pattern [][]bool

// Check verifies that pat is a zero pattern for an n-letter prior that some
// mechanism respects: n rows of the same non-zero length, and an allowed
// output in every row.
func (pat Pattern) Check(n int) error {
	if len(pat) != n {
		return errorf("pattern", -1, -1, "has %d rows but the prior has %d letters", len(pat), n)
	}
	if n == 0 {
		return errorf("pattern", -1, -1, "has no rows")
	}
	m := len(pat[0])
	if m == 0 {
		return errorf("pattern", 0, -1, "has no columns")
	}
	for i, row := range pat {
		if len(row) != m {
			return errorf("pattern", i, -1, "has %d entries, row 1 has %d", len(row), m)
		}
		ok := false
		for _, a := range row {
			ok = ok || a
		}
		if !ok {
			return errorf("pattern", i, -1, "forbids every output, so no mechanism respects it")
		}
	}
	return nil
}

// Holds reports whether p is zero on every forbidden pair of pat; false
// when p and pat are not of one rectangular shape.
func (pat Pattern) Holds(p Mechanism) bool {
	if !sameShape(pat, p) {
		return false
	}
	for i, row := range pat {
		for j, ok := range row {
			if !ok && p[i][j] != 0 {
				return false
			}
		}
	}
	return true
}

// Columns returns, for each output j, whether some input may use it: the set
// Y+(h) of Song & Oechtering (2026), eq. 3. It is nil for an empty or
// ragged pattern.
func (pat Pattern) Columns() []bool {
	if _, _, ok := rectangular(pat); !ok {
		return nil
	}
	used := make([]bool, len(pat[0]))
	for _, row := range pat {
		for j, ok := range row {
			used[j] = used[j] || ok
		}
	}
	return used
}

// WorstCaseOrder returns h(P) = min over p_ij > 0 of U[i][j]; 0 when p
// and o are not of one rectangular shape.
func (o Order) WorstCaseOrder(p Mechanism) int {
	if !sameShape(o, p) {
		return 0
	}
	h := 0
	for i, row := range p {
		for j, v := range row {
			if v > 0 && (h == 0 || o[i][j] < h) {
				h = o[i][j]
			}
		}
	}
	return h
}

// WorstCaseValue returns min over p_ij > 0 of u_ij; NaN when p and u are
// not of one rectangular shape.
func (u Utility) WorstCaseValue(p Mechanism) float64 {
	if !sameShape(u, p) {
		return math.NaN()
	}
	first := true
	w := 0.0
	for i, row := range p {
		for j, v := range row {
			if v > 0 && (first || u[i][j] < w) {
				w, first = u[i][j], false
			}
		}
	}
	return w
}

// ExpectedUtility returns Σ_ij π_i p_ij u_ij; NaN when p and u are not of
// one rectangular shape with a row per letter of pi.
func (u Utility) ExpectedUtility(pi Prior, p Mechanism) float64 {
	if !sameShape(u, p) || len(pi) != len(p) {
		return math.NaN()
	}
	s := 0.0
	for i, row := range p {
		for j, v := range row {
			s += pi[i] * v * u[i][j]
		}
	}
	return s
}

// OutputBounds returns, for every output j, c_j = −log Σ_{i : (i,j) allowed}
// π_i: the least PML output j can have in any mechanism with the pattern
// that uses it (Song & Oechtering (2026), Lemmas 2-3, Cor 1; the pruning rule of §III-B).
// It is exactly 0 for an output every input may use (whatever the rounding
// of Σπ_i) and +Inf for an output no input may use. It is nil for an
// empty or ragged pattern, or one whose row count is not pi's length.
func (pat Pattern) OutputBounds(pi Prior) []float64 {
	if _, _, ok := rectangular(pat); !ok || len(pi) != len(pat) {
		return nil
	}
	mass := make([]float64, len(pat[0]))
	count := make([]int, len(pat[0]))
	for i, row := range pat {
		for j, a := range row {
			if a {
				mass[j] += pi[i]
				count[j]++
			}
		}
	}
	c := make([]float64, len(mass))
	for j, s := range mass {
		switch {
		case count[j] == len(pat):
			c[j] = 0
		case s <= 0:
			c[j] = math.Inf(1)
		default:
			c[j] = max(0, -mathx.Log(s))
		}
	}
	return c
}

// rectangular returns the dimensions of a, and whether it has rows, all of
// one positive length.
func rectangular[T any](a [][]T) (n, m int, ok bool) {
	if len(a) == 0 || len(a[0]) == 0 {
		return 0, 0, false
	}
	for _, row := range a {
		if len(row) != len(a[0]) {
			return 0, 0, false
		}
	}
	return len(a), len(a[0]), true
}

// sameShape reports whether a and b are rectangular of the same dimensions.
func sameShape[T, U any](a [][]T, b [][]U) bool {
	n, m, ok := rectangular(a)
	n2, m2, ok2 := rectangular(b)
	return ok && ok2 && n == n2 && m == m2
}
