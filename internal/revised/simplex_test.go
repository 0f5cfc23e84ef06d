package revised

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/lp"
)

var inf = math.Inf(1)

// TestTextbook: max 3x + 5y s.t. x ≤ 4, 2y ≤ 12, 3x + 2y ≤ 18 (Hillier and
// Lieberman's Wyndor problem): optimum 36 at (2, 6), shadow prices (0, 3/2, 1).
func TestTextbook(t *testing.T) {
	m := &lp.Model{Maximize: true}
	x := m.AddCol(3, 0, inf, "x")
	y := m.AddCol(5, 0, inf, "y")
	m.AddRow(-inf, 4, "", lp.Entry(x, 1))
	m.AddRow(-inf, 12, "", lp.Entry(y, 2))
	m.AddRow(-inf, 18, "", lp.Entry(x, 3), lp.Entry(y, 2))
	r, err := Solve(m, nil)
	require.NoError(t, err)
	checkOptimal(t, m, r, 1e-12)
	assert.InDelta(t, 36, r.Objective, 1e-12)
	assert.InDeltaSlice(t, []float64{2, 6}, r.X, 1e-12)
	assert.InDeltaSlice(t, []float64{0, 1.5, 1}, r.RowDuals, 1e-12)
	assert.InDeltaSlice(t, []float64{0, 0}, r.ColDuals, 1e-12)
}

// TestBeale is Beale's cycling example (min −3/4 x4 + 150 x5 − 1/50 x6 + 6 x7
// with the classic three rows); its optimum is −1/20 at x4 = 1/25, x6 = 1,
// x1 = 3/100 (x1..x3 are the slacks, here row activities).
func TestBeale(t *testing.T) {
	m := &lp.Model{}
	x4 := m.AddCol(-0.75, 0, inf, "")
	x5 := m.AddCol(150, 0, inf, "")
	x6 := m.AddCol(-0.02, 0, inf, "")
	x7 := m.AddCol(6, 0, inf, "")
	m.AddRow(-inf, 0, "", lp.Entry(x4, 0.25), lp.Entry(x5, -60), lp.Entry(x6, -0.04), lp.Entry(x7, 9))
	m.AddRow(-inf, 0, "", lp.Entry(x4, 0.5), lp.Entry(x5, -90), lp.Entry(x6, -0.02), lp.Entry(x7, 3))
	m.AddRow(-inf, 1, "", lp.Entry(x6, 1))
	r, err := Solve(m, nil)
	require.NoError(t, err)
	checkOptimal(t, m, r, 1e-12)
	assert.InDelta(t, -0.05, r.Objective, 1e-12)
	assert.InDeltaSlice(t, []float64{0.04, 0, 1, 0}, r.X, 1e-12)
}

func TestInfeasible(t *testing.T) {
	// x + y ≥ 3 with x, y ∈ [0, 1].
	m := &lp.Model{}
	x := m.AddCol(1, 0, 1, "")
	y := m.AddCol(1, 0, 1, "")
	m.AddRow(3, inf, "", lp.Entry(x, 1), lp.Entry(y, 1))
	r, err := Solve(m, nil)
	require.NoError(t, err)
	require.Equal(t, lp.Infeasible, r.Status)
	checkFarkas(t, m, r.Certificate)

	// x − y = 1, x − y = 2 with free variables: only the rows conflict.
	m = &lp.Model{}
	x = m.AddCol(0, -inf, inf, "")
	y = m.AddCol(0, -inf, inf, "")
	m.AddRow(1, 1, "", lp.Entry(x, 1), lp.Entry(y, -1))
	m.AddRow(2, 2, "", lp.Entry(x, 1), lp.Entry(y, -1))
	r, err = Solve(m, nil)
	require.NoError(t, err)
	require.Equal(t, lp.Infeasible, r.Status)
	checkFarkas(t, m, r.Certificate)
}

func TestUnbounded(t *testing.T) {
	// max x + y s.t. x − y ≤ 1, x, y ≥ 0.
	m := &lp.Model{Maximize: true}
	x := m.AddCol(1, 0, inf, "")
	y := m.AddCol(1, 0, inf, "")
	m.AddRow(-inf, 1, "", lp.Entry(x, 1), lp.Entry(y, -1))
	r, err := Solve(m, nil)
	require.NoError(t, err)
	assert.Equal(t, lp.Unbounded, r.Status)

	// min x with x free and no rows.
	m = &lp.Model{}
	m.AddCol(1, -inf, inf, "")
	r, err = Solve(m, nil)
	require.NoError(t, err)
	assert.Equal(t, lp.Unbounded, r.Status)
}

