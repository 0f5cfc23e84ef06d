package alphaopt

import (
	"context"
	"math"

	"github.com/pmlopt/pmlopt/internal/mathx"
)

// The supremum of the concave G(w) = log Σ_c e_c s_c(w)^r over the simplex
// (concaveProblem) by a multiplicative update, certified by Hölder's
// inequality, then polished by Newton's method on the inputs that carry the
// optimum.
//
// Certificate. For weights w and any v in the simplex, with
// g_x(w) = Σ_c e_c s_c(w)^{r−1} a_xc (so Σ_x w_x g_x = F(w) = Σ_c e_c s_c^r),
// Jensen's inequality for the concave t ↦ t^r under the weights
// e_c s_c(w)^r / F(w) gives
//
//	F(v)/F(w) ≤ (Σ_x v_x g_x(w) / F(w))^r ≤ (max_x g_x(w) / F(w))^r,
//
// so sup G ≤ G(w) + r log(max_x g_x / F). For β = 1 this is the bound of
// the Rényi radius, max_x D_α(P_x ‖ Q) with Q_y ∝ s_y^{1/α}, which Sibson's
// capacity never exceeds (Csiszár, "Generalized cutoff rates and Rényi's
// information measures", 1995). It is tighter than the Frank–Wolfe gap and
// costs two products with the n × C matrix a.
//
// Update. w_x ← w_x g_x(w) / F(w) keeps Σ w = 1 and has the optimum as its
// fixed point (g_x = F on the support, g_x ≤ F elsewhere, the conditions of
// Karush, Kuhn and Tucker); it is the Blahut–Arimoto iteration for β = 1.
// Inputs off the support lose weight geometrically, which identifies the
// support after a few hundred updates; Newton's method on that support
// (concaveProblem.newton, O(s²C) per step for s inputs) then converges
// quadratically. On small problems, pairwise exchanges of weight finish
// what both leave open.
//
// Limit. An optimum that gives an input a weight far below the rounding
// unit of the others (1e-14 next to 0.6, as in testdata/alpha-uncertified.yaml)
// can not be reached on the simplex in float64: the bracket then stays
// wider than a caller accepts (leakage: 1e-7), and callers report it as a
// bracket.

// The settings of the multiplicative stage.
const (
	mmIterations = 150  // updates before each Newton polish
	mmRounds     = 6    // update-and-polish rounds before giving up
	mmSupport    = 1e-4 // weight, relative to the largest, that keeps an input in the polished set
)

// gradient computes s, F = Σ_c e_c s_c^r and g_x = Σ_c e_c s_c^{r−1} a_xc at w.
// h is scratch of length C. It returns F.
func (cp *concaveProblem) gradient(w, g, h []float64) float64 {
	cp.mix(w)
	f := 0.0
	for c, sc := range cp.s {
		e := math.Exp(cp.lc[c])
		if sc > 0 {
			p := math.Pow(sc, cp.r)
			f += e * p
			h[c] = e * p / sc
		} else {
			h[c] = math.Inf(1)
		}
	}
	for i, row := range cp.a {
		v := 0.0
		for c, a := range row {
			if a != 0 {
				v += a * h[c]
			}
		}
		g[i] = v
	}
	return f
}

// holder returns G(w) and the Hölder bound on sup G from F and g.
func (cp *concaveProblem) holder(f float64, g []float64) (lo, up float64) {
	mx := math.Inf(-1)
	for _, v := range g {
		mx = max(mx, v)
	}
	lo = mathx.Log(f)
	return lo, lo + max(0, cp.r*mathx.LogRatio(mx, f))
}

// sub returns the problem restricted to the inputs in keep.
func (cp *concaveProblem) sub(keep []int) *concaveProblem {
	s := &concaveProblem{a: make([][]float64, len(keep)), lc: cp.lc, lc0: cp.lc0, r: cp.r, s: make([]float64, len(cp.s))}
	for k, i := range keep {
		s.a[k] = cp.a[i]
	}
	return s
}

