package colgen

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/pmlopt/pmlopt/internal/revised"
	"github.com/pmlopt/pmlopt/lp"
)

// randomColumn draws a master column: non-negative entries on a random
// subset of rows, sometimes dead, sometimes a copy of an earlier column
// (the master's degenerate ties).
func randomColumn(rng *rand.Rand, n int, prev []denseCol) denseCol {
	if len(prev) > 0 && rng.IntN(6) == 0 {
		return prev[rng.IntN(len(prev))]
	}
	var c denseCol
	c.dead = rng.IntN(10) == 0
	level := 1 + rng.Float64()
	for i := range n {
		if rng.IntN(3) > 0 {
			c.rows = append(c.rows, i)
			v := level // most entries share the column's level, as λ does
			if rng.IntN(4) == 0 {
				v = rng.Float64() * level
			}
			c.vals = append(c.vals, v)
		}
	}
	return c
}

// randomMaster is an engine over n rows with up to 3n random columns,
// and the columns.
func randomMaster(rng *rand.Rand, n int) (*dense, []denseCol) {
	e := newDense(n)
	var cs []denseCol
	for range 1 + rng.IntN(3*n) {
		c := randomColumn(rng, n, cs)
		cs = append(cs, c)
		e.add(c)
	}
	return e, cs
}

// reference solves the master over cs cold with the revised engine.
func reference(t *testing.T, n int, cs []denseCol) float64 {
	t.Helper()
	m := &lp.Model{}
	for range n {
		c := m.AddCol(1, 0, lp.Inf, "")
		m.AddRow(1, 1, "", lp.Entry(c, 1))
	}
	for _, c := range cs {
		up := lp.Inf
		if c.dead {
			up = 0
		}
		k := m.AddCol(0, 0, up, "")
		for t, i := range c.rows {
			m.ConstMatrix = append(m.ConstMatrix, lp.Nonzero{Row: i, Col: k, Val: c.vals[t]})
		}
	}
	r, err := revised.Solve(m, nil)
	require.NoError(t, err)
	require.Equal(t, lp.Optimal, r.Status)
	return r.Objective
}

// checkOptimal verifies the KKT conditions of a dense solve over cs: x ≥ 0
// (dead columns at 0), s + Σ w v = 1, reduced costs ≥ −tol, and zero
// reduced costs on the basic variables.
func checkOptimal(t *testing.T, e *dense, cs []denseCol, r *denseResult) {
	t.Helper()
	n := e.n
	const tol = 1e-9
	row := make([]float64, n)
	obj := 0.0
	for i := range n {
		row[i] = r.X[i]
		obj += r.X[i]
		require.GreaterOrEqual(t, r.X[i], -tol)
		require.GreaterOrEqual(t, 1-r.RowDuals[i], -tol, "slack %d prices out", i)
	}
	for k, c := range cs {
		x := r.X[n+k]
		require.GreaterOrEqual(t, x, -tol)
		d := 0.0
		for t, i := range c.rows {
			row[i] += x * c.vals[t]
			d -= c.vals[t] * r.RowDuals[i]
		}
		if c.dead {
			require.Zero(t, x, "dead column %d is used", k)
			continue
		}
		require.GreaterOrEqual(t, d, -tol, "column %d prices out", k)
		if e.isBasic(n + k) {
			require.InDelta(t, 0, d, tol, "basic column %d", k)
		}
	}
	for i, v := range row {
		require.InDelta(t, 1, v, 1e-12, "row %d", i)
	}
	require.InDelta(t, obj, r.Objective, 1e-12)
}

// TestDenseAgainstRevised solves random masters cold and after adding,
// replacing and removing columns under a kept basis, against cold solves
// of the revised engine.
func TestDenseAgainstRevised(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 150 {
		n := 1 + rng.IntN(24)
		e, cs := randomMaster(rng, n)
		for step := range 6 {
			r, err := e.solve()
			require.NoError(t, err, "trial %d step %d", trial, step)
			checkOptimal(t, e, cs, r)
			require.InDelta(t, reference(t, n, cs), r.Objective, 1e-9, "trial %d step %d", trial, step)
			switch rng.IntN(3) {
			case 0:
				for range 1 + rng.IntN(n) {
					c := randomColumn(rng, n, cs)
					cs = append(cs, c)
					e.add(c)
				}
			case 1:
				for k := range cs {
					if rng.IntN(2) == 0 {
						cs[k] = randomColumn(rng, n, nil)
						e.replace(k, cs[k])
					}
				}
			case 2:
				var gone []int
				kept := cs[:0]
				for k, c := range cs {
					if !e.isBasic(n+k) && rng.IntN(2) == 0 {
						gone = append(gone, k)
					} else {
						kept = append(kept, c)
					}
				}
				require.NoError(t, e.remove(gone))
				cs = kept
				require.Equal(t, n+len(cs), e.numCols())
			}
		}
	}
}

// TestDenseDegenerate solves masters made of many copies of a few columns
// that cover the rows exactly (every vertex massively degenerate), which
// takes the engine through its perturbation and Bland's rule.
func TestDenseDegenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 20 {
		n := 10 + rng.IntN(30)
		e := newDense(n)
		var cs []denseCol
		// Blocks of rows covered by 0/1 columns: the all-ones vector is
		// reached exactly, by many bases.
		for range 4 * n {
			var c denseCol
			lo := rng.IntN(n)
			hi := lo + 1 + rng.IntN(n-lo)
			for i := lo; i < hi; i++ {
				c.rows = append(c.rows, i)
				c.vals = append(c.vals, 1)
			}
			cs = append(cs, c)
		}
		for i := range n {
			cs = append(cs, denseCol{rows: []int{i}, vals: []float64{1}})
		}
		for range 3 {
			cs = append(cs, cs[:2*n]...)
		}
		e.add(cs...)
		r, err := e.solve()
		require.NoError(t, err, "trial %d", trial)
		checkOptimal(t, e, cs, r)
		require.InDelta(t, 0, r.Objective, 1e-12, "trial %d", trial)
	}
}

