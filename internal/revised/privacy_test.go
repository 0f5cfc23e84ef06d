package revised

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
)

// pmlLP is the ε-PML LP of docs/theory.md §5 with an auxiliary t_j = e^ε q_j:
//
//	p_ij − t_j ≤ 0, e^{−ε} t_j − Σ_k π_k p_kj = 0, Σ_j p_ij = 1, p ≥ 0,
//
// and p_ij fixed at 0 where order[i][j] < h. util, when not nil, gives the
// expected-utility objective Σ π_i u_ij p_ij (maximised); else the LP is a
// feasibility problem.
type pmlLP struct {
	model  *lp.Model
	n, m   int
	qRow   []int // row of e^{−ε} t_j − Σ π p = 0
	tCol   []int
	pCol   [][]int
	prior  []float64
	forbid [][]bool
}

func newPMLLP(prior []float64, order [][]int, h int, util [][]float64, eps float64) *pmlLP {
	n, m := len(prior), len(order[0])
	l := &pmlLP{model: &lp.Model{Maximize: true}, n: n, m: m, prior: prior}
	l.pCol = make([][]int, n)
	l.forbid = make([][]bool, n)
	for i := 0; i < n; i++ {
		l.pCol[i] = make([]int, m)
		l.forbid[i] = make([]bool, m)
		for j := 0; j < m; j++ {
			c := 0.0
			if util != nil {
				c = prior[i] * util[i][j]
			}
			up := 1.0
			if order[i][j] < h {
				up = 0
				l.forbid[i][j] = true
			}
			l.pCol[i][j] = l.model.AddCol(c, 0, up, "")
		}
	}
	for j := 0; j < m; j++ {
		l.tCol = append(l.tCol, l.model.AddCol(0, 0, lp.Inf, ""))
	}
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			l.model.AddRow(math.Inf(-1), 0, "", lp.Entry(l.pCol[i][j], 1), lp.Entry(l.tCol[j], -1))
		}
	}
	for j := 0; j < m; j++ {
		es := []lp.Nonzero{lp.Entry(l.tCol[j], math.Exp(-eps))}
		for k := 0; k < n; k++ {
			es = append(es, lp.Entry(l.pCol[k][j], -prior[k]))
		}
		l.qRow = append(l.qRow, l.model.AddRow(0, 0, "", es...))
	}
	for i := 0; i < n; i++ {
		var es []lp.Nonzero
		for j := 0; j < m; j++ {
			es = append(es, lp.Entry(l.pCol[i][j], 1))
		}
		l.model.AddRow(1, 1, "", es...)
	}
	return l
}

// setEps changes ε in a loaded session.
func (l *pmlLP) setEps(s *Simplex, eps float64) error {
	for j := 0; j < l.m; j++ {
		if err := s.SetCoef(l.qRow[j], l.tCol[j], math.Exp(-eps)); err != nil {
			return err
		}
	}
	return nil
}

func (l *pmlLP) mechanism(x []float64) mech.Mechanism {
	p := make(mech.Mechanism, l.n)
	for i := range p {
		p[i] = make([]float64, l.m)
		for j := range p[i] {
			p[i][j] = x[l.pCol[i][j]]
		}
	}
	return p
}

// randomPML draws a random N×M instance: prior from normalised uniforms,
// each row of the order a random permutation, utilities = orders.
func randomPML(rng *rand.Rand, n, m int) (prior []float64, order [][]int, util [][]float64) {
	prior = make([]float64, n)
	sum := 0.0
	for i := range prior {
		prior[i] = 0.05 + rng.Float64()
		sum += prior[i]
	}
	for i := range prior {
		prior[i] /= sum
	}
	order = make([][]int, n)
	util = make([][]float64, n)
	for i := range order {
		perm := rng.Perm(m)
		order[i] = make([]int, m)
		util[i] = make([]float64, m)
		for j := range perm {
			order[i][j] = perm[j] + 1
			util[i][j] = float64(perm[j]+1) + rng.Float64()*0.5
		}
	}
	return prior, order, util
}

// TestPMLExample1 checks the feasibility LP against Song & Oechtering (2026), Example 1:
// with U = [[3,2,1],[1,3,2],[2,1,3]], π_2+π_3 ≤ 1/2 and h = 2 the least PML
// is log 2, attained by mechanism (9).
func TestPMLExample1(t *testing.T) {
	prior := []float64{0.6, 0.25, 0.15}
	order := [][]int{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}}
	for _, tc := range []struct {
		eps  float64
		want lp.Status
	}{
		{math.Log(2) - 1e-6, lp.Infeasible},
		{math.Log(2) - 1e-8, lp.Infeasible},
		{math.Log(2) + 1e-8, lp.Optimal},
		{math.Log(2) + 1e-6, lp.Optimal},
		{0.2, lp.Infeasible},
		{1.5, lp.Optimal},
	} {
		l := newPMLLP(prior, order, 2, nil, tc.eps)
		r, err := Solve(l.model, nil)
		require.NoError(t, err)
		require.Equal(t, tc.want, r.Status, "ε = %v", tc.eps)
		if r.Status == lp.Optimal {
			checkOptimal(t, l.model, r, 1e-9)
			p := l.mechanism(r.X)
			assert.LessOrEqual(t, leakage.PML(prior, p), tc.eps+1e-9)
			for i := range p {
				for j := range p[i] {
					if l.forbid[i][j] {
						assert.Zero(t, p[i][j])
					}
				}
			}
		} else {
			checkFarkas(t, l.model, r.Certificate)
		}
	}
}

