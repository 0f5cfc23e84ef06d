package revised

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
	glp "gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/pmlopt/pmlopt/lp"
)

// gonumSolve solves m with gonum's dense simplex on its standard-form
// conversion and returns the status and the optimal objective.
func gonumSolve(m *lp.Model) (lp.Status, float64) {
	n := m.NumCols()
	// Column j maps to x_j = shift_j + sign_j·z_a (+ −z_b for free).
	type colMap struct {
		a, b  int // z indices; b = -1 unless free
		shift float64
		sign  float64
	}
	cols := make([]colMap, n)
	nz := 0
	for j := 0; j < n; j++ {
		lo, up := m.ColLower[j], m.ColUpper[j]
		switch {
		case !math.IsInf(lo, -1):
			cols[j] = colMap{a: nz, b: -1, shift: lo, sign: 1}
			nz++
		case !math.IsInf(up, 1):
			cols[j] = colMap{a: nz, b: -1, shift: up, sign: -1}
			nz++
		default:
			cols[j] = colMap{a: nz, b: nz + 1, sign: 1}
			nz += 2
		}
	}
	dense := make([][]float64, m.NumRows())
	for i := range dense {
		dense[i] = make([]float64, n)
	}
	for _, e := range m.ConstMatrix {
		dense[e.Row][e.Col] = e.Val
	}
	type row struct {
		coef map[int]float64
		rhs  float64
		kind int // 0 '=', 1 '≤', -1 '≥'
	}
	var rows []row
	addRow := func(a []float64, lo, up float64) {
		coef := map[int]float64{}
		shift := 0.0
		for j, v := range a {
			if v == 0 {
				continue
			}
			c := cols[j]
			shift += v * c.shift
			coef[c.a] += v * c.sign
			if c.b >= 0 {
				coef[c.b] -= v
			}
		}
		if lo == up {
			rows = append(rows, row{coef, lo - shift, 0})
			return
		}
		if !math.IsInf(up, 1) {
			rows = append(rows, row{coef, up - shift, 1})
		}
		if !math.IsInf(lo, -1) {
			rows = append(rows, row{coef, lo - shift, -1})
		}
	}
	for i := range dense {
		addRow(dense[i], m.RowLower[i], m.RowUpper[i])
	}
	for j := 0; j < n; j++ {
		lo, up := m.ColLower[j], m.ColUpper[j]
		if !math.IsInf(lo, -1) && !math.IsInf(up, 1) {
			a := make([]float64, n)
			a[j] = 1
			addRow(a, math.Inf(-1), up)
		}
	}
	nslack := 0
	for _, r := range rows {
		if r.kind != 0 {
			nslack++
		}
	}
	total := nz + nslack
	if len(rows) == 0 || len(rows) > total {
		return lp.Status(-1), 0 // outside what gonum's Simplex accepts
	}
	A := mat.NewDense(len(rows), total, nil)
	b := make([]float64, len(rows))
	s := nz
	for i, r := range rows {
		for k, v := range r.coef {
			A.Set(i, k, v)
		}
		if r.kind != 0 {
			A.Set(i, s, float64(r.kind))
			s++
		}
		b[i] = r.rhs
		if b[i] < 0 {
			for k := 0; k < total; k++ {
				A.Set(i, k, -A.At(i, k))
			}
			b[i] = -b[i]
		}
	}
	c := make([]float64, total)
	off := m.Offset
	sg := 1.0
	if m.Maximize {
		sg = -1
	}
	for j := 0; j < n; j++ {
		cj := sg * m.ColCosts[j]
		col := cols[j]
		off += m.ColCosts[j] * col.shift
		c[col.a] += cj * col.sign
		if col.b >= 0 {
			c[col.b] -= cj
		}
	}
	opt, _, err := glp.Simplex(c, A, b, 1e-10, nil)
	switch {
	case errors.Is(err, glp.ErrInfeasible):
		return lp.Infeasible, 0
	case errors.Is(err, glp.ErrUnbounded):
		// gonum can report unbounded for an infeasible problem: confirm
		// feasibility with a zero objective.
		if _, _, err := glp.Simplex(make([]float64, total), A, b, 1e-10, nil); err != nil {
			if errors.Is(err, glp.ErrInfeasible) {
				return lp.Infeasible, 0
			}
			return lp.Status(-1), 0
		}
		return lp.Unbounded, 0
	case err != nil:
		return lp.Status(-1), 0 // gonum refuses (rank-deficient, zero row): no reference
	}
	return lp.Optimal, sg*opt + off
}

