package colgen

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// polish looks for the ε at which the master's final basis, kept fixed
// while ε moves up, becomes feasible: when one slack is basic (the usual
// picture just below ε*), each basic column is affine in λ = e^ε (v =
// λ 1_S + (1 − λ π(S))/π_k e_k), and Newton's method on that slack's
// value finds the λ where it vanishes. If the basic weights are then
// non-negative and every basic column keeps its shape, the basis gives a
// mechanism with the pattern whose audited PML is returned. ok is false
// when the basis does not lend itself to it.
func (g *Master) polish() (mech.Mechanism, float64, bool) {
	n := len(g.pi)
	var basic []int  // structural columns in the basis: slack i < n, generated n + k
	var slacks []int // positions of the basic slacks in basic
	for j := 0; j < g.sx.NumCols(); j++ {
		if !g.sx.IsBasic(j) {
			continue
		}
		if j < n {
			slacks = append(slacks, len(basic))
		} else if g.cols[j-n].dead {
			return nil, 0, false
		}
		basic = append(basic, j)
	}
	if len(basic) != n || len(slacks) == 0 {
		return nil, 0, false
	}
	// Each generated basic column: v(λ) = λ a + b, with a = 1_S − (π(S)/π_k) e_k
	// the derivative and b = e_k/π_k.
	type shape struct {
		rows []int   // S then k
		piS  float64 // π(S)
	}
	shapes := make([]shape, n)
	for p, j := range basic {
		if j < n {
			continue
		}
		c := g.cols[j-n]
		s := shape{rows: c.rows}
		for _, i := range c.rows[:len(c.rows)-1] {
			s.piS += g.pi[i]
		}
		shapes[p] = s
	}
	// Beyond the first breakpoint above the probed λ, some basic column
	// changes shape (θ reaches λ at λ = 1/(π(S) + π_k), or 0 at 1/π(S)):
	// Newton stops there, and that λ is the estimate.
	lambdaMax := math.Inf(1)
	for p, j := range basic {
		if j < n {
			continue
		}
		s := shapes[p]
		k := s.rows[len(s.rows)-1]
		for _, bp := range []float64{1 / (s.piS + g.pi[k]), 1 / s.piS} {
			if bp > g.lambda && bp < lambdaMax {
				lambdaMax = bp
			}
		}
	}
	b := mat.NewDense(n, n, nil)
	build := func(lambda float64) {
		b.Zero()
		for p, j := range basic {
			if j < n {
				b.Set(j, p, 1)
				continue
			}
			s := shapes[p]
			last := len(s.rows) - 1
			for _, i := range s.rows[:last] {
				b.Set(i, p, lambda)
			}
			k := s.rows[last]
			b.Set(k, p, (1-lambda*s.piS)/g.pi[k])
		}
	}
	ones := mat.NewVecDense(n, nil)
	for i := range n {
		ones.SetVec(i, 1)
	}
	var lu mat.LU
	x, z, u := mat.NewVecDense(n, nil), mat.NewVecDense(n, nil), mat.NewVecDense(n, nil)
	lambda := g.lambda
	solved := false
	for it := 0; it < 30; it++ {
		build(lambda)
		lu.Factorize(b)
		if err := lu.SolveVecTo(x, false, ones); err != nil {
			return nil, 0, false
		}
		f := 0.0
		for _, p := range slacks {
			f += x.AtVec(p)
		}
		if math.Abs(f) <= 1e-15 {
			solved = true
			break
		}
		// z = (dB/dλ) x.
		z.Zero()
		for p, j := range basic {
			if j < n {
				continue
			}
			s := shapes[p]
			last := len(s.rows) - 1
			w := x.AtVec(p)
			for _, i := range s.rows[:last] {
				z.SetVec(i, z.AtVec(i)+w)
			}
			k := s.rows[last]
			z.SetVec(k, z.AtVec(k)-w*s.piS/g.pi[k])
		}
		if err := lu.SolveVecTo(u, false, z); err != nil {
			return nil, 0, false
		}
		d := 0.0
		for _, p := range slacks {
			d -= u.AtVec(p)
		}
		if !(d < 0) {
			return nil, 0, false
		}
		next := lambda - f/d
		if !(next >= g.lambda) || math.IsInf(next, 0) {
			return nil, 0, false
		}
		if it == 0 {
			// The estimate ignores the breakpoints: far below ε* the
			// first one is close, and the uncapped step still points
			// near ε*.
			g.estimate = math.Log(next)
		}
		atBreak := next >= lambdaMax
		if atBreak {
			next = lambdaMax
		}
		lambda = next
		if atBreak {
			build(lambda)
			lu.Factorize(b)
			if err := lu.SolveVecTo(x, false, ones); err != nil {
				return nil, 0, false
			}
			solved = true
			break
		}
	}
	if !solved {
		return nil, 0, false
	}
	// The shapes must hold at λ: 0 < θ ≤ λ for every basic column.
	for p, j := range basic {
		if j < n {
			continue
		}
		s := shapes[p]
		k := s.rows[len(s.rows)-1]
		if th := (1 - lambda*s.piS) / g.pi[k]; !(th > 0 && th <= lambda) {
			return nil, 0, false
		}
	}
	m := len(g.allowed)
	mm := mech.Mechanism(make([][]float64, n))
	for i := range mm {
		mm[i] = make([]float64, m)
	}
	for p, j := range basic {
		if j < n {
			continue
		}
		w := x.AtVec(p)
		if w <= 0 {
			continue
		}
		c := g.cols[j-n]
		s := shapes[p]
		last := len(s.rows) - 1
		for _, i := range s.rows[:last] {
			mm[i][c.j] += w * lambda
		}
		k := s.rows[last]
		mm[k][c.j] += w * (1 - lambda*s.piS) / g.pi[k]
	}
	for i := range mm {
		if mech.Normalise(mm[i]) <= 0 {
			return nil, 0, false
		}
	}
	return mm, leakage.PML(g.pi, mm), true
}
