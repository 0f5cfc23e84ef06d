package solver_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/solver"
)

const tol = 1e-9

var inf = lp.Inf

// backends returns every registered backend: gonum always, clp with -tags
// clp, revised when its package registers it.
func backends(t *testing.T) []solver.Solver {
	t.Helper()
	var out []solver.Solver
	for _, name := range solver.Names() {
		s, err := solver.Get(name)
		require.NoError(t, err)
		require.Equal(t, name, s.Name())
		out = append(out, s)
	}
	require.NotEmpty(t, out)
	return out
}

// lpCase is a model with its known answer. x and duals are nil where they are
// not unique.
type lpCase struct {
	name   string
	build  func() *lp.Model
	status solver.Status
	obj    float64
	x      []float64
	duals  []float64
	// farkas lists the backends that must return a Certificate here.
	farkas []string
}

// textbook is max 3x + 5y s.t. x ≤ 4, 2y ≤ 12, 3x + 2y ≤ 18, x, y ≥ 0
// (Hillier & Lieberman's Wyndor Glass): optimum 36 at (2, 6), shadow
// prices (0, 3/2, 1).
func textbook() *lp.Model {
	m := &lp.Model{Maximize: true}
	x := m.AddCol(3, 0, inf, "x")
	y := m.AddCol(5, 0, inf, "y")
	m.AddRow(-inf, 4, "plant1", lp.Entry(x, 1))
	m.AddRow(-inf, 12, "plant2", lp.Entry(y, 2))
	m.AddRow(-inf, 18, "plant3", lp.Entry(x, 3), lp.Entry(y, 2))
	return m
}

// beale is Beale's (1955) cycling example: min −3/4 x4 + 20 x5 − 1/2 x6 + 6 x7
// with 1/4 x4 − 8 x5 − x6 + 9 x7 ≤ 0, 1/2 x4 − 12 x5 − 1/2 x6 + 3 x7 ≤ 0,
// x6 ≤ 1, x ≥ 0. Optimum −5/4 at (1, 0, 1, 0); the duals solve
// B^T y = c_B on the basis {x4, x6, s1}: y = (0, −3/2, −5/4).
func beale() *lp.Model {
	m := &lp.Model{}
	for _, c := range []float64{-0.75, 20, -0.5, 6} {
		m.AddCol(c, 0, inf, "")
	}
	m.AddRow(-inf, 0, "", lp.Entry(0, 0.25), lp.Entry(1, -8), lp.Entry(2, -1), lp.Entry(3, 9))
	m.AddRow(-inf, 0, "", lp.Entry(0, 0.5), lp.Entry(1, -12), lp.Entry(2, -0.5), lp.Entry(3, 3))
	m.AddRow(-inf, 1, "", lp.Entry(2, 1))
	return m
}