// checkOptimal verifies primal feasibility, dual feasibility and
// complementary slackness of an optimal result, and the objective value.
func checkOptimal(t *testing.T, m *lp.Model, r *Result, tol float64) {
	t.Helper()
	require.Equal(t, lp.Optimal, r.Status)
	n, rows := m.NumCols(), m.NumRows()
	act := make([]float64, rows)
	rc := append([]float64(nil), m.ColCosts...)
	for _, e := range m.ConstMatrix {
		act[e.Row] += e.Val * r.X[e.Col]
		rc[e.Col] -= e.Val * r.RowDuals[e.Row]
	}
	obj := m.Offset
	for j := 0; j < n; j++ {
		obj += m.ColCosts[j] * r.X[j]
		require.GreaterOrEqual(t, r.X[j], m.ColLower[j]-tol, "x[%d]", j)
		require.LessOrEqual(t, r.X[j], m.ColUpper[j]+tol, "x[%d]", j)
		require.InDelta(t, rc[j], r.ColDuals[j], tol, "reduced cost %d", j)
	}
	require.InDelta(t, obj, r.Objective, tol*(1+math.Abs(obj)))
	sg := 1.0
	if m.Maximize {
		sg = -1
	}
	// For a minimisation (sg = 1): d > 0 only at lower bound, d < 0 only at
	// upper bound; same for the row duals and the row activities.
	cs := func(d, v, lo, up float64, what string, k int) {
		d *= sg
		if d > tol {
			require.InDelta(t, lo, v, tol*(1+math.Abs(lo)), "%s %d: positive dual off its lower bound", what, k)
		}
		if d < -tol {
			require.InDelta(t, up, v, tol*(1+math.Abs(up)), "%s %d: negative dual off its upper bound", what, k)
		}
	}
	for i := 0; i < rows; i++ {
		require.InDelta(t, act[i], r.RowActivity[i], tol)
		require.GreaterOrEqual(t, act[i], m.RowLower[i]-tol, "row %d", i)
		require.LessOrEqual(t, act[i], m.RowUpper[i]+tol, "row %d", i)
		cs(r.RowDuals[i], act[i], m.RowLower[i], m.RowUpper[i], "row", i)
	}
	for j := 0; j < n; j++ {
		cs(r.ColDuals[j], r.X[j], m.ColLower[j], m.ColUpper[j], "column", j)
	}
}

// checkFarkas verifies that y proves the model infeasible:
// max (Aᵀy)·x over the column box < min y·r over the row box.
func checkFarkas(t *testing.T, m *lp.Model, y []float64) {
	t.Helper()
	require.Len(t, y, m.NumRows())
	g := make([]float64, m.NumCols())
	for _, e := range m.ConstMatrix {
		g[e.Col] += e.Val * y[e.Row]
	}
	const eps = 1e-9
	maxAx := 0.0
	for j, gj := range g {
		switch {
		case gj > eps:
			maxAx += gj * m.ColUpper[j]
		case gj < -eps:
			maxAx += gj * m.ColLower[j]
		}
	}
	minR := 0.0
	for i, yi := range y {
		switch {
		case yi > eps:
			minR += yi * m.RowLower[i]
		case yi < -eps:
			minR += yi * m.RowUpper[i]
		}
	}
	require.False(t, math.IsNaN(maxAx-minR))
	require.Less(t, maxAx, minR-1e-9, "certificate does not separate")
}

// randomModel draws a bounded random LP with mixed row and column kinds.
func randomModel(rng *rand.Rand, rows, cols int, density float64) *lp.Model {
	m := &lp.Model{Maximize: rng.IntN(2) == 0}
	x0 := make([]float64, cols) // a point used to make most rows feasible
	for j := 0; j < cols; j++ {
		lo, up := 0.0, math.Inf(1)
		switch rng.IntN(6) {
		case 0:
			lo, up = -rng.Float64()*3, rng.Float64()*3
		case 1:
			lo = math.Inf(-1)
			up = rng.Float64() * 4
		case 2:
			up = 1 + rng.Float64()*5
		case 3:
			lo = math.Inf(-1)
		case 4:
			lo, up = 1, 1
		}
		c := math.Round(rng.NormFloat64()*10) / 4
		m.AddCol(c, lo, up, "")
		switch {
		case !math.IsInf(lo, -1) && !math.IsInf(up, 1):
			x0[j] = lo + rng.Float64()*(up-lo)
		case !math.IsInf(lo, -1):
			x0[j] = lo + rng.Float64()*3
		case !math.IsInf(up, 1):
			x0[j] = up - rng.Float64()*3
		default:
			x0[j] = rng.NormFloat64()
		}
	}
	for i := 0; i < rows; i++ {
		var es []lp.Nonzero
		ax := 0.0
		for j := 0; j < cols; j++ {
			if rng.Float64() < density {
				v := math.Round(rng.NormFloat64()*8) / 4
				if v == 0 {
					v = 1
				}
				es = append(es, lp.Entry(j, v))
				ax += v * x0[j]
			}
		}
		lo, up := math.Inf(-1), math.Inf(1)
		switch rng.IntN(5) {
		case 0:
			lo, up = ax, ax
		case 1:
			up = ax + rng.Float64()
		case 2:
			lo = ax - rng.Float64()
		case 3:
			lo, up = ax-rng.Float64(), ax+rng.Float64()
		case 4:
			up = ax - rng.Float64() // possibly infeasible
		}
		m.AddRow(lo, up, "", es...)
	}
	return m
}
