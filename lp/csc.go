package lp

// CSC returns the constraint matrix in compressed sparse column form, the
// layout Clp and most simplex codes take: the entries of column j are
// rowIndex[colStart[j]:colStart[j+1]] and values[colStart[j]:colStart[j+1]],
// sorted by row. colStart has NumCols()+1 entries.
//
// The conversion is a two-pass counting sort, linear in the size of the
// model. The non-zeros must have rows and columns in range (see Validate);
// CSC returns nils otherwise. Duplicate entries are kept, side by side.
func (m *Model) CSC() (colStart []int, rowIndex []int, values []float64) {
	if !m.consistent() {
		return nil, nil, nil
	}
	n, r, nnz := m.NumCols(), m.NumRows(), len(m.ConstMatrix)
	// Pass 1: bucket the non-zeros by row, keeping their input order.
	rowStart := make([]int, r+1)
	for _, e := range m.ConstMatrix {
		rowStart[e.Row+1]++
	}
	for i := range r {
		rowStart[i+1] += rowStart[i]
	}
	byRow := make([]int, nnz)
	next := make([]int, r)
	copy(next, rowStart[:r])
	for k, e := range m.ConstMatrix {
		byRow[next[e.Row]] = k
		next[e.Row]++
	}
	// Pass 2: stable bucket by column, so rows come out ascending.
	colStart = make([]int, n+1)
	for _, e := range m.ConstMatrix {
		colStart[e.Col+1]++
	}
	for j := range n {
		colStart[j+1] += colStart[j]
	}
	rowIndex = make([]int, nnz)
	values = make([]float64, nnz)
	pos := make([]int, n)
	copy(pos, colStart[:n])
	for _, k := range byRow {
		e := m.ConstMatrix[k]
		rowIndex[pos[e.Col]] = e.Row
		values[pos[e.Col]] = e.Val
		pos[e.Col]++
	}
	return colStart, rowIndex, values
}