func cases() []lpCase {
	return []lpCase{
		{name: "textbook max", build: textbook, status: solver.Optimal, obj: 36,
			x: []float64{2, 6}, duals: []float64{0, 1.5, 1}},
		{name: "textbook as min", build: func() *lp.Model {
			m := textbook()
			m.Maximize = false
			m.ColCosts = []float64{-3, -5}
			m.Offset = 7
			return m
		}, status: solver.Optimal, obj: -36 + 7, x: []float64{2, 6}, duals: []float64{0, -1.5, -1}},
		{name: "beale degenerate", build: beale, status: solver.Optimal, obj: -1.25,
			x: []float64{1, 0, 1, 0}, duals: []float64{0, -1.5, -1.25}},
		{
			// min x1 + 2 x2, both free, −3 ≤ x1 − x2 ≤ 3, x1 + x2 = 1:
			// x2 = 1 − x1, objective 2 − x1, largest x1 = 2.
			// c = Aᵀy: 1 = y1 + y2, 2 = −y1 + y2.
			name: "free columns, two-sided and equality rows",
			build: func() *lp.Model {
				m := &lp.Model{}
				m.AddCol(1, -inf, inf, "")
				m.AddCol(2, -inf, inf, "")
				m.AddRow(-3, 3, "", lp.Entry(0, 1), lp.Entry(1, -1))
				m.AddRow(1, 1, "", lp.Entry(0, 1), lp.Entry(1, 1))
				return m
			},
			status: solver.Optimal, obj: 0, x: []float64{2, -1}, duals: []float64{-0.5, 1.5},
		},
		{
			// min 2a − b + c, a ∈ [−3, 5], b ∈ [−2, 4], c = 1.5 fixed,
			// a + b ≤ 0, a − b + c ≤ 2: a = −3, b = 3; y1 = −1 from b's
			// reduced cost.
			name: "negative lower bounds and a fixed column",
			build: func() *lp.Model {
				m := &lp.Model{}
				m.AddCol(2, -3, 5, "a")
				m.AddCol(-1, -2, 4, "b")
				m.AddCol(1, 1.5, 1.5, "c")
				m.AddRow(-inf, 0, "", lp.Entry(0, 1), lp.Entry(1, 1))
				m.AddRow(-inf, 2, "", lp.Entry(0, 1), lp.Entry(1, -1), lp.Entry(2, 1))
				return m
			},
			status: solver.Optimal, obj: -7.5, x: []float64{-3, 3, 1.5}, duals: []float64{-1, 0},
		},
		{
			// max 2x + y, x ≤ 3 with no lower bound, y ≥ 0, x + y ≤ 10,
			// x − y ≥ −20: x = 3, y = 7, the dual of x + y ≤ 10 is 1.
			name: "column bounded above only",
			build: func() *lp.Model {
				m := &lp.Model{Maximize: true}
				m.AddCol(2, -inf, 3, "")
				m.AddCol(1, 0, inf, "")
				m.AddRow(-inf, 10, "", lp.Entry(0, 1), lp.Entry(1, 1))
				m.AddRow(-20, inf, "", lp.Entry(0, 1), lp.Entry(1, -1))
				return m
			},
			status: solver.Optimal, obj: 13, x: []float64{3, 7}, duals: []float64{1, 0},
		},
		{
			// Row 1 has no entries and bounds containing 0; column 2 has no
			// entries and cost 2 on [1, 5] (so 1); column 3 none, cost −1
			// on [0, 4] (so 4). min x0 s.t. x0 ≥ 2 otherwise.
			name: "empty row and empty columns",
			build: func() *lp.Model {
				m := &lp.Model{}
				m.AddCol(1, 0, inf, "")
				m.AddCol(0, 0, inf, "")
				m.AddCol(2, 1, 5, "")
				m.AddCol(-1, 0, 4, "")
				m.AddRow(2, inf, "", lp.Entry(0, 1), lp.Entry(1, 0))
				m.AddRow(-1, 1, "")
				return m
			},
			status: solver.Optimal, obj: 2 + 2 - 4, x: []float64{2, 0, 1, 4}, duals: []float64{1, 0},
		},
		{
			// x + y = 1 twice (once doubled): min x + 2y at (1, 0).
			name: "redundant equality row",
			build: func() *lp.Model {
				m := &lp.Model{}
				m.AddCol(1, 0, inf, "")
				m.AddCol(2, 0, inf, "")
				m.AddRow(1, 1, "", lp.Entry(0, 1), lp.Entry(1, 1))
				m.AddRow(2, 2, "", lp.Entry(0, 2), lp.Entry(1, 2))
				return m
			},
			status: solver.Optimal, obj: 1, x: []float64{1, 0},
		},
		{
			name: "no rows",
			build: func() *lp.Model {
				m := &lp.Model{Maximize: true}
				m.AddCol(1, -1, 2, "")
				m.AddCol(-1, -1, 2, "")
				return m
			},
			status: solver.Optimal, obj: 3, x: []float64{2, -1}, duals: []float64{},
		},
		{name: "empty model", build: func() *lp.Model { return &lp.Model{Offset: 1.5} },
			status: solver.Optimal, obj: 1.5, x: []float64{}, duals: []float64{}},
		{
			name: "infeasible rows",
			build: func() *lp.Model {
				m := &lp.Model{}
				m.AddCol(1, 0, inf, "")
				m.AddCol(1, 0, inf, "")
				m.AddRow(-inf, 1, "", lp.Entry(0, 1), lp.Entry(1, 1))
				m.AddRow(2, inf, "", lp.Entry(0, 1), lp.Entry(1, 1))
				return m
			},
			status: solver.Infeasible, farkas: []string{"clp", "revised"},
		},
		{
			name: "infeasible against column bounds",
			build: func() *lp.Model {
				m := &lp.Model{Maximize: true}
				m.AddCol(1, 0, 1, "")
				m.AddRow(3, inf, "", lp.Entry(0, 1))
				return m
			},
			status: solver.Infeasible, farkas: []string{"clp", "revised"},
		},
		{
			name: "inconsistent redundant equality",
			build: func() *lp.Model {
				m := &lp.Model{}
				m.AddCol(1, 0, inf, "")
				m.AddCol(2, 0, inf, "")
				m.AddRow(1, 1, "", lp.Entry(0, 1), lp.Entry(1, 1))
				m.AddRow(3, 3, "", lp.Entry(0, 2), lp.Entry(1, 2))
				return m
			},
			status: solver.Infeasible, farkas: []string{"clp", "revised"},
		},
		{
			name: "infeasible empty row",
			build: func() *lp.Model {
				m := &lp.Model{}
				m.AddCol(1, 0, 1, "")
				m.AddRow(1, 2, "")
				return m
			},
			status: solver.Infeasible,
		},
		{
			name: "lower bound above upper bound",
			build: func() *lp.Model {
				m := &lp.Model{}
				m.AddCol(1, 2, 1, "")
				return m
			},
			status: solver.Infeasible,
		},
		{
			name: "unbounded",
			build: func() *lp.Model {
				m := &lp.Model{Maximize: true}
				m.AddCol(1, 0, inf, "")
				m.AddCol(1, 0, inf, "")
				m.AddRow(-inf, 1, "", lp.Entry(0, 1), lp.Entry(1, -1))
				return m
			},
			status: solver.Unbounded,
		},
		{
			name: "unbounded through an empty column",
			build: func() *lp.Model {
				m := &lp.Model{}
				m.AddCol(1, 0, inf, "")
				m.AddCol(-1, 0, inf, "")
				m.AddRow(1, 2, "", lp.Entry(0, 1))
				return m
			},
			status: solver.Unbounded,
		},
		{
			name: "unbounded free column",
			build: func() *lp.Model {
				m := &lp.Model{}
				m.AddCol(1, -inf, inf, "")
				m.AddCol(0, 0, 1, "")
				m.AddRow(-inf, 1, "", lp.Entry(0, 1), lp.Entry(1, 1))
				return m
			},
			status: solver.Unbounded,
		},
	}
}