// TestUnboundedAfterUpdates: a ray found on updated factors, after
// pivots and with no refactorisation due, is checked on fresh factors and
// still reported: max x1 + x2 + x3 + x4 s.t. x1 ≤ 1, x2 ≤ 1,
// x3 − x4 ≤ 2, x ≥ 0, where x3 and x4 grow together without bound.
func TestUnboundedAfterUpdates(t *testing.T) {
	m := &lp.Model{Maximize: true}
	var x [4]int
	for k := range x {
		x[k] = m.AddCol(float64(4-k), 0, inf, "")
	}
	m.AddRow(-inf, 1, "", lp.Entry(x[0], 1))
	m.AddRow(-inf, 1, "", lp.Entry(x[1], 1))
	m.AddRow(-inf, 2, "", lp.Entry(x[2], 1), lp.Entry(x[3], -1))
	r, err := Solve(m, &Options{RefactorEvery: 1000})
	require.NoError(t, err)
	assert.Equal(t, lp.Unbounded, r.Status)
	assert.GreaterOrEqual(t, r.Iterations, 3, "the ray comes after the pivots of x1, x2 and x3")
}

// TestFreeFixedRanged: min x + 2y − z with x free, y fixed at 1.5,
// z ≤ 4 (free below), 1 ≤ x + z ≤ 3 (ranged), x − y ≥ −1.
// x ≥ y − 1 = 0.5; objective x − z + 3: minimise x − z with x + z ≤ 3,
// z ≤ 4: x = 0.5, z = 2.5 gives −2 (+3 = 1); x + z = 3 active.
func TestFreeFixedRanged(t *testing.T) {
	m := &lp.Model{}
	x := m.AddCol(1, -inf, inf, "")
	y := m.AddCol(2, 1.5, 1.5, "")
	z := m.AddCol(-1, -inf, 4, "")
	m.AddRow(1, 3, "", lp.Entry(x, 1), lp.Entry(z, 1))
	m.AddRow(-1, inf, "", lp.Entry(x, 1), lp.Entry(y, -1))
	r, err := Solve(m, nil)
	require.NoError(t, err)
	checkOptimal(t, m, r, 1e-12)
	assert.InDelta(t, 1, r.Objective, 1e-12)
	assert.InDeltaSlice(t, []float64{0.5, 1.5, 2.5}, r.X, 1e-12)
	// Duals: d(obj)/d(upper of row 0) = −1, d/d(lower of row 1) = 2.
	assert.InDeltaSlice(t, []float64{-1, 2}, r.RowDuals, 1e-12)
}

// TestCrossedBoundsAndNewCoef: crossed bounds are infeasible, not an error,
// and SetCoef may add a non-zero.
func TestCrossedBoundsAndNewCoef(t *testing.T) {
	m := &lp.Model{Maximize: true}
	x := m.AddCol(1, 0, inf, "")
	y := m.AddCol(1, 0, 2, "")
	m.AddRow(-inf, 1, "", lp.Entry(x, 1))
	s, err := New(m, nil)
	require.NoError(t, err)
	r, err := s.Solve()
	require.NoError(t, err)
	assert.InDelta(t, 3, r.Objective, 1e-12)
	require.NoError(t, s.SetColBounds(y, 2, 1))
	r, err = s.Solve()
	require.NoError(t, err)
	assert.Equal(t, lp.Infeasible, r.Status)
	require.NoError(t, s.SetColBounds(y, 0, 2))
	require.NoError(t, s.SetCoef(0, y, 1)) // x + y ≤ 1
	r, err = s.Solve()
	require.NoError(t, err)
	assert.InDelta(t, 1, r.Objective, 1e-12)
	m.ConstMatrix = append(m.ConstMatrix, lp.Nonzero{Row: 0, Col: y, Val: 1})
	checkOptimal(t, m, r, 1e-12)
}

func TestEmptyAndOffset(t *testing.T) {
	m := &lp.Model{Offset: 2.5}
	m.AddCol(1, 1, 3, "")
	m.AddCol(-1, 1, 3, "")
	r, err := Solve(m, nil)
	require.NoError(t, err)
	checkOptimal(t, m, r, 1e-12)
	assert.InDelta(t, 2.5+1-3, r.Objective, 1e-12)
}