// TestPMLBisectionWarm bisects ε*(h) on Example 1 with one warm session and
// finds log 2 to 1e-9.
func TestPMLBisectionWarm(t *testing.T) {
	prior := []float64{0.5, 0.3, 0.2}
	order := [][]int{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}}
	l := newPMLLP(prior, order, 2, nil, 0)
	s, err := New(l.model, nil)
	require.NoError(t, err)
	lo, hi := 0.0, -math.Log(0.2)
	for hi-lo > 1e-10 {
		mid := (lo + hi) / 2
		require.NoError(t, l.setEps(s, mid))
		r, err := s.Solve()
		require.NoError(t, err)
		if r.Status == lp.Optimal {
			hi = mid
		} else {
			require.Equal(t, lp.Infeasible, r.Status)
			lo = mid
		}
	}
	assert.InDelta(t, math.Log(2), hi, 1e-9)
}

// TestPMLRandomWarmEqualsCold solves random expected-utility PML LPs over a
// range of ε in one warm session and compares each with a cold solve and,
// for small sizes, with gonum.
func TestPMLRandomWarmEqualsCold(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 6; trial++ {
		n, m := 3+rng.IntN(4), 3+rng.IntN(4)
		prior, order, util := randomPML(rng, n, m)
		h := 1 + rng.IntN(m)
		l := newPMLLP(prior, order, h, util, 0.3)
		s, err := New(l.model, nil)
		require.NoError(t, err)
		for _, eps := range []float64{0.3, 0.05, 0.9, 2.5, 0.6, 0} {
			require.NoError(t, l.setEps(s, eps))
			warm, err := s.Solve()
			require.NoError(t, err)
			fresh := newPMLLP(prior, order, h, util, eps)
			cold, err := Solve(fresh.model, nil)
			require.NoError(t, err)
			require.Equal(t, cold.Status, warm.Status, "trial %d ε %v", trial, eps)
			st, obj := gonumSolve(fresh.model)
			if st >= 0 {
				require.Equal(t, st, cold.Status, "gonum disagrees: trial %d ε %v", trial, eps)
			}
			if cold.Status != lp.Optimal {
				checkFarkas(t, fresh.model, warm.Certificate)
				continue
			}
			checkOptimal(t, fresh.model, warm, 1e-9)
			checkOptimal(t, fresh.model, cold, 1e-9)
			assert.InDelta(t, cold.Objective, warm.Objective, 1e-9)
			if st == lp.Optimal {
				assert.InDelta(t, obj, cold.Objective, 1e-7)
			}
			p := l.mechanism(warm.X)
			q := p.Marginal(prior)
			for j, lj := range leakage.PMLPerOutput(prior, p) {
				if q[j] > 1e-6 { // tiny columns carry tolerance-sized noise
					assert.LessOrEqual(t, lj, eps+1e-6)
				}
			}
		}
	}
}

// TestPML16BoundaryWarmCold bisects ε*(h) of a random 16×16 instance with a
// warm session and checks, at points 1e-7 either side of the threshold,
// that a cold solve agrees and that the feasible side's mechanism has PML
// within ε.
func TestPML16BoundaryWarmCold(t *testing.T) {
	rng := rand.New(rand.NewPCG(99, 1))
	prior, order, _ := randomPML(rng, 16, 16)
	h := 9
	l := newPMLLP(prior, order, h, nil, 0)
	s, err := New(l.model, nil)
	require.NoError(t, err)
	lo, hi := 0.0, 5.0
	for hi-lo > 1e-9 {
		mid := (lo + hi) / 2
		require.NoError(t, l.setEps(s, mid))
		r, err := s.Solve()
		require.NoError(t, err)
		if r.Status == lp.Optimal {
			hi = mid
		} else {
			require.Equal(t, lp.Infeasible, r.Status)
			lo = mid
		}
	}
	// The utility-safe mechanism M*(h) is feasible, so ε*(h) is at most its
	// PML ε_S(h) (Song & Oechtering (2026), Cor 1).
	safe := 0.0
	for j := 0; j < 16; j++ {
		mass := 0.0
		for i := 0; i < 16; i++ {
			if order[i][j] >= h {
				mass += prior[i]
			}
		}
		safe = math.Max(safe, -math.Log(mass))
	}
	assert.LessOrEqual(t, hi, safe+1e-9)
	for _, tc := range []struct {
		eps  float64
		want lp.Status
	}{{hi + 1e-7, lp.Optimal}, {lo - 1e-7, lp.Infeasible}} {
		fresh := newPMLLP(prior, order, h, nil, tc.eps)
		cold, err := Solve(fresh.model, nil)
		require.NoError(t, err)
		require.NoError(t, l.setEps(s, tc.eps))
		warm, err := s.Solve()
		require.NoError(t, err)
		assert.Equal(t, tc.want, cold.Status)
		assert.Equal(t, tc.want, warm.Status)
		if tc.want == lp.Optimal {
			checkOptimal(t, fresh.model, cold, 1e-9)
			checkOptimal(t, fresh.model, warm, 1e-9)
			p := fresh.mechanism(warm.X)
			q := p.Marginal(prior)
			for j, lj := range leakage.PMLPerOutput(prior, p) {
				if q[j] > 1e-6 {
					assert.LessOrEqual(t, lj, tc.eps+1e-6)
				}
			}
		} else {
			checkFarkas(t, fresh.model, cold.Certificate)
			checkFarkas(t, fresh.model, warm.Certificate)
		}
	}
}

func TestIterationLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	prior, order, util := randomPML(rng, 6, 6)
	l := newPMLLP(prior, order, 2, util, 1)
	r, err := Solve(l.model, &Options{MaxIter: 3})
	require.NoError(t, err)
	assert.Equal(t, lp.Limit, r.Status)
	assert.Equal(t, 3, r.Iterations)
}