// checkKKT verifies independently that sol is optimal for m: primal
// feasibility, d = c − Aᵀy and the sign conditions of complementary
// slackness.
func checkKKT(t *testing.T, m *lp.Model, sol *solver.Solution) {
	t.Helper()
	const ktol = 1e-7
	act := make([]float64, m.NumRows())
	for _, e := range m.ConstMatrix {
		act[e.Row] += e.Val * sol.X[e.Col]
	}
	for i := range act {
		assert.InDelta(t, act[i], sol.RowActivity[i], ktol, "activity of row %d", i)
		assert.GreaterOrEqual(t, act[i], m.RowLower[i]-ktol, "row %d", i)
		assert.LessOrEqual(t, act[i], m.RowUpper[i]+ktol, "row %d", i)
	}
	for j, v := range sol.X {
		assert.GreaterOrEqual(t, v, m.ColLower[j]-ktol, "column %d", j)
		assert.LessOrEqual(t, v, m.ColUpper[j]+ktol, "column %d", j)
	}
	if sol.RowDuals == nil {
		return
	}
	require.Len(t, sol.RowDuals, m.NumRows())
	require.Len(t, sol.ColDuals, m.NumCols())
	d := append([]float64(nil), m.ColCosts...)
	for _, e := range m.ConstMatrix {
		d[e.Col] -= e.Val * sol.RowDuals[e.Row]
	}
	sense := 1.0
	if m.Maximize {
		sense = -1
	}
	// For a minimisation a positive multiplier must sit at a lower bound
	// and a negative one at an upper bound; reversed for a maximisation.
	atBound := func(mult, v, lo, up float64, what string, k int) {
		switch s := sense * mult; {
		case s > ktol:
			assert.InDelta(t, lo, v, ktol, "%s %d has multiplier %g but is not at its lower bound", what, k, mult)
		case s < -ktol:
			assert.InDelta(t, up, v, ktol, "%s %d has multiplier %g but is not at its upper bound", what, k, mult)
		}
	}
	for j := range d {
		assert.InDelta(t, d[j], sol.ColDuals[j], ktol, "reduced cost of column %d", j)
		atBound(d[j], sol.X[j], m.ColLower[j], m.ColUpper[j], "column", j)
	}
	for i, y := range sol.RowDuals {
		atBound(y, act[i], m.RowLower[i], m.RowUpper[i], "row", i)
	}
}

func TestConformance(t *testing.T) {
	for _, s := range backends(t) {
		for _, c := range cases() {
			t.Run(s.Name()+"/"+c.name, func(t *testing.T) {
				m := c.build()
				sol, err := s.Solve(m)
				require.NoError(t, err)
				require.Equal(t, c.status, sol.Status)
				switch c.status {
				case solver.Optimal:
					assert.InDelta(t, c.obj, sol.Objective, tol)
					require.Len(t, sol.X, m.NumCols())
					require.Len(t, sol.RowActivity, m.NumRows())
					if c.x != nil {
						assert.InDeltaSlice(t, c.x, sol.X, tol)
					}
					if c.duals != nil && sol.RowDuals != nil {
						assert.InDeltaSlice(t, c.duals, sol.RowDuals, tol)
					}
					checkKKT(t, m, sol)
				case solver.Infeasible:
					if contains(c.farkas, s.Name()) {
						require.NotNil(t, sol.Certificate, "Certificate")
					}
					if sol.Certificate != nil {
						assert.Greater(t, solver.FarkasGap(m, sol.Certificate), 0.0)
					}
				}
			})
		}
	}
}

