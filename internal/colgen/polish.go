package colgen

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pmlopt/pmlopt/mech"
)

// shape is a generated column's form λ 1_S + θ e_k with S and k fixed:
// rows holds S then k. Its entries are affine in λ: θ = (1 − λ π(S))/π_k.
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

func (s shape) theta(pi mech.Prior, lambda float64) float64 {
	return (1 - lambda*s.piS) / pi[s.k()]
}

// polish keeps the master's final basis, with the shape of every basic
// column, while λ = e^ε moves up from the probed value, and runs Newton's
// method on the sum of the basic slacks (each basic column being affine in
// λ) for the λ where they vanish. The first Newton step, as an ε, is the
// estimate of ε* it returns (0 if there is none); it ignores the shapes'
// breakpoints, since far below ε* the first one is close and the uncapped
// step still points near ε*. The iteration itself stops at the first
// breakpoint above the probed λ, where some basic column would change
// shape (θ reaches λ at λ = 1/(π(S) + π_k), or 0 at 1/π(S)). If every
// shape holds where it stops, the basic columns with positive weights
// give a mechanism with the pattern (rows normalised), which is returned
// for the caller to audit; nil otherwise.
func (g *Master) polish() (estimate float64, p mech.Mechanism) {
	n := len(g.pi)
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
	lambdaMax := math.Inf(1)
	for p, j := range basic {
		if j < n {
			continue
		}
		s := newShape(g.pi, g.cols[j-n].rows)
		shapes[p] = s
		for _, bp := range []float64{1 / (s.piS + g.pi[s.k()]), 1 / s.piS} {
			if bp > g.lambda && bp < lambdaMax {
				lambdaMax = bp
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
	// solveAt factorises the basis at lambda and solves B x = 1.
	solveAt := func(lambda float64) bool {
		b.Zero()
		for p, j := range basic {
			if j < n {
				b.Set(j, p, 1)
				continue
			}
			s := shapes[p]
			for _, i := range s.full() {
				b.Set(i, p, lambda)
			}
			b.Set(s.k(), p, s.theta(g.pi, lambda))
		}
		lu.Factorize(b)
		return lu.SolveVecTo(x, false, ones) == nil
	}
	lambda := g.lambda
	solved := false
	for it := 0; it < 30 && !solved; it++ {
		if !solveAt(lambda) {
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
		// d f/dλ = −Σ_slacks (B⁻¹ (dB/dλ) x).
		z.Zero()
		for p, j := range basic {
			if j < n {
				continue
			}
			s, w := shapes[p], x.AtVec(p)
			for _, i := range s.full() {
				z.SetVec(i, z.AtVec(i)+w)
			}
			z.SetVec(s.k(), z.AtVec(s.k())-w*s.piS/g.pi[s.k()])
		}
		if err := lu.SolveVecTo(u, false, z); err != nil {
			return estimate, nil
		}
		d := 0.0
		for _, p := range slacks {
			d -= u.AtVec(p)
		}
		if !(d < 0) {
			return estimate, nil
		}
		next := lambda - f/d
		if !(next >= g.lambda) || math.IsInf(next, 0) {
			return estimate, nil
		}
		if it == 0 {
			estimate = math.Log(next)
		}
		if next >= lambdaMax {
			lambda = lambdaMax
			if !solveAt(lambda) {
				return estimate, nil
			}
			solved = true
			break
		}
		lambda = next
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
		th := s.theta(g.pi, lambda)
		if !(th > 0 && th <= lambda) {
			return estimate, nil // the shape does not hold at λ
		}
		if w := x.AtVec(p); w > 0 {
			vals := make([]float64, len(s.rows))
			for e := range s.full() {
				vals[e] = lambda
			}
			vals[len(vals)-1] = th
			ws = append(ws, weighted{j: g.cols[j-n].j, rows: s.rows, vals: vals, w: w})
		}
	}
	return estimate, assemble(n, len(g.allowed), ws)
}
