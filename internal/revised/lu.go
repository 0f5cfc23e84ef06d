package revised

import "math"

// Factorisation tolerances.
const (
	// luThreshold is the threshold-pivoting parameter u: an entry may be a
	// pivot only if it is at least u times the largest entry of its active
	// row. It bounds the growth of the eliminated entries by 1/u per step.
	luThreshold = 0.1
	// luAbsTol is the smallest magnitude accepted as a pivot; a basis whose
	// remaining active entries are all below it is treated as singular.
	luAbsTol = 1e-11
	// luSearchCols is how many candidate columns the Markowitz search
	// examines before taking the best pivot found.
	luSearchCols = 4
)

// factor is a sparse LU factorisation of a basis matrix B (m×m, rows are the
// constraint rows, columns are the basis positions) followed by a file of
// product-form eta updates.
//
// Gaussian elimination gives E B = U', with E = E_{m-1}···E_0 the elimination
// steps (step k subtracts multiples of pivot row r_k from other rows) and U'
// a row and column permutation of an upper triangular matrix: row r_k of U'
// is U row k, whose pivot is in column c_k and whose other entries are in
// columns pivoted later. Each basis change B' = B F adds one eta F.
type factor struct {
	m int

	pivRow, pivCol []int

	lStart []int
	lIdx   []int
	lVal   []float64

	uStart []int
	uCol   []int
	uVal   []float64
	uDiag  []float64

	// Product-form etas: eta t replaces basis position ePos[t]; its entries
	// are eIdx/eVal[eStart[t]:eStart[t+1]] (η of F⁻¹ = I + η e_pᵀ).
	ePos   []int
	eStart []int
	eIdx   []int
	eVal   []float64

	// active submatrix work space
	rc   [][]int
	rv   [][]float64
	cr   [][]int
	mark []int
	// stacks of rows / columns whose active count dropped to 1
	rowS, colS []int
	rowD       []bool
	colD       []bool
	work       []float64
	// rmax[i] caches the largest magnitude in active row i when
	// rmaxOK[i]; a row's cache is dropped whenever the row changes.
	rmax   []float64
	rmaxOK []bool
	// colB and rowB hold the active columns and rows by count, for the
	// Markowitz search.
	colB, rowB buckets

	// The factors again in the other orientation, so that ftran and btran
	// skip the zeros of their vector: U by columns (ucRow/ucVal[ucStart[k]:
	// ucStart[k+1]] are the entries of the column pivoted at step k, by the
	// constraint row of their U row) and L by target (lrRow/lrVal[lrStart[k]:
	// lrStart[k+1]] are the multipliers applied to row pivRow[k], by the
	// pivot row they multiply).
	ucStart, ucRow []int
	ucVal          []float64
	lrStart, lrRow []int
	lrVal          []float64
	stepOf, pos    []int
}

// buckets holds indices by count lazily: an index is appended to the bucket
// of its new count whenever its count changes, and stale or repeated
// entries are dropped when a bucket is read.
type buckets struct {
	b     [][]int
	stamp []int
	gen   int
	out   []int
}

func (k *buckets) reset(m int) {
	if len(k.b) != m+1 {
		k.b = make([][]int, m+1)
		k.stamp = make([]int, m)
	}
	for c := range k.b {
		k.b[c] = k.b[c][:0]
	}
}

func (k *buckets) push(cnt, idx int) { k.b[cnt] = append(k.b[cnt], idx) }

// first returns up to want distinct valid indices of bucket cnt, in the
// order they were pushed, dropping the stale entries (the index is done or
// its count has changed since) and repeats it meets on the way. It stops as
// soon as it has want, so a large bucket costs only what is read of it
// (plus a memmove of the rest when something before it was dropped). The
// result is valid until the next call.
func (k *buckets) first(cnt, want int, valid func(idx int) bool) []int {
	k.gen++
	b := k.b[cnt]
	k.out = k.out[:0]
	w, q := 0, 0
	for ; q < len(b) && len(k.out) < want; q++ {
		x := b[q]
		if k.stamp[x] == k.gen || !valid(x) {
			continue
		}
		k.stamp[x] = k.gen
		k.out = append(k.out, x)
		b[w] = x
		w++
	}
	if w < q {
		b = b[:w+copy(b[w:], b[q:])]
	}
	k.b[cnt] = b
	return k.out
}