func TestInvalid(t *testing.T) {
	for name, m := range map[string]*lp.Model{
		"nil":       nil,
		"nan cost":  {ColCosts: []float64{math.NaN()}, ColLower: []float64{0}, ColUpper: []float64{1}},
		"inf lower": {ColCosts: []float64{1}, ColLower: []float64{inf}, ColUpper: []float64{inf}},
		"bad entry": {ColCosts: []float64{1}, ColLower: []float64{0}, ColUpper: []float64{1},
			RowLower: []float64{0}, RowUpper: []float64{1}, ConstMatrix: []lp.Nonzero{{Row: 1, Col: 0, Val: 1}}},
		"duplicate": {ColCosts: []float64{1}, ColLower: []float64{0}, ColUpper: []float64{1},
			RowLower: []float64{0}, RowUpper: []float64{1}, ConstMatrix: []lp.Nonzero{{Row: 0, Col: 0, Val: 1}, {Row: 0, Col: 0, Val: 2}}},
		"short": {ColCosts: []float64{1, 2}, ColLower: []float64{0}, ColUpper: []float64{1}},
	} {
		_, err := Solve(m, nil)
		assert.ErrorIs(t, err, ErrInvalid, name)
	}
	m := &lp.Model{}
	c := m.AddCol(1, 0, 1, "")
	m.AddRow(0, 1, "", lp.Entry(c, 1))
	s, err := New(m, nil)
	require.NoError(t, err)
	assert.Error(t, s.SetCoef(0, 1, 1))
	assert.Error(t, s.SetColBounds(0, math.NaN(), 1))
	assert.Error(t, s.SetRowBounds(3, 0, 1))
	assert.Error(t, s.SetColCost(0, math.Inf(1)))
}

// TestRandomAgainstGonum compares status and objective with gonum's dense
// simplex on random LPs with every kind of bound.
func TestRandomAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	compared := map[lp.Status]int{}
	for trial := 0; trial < 300; trial++ {
		rows, cols := 1+rng.IntN(12), 1+rng.IntN(12)
		m := randomModel(rng, rows, cols, 0.2+0.6*rng.Float64())
		r, err := Solve(m, nil)
		require.NoError(t, err)
		st, obj := gonumSolve(m)
		if st < 0 {
			continue
		}
		compared[st]++
		require.Equal(t, st, r.Status, "trial %d", trial)
		switch r.Status {
		case lp.Optimal:
			checkOptimal(t, m, r, 1e-9)
			require.InDelta(t, obj, r.Objective, 1e-7*(1+math.Abs(obj)), "trial %d", trial)
		case lp.Infeasible:
			checkFarkas(t, m, r.Certificate)
		}
	}
	t.Logf("compared with gonum: %v", compared)
	assert.Greater(t, compared[lp.Optimal], 50)
	assert.Greater(t, compared[lp.Infeasible], 10)
}

// TestWarmEqualsCold changes bounds, costs and coefficients of random LPs in
// a session and checks every warm re-solve against a cold solve.
func TestWarmEqualsCold(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 60; trial++ {
		rows, cols := 2+rng.IntN(10), 2+rng.IntN(10)
		m := randomModel(rng, rows, cols, 0.5)
		s, err := New(m, nil)
		require.NoError(t, err)
		for round := 0; round < 5; round++ {
			warm, err := s.Solve()
			require.NoError(t, err)
			cold, err := Solve(m, nil)
			require.NoError(t, err)
			require.Equal(t, cold.Status, warm.Status, "trial %d round %d", trial, round)
			if warm.Status == lp.Optimal {
				checkOptimal(t, m, warm, 1e-9)
				require.InDelta(t, cold.Objective, warm.Objective, 1e-9*(1+math.Abs(cold.Objective)))
			}
			if warm.Status == lp.Infeasible {
				checkFarkas(t, m, warm.Certificate)
			}
			// Change something, in the session and in m alike.
			switch rng.IntN(4) {
			case 0:
				e := &m.ConstMatrix[rng.IntN(len(m.ConstMatrix)+1)%max(1, len(m.ConstMatrix))]
				if len(m.ConstMatrix) == 0 {
					continue
				}
				e.Val += rng.NormFloat64()
				require.NoError(t, s.SetCoef(e.Row, e.Col, e.Val))
			case 1:
				j := rng.IntN(cols)
				lo := math.Round(rng.NormFloat64() * 2)
				up := lo + math.Round(rng.Float64()*3)
				if rng.IntN(3) == 0 {
					up = inf
				}
				m.ColLower[j], m.ColUpper[j] = lo, up
				require.NoError(t, s.SetColBounds(j, lo, up))
			case 2:
				i := rng.IntN(rows)
				lo := math.Round(rng.NormFloat64() * 2)
				up := lo + math.Round(rng.Float64()*3)
				if rng.IntN(3) == 0 {
					lo = -inf
				}
				m.RowLower[i], m.RowUpper[i] = lo, up
				require.NoError(t, s.SetRowBounds(i, lo, up))
			case 3:
				j := rng.IntN(cols)
				m.ColCosts[j] = math.Round(rng.NormFloat64() * 4)
				require.NoError(t, s.SetColCost(j, m.ColCosts[j]))
			}
		}
	}
}

