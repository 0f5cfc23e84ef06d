package colgen

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pmlopt/pmlopt/mech"
)

// shape is a generated column's form 1_S + θ e_k (divided by its largest
// entry) with S and k fixed: rows holds S then k. Its entries are affine in
// μ = 1/λ: θ = (μ − π(S))/π_k, or θ = 1 when S is empty.
type shape struct {
	rows []int
	piS  float64 // π(S)
}

func newShape(pi mech.Prior, rows []int) shape {
	s := shape{rows: rows}
	for _, i := range s.full() {
		s.piS += pi[i]
	}
	return s
}

func (s shape) full() []int { return s.rows[:len(s.rows)-1] }
func (s shape) k() int      { return s.rows[len(s.rows)-1] }

func (s shape) theta(pi mech.Prior, mu float64) float64 {
	if len(s.rows) == 1 {
		return 1
	}
	return (mu - s.piS) / pi[s.k()]
}

// slope is dθ/dμ.
func (s shape) slope(pi mech.Prior) float64 {
	if len(s.rows) == 1 {
		return 0
	}
	return 1 / pi[s.k()]
}

// breakpoints are the μ where the shape stops holding: θ reaches 1, or 0
// (none when S is empty: e_k holds for every μ ≤ π_k).
func (s shape) breakpoints(pi mech.Prior) []float64 {
	if len(s.rows) == 1 {
		return nil
	}
	return []float64{s.piS + pi[s.k()], s.piS}
}

// polish keeps the master's final basis, with the shape of every basic
// column, while λ = e^ε moves up from the probed value (μ = 1/λ down), and
// runs Newton's method on the sum of the basic slacks (each basic column
// being affine in μ) for the μ where they vanish. The first Newton step,
// as an ε, is the estimate of ε* it returns (0 if there is none); it
// ignores the shapes' breakpoints, since far below ε* the first one is
// close and the uncapped step still points near ε*. The iteration itself
// stops at the first breakpoint below the probed μ, where some basic column
// would change shape (θ reaches 1 at μ = π(S) + π_k, or 0 at μ = π(S)). If
// every shape holds where it stops, the basic columns with positive
// weights give a mechanism with the pattern (rows normalised), which is
// returned for the caller to audit; nil otherwise.
func (g *Master) polish() (estimate float64, p mech.Mechanism) {
	n := g.sx.n
	var basic []int  // structural columns in the basis: slack i < n, generated n + k
	var slacks []int // positions of the basic slacks in basic
	for j := 0; j < g.sx.numCols(); j++ {
		if !g.sx.isBasic(j) {
			continue
		}
		if j < n {
			slacks = append(slacks, len(basic))
		} else if g.cols[j-n].dead {
			return 0, nil
		}
		basic = append(basic, j)
	}
	if len(basic) != n || len(slacks) == 0 {
		return 0, nil
	}
	shapes := make([]shape, n) // of the generated basic columns, by position
	muMin := 0.0
	for p, j := range basic {
		if j < n {
			continue
		}
		s := newShape(g.pi, g.cols[j-n].rows)
		shapes[p] = s
		for _, bp := range s.breakpoints(g.pi) {
			if bp < g.mu && bp > muMin {
				muMin = bp
			}
		}
	}

	b := mat.NewDense(n, n, nil)
	ones := mat.NewVecDense(n, nil)
	for i := range n {
		ones.SetVec(i, 1)
	}
	var lu mat.LU
	x, z, u := mat.NewVecDense(n, nil), mat.NewVecDense(n, nil), mat.NewVecDense(n, nil)
	// solveAt factorises the basis at mu and solves B x = 1.
	solveAt := func(mu float64) bool {
		b.Zero()
		for p, j := range basic {
			if j < n {
				b.Set(j, p, 1)
				continue
			}
			s, o := shapes[p], g.cols[j-n].j
			for _, i := range s.full() {
				r, c := g.entry(o, i)
				b.Set(r, p, b.At(r, p)+c)
			}
			r, c := g.entry(o, s.k())
			b.Set(r, p, b.At(r, p)+c*s.theta(g.pi, mu))
		}
		lu.Factorize(b)
		return lu.SolveVecTo(x, false, ones) == nil
	}
	mu := g.mu
	solved := false
	for it := 0; it < 30 && !solved; it++ {
		if !solveAt(mu) {
			return estimate, nil
		}
		f := 0.0
		for _, p := range slacks {
			f += x.AtVec(p)
		}
		if math.Abs(f) <= 1e-15 {
			solved = true
			break
		}
		// d f/dμ = −Σ_slacks (B⁻¹ (dB/dμ) x), dB/dμ = Σ_p θ'_p e_k e_pᵀ.
		z.Zero()
		for p, j := range basic {
			if j < n {
				continue
			}
			s := shapes[p]
			r, c := g.entry(g.cols[j-n].j, s.k())
			z.SetVec(r, z.AtVec(r)+x.AtVec(p)*c*s.slope(g.pi))
		}
		if err := lu.SolveVecTo(u, false, z); err != nil {
			return estimate, nil
		}
		d := 0.0
		for _, p := range slacks {
			d -= u.AtVec(p)
		}
		if !(d > 0) {
			return estimate, nil
		}
		next := mu - f/d
		if !(next <= g.mu) || !(next > 0) {
			return estimate, nil
		}
		if it == 0 {
			estimate = -math.Log(next)
		}
		if next <= muMin {
			mu = muMin
			if !solveAt(mu) {
				return estimate, nil
			}
			solved = true
			break
		}
		mu = next
	}
	if !solved {
		return estimate, nil
	}
	var ws []weighted
	for p, j := range basic {
		if j < n {
			continue
		}
		s := shapes[p]
		th := s.theta(g.pi, mu)
		if !(th > 0 && th <= 1) {
			return estimate, nil // the shape does not hold at μ
		}
		if w := x.AtVec(p); w > 0 {
			vals := make([]float64, len(s.rows))
			for e := range s.full() {
				vals[e] = 1
			}
			vals[len(vals)-1] = th
			ws = append(ws, weighted{j: g.cols[j-n].j, rows: s.rows, vals: vals, w: w})
		}
	}
	return estimate, g.assemble(ws)
}

// entry returns the master's row that input i of a column of output j
// falls in, and the coefficient of its entry there (see fold): (i, 1)
// without a fold.
func (g *Master) entry(j, i int) (int, float64) {
	if g.f == nil {
		return i, 1
	}
	return g.f.orb[i], float64(g.f.size[j]) * g.f.inv[i]
}