func newFactor(m int) *factor {
	f := &factor{m: m}
	f.rc = make([][]int, m)
	f.rv = make([][]float64, m)
	f.cr = make([][]int, m)
	f.mark = make([]int, m)
	f.rowD = make([]bool, m)
	f.colD = make([]bool, m)
	f.work = make([]float64, m)
	f.rmax = make([]float64, m)
	f.rmaxOK = make([]bool, m)
	return f
}

// numEtas is the number of product-form updates since the last factorisation.
func (f *factor) numEtas() int { return len(f.ePos) }

// factorize computes the LU factors of the matrix whose column p has the
// non-zeros colFn(p). When the matrix is numerically singular it returns the
// positions and rows left without a pivot (equal in number); the factors are
// then not usable.
func (f *factor) factorize(colFn func(p int) ([]int, []float64)) (badPos, badRows []int) {
	m := f.m
	for i := 0; i < m; i++ {
		f.rc[i] = f.rc[i][:0]
		f.rv[i] = f.rv[i][:0]
		f.cr[i] = f.cr[i][:0]
		f.rowD[i] = false
		f.colD[i] = false
		f.mark[i] = -1
		f.rmaxOK[i] = false
	}
	for p := 0; p < m; p++ {
		idx, val := colFn(p)
		for k, i := range idx {
			if val[k] == 0 {
				continue
			}
			f.rc[i] = append(f.rc[i], p)
			f.rv[i] = append(f.rv[i], val[k])
			f.cr[p] = append(f.cr[p], i)
		}
	}
	f.pivRow = f.pivRow[:0]
	f.pivCol = f.pivCol[:0]
	f.lStart = append(f.lStart[:0], 0)
	f.lIdx = f.lIdx[:0]
	f.lVal = f.lVal[:0]
	f.uStart = append(f.uStart[:0], 0)
	f.uCol = f.uCol[:0]
	f.uVal = f.uVal[:0]
	f.uDiag = f.uDiag[:0]
	f.ePos = f.ePos[:0]
	f.eStart = append(f.eStart[:0], 0)
	f.eIdx = f.eIdx[:0]
	f.eVal = f.eVal[:0]
	f.rowS, f.colS = f.rowS[:0], f.colS[:0]
	f.colB.reset(m)
	f.rowB.reset(m)
	for i := 0; i < m; i++ {
		if len(f.rc[i]) == 1 {
			f.rowS = append(f.rowS, i)
		}
		if len(f.cr[i]) == 1 {
			f.colS = append(f.colS, i)
		}
		f.rowB.push(len(f.rc[i]), i)
		f.colB.push(len(f.cr[i]), i)
	}

	for done := 0; done < m; {
		r, c, ok := f.choosePivot()
		if !ok {
			// Drop the columns without a usable entry (all of the active
			// ones if every one has some) and go on with the others, so
			// that the repair replaces as few basic variables as it can.
			dropped := false
			for p := 0; p < m; p++ {
				if !f.colD[p] && f.colNegligible(p) {
					f.dropColumn(p)
					badPos = append(badPos, p)
					done++
					dropped = true
				}
			}
			if !dropped {
				for p := 0; p < m; p++ {
					if !f.colD[p] {
						f.dropColumn(p)
						badPos = append(badPos, p)
						done++
					}
				}
			}
			continue
		}
		f.eliminate(r, c)
		done++
	}
	if badPos == nil {
		f.transpose()
		return nil, nil
	}
	// The factors are not usable: make a misuse fail loudly (ftran and
	// btran index the transposed starts) rather than solve with the last
	// factorisation's transposes.
	f.ucStart, f.lrStart = f.ucStart[:0], f.lrStart[:0]
	for i := 0; i < m; i++ {
		if !f.rowD[i] {
			badRows = append(badRows, i)
		}
	}
	return badPos, badRows
}

// transpose builds U by columns and L by target rows from a complete
// factorisation.
func (f *factor) transpose() {
	m := f.m
	if len(f.stepOf) != m {
		f.stepOf = make([]int, m)
	}
	// U: entry t of row k sits in the column pivoted at step stepOf[uCol[t]].
	for k, c := range f.pivCol {
		f.stepOf[c] = k
	}
	f.ucStart, f.ucRow, f.ucVal = f.bucket(f.ucStart, f.ucRow, f.ucVal, f.uStart, f.uCol, f.uVal)
	// L: multiplier t of step k targets row lIdx[t], pivoted at step
	// stepOf[lIdx[t]].
	for k, r := range f.pivRow {
		f.stepOf[r] = k
	}
	f.lrStart, f.lrRow, f.lrVal = f.bucket(f.lrStart, f.lrRow, f.lrVal, f.lStart, f.lIdx, f.lVal)
}