// TestDualsProvided pins down which backends give duals on a
// non-degenerate optimum, so that a regression that drops them is seen.
func TestDualsProvided(t *testing.T) {
	for _, s := range backends(t) {
		sol, err := s.Solve(textbook())
		require.NoError(t, err)
		require.NotNil(t, sol.RowDuals, s.Name())
		assert.InDeltaSlice(t, []float64{0, 0}, sol.ColDuals, tol, s.Name())
	}
}

func TestInvalidModels(t *testing.T) {
	bad := map[string]*lp.Model{
		"nil":          nil,
		"short bounds": {ColCosts: []float64{1}, ColLower: []float64{0}},
		"NaN cost":     {ColCosts: []float64{math.NaN()}, ColLower: []float64{0}, ColUpper: []float64{1}},
		"entry out of range": {ColCosts: []float64{1}, ColLower: []float64{0}, ColUpper: []float64{1},
			RowLower: []float64{0}, RowUpper: []float64{1}, ConstMatrix: []lp.Nonzero{{Row: 1, Col: 0, Val: 1}}},
		"duplicate entry": {ColCosts: []float64{1}, ColLower: []float64{0}, ColUpper: []float64{1},
			RowLower: []float64{0}, RowUpper: []float64{1}, ConstMatrix: []lp.Nonzero{{Row: 0, Col: 0, Val: 1}, {Row: 0, Col: 0, Val: 2}}},
		"lower bound +Inf": {ColCosts: []float64{1}, ColLower: []float64{inf}, ColUpper: []float64{inf}},
		"infinite coefficient": {ColCosts: []float64{1}, ColLower: []float64{0}, ColUpper: []float64{1},
			RowLower: []float64{0}, RowUpper: []float64{1}, ConstMatrix: []lp.Nonzero{{Row: 0, Col: 0, Val: inf}}},
	}
	for _, s := range backends(t) {
		for name, m := range bad {
			_, err := s.Solve(m)
			assert.Error(t, err, "%s: %s", s.Name(), name)
		}
	}
}

func TestFarkasGap(t *testing.T) {
	// x + y ≤ 1, x + y ≥ 2, x, y ≥ 0. y = (−1, 1): Aᵀy = 0, so the right
	// side is 0 and the left side −1·1 + 1·2 = 1.
	m := &lp.Model{}
	m.AddCol(0, 0, inf, "")
	m.AddCol(0, 0, inf, "")
	m.AddRow(-inf, 1, "", lp.Entry(0, 1), lp.Entry(1, 1))
	m.AddRow(2, inf, "", lp.Entry(0, 1), lp.Entry(1, 1))
	assert.InDelta(t, 1, solver.FarkasGap(m, []float64{-1, 1}), tol)
	assert.Equal(t, math.Inf(-1), solver.FarkasGap(m, []float64{1, -1}))
	// y = (0, 1): Aᵀy = (1, 1) and x is unbounded above, so nothing is proved.
	assert.Equal(t, math.Inf(-1), solver.FarkasGap(m, []float64{0, 1}))
	// Bounded columns: x, y ≤ 1 gives right side 2 = left side 2·1: gap 0.
	m.ColUpper = []float64{1, 1}
	assert.InDelta(t, 0, solver.FarkasGap(m, []float64{0, 1}), tol)
	assert.Equal(t, math.Inf(-1), solver.FarkasGap(m, []float64{1}))
}

// randomLP returns a feasible model whose optimum is finite: every column
// is bounded, or bounded below with a positive cost that is minimised.
func randomLP(rng *rand.Rand) *lp.Model {
	n, r := 3+rng.IntN(8), 2+rng.IntN(7)
	m := &lp.Model{Maximize: rng.IntN(2) == 0}
	x0 := make([]float64, n)
	for j := 0; j < n; j++ {
		lo := math.Round(rng.NormFloat64()*4) / 2
		up := lo + float64(rng.IntN(6))
		c := math.Round(rng.NormFloat64()*10) / 4
		switch rng.IntN(5) {
		case 0:
			if m.Maximize {
				c = -math.Abs(c) - 1
			} else {
				c = math.Abs(c) + 1
			}
			up = inf
			x0[j] = lo + rng.Float64()
		default:
			x0[j] = lo + (up-lo)*rng.Float64()
		}
		m.AddCol(c, lo, up, "")
	}
	for i := 0; i < r; i++ {
		var ents []lp.Nonzero
		act := 0.0
		for j := 0; j < n; j++ {
			if rng.Float64() < 0.5 {
				v := float64(rng.IntN(9) - 4)
				if v == 0 {
					continue
				}
				ents = append(ents, lp.Entry(j, v))
				act += v * x0[j]
			}
		}
		lo, up := act-rng.Float64()*3, act+rng.Float64()*3
		switch rng.IntN(4) {
		case 0:
			lo = -inf
		case 1:
			up = inf
		case 2:
			lo, up = act, act
		}
		m.AddRow(lo, up, "", ents...)
	}
	return m
}