// TestDenseErrors covers the refusals of remove.
func TestDenseErrors(t *testing.T) {
	e := newDense(2)
	e.add(denseCol{rows: []int{0, 1}, vals: []float64{1, 1}})
	r, err := e.solve()
	require.NoError(t, err)
	require.Zero(t, r.Objective)
	require.True(t, e.isBasic(2))
	require.Error(t, e.remove([]int{0}), "a basic column")
	require.Error(t, e.remove([]int{1}), "a missing column")
}

// TestDenseDegenerateRules repeats the random masters with the bounds
// perturbed, and Bland's rule taken, after every degenerate pivot.
func TestDenseDegenerateRules(t *testing.T) {
	for _, run := range []int{0, 1} {
		rng := rand.New(rand.NewPCG(11, uint64(run)))
		for trial := range 60 {
			n := 2 + rng.IntN(20)
			e, cs := randomMaster(rng, n)
			e.degenerateRun = run
			r, err := e.solve()
			require.NoError(t, err, "run %d trial %d", run, trial)
			checkOptimal(t, e, cs, r)
			require.InDelta(t, reference(t, n, cs), r.Objective, 1e-9, "run %d trial %d", run, trial)
		}
	}
}

// TestInvert checks the inversion against gonum's on random bases, and
// the repair of a dependent basis.
func TestInvert(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	inverted := 0
	for trial := range 100 {
		n := 1 + rng.IntN(30)
		e := newDense(n)
		var cs []denseCol
		for range 2 * n {
			c := randomColumn(rng, n, nil)
			cs = append(cs, c)
			e.add(c)
		}
		// A random basis of slacks and columns.
		for p := range n {
			e.pos[e.head[p]] = -1
		}
		perm := rng.Perm(e.numCols())
		b := mat.NewDense(n, n, nil)
		dead := false
		for p := range n {
			v := perm[p]
			e.head[p], e.pos[v] = v, p
			if v < n {
				b.Set(v, p, 1)
			} else if c := cs[v-n]; c.dead {
				dead = true
			} else {
				for t, i := range c.rows {
					b.Set(i, p, c.vals[t])
				}
			}
		}
		if dead {
			bad, rows := e.gaussJordan()
			require.NotEmpty(t, bad, "trial %d: a dead column is basic", trial)
			require.Len(t, rows, len(bad))
			continue
		}
		var want mat.Dense
		if err := want.Inverse(b); err != nil {
			continue // nearly singular: the repair is checked below
		}
		bad, _ := e.gaussJordan()
		require.Empty(t, bad, "trial %d", trial)
		inverted++
		for p := range n {
			for i := range n {
				require.InDelta(t, want.At(p, i), e.bt[i*n+p], 1e-9*(1+math.Abs(want.At(p, i))), "trial %d (%d, %d)", trial, p, i)
			}
		}
	}
	require.Greater(t, inverted, 30)
	// Two copies of one column and a dead one: invert puts slacks in
	// their places.
	e := newDense(3)
	c := denseCol{rows: []int{0, 1, 2}, vals: []float64{1, 2, 3}}
	e.add(c, c, denseCol{dead: true})
	for p := range 3 {
		e.pos[e.head[p]] = -1
		e.head[p], e.pos[3+p] = 3+p, p
	}
	require.True(t, e.invert())
	basicCols := 0
	for _, v := range e.head {
		if v >= 3 {
			basicCols++
		}
	}
	require.Equal(t, 1, basicCols)
	r, err := e.solve()
	require.NoError(t, err)
	cs := []denseCol{c, c, {dead: true}}
	checkOptimal(t, e, cs, r)
	require.InDelta(t, reference(t, 3, cs), r.Objective, 1e-12)
}

// TestDensePeriodicInversion repeats the random masters with the inverse
// recomputed every 3 updates, so that solves pass through the periodic
// inversion (at the real period, max(100, 16n), no test master pivots that
// often).
func TestDensePeriodicInversion(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	long := 0
	for trial := range 60 {
		n := 2 + rng.IntN(20)
		e, cs := randomMaster(rng, n)
		e.refactorEvery, e.refactorPer = 3, 0
		r, err := e.solve()
		require.NoError(t, err, "trial %d", trial)
		checkOptimal(t, e, cs, r)
		require.InDelta(t, reference(t, n, cs), r.Objective, 1e-9, "trial %d", trial)
		if r.Iterations > e.refactorEvery {
			long++
		}
	}
	require.Greater(t, long, 30, "solves long enough to re-invert")
}

// TestRatioLargeValues checks that the ratio test finds the blocking row
// when the feasibility tolerance is lost in room + tol (basic values
// around 1e8): the row that sets the first pass's bound must pass the
// second pass.
func TestRatioLargeValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	e := newDense(1)
	for trial := range 10000 {
		room, a := 1e8*(0.5+rng.Float64()), 1e-3+10*rng.Float64()
		e.xb[0], e.alpha[0] = room, a
		r, theta := e.ratio(false, -1, false)
		require.Equal(t, 0, r, "trial %d: room %v, a %v", trial, room, a)
		require.Equal(t, room/a, theta, "trial %d", trial)
	}
}
