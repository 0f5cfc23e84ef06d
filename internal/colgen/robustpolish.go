package colgen

import (
	"math"

	"github.com/pmlopt/pmlopt/mech"
)

// robustPolish is Master.polish for the robust master: it keeps the final
// basis of a probe that ended above 0, moves every basic column to a
// smaller μ = 1/λ (a column of entries 1 and τ is re-levelled, τ affine in
// μ; another keeps its entries while it stays in the set's cone), and
// runs Newton's method on the sum of the basic slacks for the μ where
// they vanish. It returns that μ as an ε (0 when there is none) and, when
// the basis is still primal feasible there, the mechanism of its columns
// for the caller to audit over the set, and the basis's duals there (y
// with y_i = 1 on each basic slack's row and y·v = 0 on each basic
// column): the duals of the master at that ε, for RobustBound to turn
// into a proof.
func (g *RobustMaster) robustPolish(mu0 float64) (float64, mech.Mechanism, []float64) {
	n := g.sx.n
	head := g.sx.head
	for _, v := range head {
		if v >= n && g.cols[v-n].dead {
			return 0, nil, nil
		}
	}
	b := make([]float64, n*n)
	x := make([]float64, n)
	ni := g.set.N()
	one, grp := make([]bool, ni), make([]bool, ni)
	vals := make([][]float64, n) // the basic columns' entries at the last μ, on the inputs
	var er []int                 // a column's entries in the master (engineEntries)
	var ev []float64
	// eval solves B(μ) x = 1 and returns the sum of the basic slacks and
	// the least basic value; ok is false when a column leaves its form.
	eval := func(mu float64) (sum, least float64, ok bool) {
		clear(b)
		for p, v := range head {
			if v < n {
				b[v*n+p] = 1
				continue
			}
			c := &g.cols[v-n]
			vals[p] = vals[p][:0]
			if c.level {
				clear(one)
				clear(grp)
				for e, i := range c.rows {
					one[i] = c.vals[e] >= 1
					grp[i] = c.vals[e] < 1
				}
				tau, ok := groupLevel(g.set, one, grp, mu)
				if !ok {
					return 0, 0, false
				}
				for _, i := range c.rows {
					w := 1.0
					if grp[i] {
						w = tau
					}
					vals[p] = append(vals[p], w)
				}
			} else {
				if c.mass < mu {
					return 0, 0, false
				}
				vals[p] = append(vals[p], c.vals...)
			}
			er, ev = g.engineEntries(c.j, c.rows, vals[p], er, ev)
			for e, i := range er {
				b[i*n+p] = ev[e]
			}
		}
		for i := range x {
			x[i] = 1
		}
		if !solveDense(b, x, n) {
			return 0, 0, false
		}
		least = math.Inf(1)
		for p, v := range head {
			least = min(least, x[p])
			if v < n {
				sum += x[p]
			}
		}
		return sum, least, true
	}
	f0, _, ok := eval(mu0)
	if !ok || !(f0 > 0) {
		return 0, nil, nil
	}
	mu, f := mu0, f0
	estimate := 0.0
	for range 30 {
		h := 1e-7 * mu
		f1, _, ok := eval(mu - h)
		if !ok {
			return estimate, nil, nil
		}
		slope := (f - f1) / h // df/dμ
		if !(slope > 0) {
			return estimate, nil, nil
		}
		next := mu - f/slope
		if !(next > 0) || next < mu0*math.Exp(-2) {
			return estimate, nil, nil
		}
		mu = next
		if estimate == 0 {
			estimate = -math.Log(mu)
		}
		var least float64
		f, least, ok = eval(mu)
		if !ok {
			return estimate, nil, nil
		}
		if math.Abs(f) <= 1e-13 {
			estimate = -math.Log(mu)
			if least < -1e-12 {
				return estimate, nil, nil
			}
			var ws []weighted
			for p, v := range head {
				if v >= n && x[p] > 0 {
					c := g.cols[v-n]
					ws = append(ws, weighted{j: c.j, rows: c.rows, vals: append([]float64(nil), vals[p]...), w: x[p]})
				}
			}
			return estimate, g.assemble(ws), g.rootDuals(head, vals)
		}
	}
	return estimate, nil, nil
}

// rootDuals solves Bᵀ y = c_B for the basis head whose columns hold the
// entries vals on the inputs (as eval last set them): c_B is 1 on a
// slack, 0 on a column. It returns the multipliers of the inputs (y
// unfolded), nil when the basis is singular.
func (g *RobustMaster) rootDuals(head []int, vals [][]float64) []float64 {
	n := g.sx.n
	bt := make([]float64, n*n) // Bᵀ, row p the basic column at p
	y := make([]float64, n)
	var er []int
	var ev []float64
	for p, v := range head {
		if v < n {
			bt[p*n+v], y[p] = 1, 1
			continue
		}
		c := g.cols[v-n]
		er, ev = g.engineEntries(c.j, c.rows, vals[p], er, ev)
		for e, i := range er {
			bt[p*n+i] = ev[e]
		}
	}
	if !solveDense(bt, y, n) {
		return nil
	}
	return g.unfold(y)
}

// solveDense solves a x = rhs in place (a row-major n×n, overwritten) by
// Gaussian elimination with partial pivoting; false when singular.
func solveDense(a, rhs []float64, n int) bool {
	for c := range n {
		r, big := -1, 1e-13
		for p := c; p < n; p++ {
			if v := math.Abs(a[p*n+c]); v > big {
				r, big = p, v
			}
		}
		if r < 0 {
			return false
		}
		if r != c {
			for t := range n {
				a[r*n+t], a[c*n+t] = a[c*n+t], a[r*n+t]
			}
			rhs[r], rhs[c] = rhs[c], rhs[r]
		}
		inv := 1 / a[c*n+c]
		for p := c + 1; p < n; p++ {
			f := a[p*n+c] * inv
			if f == 0 {
				continue
			}
			for t := c; t < n; t++ {
				a[p*n+t] -= f * a[c*n+t]
			}
			rhs[p] -= f * rhs[c]
		}
	}
	for c := n - 1; c >= 0; c-- {
		s := rhs[c]
		for t := c + 1; t < n; t++ {
			s -= a[c*n+t] * rhs[t]
		}
		rhs[c] = s / a[c*n+c]
	}
	return true
}