func TestRandomAgreement(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	bs := backends(t)
	for k := 0; k < 200; k++ {
		m := randomLP(rng)
		var ref *solver.Solution
		for _, s := range bs {
			sol, err := s.Solve(m)
			require.NoError(t, err, "%s on LP %d", s.Name(), k)
			require.Equal(t, solver.Optimal, sol.Status, "%s on LP %d", s.Name(), k)
			checkKKT(t, m, sol)
			if ref == nil {
				ref = sol
				continue
			}
			assert.InDelta(t, ref.Objective, sol.Objective, 1e-7*math.Max(1, math.Abs(ref.Objective)),
				"%s and %s on LP %d", bs[0].Name(), s.Name(), k)
		}
	}
}

// pmlLP is max Σ π_i u_ij p_ij over ε-PML mechanisms, with one q_j per
// output: p_ij − e^ε q_j ≤ 0, q_j − Σ_k π_k p_kj = 0, Σ_j p_ij = 1.
func pmlLP(prior []float64, u [][]float64, eps float64) *lp.Model {
	n, mo := len(prior), len(u[0])
	m := &lp.Model{Maximize: true}
	p := func(i, j int) int { return i*mo + j }
	for i := 0; i < n; i++ {
		for j := 0; j < mo; j++ {
			m.AddCol(prior[i]*u[i][j], 0, inf, fmt.Sprintf("p%d%d", i, j))
		}
	}
	q := make([]int, mo)
	for j := range q {
		q[j] = m.AddCol(0, 0, inf, fmt.Sprintf("q%d", j))
	}
	for i := 0; i < n; i++ {
		for j := 0; j < mo; j++ {
			m.AddRow(-inf, 0, "", lp.Entry(p(i, j), 1), lp.Entry(q[j], -math.Exp(eps)))
		}
	}
	for j := 0; j < mo; j++ {
		ents := []lp.Nonzero{lp.Entry(q[j], 1)}
		for k := 0; k < n; k++ {
			ents = append(ents, lp.Entry(p(k, j), -prior[k]))
		}
		m.AddRow(0, 0, "", ents...)
	}
	for i := 0; i < n; i++ {
		var ents []lp.Nonzero
		for j := 0; j < mo; j++ {
			ents = append(ents, lp.Entry(p(i, j), 1))
		}
		m.AddRow(1, 1, "", ents...)
	}
	return m
}

// bruteForcePML enumerates the vertices of the ε-PML polytope in the free
// parameters p_ij, j < M−1 (the last column is 1 − the others): every
// choice of d = N(M−1) tight inequalities among p_ij ≥ 0 and p_ij ≤ e^ε q_j,
// solved as a d×d system, kept if feasible. It returns the best expected
// utility.
func bruteForcePML(prior []float64, u [][]float64, eps float64) float64 {
	n, mo := len(prior), len(u[0])
	d := n * (mo - 1)
	// p_ij as an affine function coef·v + c of the free parameters.
	type aff struct {
		coef []float64
		c    float64
	}
	pij := func(i, j int) aff {
		a := aff{coef: make([]float64, d)}
		if j < mo-1 {
			a.coef[i*(mo-1)+j] = 1
			return a
		}
		a.c = 1
		for k := 0; k < mo-1; k++ {
			a.coef[i*(mo-1)+k] = -1
		}
		return a
	}
	var g [][]float64 // g·v ≤ h
	var h []float64
	e := math.Exp(eps)
	for i := 0; i < n; i++ {
		for j := 0; j < mo; j++ {
			a := pij(i, j)
			neg := make([]float64, d)
			for k := range neg {
				neg[k] = -a.coef[k]
			}
			g, h = append(g, neg), append(h, a.c)
			// p_ij − e Σ_k π_k p_kj ≤ 0
			row := append([]float64(nil), a.coef...)
			cst := a.c
			for k := 0; k < n; k++ {
				b := pij(k, j)
				for l := range row {
					row[l] -= e * prior[k] * b.coef[l]
				}
				cst -= e * prior[k] * b.c
			}
			g, h = append(g, row), append(h, -cst)
		}
	}
	best := math.Inf(-1)
	idx := make([]int, d)
	var rec func(start, depth int)
	rec = func(start, depth int) {
		if depth == d {
			a := mat.NewDense(d, d, nil)
			b := mat.NewVecDense(d, nil)
			for r, k := range idx {
				a.SetRow(r, g[k])
				b.SetVec(r, h[k])
			}
			var v mat.VecDense
			if err := v.SolveVec(a, b); err != nil {
				return
			}
			if mat.Cond(a, 1) > 1e12 {
				return
			}
			for k := range g {
				if mat.Dot(mat.NewVecDense(d, g[k]), &v) > h[k]+1e-9 {
					return
				}
			}
			obj := 0.0
			for i := 0; i < n; i++ {
				for j := 0; j < mo; j++ {
					a := pij(i, j)
					obj += prior[i] * u[i][j] * (mat.Dot(mat.NewVecDense(d, a.coef), &v) + a.c)
				}
			}
			best = math.Max(best, obj)
			return
		}
		for k := start; k < len(g); k++ {
			idx[depth] = k
			rec(k+1, depth+1)
		}
	}
	rec(0, 0)
	return best
}

