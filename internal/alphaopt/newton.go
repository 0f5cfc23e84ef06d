package alphaopt

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pmlopt/pmlopt/mech"
)

// newton maximises G over the simplex from w by an active-set Newton method
// and returns G at the best point found with its Frank–Wolfe upper bound.
func (cp *concaveProblem) newton(ctx context.Context, w []float64, tol float64) (lo, up float64) {
	n := len(w)
	g := make([]float64, n)
	h := make([][]float64, n)
	for i := range h {
		h[i] = make([]float64, n)
	}
	trial := make([]float64, n)
	lo, up = math.Inf(-1), math.Inf(1)
	mu := 1e-14
	for iter := 0; iter < 500 && ctx.Err() == nil; iter++ {
		G, finite := cp.hess(w, g, h)
		mx, imx, dot := math.Inf(-1), 0, 0.0
		for i, gi := range g {
			if gi > mx {
				mx, imx = gi, i
			}
			if w[i] > 0 {
				dot += w[i] * gi
			}
		}
		if G > lo {
			lo = G
		}
		if finite {
			up = min(up, G+max(0, mx-dot))
		}
		if up-lo <= tol {
			break
		}
		if !finite {
			// A used column lost all its mass; the derivative towards the
			// input that restores it is infinite, so a small step helps.
			for th := 1e-3; th > 1e-300; th /= 16 {
				for i := range trial {
					trial[i] = (1 - th) * w[i]
				}
				trial[imx] += th
				if cp.eval(trial, nil) > G {
					copy(w, trial)
					break
				}
			}
			continue
		}
		// Free set: inputs with mass, and those whose gradient says grow.
		var free []int
		for i := range w {
			if w[i] > 0 || g[i] > dot {
				free = append(free, i)
			}
		}
		// Inputs at zero that the Newton step would push negative leave the
		// free set; solve again without them.
		d, free, ok := freeDirection(w, free, func(free []int) ([]float64, bool) { return newtonDirection(h, g, free, mu) })
		if !ok {
			mu = max(1e-12, 10*mu)
			continue
		}
		// Ratio test keeps w ≥ 0.
		// An input that alone carries some column is never zeroed (G has an
		// infinite slope there): the step may at most halve it.
		tmax, block := 1.0, -1
		for _, i := range free {
			if d[i] < 0 && w[i]+d[i] < 0 {
				t, sole := w[i]/-d[i], cp.sole(w, i)
				if sole {
					t /= 2
				}
				if t < tmax {
					tmax, block = t, i
					if sole {
						block = -1
					}
				}
			}
		}
		slope := 0.0
		for _, i := range free {
			slope += g[i] * d[i]
		}
		moved := false
		for t, try := tmax, 0; try < 60; t, try = t/2, try+1 {
			for i := range trial {
				trial[i] = w[i] + t*d[i]
				if trial[i] < 0 || (try == 0 && i == block) {
					trial[i] = 0
				}
			}
			mech.Normalise(trial)
			Gt := cp.eval(trial, nil)
			if Gt >= G+1e-4*t*slope && Gt > G {
				copy(w, trial)
				moved = true
				break
			}
			// A step that reaches a bound changes the active set; take it
			// if G does not fall beyond rounding.
			if try == 0 && block >= 0 && Gt >= G-1e-15*(1+math.Abs(G)) {
				copy(w, trial)
				moved = true
				break
			}
			// Near the optimum G stops resolving progress; accept a step
			// that keeps G within rounding and shrinks the certificate.
			if Gt >= G-1e-15*(1+math.Abs(G)) {
				if l, u := cp.certify(trial); u-l < up-lo && u-l < mx-dot {
					copy(w, trial)
					moved = true
					break
				}
			}
		}
		if moved {
			mu = max(1e-14, mu/10)
		} else {
			// Fall back on a Frank–Wolfe step towards the steepest vertex.
			if !cp.fwStep(w, trial, imx, G) && mu > 1e6 {
				break
			}
			mu = max(1e-12, 10*mu)
		}
	}
	return lo, up
}

// freeDirection is the Newton direction dir(free) on the free inputs,
// recomputed without the inputs at weight 0 that it would push negative
// until none is left; it returns the direction, the free inputs it was
// computed on, and false when dir failed.
func freeDirection(w []float64, free []int, dir func(free []int) ([]float64, bool)) ([]float64, []int, bool) {
	var d []float64
	ok := false
	for len(free) > 0 {
		if d, ok = dir(free); !ok {
			break
		}
		kept := free[:0]
		for _, i := range free {
			if w[i] > 0 || d[i] > 0 {
				kept = append(kept, i)
			}
		}
		if len(kept) == len(free) {
			break
		}
		free = kept
	}
	return d, free, ok
}

// newtonDirection solves the Newton step of the concave G restricted to the
// inputs in free and to directions with Σ d = 0: with A = −H + μI on free,
// d = A⁻¹(g + ν1), ν chosen so that Σ d = 0.
func newtonDirection(h [][]float64, g []float64, free []int, mu float64) ([]float64, bool) {
	d, _, ok := factorDirection(h, g, free, mu)
	return d, ok
}

// factorDirection is newtonDirection, also returning the factorisation of
// A (nil when free has fewer than two inputs).
func factorDirection(h [][]float64, g []float64, free []int, mu float64) ([]float64, *mat.Cholesky, bool) {
	nf := len(free)
	d := make([]float64, len(g))
	if nf < 2 {
		return d, nil, nf == 1
	}
	a := mat.NewSymDense(nf, nil)
	scale := 0.0
	for x, i := range free {
		for y, k := range free {
			a.SetSym(x, y, -h[i][k])
		}
		scale = max(scale, math.Abs(h[i][i]))
	}
	for x := range free {
		a.SetSym(x, x, a.At(x, x)+mu*(1+scale))
	}
	chol := new(mat.Cholesky)
	if !chol.Factorize(a) {
		return nil, nil, false
	}
	rhs := mat.NewDense(nf, 2, nil)
	for x, i := range free {
		rhs.Set(x, 0, g[i])
		rhs.Set(x, 1, 1)
	}
	var sol mat.Dense
	if err := chol.SolveTo(&sol, rhs); err != nil {
		return nil, nil, false
	}
	s0, s1 := 0.0, 0.0
	for x := range free {
		s0 += sol.At(x, 0)
		s1 += sol.At(x, 1)
	}
	if !(s1 > 0) {
		return nil, nil, false
	}
	nu := -s0 / s1
	for x, i := range free {
		d[i] = sol.At(x, 0) + nu*sol.At(x, 1)
	}
	return d, chol, true
}

// sole reports whether input i alone gives mass to some column at w.
func (cp *concaveProblem) sole(w []float64, i int) bool {
	for c, v := range cp.a[i] {
		if v == 0 {
			continue
		}
		other := false
		for k, wk := range w {
			if k != i && wk > 0 && cp.a[k][c] > 0 {
				other = true
				break
			}
		}
		if !other {
			return true
		}
	}
	return false
}

// fwStep moves w towards vertex i by the largest θ = 2^-k that raises G
// above g0 and reports whether it moved.
func (cp *concaveProblem) fwStep(w, trial []float64, i int, g0 float64) bool {
	for th := 1.0; th > 1e-18; th /= 2 {
		for k := range trial {
			trial[k] = (1 - th) * w[k]
		}
		trial[i] += th
		if cp.eval(trial, nil) > g0 {
			copy(w, trial)
			return true
		}
	}
	return false
}
