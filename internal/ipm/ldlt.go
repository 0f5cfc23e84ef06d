package ipm

import (
	"math"
)

// ldlt is an L D Lᵀ factorisation built by positive rank-one updates
// (Gill, Golub, Murray and Saunders, "Methods for modifying matrix
// factorizations", 1974, method C1): each update changes the pivots by
// positive amounts, so a small pivot beside huge terms keeps its digits.
type ldlt struct {
	n    int
	l, d []float64 // l row-major, unit lower triangle
	w    []float64
}

// ldlFloor is the starting pivot: the border's unknowns all have rows,
// but an output that no mechanism uses can leave one with weights below
// rounding.
const ldlFloor = 1e-300

func (f *ldlt) reset(n int) {
	f.n = n
	if cap(f.l) < n*n {
		f.l, f.d, f.w = make([]float64, n*n), make([]float64, n), make([]float64, n)
	}
	f.l, f.d, f.w = f.l[:n*n], f.d[:n], f.w[:n]
	clear(f.l)
	for i := range n {
		f.l[i*n+i] = 1
		f.d[i] = ldlFloor
	}
}

// ldltTakes reports whether update adds a term of weight alpha: a
// positive finite one (others are rounding's, near a breakdown).
func ldltTakes(alpha float64) bool { return alpha > 0 && !math.IsInf(alpha, 0) }

// update adds alpha z zᵀ (alpha ≥ 0); a zero z adds nothing.
func (f *ldlt) update(alpha float64, z []float64) {
	if !ldltTakes(alpha) {
		return
	}
	n := f.n
	w := f.w
	copy(w, z)
	for j := range n {
		p := w[j]
		if p == 0 {
			continue
		}
		dn := f.d[j] + alpha*p*p
		beta := p * alpha / dn
		alpha *= f.d[j] / dn
		f.d[j] = dn
		for r := j + 1; r < n; r++ {
			w[r] -= p * f.l[r*n+j]
			f.l[r*n+j] += beta * w[r]
		}
	}
}

// inverse writes (L D Lᵀ)⁻¹ = Σ_i (1/d_i) u_i u_iᵀ, u_i = L⁻ᵀ e_i, into out.
func (f *ldlt) inverse(out []float64) {
	n := f.n
	clear(out)
	u := f.w // idle between updates
	for i := range n {
		// Solve Lᵀ u = e_i: u_r = 0 for r > i, u_i = 1.
		clear(u)
		u[i] = 1
		for r := i - 1; r >= 0; r-- {
			v := 0.0
			for c := r + 1; c <= i; c++ {
				v -= f.l[c*n+r] * u[c]
			}
			u[r] = v
		}
		inv := 1 / f.d[i]
		for a := 0; a <= i; a++ {
			for b := 0; b <= i; b++ {
				out[a*n+b] += inv * u[a] * u[b]
			}
		}
	}
}
