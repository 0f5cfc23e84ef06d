package lp

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// small returns a valid 2-row, 2-column model with names.
func small() *Model {
	m := &Model{}
	x := m.AddCol(1, 0, Inf, "x")
	y := m.AddCol(2, -1, 3, "y")
	m.AddRow(math.Inf(-1), 4, "cap", Entry(x, 1), Entry(y, 1))
	m.AddRow(1, 1, "bal", Entry(x, 1), Entry(y, -1))
	return m
}

func TestValidateAcceptsValid(t *testing.T) {
	require.NoError(t, small().Validate())
	require.NoError(t, (&Model{}).Validate())
}

func TestValidateErrors(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		change func(m *Model)
		want   string
	}{
		{"short col bounds", func(m *Model) { m.ColLower = m.ColLower[:1] }, "2 column costs, 1 lower"},
		{"short row bounds", func(m *Model) { m.RowUpper = m.RowUpper[:1] }, "2 lower and 1 upper row bounds"},
		{"col names", func(m *Model) { m.ColNames = m.ColNames[:1] }, "1 column names for 2 columns"},
		{"row names", func(m *Model) { m.RowNames = append(m.RowNames, "z") }, "3 row names for 2 rows"},
		{"row range", func(m *Model) { m.ConstMatrix[0].Row = 2 }, "row 2, column 0: row out of range"},
		{"negative col", func(m *Model) { m.ConstMatrix[1].Col = -1 }, "row 0, column -1: column out of range"},
		{"duplicate", func(m *Model) { m.ConstMatrix = append(m.ConstMatrix, Nonzero{Row: 1, Col: 1, Val: 3}) }, "column 1 (y) has two coefficients in row 1 (bal)"},
		{"nan coefficient", func(m *Model) { m.ConstMatrix[3].Val = nan }, "coefficient of column 1 (y) in row 1 (bal) is NaN"},
		{"inf coefficient", func(m *Model) { m.ConstMatrix[0].Val = Inf }, "coefficient of column 0 (x) in row 0 (cap) is infinite"},
		{"nan cost", func(m *Model) { m.ColCosts[1] = nan }, "column 1 (y): cost is NaN"},
		{"inf cost", func(m *Model) { m.ColCosts[0] = -Inf }, "column 0 (x): cost is infinite"},
		{"nan offset", func(m *Model) { m.Offset = nan }, "offset is NaN"},
		{"nan col lower", func(m *Model) { m.ColLower[0] = nan }, "column 0 (x): lower bound is NaN"},
		{"nan row upper", func(m *Model) { m.RowUpper[1] = nan }, "row 1 (bal): upper bound is NaN"},
		{"+inf lower", func(m *Model) { m.RowLower[0] = Inf }, "row 0 (cap): lower bound is +Inf"},
		{"-inf upper", func(m *Model) { m.ColUpper[1] = math.Inf(-1) }, "column 1 (y): upper bound is -Inf"},
		{"crossed", func(m *Model) { m.ColLower[1] = 5 }, "column 1 (y): lower bound 5 exceeds upper bound 3"},
		{"crossed unnamed", func(m *Model) { m.RowNames = nil; m.RowLower[1] = 2 }, "lp: row 1: lower bound 2 exceeds upper bound 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := small()
			tc.change(m)
			err := m.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestAddNamesStayComplete(t *testing.T) {
	m := &Model{}
	m.AddCol(0, 0, 1, "")
	assert.Nil(t, m.ColNames)
	m.AddCol(0, 0, 1, "b")
	assert.Equal(t, []string{"", "b"}, m.ColNames)
	m.AddCol(0, 0, 1, "")
	assert.Equal(t, []string{"", "b", ""}, m.ColNames)
	require.NoError(t, m.Validate())
}

func TestCSC(t *testing.T) {
	// A = [[1 0 2]
	//      [0 3 0]
	//      [4 5 6]], entries given in scrambled order.
	m := &Model{ColCosts: make([]float64, 3), ColLower: make([]float64, 3), ColUpper: []float64{1, 1, 1},
		RowLower: make([]float64, 3), RowUpper: []float64{1, 1, 1}}
	m.ConstMatrix = []Nonzero{{2, 2, 6}, {0, 0, 1}, {2, 0, 4}, {1, 1, 3}, {0, 2, 2}, {2, 1, 5}}
	start, rows, vals := m.CSC()
	assert.Equal(t, []int{0, 2, 4, 6}, start)
	assert.Equal(t, []int{0, 2, 1, 2, 0, 2}, rows)
	assert.Equal(t, []float64{1, 4, 3, 5, 2, 6}, vals)

	start, rows, vals = (&Model{}).CSC()
	assert.Equal(t, []int{0}, start)
	assert.Empty(t, rows)
	assert.Empty(t, vals)
}

func TestClone(t *testing.T) {
	m := small()
	c := m.Clone()
	require.Equal(t, m, c)
	c.ColCosts[0] = 9
	c.ConstMatrix[0].Val = 9
	c.RowNames[0] = "other"
	c.RowLower[1] = -7
	assert.Equal(t, 1.0, m.ColCosts[0])
	assert.Equal(t, 1.0, m.ConstMatrix[0].Val)
	assert.Equal(t, "cap", m.RowNames[0])
	assert.Equal(t, 1.0, m.RowLower[1])
}

func TestEval(t *testing.T) {
	m := small()
	m.Offset = 0.5
	// x=2.5, y=1.5: cap = 4 (tight), bal = 1 (tight), objective 1·2.5+2·1.5+0.5.
	ev := m.Eval([]float64{2.5, 1.5})
	assert.Equal(t, 6.0, ev.Objective)
	assert.Equal(t, []float64{4, 1}, ev.Activity)
	assert.Equal(t, 0.0, ev.MaxViolation)
	assert.Equal(t, -1, ev.Row)
	assert.Equal(t, -1, ev.Col)
	assert.Equal(t, "", m.Where(ev))

	// x=3, y=-2: y below its bound by 1, bal = 5 (4 over): the row wins.
	ev = m.Eval([]float64{3, -2})
	assert.Equal(t, 4.0, ev.MaxViolation)
	assert.Equal(t, 1, ev.Row)
	assert.Equal(t, "row 1 (bal)", m.Where(ev))

	// x=-0.25, y=-1.25: bal = 1, cap = -1.5; x and y are both 0.25 below
	// their lower bounds, and the first column found is reported.
	ev = m.Eval([]float64{-0.25, -1.25})
	assert.Equal(t, 0.25, ev.MaxViolation)
	assert.Equal(t, 0, ev.Col)
	assert.Equal(t, "column 0 (x)", m.Where(ev))
	assert.Equal(t, 0.25, m.MaxViolation([]float64{-0.25, -1.25}))

	assert.True(t, math.IsInf(m.MaxViolation([]float64{math.NaN(), 0}), 1))
	assert.Equal(t, []float64{4, 1}, m.Activity([]float64{2.5, 1.5}))
	assert.Equal(t, 6.0, m.Objective([]float64{2.5, 1.5}))
	// A point of the wrong length is no solution.
	ev = m.Eval([]float64{1})
	assert.True(t, math.IsInf(ev.MaxViolation, 1))
	assert.True(t, math.IsNaN(ev.Objective))
	assert.Equal(t, "", m.Where(ev))
	assert.Nil(t, m.Activity(nil))
	// So is any point of a model whose non-zeros are out of range.
	bad := m.Clone()
	bad.ConstMatrix[0].Col = 7
	assert.True(t, math.IsInf(bad.MaxViolation([]float64{2.5, 1.5}), 1))
	cs, ri, vs := bad.CSC()
	assert.Nil(t, cs)
	assert.Nil(t, ri)
	assert.Nil(t, vs)
}
