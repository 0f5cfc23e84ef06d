package alphaopt

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// concaveProblem is G(w) = log Σ_c exp(lc_c) s_c(w)^r with
// s_c(w) = Σ_i w_i a_ic, a_ic = (p_ij/m_j)^α ∈ [0, 1], m_j = max_i p_ij and
// r = β/α ∈ (0, 1]: the log of the argument of Gilani et al. (2022), eq. 6 for one k,
// up to the additive constant lc0, with the column maxima factored out so
// that nothing overflows or underflows.
type concaveProblem struct {
	a   [][]float64 // n × C
	lc  []float64   // log weights, shifted so that max = 0
	lc0 float64     // the shift
	r   float64
	s   []float64 // scratch: s_c

	lm   []float64 // log m_j, to build the weights of a row (forRow)
	beta float64
	// prune stops the maximisation once sup G is proven at most prune
	// (Max: the row can not beat the best one); −Inf by default.
	prune float64
	// hc preconditions the Newton steps of supCG (conjugategradient.go); rows that
	// share it share the factorisations.
	hc *hessCache
	// dense is a as one row-major block for the batched products of
	// rowBounds and rowUpdates, built once by matrix.
	dense blas64.General
}

// matrix returns a as one row-major block, copied on the first call.
func (cp *concaveProblem) matrix() blas64.General {
	if cp.dense.Data == nil {
		n, C := len(cp.a), len(cp.s)
		flat := make([]float64, n*C)
		for i, row := range cp.a {
			copy(flat[i*C:(i+1)*C], row)
		}
		cp.dense = blas64.General{Rows: n, Cols: C, Stride: C, Data: flat}
	}
	return cp.dense
}

// unsettled returns the brackets (−∞, +∞) of m rows: what a batched pass
// reports for the rows it did not reach before its context ended.
func unsettled(m int) (lo, up []float64) {
	lo, up = make([]float64, m), make([]float64, m)
	for k := range lo {
		lo[k], up[k] = math.Inf(-1), math.Inf(1)
	}
	return lo, up
}

func newConcaveProblem(rows mech.Mechanism, cols []int, alpha, beta float64) *concaveProblem {
	lm := LogColumnMax(rows, cols)
	n, nc := len(rows), len(cols)
	cp := &concaveProblem{a: make([][]float64, n), r: beta / alpha, s: make([]float64, nc), lm: lm, beta: beta, prune: math.Inf(-1)}
	for i, row := range rows {
		cp.a[i] = make([]float64, nc)
		for c, j := range cols {
			if row[j] > 0 {
				cp.a[i][c] = math.Exp(alpha * (mathx.Log(row[j]) - lm[c]))
			}
		}
	}
	return cp
}

// forRow returns the problem of row k: it shares a with cp and sets the
// weights lc, lc0 of Gilani et al. (2022), eq. 6 for k.
func (cp *concaveProblem) forRow(rows mech.Mechanism, cols []int, k int) *concaveProblem {
	q := &concaveProblem{a: cp.a, r: cp.r, s: make([]float64, len(cp.s)), lm: cp.lm, beta: cp.beta, lc: make([]float64, len(cols)), prune: math.Inf(-1)}
	// log(p_kj^{1−β} m_j^β) for β > 1; m_j for β = 1 (p_kj^0 = 1).
	q.lc0 = math.Inf(-1)
	for c, j := range cols {
		v := cp.beta * cp.lm[c]
		if cp.beta != 1 {
			v += (1 - cp.beta) * mathx.Log(rows[k][j])
		}
		q.lc[c] = v
		q.lc0 = max(q.lc0, v)
	}
	for c := range q.lc {
		q.lc[c] -= q.lc0
	}
	return q
}

// eval returns G(w) without lc0 and, if grad is not nil, stores ∇G(w).
func (cp *concaveProblem) eval(w, grad []float64) float64 {
	cp.mix(w)
	f := 0.0
	for c, sc := range cp.s {
		if sc > 0 {
			f += math.Exp(cp.lc[c]) * math.Pow(sc, cp.r)
		}
	}
	for i := range grad {
		g := 0.0
		for c, v := range cp.a[i] {
			if v == 0 {
				continue
			}
			if cp.s[c] > 0 {
				g += math.Exp(cp.lc[c]) * math.Pow(cp.s[c], cp.r-1) * v
			} else {
				g = math.Inf(1)
				break
			}
		}
		grad[i] = cp.r * g / f
	}
	return mathx.Log(f)
}

// certify returns G(w) and the Frank–Wolfe upper bound G(w) + max_i ∂_i G −
// Σ_i w_i ∂_i G on sup G.
func (cp *concaveProblem) certify(w []float64) (lo, up float64) {
	g := make([]float64, len(w))
	lo = cp.eval(w, g)
	mx, dot := math.Inf(-1), 0.0
	for i, gi := range g {
		mx = max(mx, gi)
		if w[i] > 0 {
			dot += w[i] * gi
		}
	}
	return lo, lo + max(0, mx-dot)
}

// concaveSup maximises the concave G of problem cp over the simplex from w
// (overwritten with the best point found) and returns a certified bracket
// on its supremum, including the constant lc0 (see supMM).
func concaveSup(ctx context.Context, cp *concaveProblem, w []float64, tol float64) (lo, up float64) {
	lo, up = cp.supMM(ctx, w, tol)
	return cp.lc0 + lo, cp.lc0 + up
}

// hess returns G(w) and stores ∇G in g and ∇²G in h:
// with F = Σ_c e_c s_c^r, ∂_i F = r Σ_c e_c s_c^{r−1} a_ic and
// ∂_ik F = r(r−1) Σ_c e_c s_c^{r−2} a_ic a_kc, so ∂_i G = ∂_i F / F and
// ∂_ik G = ∂_ik F / F − ∂_i G ∂_k G. Gradient entries are +Inf where a
// column with a_ic > 0 has s_c = 0; h is then not filled.
func (cp *concaveProblem) hess(w, g []float64, h [][]float64) (float64, bool) {
	G := cp.eval(w, g)
	f := math.Exp(G)
	for _, gi := range g {
		if math.IsInf(gi, 1) {
			return G, false
		}
	}
	n := len(w)
	e := make([]float64, len(cp.s))
	for c, sc := range cp.s {
		if sc > 0 {
			e[c] = cp.r * (cp.r - 1) * math.Exp(cp.lc[c]) * math.Pow(sc, cp.r-2) / f
		}
	}
	for i := 0; i < n; i++ {
		for kk := i; kk < n; kk++ {
			v := 0.0
			ai, ak := cp.a[i], cp.a[kk]
			for c, ec := range e {
				v += ec * ai[c] * ak[c]
			}
			v -= g[i] * g[kk]
			h[i][kk], h[kk][i] = v, v
		}
	}
	return G, true
}

// mix sets cp.s to Σ_i w_i a_i, the output weights of the input weights w.
func (cp *concaveProblem) mix(w []float64) {
	for c := range cp.s {
		cp.s[c] = 0
	}
	for i, wi := range w {
		if wi == 0 {
			continue
		}
		for c, v := range cp.a[i] {
			cp.s[c] += wi * v
		}
	}
}