// TestLUSolves checks FTRAN/BTRAN with eta updates against dense products.
func TestLUSolves(t *testing.T) {
	for _, n := range []int{30, 150} {
		testLUSolves(t, n, 0)
		// Some large entries, so that some candidates fail the
		// threshold test.
		testLUSolves(t, n, 20)
	}
}

// testLUSolves factorises a random sparse n×n matrix (with big added to one
// random entry of every seventh column when big is not 0), checks that every
// pivot passed the threshold test, then checks ftran and btran against dense
// products, with dense and with unit vectors, before and after product-form
// updates.
func testLUSolves(t *testing.T, n int, big float64) {
	rng := rand.New(rand.NewPCG(5, uint64(n)))
	cols := make([][]float64, n)
	for p := range cols {
		cols[p] = make([]float64, n)
		cols[p][p] = 1 + rng.Float64()
		for k := 0; k < 3; k++ {
			cols[p][rng.IntN(n)] += rng.NormFloat64()
		}
		if big != 0 && p%7 == 0 {
			cols[p][rng.IntN(n)] += big
		}
	}
	f := newFactor(n)
	bad, _ := f.factorize(denseColumns(cols))
	require.Nil(t, bad)
	checkThreshold(t, f)
	check := func() {
		for k := -1; k < 3; k++ {
			x := make([]float64, n)
			if k < 0 {
				for i := range x {
					x[i] = rng.NormFloat64()
				}
			} else {
				x[rng.IntN(n)] = 1 // a unit vector: the solves skip its zeros
			}
			checkSolves(t, f, cols, x)
		}
	}
	check()
	for u := 0; u < 10; u++ {
		a := make([]float64, n)
		for k := 0; k < 4; k++ {
			a[rng.IntN(n)] = rng.NormFloat64()
		}
		p := rng.IntN(n)
		a[p] += 3
		alpha := append([]float64(nil), a...)
		f.ftran(alpha)
		if math.Abs(alpha[p]) < 1e-3 {
			continue
		}
		f.update(alpha, p)
		cols[p] = a
		check()
	}
}

// denseColumns gives the non-zeros of the dense columns cols in the form
// factorize reads.
func denseColumns(cols [][]float64) func(p int) ([]int, []float64) {
	return func(p int) ([]int, []float64) {
		var idx []int
		var val []float64
		for i, v := range cols[p] {
			if v != 0 {
				idx = append(idx, i)
				val = append(val, v)
			}
		}
		return idx, val
	}
}

// checkThreshold checks the threshold test on the factors: each pivot is at
// least luThreshold times every other entry of its U row (the active row it
// was chosen in). A pivot search that misses a row's change, or takes an
// entry that fails the test, breaks it.
func checkThreshold(t *testing.T, f *factor) {
	t.Helper()
	bad := 0
	for k := range f.pivRow {
		for q := f.uStart[k]; q < f.uStart[k+1]; q++ {
			if math.Abs(f.uDiag[k]) < luThreshold*math.Abs(f.uVal[q])*(1-1e-12) {
				bad++
			}
		}
	}
	assert.Zero(t, bad, "U entries larger than 1/luThreshold times their pivot")
}

// checkSolves checks ftran(B x) = x and btran(Bᵀ x) = x.
func checkSolves(t *testing.T, f *factor, cols [][]float64, x []float64) {
	t.Helper()
	n := len(x)
	{
		b := make([]float64, n) // B x
		for p := 0; p < n; p++ {
			for i := 0; i < n; i++ {
				b[i] += cols[p][i] * x[p]
			}
		}
		f.ftran(b)
		assert.InDeltaSlice(t, x, b, 1e-9)
		c := make([]float64, n) // Bᵀ x
		for p := 0; p < n; p++ {
			for i := 0; i < n; i++ {
				c[p] += cols[p][i] * x[i]
			}
		}
		f.btran(c)
		assert.InDeltaSlice(t, x, c, 1e-9)
	}
}