func TestPMLExpectedUtility(t *testing.T) {
	type pc struct {
		prior []float64
		u     [][]float64
		eps   float64
	}
	pcs := []pc{
		{[]float64{0.3, 0.7}, [][]float64{{1, 0}, {0, 1}}, 0.2},
		{[]float64{0.5, 0.3, 0.2}, [][]float64{{1, 0}, {0.2, 0.9}, {0, 1}}, 0.4},
		{[]float64{0.25, 0.75}, [][]float64{{3, 1, 0}, {0, 1, 2}}, 0.1},
		{[]float64{0.5, 0.25, 0.25}, [][]float64{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}}, math.Log(1.5)},
	}
	for k, c := range pcs {
		want := bruteForcePML(c.prior, c.u, c.eps)
		// At ε = 0 only data-independent mechanisms remain, so the optimum
		// is never below the best constant output.
		var best0 float64
		for j := range c.u[0] {
			var s float64
			for i := range c.prior {
				s += c.prior[i] * c.u[i][j]
			}
			best0 = math.Max(best0, s)
		}
		require.GreaterOrEqual(t, want, best0-tol)
		for _, s := range backends(t) {
			m := pmlLP(c.prior, c.u, c.eps)
			sol, err := s.Solve(m)
			require.NoError(t, err)
			require.Equal(t, solver.Optimal, sol.Status)
			assert.InDelta(t, want, sol.Objective, tol, "%s, case %d", s.Name(), k)
			checkKKT(t, m, sol)
		}
	}
}

// TestPMLClosedForm checks the LP on a binary uniform prior with the
// guess-the-input utility u = I, where the PML-extremal mechanism of docs/theory.md §4
// (p_ii = 1 − e^ε/2, p_ij = e^ε/2) is the worst and its transpose the best:
// column j's PML constraint p_jj ≤ e^ε q_j = e^ε (p_1j + p_2j)/2 bounds the
// sum of the diagonal, Σ_i π_i p_ii = (p_11 + p_22)/2 ≤ e^ε/2 (sum the two
// column constraints: p_11 + p_22 ≤ e^ε (q_1 + q_2) = e^ε). So the optimum
// is min(1, e^ε/2).
func TestPMLClosedForm(t *testing.T) {
	for _, eps := range []float64{0, 0.1, 0.5, math.Log(2), 1} {
		want := math.Min(1, math.Exp(eps)/2)
		for _, s := range backends(t) {
			sol, err := s.Solve(pmlLP([]float64{0.5, 0.5}, [][]float64{{1, 0}, {0, 1}}, eps))
			require.NoError(t, err)
			assert.InDelta(t, want, sol.Objective, tol, "%s, ε = %g", s.Name(), eps)
		}
	}
}