// supMM returns a certified bracket on sup G (without lc0), starting from
// w, which it overwrites with the best point found. It stops once the
// bracket is narrower than tol, once its upper end is at most cp.prune
// (the value another row already reaches), after mmRounds rounds, or when
// ctx is done.
func (cp *concaveProblem) supMM(ctx context.Context, w []float64, tol float64) (lo, up float64) {
	n := len(w)
	g, h := make([]float64, n), make([]float64, len(cp.s))
	best := make([]float64, n)
	lo, up = math.Inf(-1), math.Inf(1)
	// try records the bracket at x and returns F(x), with g the gradient.
	try := func(x []float64) float64 {
		f := cp.gradient(x, g, h)
		l, u := cp.holder(f, g)
		if l > lo {
			lo = l
			copy(best, x)
		}
		up = min(up, u)
		return f
	}
	w1, w2, w3 := make([]float64, n), make([]float64, n), make([]float64, n)
	// step applies the update to x into y and records the bracket at x.
	step := func(x, y []float64) {
		f := try(x)
		for i := range x {
			y[i] = x[i] * g[i] / f
		}
	}
	try(w)
	open := func() bool { return up-lo > tol && up > cp.prune }
	for round := 0; round < mmRounds && open() && ctx.Err() == nil; round++ {
		// 1. Multiplicative updates, extrapolated by SQUAREM (Varadhan and
		// Roland, "Simple and globally convergent methods for accelerating
		// the convergence of any EM algorithm", 2008): from w, w1 = T(w)
		// and w2 = T(w1), try w − 2θd1 + θ²(d2 − d1) with θ = −‖d1‖/‖d2 − d1‖,
		// kept only when it improves on w2.
		for it := 0; it < mmIterations && open(); it++ {
			if ctx.Err() != nil {
				break
			}
			step(w, w1)
			step(w1, w2)
			n1, n2 := 0.0, 0.0
			for i := range w {
				d1, d2 := w1[i]-w[i], w2[i]-w1[i]
				n1 += d1 * d1
				n2 += (d2 - d1) * (d2 - d1)
			}
			if n2 == 0 {
				copy(w, w2)
				continue
			}
			th := -math.Sqrt(n1 / n2)
			sum := 0.0
			for i := range w {
				d1, d2 := w1[i]-w[i], w2[i]-w1[i]
				x := w[i] - 2*th*d1 + th*th*(d2-d1)
				if !(x > 0) {
					x = w2[i] * 1e-3 // keep the input alive: the update can not revive a zero
				}
				w3[i] = x
				sum += x
			}
			for i := range w3 {
				w3[i] /= sum
			}
			f3 := cp.gradient(w3, g, h)
			l3, _ := cp.holder(f3, g)
			f2 := cp.gradient(w2, g, h)
			l2, _ := cp.holder(f2, g)
			if l3 > l2 {
				copy(w, w3)
			} else {
				copy(w, w2)
			}
		}
		if !open() || ctx.Err() != nil {
			break
		}
		// 2. Newton on the inputs that may carry the optimum: those the
		// updates left with weight, and for every column one input that
		// serves it (the optimum gives every column mass: t^r has an
		// infinite slope at 0). An input wrongly left out shows in the
		// certificate, and the next round's updates revive it.
		wmax := 0.0
		for _, v := range w {
			wmax = max(wmax, v)
		}
		in := make([]bool, n)
		for i := range w {
			in[i] = w[i] > mmSupport*wmax
		}
		for c := range cp.s {
			bi, bv, covered := -1, 0.0, false
			for i := range w {
				if a := cp.a[i][c]; a > 0 {
					if in[i] {
						covered = true
						break
					}
					if v := w[i] * a; bi < 0 || v > bv {
						bi, bv = i, v
					}
				}
			}
			if !covered && bi >= 0 {
				in[bi] = true
			}
		}
		var keep []int
		for i, ok := range in {
			if ok {
				keep = append(keep, i)
			}
		}
		sp := cp.sub(keep)
		ws := make([]float64, len(keep))
		sum := 0.0
		for k, i := range keep {
			ws[k] = w[i]
			sum += w[i]
		}
		for k := range ws {
			ws[k] /= sum
		}
		sp.newton(ctx, ws, tol)
		trial := make([]float64, n)
		for k, i := range keep {
			trial[i] = ws[k]
		}
		try(trial)
		// Continue the updates from the better point, every input alive so
		// that the update can still revive one the polish dropped.
		copy(w, best)
		for i := range w {
			w[i] = (1-1e-9)*w[i] + 1e-9/float64(n)
		}
	}
	// 3. Pairwise exchanges when the bracket is still open on a small
	// problem: two inputs with nearly equal rows make G nearly flat along
	// the exchange of their weights, where the updates crawl and Newton's
	// step is lost in its regularisation.
	if open() && ctx.Err() == nil && n*len(cp.s) <= exchangeMaxWork {
		copy(w, best)
		cp.exchange(w, g, h, exchangeSteps, func(x []float64) { try(x) }, open)
	}
	copy(w, best)
	return lo, up
}

// The limits of the exchange stage.
const (
	exchangeMaxWork = 1 << 16 // largest n·C it runs on
	exchangeSteps   = 200
)

// exchange moves weight from the input of least gradient g_j (among those
// with weight) to the input of largest g_i, as far as G rises: the
// vertex-exchange step of optimal design, with the step found by bisection
// on the sign of g_i − g_j along the segment (G is concave on it). Each
// point reached is passed to try; it stops when open reports false.
func (cp *concaveProblem) exchange(w, g, h []float64, steps int, try func([]float64), open func() bool) {
	trial := make([]float64, len(w))
	for step := 0; step < steps && open(); step++ {
		cp.gradient(w, g, h)
		i, j := 0, -1
		for x := range w {
			if g[x] > g[i] {
				i = x
			}
			if w[x] > 0 && (j < 0 || g[x] < g[j]) {
				j = x
			}
		}
		if j < 0 || i == j || !(g[i] > g[j]) {
			return
		}
		at := func(t float64) []float64 {
			copy(trial, w)
			trial[i] += t
			trial[j] -= t
			if trial[j] < 0 {
				trial[j] = 0
			}
			return trial
		}
		lo, hi := 0.0, w[j]
		if cp.gradient(at(hi), g, h); g[i] < g[j] {
			for range 60 {
				mid := (lo + hi) / 2
				if cp.gradient(at(mid), g, h); g[i] >= g[j] {
					lo = mid
				} else {
					hi = mid
				}
			}
		} else {
			lo = hi
		}
		if lo == 0 {
			return
		}
		copy(w, at(lo))
		try(w)
	}
}