// TestLUThresholdFallback factorises a matrix on which the Markowitz search
// of the columns of least count finds no pivot passing the threshold: every
// row's largest entry (100) is in one of four dense "hub" columns, and the
// sparse columns hold only entries of size 1 (ratio 0.01 < 0.1). The search
// then goes on over the rows of least count; the solves must still be exact.
func TestLUThresholdFallback(t *testing.T) {
	const n = 40
	cols := make([][]float64, n)
	for p := range cols {
		cols[p] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		cols[i/10*10][i] = 100 + float64(i) // hub columns 0, 10, 20, 30
	}
	for p := 0; p < n; p++ {
		if p%10 != 0 {
			cols[p][p] += 1
			cols[p][(p+n-1)%n] += 1 + 0.01*float64(p)
		}
	}
	f := newFactor(n)
	bad, _ := f.factorize(denseColumns(cols))
	require.Nil(t, bad)
	checkThreshold(t, f)
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	checkSolves(t, f, cols, x)
}

// TestFreedFixedColumnStays: a nonbasic column fixed at [0, 0] that sits at
// its upper bound stays at 0 when its bounds become [0, 1], so a warm
// solve whose optimum it does not enter takes no pivot. Moved to the new
// upper bound instead, it would throw the basis far from feasible.
func TestFreedFixedColumnStays(t *testing.T) {
	m := &lp.Model{Maximize: true}
	x := m.AddCol(2, 0, 1, "")
	y := m.AddCol(1, 0, 1, "")
	z := m.AddCol(0, 0, 0, "")
	m.AddRow(-inf, 1.5, "", lp.Entry(x, 1), lp.Entry(y, 1), lp.Entry(z, 1))
	s, err := New(m, nil)
	require.NoError(t, err)
	r, err := s.Solve()
	require.NoError(t, err)
	require.Equal(t, lp.Optimal, r.Status)
	assert.InDelta(t, 2.5, r.Objective, 1e-12)
	require.NotEqual(t, basic, s.state[z])
	s.state[z] = atUpper // where a fixed column can leave the basis
	require.NoError(t, s.SetColBounds(z, 0, 1))
	assert.Equal(t, atLower, s.state[z])
	r, err = s.Solve()
	require.NoError(t, err)
	require.Equal(t, lp.Optimal, r.Status)
	assert.InDelta(t, 2.5, r.Objective, 1e-12)
	assert.Equal(t, 0, r.Iterations)
	assert.Zero(t, r.X[z])
}

// TestSetBoundsKeepsNonbasicValue: a nonbasic variable whose new bounds
// hold its value stays on the bound at that value, for columns and for
// rows (whose bounds are scaled by a power of 2 inside); one whose value
// no bound holds keeps its side where that bound is finite.
func TestSetBoundsKeepsNonbasicValue(t *testing.T) {
	m := &lp.Model{}
	x := m.AddCol(1, 0, 0, "")
	m.AddRow(-inf, 3, "", lp.Entry(x, 1000)) // scaled inside: rs ≠ 1
	s, err := New(m, nil)
	require.NoError(t, err)
	require.NotEqual(t, 1.0, s.rs[0], "the row should be scaled")
	row := s.n
	for _, c := range []struct {
		name     string
		j        int
		state    int8
		lb, ub   float64 // before, in the model's units
		nlb, nub float64 // after
		want     int8
		row      bool
	}{
		{"fixed column freed upwards", x, atUpper, 0, 0, 0, 1, atLower, false},
		{"fixed column freed downwards", x, atLower, 0, 0, -1, 0, atUpper, false},
		{"upper bound moved, lower kept", x, atUpper, -1, 0, -1, 2, atUpper, false},
		{"free variable at zero bounded above by 0", x, atZero, -inf, inf, -5, 0, atUpper, false},
		{"value held by neither bound, finite side kept", x, atUpper, 0, 1, 0, 2, atUpper, false},
		{"lower side lost to −∞", x, atLower, 0, 1, -inf, 1, atUpper, false},
		{"row fixed at 2, freed upwards", row, atUpper, 2, 2, 2, 3, atLower, true},
	} {
		var err error
		if c.row {
			require.NoError(t, s.SetRowBounds(0, c.lb, c.ub))
		} else {
			require.NoError(t, s.SetColBounds(x, c.lb, c.ub))
		}
		s.state[c.j] = c.state
		if c.row {
			err = s.SetRowBounds(0, c.nlb, c.nub)
		} else {
			err = s.SetColBounds(x, c.nlb, c.nub)
		}
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, s.state[c.j], c.name)
	}
}
