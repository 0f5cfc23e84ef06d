package revised

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/lp"
)

// subModel returns m with only the columns keep (in that order), and those
// columns as Column values.
func subModel(m *lp.Model, keep []int) (*lp.Model, []Column) {
	s := &lp.Model{Maximize: m.Maximize, Offset: m.Offset,
		RowLower: append([]float64(nil), m.RowLower...), RowUpper: append([]float64(nil), m.RowUpper...)}
	pos := map[int]int{}
	cols := make([]Column, len(keep))
	for k, j := range keep {
		pos[j] = s.AddCol(m.ColCosts[j], m.ColLower[j], m.ColUpper[j], "")
		cols[k] = Column{Cost: m.ColCosts[j], Lower: m.ColLower[j], Upper: m.ColUpper[j]}
	}
	for _, e := range m.ConstMatrix {
		if p, ok := pos[e.Col]; ok {
			s.ConstMatrix = append(s.ConstMatrix, lp.Nonzero{Row: e.Row, Col: p, Val: e.Val})
			k := p
			cols[k].Rows = append(cols[k].Rows, e.Row)
			cols[k].Vals = append(cols[k].Vals, e.Val)
		}
	}
	return s, cols
}

func coldObjective(t *testing.T, m *lp.Model) (Status, float64) {
	t.Helper()
	r, err := Solve(m, nil)
	require.NoError(t, err)
	return r.Status, r.Objective
}

// TestAddRemoveReplaceCols grows, shrinks and changes random LPs column by
// column and checks every warm solve against a cold solve of the same model.
func TestAddRemoveReplaceCols(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	checked := 0
	for trial := 0; trial < 200; trial++ {
		rows, n := 3+rng.IntN(8), 4+rng.IntN(12)
		full := randomModel(rng, rows, n, 0.5)
		all := make([]int, n)
		for j := range all {
			all[j] = j
		}
		half := n / 2
		first, _ := subModel(full, all[:half])
		_, rest := subModel(full, all[half:])
		s, err := New(first, nil)
		require.NoError(t, err)
		_, err = s.Solve()
		require.NoError(t, err)

		// Add the other half: the same LP as the full model.
		at, err := s.AddCols(rest)
		require.NoError(t, err)
		require.Equal(t, half, at)
		require.Equal(t, n, s.NumCols())
		warm, err := s.Solve()
		require.NoError(t, err)
		st, obj := coldObjective(t, full)
		require.Equal(t, st, warm.Status, "trial %d", trial)
		if st != Optimal {
			continue
		}
		checkOptimal(t, full, warm, 1e-7)
		assert.InDelta(t, obj, warm.Objective, 1e-7*(1+math.Abs(obj)), "trial %d: after AddCols", trial)

		// Change the costs and entries of a few columns.
		var idx []int
		var repl []Column
		changed := &lp.Model{Maximize: full.Maximize, Offset: full.Offset, RowLower: full.RowLower, RowUpper: full.RowUpper,
			ColCosts: append([]float64(nil), full.ColCosts...), ColLower: full.ColLower, ColUpper: full.ColUpper}
		newVals := map[[2]int]float64{}
		for j := 0; j < n; j += 3 {
			c := Column{Cost: math.Round(rng.NormFloat64()*8) / 4, Lower: full.ColLower[j], Upper: full.ColUpper[j]}
			for i := 0; i < rows; i++ {
				if rng.Float64() < 0.5 {
					v := math.Round(rng.NormFloat64()*8) / 4
					if v == 0 {
						continue
					}
					c.Rows, c.Vals = append(c.Rows, i), append(c.Vals, v)
					newVals[[2]int{i, j}] = v
				}
			}
			changed.ColCosts[j] = c.Cost
			idx, repl = append(idx, j), append(repl, c)
		}
		for _, e := range full.ConstMatrix {
			if e.Col%3 != 0 {
				changed.ConstMatrix = append(changed.ConstMatrix, e)
			}
		}
		for k, v := range newVals {
			changed.ConstMatrix = append(changed.ConstMatrix, lp.Nonzero{Row: k[0], Col: k[1], Val: v})
		}
		require.NoError(t, s.ReplaceCols(idx, repl))
		warm, err = s.Solve()
		require.NoError(t, err)
		st, obj = coldObjective(t, changed)
		require.Equal(t, st, warm.Status, "trial %d: after ReplaceCols", trial)
		if st != Optimal {
			continue
		}
		checkOptimal(t, changed, warm, 1e-7)

		// Remove the nonbasic columns resting at 0: the optimum stays.
		var gone, kept []int
		for j := 0; j < n; j++ {
			if !s.IsBasic(j) && warm.X[j] == 0 {
				gone = append(gone, j)
			} else {
				kept = append(kept, j)
			}
		}
		require.NoError(t, s.RemoveCols(gone))
		require.Equal(t, len(kept), s.NumCols())
		again, err := s.Solve()
		require.NoError(t, err)
		require.Equal(t, Optimal, again.Status)
		sub, _ := subModel(changed, kept)
		checkOptimal(t, sub, again, 1e-7)
		assert.InDelta(t, warm.Objective, again.Objective, 1e-7*(1+math.Abs(obj)), "trial %d: after RemoveCols", trial)
		assert.Zero(t, again.Iterations, "trial %d: removing nonbasic columns kept the optimal basis", trial)
		checked++
	}
	assert.Greater(t, checked, 50)
}

func TestColumnErrors(t *testing.T) {
	m := &lp.Model{}
	m.AddCol(1, 0, lp.Inf, "")
	m.AddRow(1, 1, "", lp.Entry(0, 1))
	s, err := New(m, nil)
	require.NoError(t, err)
	_, err = s.Solve()
	require.NoError(t, err)
	for _, c := range []Column{
		{Cost: math.NaN(), Upper: 1},
		{Lower: 2, Upper: math.Inf(-1)},
		{Upper: 1, Rows: []int{0}},
		{Upper: 1, Rows: []int{1}, Vals: []float64{1}},
		{Upper: 1, Rows: []int{0}, Vals: []float64{math.Inf(1)}},
		{Upper: 1, Rows: []int{0, 0}, Vals: []float64{1, 2}},
	} {
		_, err := s.AddCols([]Column{c})
		assert.Error(t, err, "%+v", c)
		assert.Error(t, s.ReplaceCols([]int{0}, []Column{c}), "%+v", c)
	}
	assert.Equal(t, 1, s.NumCols(), "a refused column changed the model")
	assert.Error(t, s.ReplaceCols([]int{3}, []Column{{Upper: 1}}))
	assert.Error(t, s.ReplaceCols([]int{0}, nil))
	assert.Error(t, s.RemoveCols([]int{0}), "column 0 is basic")
	assert.Error(t, s.RemoveCols([]int{5}))
	assert.True(t, s.IsBasic(0))
	assert.False(t, s.IsBasic(9))
}