func TestWarmResolve(t *testing.T) {
	for _, s := range backends(t) {
		ws, ok := s.(solver.WarmSolver)
		require.True(t, ok, "%s must implement WarmSolver", s.Name())
		t.Run(s.Name()+"/textbook", func(t *testing.T) {
			m := textbook()
			sess, err := ws.Load(m)
			require.NoError(t, err)
			defer sess.Close()
			sol, err := sess.Solve()
			require.NoError(t, err)
			assert.InDelta(t, 36, sol.Objective, tol)

			// x ≤ 1: y ≤ 6 binds and x = 1, 3 + 30 = 33.
			sess.SetColBounds(0, 0, 1)
			sol, err = sess.Solve()
			require.NoError(t, err)
			assert.InDelta(t, 33, sol.Objective, tol)
			assert.InDeltaSlice(t, []float64{1, 6}, sol.X, tol)

			// x ≥ 0 again and cost 7: the vertices (0, 6), (2, 6), (4, 3),
			// (4, 0) give 30, 44, 43, 28.
			sess.SetColBounds(0, 0, inf)
			sess.SetColCost(0, 7)
			sol, err = sess.Solve()
			require.NoError(t, err)
			assert.InDelta(t, 44, sol.Objective, tol)

			// Cost 9: the same vertices give 30, 48, 51, 36.
			sess.SetColCost(0, 9)
			sol, err = sess.Solve()
			require.NoError(t, err)
			assert.InDelta(t, 51, sol.Objective, tol)
			assert.InDeltaSlice(t, []float64{4, 3}, sol.X, tol)

			// Coefficient 3 → 1 in row 3 (x + 2y ≤ 18): x = 4, y = 6: 66.
			sess.SetCoef(2, 0, 1)
			sol, err = sess.Solve()
			require.NoError(t, err)
			assert.InDelta(t, 66, sol.Objective, tol)

			// Row 2 (2y ≤ 12) made 2y ≥ 20 with x + 2y ≤ 18: infeasible.
			sess.SetRowBounds(1, 20, inf)
			sol, err = sess.Solve()
			require.NoError(t, err)
			assert.Equal(t, solver.Infeasible, sol.Status)

			// Out-of-range changes are reported by the next Solve.
			sess.SetRowBounds(1, -inf, 12)
			sess.SetColCost(5, 1)
			_, err = sess.Solve()
			assert.Error(t, err)
			sol, err = sess.Solve()
			require.NoError(t, err)
			assert.InDelta(t, 66, sol.Objective, tol)
		})
		t.Run(s.Name()+"/random", func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, uint64(len(s.Name()))))
			for k := 0; k < 20; k++ {
				m := randomLP(rng)
				sess, err := ws.Load(m)
				require.NoError(t, err)
				cur := solver.CloneModelForTest(m)
				for step := 0; step < 8; step++ {
					switch rng.IntN(4) {
					case 0:
						j := rng.IntN(cur.NumCols())
						lo := cur.ColLower[j] + float64(rng.IntN(3)-1)/2
						up := math.Max(lo, cur.ColUpper[j]+float64(rng.IntN(3)-1)/2)
						cur.ColLower[j], cur.ColUpper[j] = lo, up
						sess.SetColBounds(j, lo, up)
					case 1:
						i := rng.IntN(cur.NumRows())
						lo, up := cur.RowLower[i]-0.5, cur.RowUpper[i]+0.25
						cur.RowLower[i], cur.RowUpper[i] = lo, up
						sess.SetRowBounds(i, lo, up)
					case 2:
						j := rng.IntN(cur.NumCols())
						c := cur.ColCosts[j] + float64(rng.IntN(5)-2)
						cur.ColCosts[j] = c
						sess.SetColCost(j, c)
					case 3:
						if len(cur.ConstMatrix) == 0 {
							continue
						}
						e := &cur.ConstMatrix[rng.IntN(len(cur.ConstMatrix))]
						e.Val += float64(rng.IntN(3) - 1)
						sess.SetCoef(e.Row, e.Col, e.Val)
					}
					warm, err := sess.Solve()
					require.NoError(t, err)
					cold, err := solver.Gonum().Solve(cur)
					require.NoError(t, err)
					require.Equal(t, cold.Status, warm.Status, "LP %d step %d", k, step)
					if cold.Status == solver.Optimal {
						assert.InDelta(t, cold.Objective, warm.Objective, 1e-7*math.Max(1, math.Abs(cold.Objective)), "LP %d step %d", k, step)
						checkKKT(t, cur, warm)
					}
					if warm.Status == solver.Infeasible && warm.Certificate != nil {
						assert.Greater(t, solver.FarkasGap(cur, warm.Certificate), 0.0)
					}
				}
				sess.Close()
				_, err = sess.Solve()
				assert.Error(t, err, "Solve after Close")
			}
		})
	}
}