// bucket regroups the per-step lists (start, idx, val) by the step
// stepOf[idx[t]] of their keys, recording for each entry the pivot row of
// the step it came from, into the reused slices starts, rows and vals.
func (f *factor) bucket(starts, rows []int, vals []float64, start, idx []int, val []float64) ([]int, []int, []float64) {
	m := f.m
	starts = countStarts(starts, m, idx, f.stepOf)
	rows = resize(rows, len(idx))
	vals = resizeF(vals, len(idx))
	f.pos = resize(f.pos, m)
	pos := f.pos
	copy(pos, starts[:m])
	for k := range f.pivRow {
		for t := start[k]; t < start[k+1]; t++ {
			b := f.stepOf[idx[t]]
			rows[pos[b]], vals[pos[b]] = f.pivRow[k], val[t]
			pos[b]++
		}
	}
	return starts, rows, vals
}

// countStarts returns the m+1 bucket starts of the keys step[idx[t]].
func countStarts(starts []int, m int, idx, step []int) []int {
	starts = resize(starts, m+1)
	clear(starts)
	for _, i := range idx {
		starts[step[i]+1]++
	}
	for k := 0; k < m; k++ {
		starts[k+1] += starts[k]
	}
	return starts
}

func resize(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

func resizeF(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// colNegligible reports whether active column p has no entry above luAbsTol.
func (f *factor) colNegligible(p int) bool {
	for _, i := range f.cr[p] {
		if a, _ := f.rowEntry(i, p); math.Abs(a) > luAbsTol {
			return false
		}
	}
	return true
}

// dropColumn removes active column p from the active submatrix without a
// pivot: it is left for the singular-basis repair.
func (f *factor) dropColumn(p int) {
	for _, i := range f.cr[p] {
		if _, slot := f.rowEntry(i, p); slot >= 0 {
			f.rmaxOK[i] = false
			last := len(f.rc[i]) - 1
			f.rc[i][slot] = f.rc[i][last]
			f.rv[i][slot] = f.rv[i][last]
			f.rc[i] = f.rc[i][:last]
			f.rv[i] = f.rv[i][:last]
			if len(f.rc[i]) == 1 {
				f.rowS = append(f.rowS, i)
			}
			f.rowB.push(len(f.rc[i]), i)
		}
	}
	f.cr[p] = f.cr[p][:0]
	f.colD[p] = true
}

// rowEntry returns the value of column c in active row i and its slot.
func (f *factor) rowEntry(i, c int) (float64, int) {
	for k, j := range f.rc[i] {
		if j == c {
			return f.rv[i][k], k
		}
	}
	return 0, -1
}

// rowMax returns the largest magnitude in active row i, from the cache
// when the row has not changed since it was last computed.
func (f *factor) rowMax(i int) float64 {
	if !f.rmaxOK[i] {
		f.rmax[i], f.rmaxOK[i] = absMax(f.rv[i]), true
	}
	return f.rmax[i]
}

func absMax(v []float64) float64 {
	mx := 0.0
	for _, a := range v {
		if a := math.Abs(a); a > mx {
			mx = a
		}
	}
	return mx
}

// choosePivot picks the next pivot by Markowitz cost (r−1)(c−1) among the
// entries passing the threshold test, searching row singletons first, then
// column singletons, then the columns of least count and, if no entry of
// those passes the threshold, the rows of least count.
func (f *factor) choosePivot() (r, c int, ok bool) {
	m := f.m
	// Row singletons are free pivots (cost 0, no threshold issue in the row).
	for len(f.rowS) > 0 {
		i := f.rowS[len(f.rowS)-1]
		f.rowS = f.rowS[:len(f.rowS)-1]
		if !f.rowD[i] && len(f.rc[i]) == 1 && math.Abs(f.rv[i][0]) > luAbsTol {
			return i, f.rc[i][0], true
		}
	}
	// Column singletons cost 0 too when they pass the threshold.
	for len(f.colS) > 0 {
		p := f.colS[len(f.colS)-1]
		f.colS = f.colS[:len(f.colS)-1]
		if f.colD[p] || len(f.cr[p]) != 1 {
			continue
		}
		i := f.cr[p][0]
		a, _ := f.rowEntry(i, p)
		if aa := math.Abs(a); aa > luAbsTol && aa >= luThreshold*f.rowMax(i) {
			return i, p, true
		}
	}
	var cnt int
	colOK := func(p int) bool { return !f.colD[p] && len(f.cr[p]) == cnt }
	rowOK := func(i int) bool { return !f.rowD[i] && len(f.rc[i]) == cnt }
	minCnt := -1
	for cnt = 0; cnt <= m; cnt++ {
		if len(f.colB.first(cnt, 1, colOK)) > 0 {
			minCnt = cnt
			break
		}
	}
	if minCnt <= 0 {
		return 0, 0, false
	}
	bestCost := math.MaxInt
	bestRatio := 0.0
	r, c = -1, -1
	examined := 0
	for cnt = minCnt; cnt <= m && examined < luSearchCols; cnt++ {
		for _, p := range f.colB.first(cnt, luSearchCols-examined, colOK) {
			if examined >= luSearchCols {
				break
			}
			examined++
			for _, i := range f.cr[p] {
				a, _ := f.rowEntry(i, p)
				aa := math.Abs(a)
				if aa <= luAbsTol {
					continue
				}
				mx := f.rowMax(i)
				if aa < luThreshold*mx {
					continue
				}
				cost := (cnt - 1) * (len(f.rc[i]) - 1)
				ratio := aa / mx
				if cost < bestCost || (cost == bestCost && ratio > bestRatio) {
					bestCost, bestRatio, r, c = cost, ratio, i, p
				}
			}
			if bestCost == 0 {
				return r, c, true
			}
		}
		if cnt > minCnt+8 && r >= 0 {
			break
		}
	}
	if r >= 0 {
		return r, c, true
	}
	// No entry passes the threshold in the columns examined: search the
	// rows of least count the same way (a row's largest entry always
	// passes). The search stays within luSearchCols candidates: scanning
	// every remaining entry would cost O(nonzeros) per pivot, more than the
	// elimination step it chooses.
	minCnt = -1
	for cnt = 1; cnt <= m; cnt++ {
		if len(f.rowB.first(cnt, 1, rowOK)) > 0 {
			minCnt = cnt
			break
		}
	}
	examined = 0
	for cnt = max(minCnt, 1); minCnt > 0 && cnt <= m && examined < luSearchCols; cnt++ {
		// Rows whose entries are all negligible do not count as
		// examined: read further into the bucket for them.
		for got := 0; examined < luSearchCols; {
			rows := f.rowB.first(cnt, got+luSearchCols-examined, rowOK)
			if len(rows) <= got {
				break
			}
			for _, i := range rows[got:] {
				got++
				mx := f.rowMax(i)
				if mx <= luAbsTol {
					continue
				}
				examined++
				for k, p := range f.rc[i] {
					aa := math.Abs(f.rv[i][k])
					if aa <= luAbsTol || aa < luThreshold*mx {
						continue
					}
					cost := (cnt - 1) * (len(f.cr[p]) - 1)
					ratio := aa / mx
					if cost < bestCost || (cost == bestCost && ratio > bestRatio) {
						bestCost, bestRatio, r, c = cost, ratio, i, p
					}
				}
			}
		}
		if cnt > minCnt+8 && r >= 0 {
			break
		}
	}
	if r >= 0 {
		return r, c, true
	}
	// Every active row's entries are all at most luAbsTol (a row's largest
	// entry always passes the threshold): the basis is numerically
	// singular, and the caller drops the columns left.
	return 0, 0, false
}

func removeInt(s []int, v int) []int {
	for k, x := range s {
		if x == v {
			s[k] = s[len(s)-1]
			return s[:len(s)-1]
		}
	}
	return s
}

// eliminate performs one elimination step with pivot (r, c).
func (f *factor) eliminate(r, c int) {
	pr, pv := f.rc[r], f.rv[r]
	var piv float64
	for k, j := range pr {
		f.cr[j] = removeInt(f.cr[j], r)
		if len(f.cr[j]) == 1 {
			f.colS = append(f.colS, j)
		}
		if j != c {
			f.colB.push(len(f.cr[j]), j)
		}
		if j == c {
			piv = pv[k]
		} else {
			f.uCol = append(f.uCol, j)
			f.uVal = append(f.uVal, pv[k])
		}
	}
	f.uDiag = append(f.uDiag, piv)
	f.uStart = append(f.uStart, len(f.uCol))
	f.pivRow = append(f.pivRow, r)
	f.pivCol = append(f.pivCol, c)
	f.rowD[r] = true
	f.colD[c] = true

	for _, i := range f.cr[c] {
		f.rmaxOK[i] = false
		a, slot := f.rowEntry(i, c)
		l := a / piv
		f.lIdx = append(f.lIdx, i)
		f.lVal = append(f.lVal, l)
		// remove entry c from row i
		last := len(f.rc[i]) - 1
		f.rc[i][slot] = f.rc[i][last]
		f.rv[i][slot] = f.rv[i][last]
		f.rc[i] = f.rc[i][:last]
		f.rv[i] = f.rv[i][:last]
		for k, j := range f.rc[i] {
			f.mark[j] = k
		}
		for k, j := range pr {
			if j == c {
				continue
			}
			if s := f.mark[j]; s >= 0 {
				f.rv[i][s] -= l * pv[k]
			} else {
				f.rc[i] = append(f.rc[i], j)
				f.rv[i] = append(f.rv[i], -l*pv[k])
				f.cr[j] = append(f.cr[j], i)
				f.colB.push(len(f.cr[j]), j)
			}
		}
		for _, j := range f.rc[i] {
			f.mark[j] = -1
		}
		if len(f.rc[i]) == 1 {
			f.rowS = append(f.rowS, i)
		}
		f.rowB.push(len(f.rc[i]), i)
	}
	f.cr[c] = f.cr[c][:0]
	f.lStart = append(f.lStart, len(f.lIdx))
	f.rc[r] = f.rc[r][:0]
	f.rv[r] = f.rv[r][:0]
}

// ftran overwrites a (indexed by row) with B⁻¹a (indexed by basis position).
func (f *factor) ftran(a []float64) {
	for k, r := range f.pivRow {
		ar := a[r]
		if ar == 0 {
			continue
		}
		for t := f.lStart[k]; t < f.lStart[k+1]; t++ {
			a[f.lIdx[t]] -= f.lVal[t] * ar
		}
	}
	// U by columns: each x_k, once known, is taken out of the rows of the
	// earlier steps; a zero x_k costs nothing.
	x := f.work
	for k := len(f.pivRow) - 1; k >= 0; k-- {
		s := a[f.pivRow[k]]
		if s == 0 {
			x[f.pivCol[k]] = 0
			continue
		}
		xk := s / f.uDiag[k]
		x[f.pivCol[k]] = xk
		for t := f.ucStart[k]; t < f.ucStart[k+1]; t++ {
			a[f.ucRow[t]] -= f.ucVal[t] * xk
		}
	}
	copy(a, x)
	for t, p := range f.ePos {
		xp := a[p]
		if xp == 0 {
			continue
		}
		for s := f.eStart[t]; s < f.eStart[t+1]; s++ {
			i := f.eIdx[s]
			if i == p {
				a[p] += f.eVal[s] * xp
			} else {
				a[i] += f.eVal[s] * xp
			}
		}
	}
}

// btran overwrites c (indexed by basis position) with B⁻ᵀc (indexed by row).
func (f *factor) btran(c []float64) {
	for t := len(f.ePos) - 1; t >= 0; t-- {
		p := f.ePos[t]
		s := 0.0
		for q := f.eStart[t]; q < f.eStart[t+1]; q++ {
			s += f.eVal[q] * c[f.eIdx[q]]
		}
		c[p] += s
	}
	z := f.work
	for k, col := range f.pivCol {
		zr := c[col] / f.uDiag[k]
		z[f.pivRow[k]] = zr
		if zr == 0 {
			continue
		}
		for t := f.uStart[k]; t < f.uStart[k+1]; t++ {
			c[f.uCol[t]] -= f.uVal[t] * zr
		}
	}
	// Lᵀ by target rows: z of a row is final once the later steps are
	// done, and is then pushed to the pivot rows whose multipliers
	// targeted it; a zero costs nothing.
	for k := len(f.pivRow) - 1; k >= 0; k-- {
		v := z[f.pivRow[k]]
		if v == 0 {
			continue
		}
		for t := f.lrStart[k]; t < f.lrStart[k+1]; t++ {
			z[f.lrRow[t]] -= f.lrVal[t] * v
		}
	}
	copy(c, z)
}

// update records the basis change that puts a column with B⁻¹a = alpha
// (indexed by basis position) into position p.
func (f *factor) update(alpha []float64, p int) {
	ap := alpha[p]
	for i, a := range alpha {
		if i == p {
			f.eIdx = append(f.eIdx, p)
			f.eVal = append(f.eVal, 1/ap-1)
		} else if a != 0 {
			f.eIdx = append(f.eIdx, i)
			f.eVal = append(f.eVal, -a/ap)
		}
	}
	f.ePos = append(f.ePos, p)
	f.eStart = append(f.eStart, len(f.eIdx))
}