// TestConcurrentSessions solves distinct models in distinct sessions at the
// same time and compares with sequential solves.
func TestConcurrentSessions(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	models := make([]*lp.Model, 16)
	for i := range models {
		models[i] = randomLP(rng)
	}
	for _, s := range backends(t) {
		want := make([]float64, len(models))
		for i, m := range models {
			sol, err := s.Solve(m)
			require.NoError(t, err)
			want[i] = sol.Objective
		}
		got := make([]float64, len(models))
		errs := make([]error, len(models))
		var wg sync.WaitGroup
		for i, m := range models {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sol, err := s.Solve(m)
				if err == nil {
					got[i] = sol.Objective
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for i := range models {
			require.NoError(t, errs[i])
			assert.InDelta(t, want[i], got[i], tol, "%s model %d", s.Name(), i)
		}
	}
}

func TestRegistry(t *testing.T) {
	names := solver.Names()
	assert.Contains(t, names, "gonum")
	_, err := solver.Get("no such backend")
	assert.Error(t, err)
	assert.Error(t, solver.RegisterForTest("gonum", solver.Gonum), "duplicate name")
	assert.Error(t, solver.RegisterForTest("", solver.Gonum))
	assert.Error(t, solver.RegisterForTest("x", nil))
	auto := solver.Auto().Name()
	switch {
	case contains(names, "clp"):
		assert.Equal(t, "clp", auto)
	case contains(names, "revised"):
		assert.Equal(t, "revised", auto)
	default:
		assert.Equal(t, "gonum", auto)
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// TestPMLAgreement solves larger ε-PML LPs (random priors and utilities,
// up to 8×8) with every backend; they must agree to 1e-7, and none may go
// below the best data-independent mechanism, which is always feasible.
func TestPMLAgreement(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	bs := backends(t)
	for k := 0; k < 6; k++ {
		n := 3 + rng.IntN(6)
		prior := make([]float64, n)
		var sum float64
		for i := range prior {
			prior[i] = 0.05 + rng.Float64()
			sum += prior[i]
		}
		u := make([][]float64, n)
		for i := range prior {
			prior[i] /= sum
			u[i] = make([]float64, n)
			for j := range u[i] {
				u[i][j] = -math.Abs(float64(i-j)) + rng.Float64()
			}
		}
		eps := 0.1 + rng.Float64()
		var best0 float64 = math.Inf(-1)
		for j := 0; j < n; j++ {
			var s float64
			for i := range prior {
				s += prior[i] * u[i][j]
			}
			best0 = math.Max(best0, s)
		}
		var ref float64
		for b, s := range bs {
			m := pmlLP(prior, u, eps)
			sol, err := s.Solve(m)
			require.NoError(t, err, s.Name())
			require.Equal(t, solver.Optimal, sol.Status, s.Name())
			checkKKT(t, m, sol)
			assert.GreaterOrEqual(t, sol.Objective, best0-tol)
			if b == 0 {
				ref = sol.Objective
				continue
			}
			assert.InDelta(t, ref, sol.Objective, 1e-7, "%s vs %s, N = %d", bs[0].Name(), s.Name(), n)
		}
	}
}

// TestBasisTransfer: a basis read from one session and set in a fresh
// session of the same model restarts at the optimum (no simplex
// iterations), and a basis of the wrong shape is refused.
func TestBasisTransfer(t *testing.T) {
	m := pmlLP([]float64{0.5, 0.3, 0.2}, [][]float64{{3, 1, 0}, {1, 3, 1}, {0, 1, 3}}, 0.4)
	tested := 0
	defer func() {
		if contains(solver.Names(), "clp") {
			assert.Positive(t, tested, "the Clp backend keeps a basis")
		}
	}()
	for _, s := range backends(t) {
		ws, ok := s.(solver.WarmSolver)
		if !ok {
			continue
		}
		a, err := ws.Load(m)
		require.NoError(t, err)
		ba, ok := a.(solver.BasisSession)
		if !ok {
			a.Close()
			continue
		}
		_, ok = ba.Basis()
		assert.False(t, ok, "%s: a basis before the first Solve", s.Name())
		first, err := a.Solve()
		require.NoError(t, err)
		require.Equal(t, solver.Optimal, first.Status)
		basis, ok := ba.Basis()
		require.True(t, ok)
		a.Close()

		b, err := ws.Load(m)
		require.NoError(t, err)
		bb := b.(solver.BasisSession)
		require.Error(t, bb.SetBasis(lp.Basis{Cols: basis.Cols[1:], Rows: basis.Rows}))
		require.NoError(t, bb.SetBasis(basis))
		again, err := b.Solve()
		require.NoError(t, err)
		require.Equal(t, solver.Optimal, again.Status)
		assert.InDelta(t, first.Objective, again.Objective, 1e-9, s.Name())
		assert.Zero(t, again.Iterations, "%s: restarted from the optimal basis", s.Name())
		assert.Greater(t, first.Iterations, 0, s.Name())
		b.Close()
		tested++
	}
}
