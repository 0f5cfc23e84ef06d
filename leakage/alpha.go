package leakage

import (
	"context"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// alphaTol is the certified accuracy, in nats, that MaximalAlphaLeakage and
// MaximalAlphaBetaLeakage aim for; alphaFail is the certified gap beyond
// which they report an error instead of a value.
const (
	alphaTol  = 1e-11
	alphaFail = 1e-7
)

// MaximalAlphaLeakage returns the maximal α-leakage of Liao et al. (2019),
//
//	sup over P̃ on supp π of I_α^S(P̃, P),
//	I_α^S(P̃, P) = α/(α−1) log Σ_j (Σ_i P̃_i p_ij^α)^{1/α}
//
// (Gilani et al. (2022), eq. 2, Sibson's mutual information of order α). α = +Inf gives
// the limit, the maximal leakage log Σ_j max_i p_ij.
//
// For α ∈ (1, ∞) the supremum is a concave maximisation over the simplex:
// P̃ ↦ Σ_i P̃_i p_ij^α is linear, t ↦ t^{1/α} is concave and non-decreasing
// for 1/α ≤ 1, so each (Σ_i P̃_i p_ij^α)^{1/α} is concave in P̃, so is their
// sum, so is its logarithm (log is concave and increasing), and α/(α−1) > 0
// (Gilani et al. (2022), §III: the argument of the log in (6) is concave for β ≤ α; here
// β = 1). A local maximiser is therefore global. It is found by
// multiplicative updates and Newton steps on the optimum's support and
// certified by Hölder's inequality (see alphamm.go): for the concave
// G = log Σ_j (…)^{1/α} and any P̃, sup G ≤ G(P̃) + (1/α) log(max_i g_i / F),
// the Rényi-radius bound. The returned value is attained by a prior and is
// within 1e-9 of the supremum; see
// MaximalAlphaLeakageBounds for the certified bracket.
//
// It returns an error if the dimensions of pi and p differ, α is NaN or
// α ≤ 1, or the optimiser cannot certify the value to 1e-7.
func MaximalAlphaLeakage(pi mech.Prior, p mech.Mechanism, alpha float64) (float64, error) {
	lo, _, err := MaximalAlphaLeakageBounds(pi, p, alpha)
	return lo, err
}

// MaximalAlphaLeakageBounds returns a certified bracket lower ≤ L ≤ upper on
// the maximal α-leakage L of MaximalAlphaLeakage: lower is I_α^S at the prior
// the optimiser found, upper adds the Hölder gap. For α = +Inf
// the two are equal.
func MaximalAlphaLeakageBounds(pi mech.Prior, p mech.Mechanism, alpha float64) (lower, upper float64, err error) {
	return MaximalAlphaBetaLeakageBounds(pi, p, alpha, 1)
}

// MaximalAlphaBetaLeakage returns the maximal (α,β)-leakage of Gilani et al. (2022)
// (Gilani et al. (2022), Def. 4), for α ∈ (1, ∞] and β ∈ [1, ∞], in its simplified form
// (Gilani et al. (2022), Thm 1, eq. 6):
//
//	max_k sup_P̃ α/((α−1)β) log Σ_j p_kj^{1−β} (Σ_i P̃_i p_ij^α)^{β/α},
//
// with k and P̃ ranging over supp π. Outputs no input in supp π produces are
// ignored. For β > 1 a term with p_kj = 0 < p_ij is +Inf, so the leakage is
// +Inf when a used column mixes zero and non-zero entries.
//
//   - β ≤ α < ∞: the argument of the log is concave in P̃ (t ↦ t^{β/α} is
//     concave for β/α ≤ 1) and the supremum is found and certified as in
//     MaximalAlphaLeakage. β = 1 gives maximal α-leakage.
//   - β ≥ α: the argument is convex in P̃, so the supremum is at a vertex
//     (eq. 11): max_{k,i} α/((α−1)β) log Σ_j p_kj^{1−β} p_ij^β, a scaled LRDP of
//     order β; α = β gives LRDP of order α (eq. 12).
//   - α = ∞, β < ∞: eq. 15, max_k 1/β log Σ_j p_kj^{1−β} max_i p_ij^β; β = 1
//     gives maximal leakage.
//   - α < ∞, β = ∞: the β → ∞ limit of eq. 11, α/(α−1) LDP.
//   - α = β = ∞: LDP (eqs. 13-14).
//
// It returns an error if the dimensions of pi and p differ, α is NaN or
// α ≤ 1, β is NaN or β < 1, or the optimiser cannot certify the value to
// 1e-7.
func MaximalAlphaBetaLeakage(pi mech.Prior, p mech.Mechanism, alpha, beta float64) (float64, error) {
	lo, _, err := MaximalAlphaBetaLeakageBounds(pi, p, alpha, beta)
	return lo, err
}

// MaximalAlphaBetaLeakageBounds returns a certified bracket
// lower ≤ L_{α,β} ≤ upper on the maximal (α,β)-leakage of
// MaximalAlphaBetaLeakage. The two are equal in the closed-form cases
// (β ≥ α, or α or β infinite).
func MaximalAlphaBetaLeakageBounds(pi mech.Prior, p mech.Mechanism, alpha, beta float64) (lower, upper float64, err error) {
	return alphaBetaBounds(context.Background(), pi, p, alpha, beta)
}

// errNotCertified is the failure of an optimisation to certify its value
// within alphaFail; the bracket it returns is still certified.
type errNotCertified struct{ lower, upper float64 }

func (e *errNotCertified) Error() string {
	return fmt.Sprintf("leakage: maximal (α,β)-leakage not certified: bracket [%g, %g]", e.lower, e.upper)
}

// alphaBetaBounds is MaximalAlphaBetaLeakageBounds, stopping when ctx is
// done with the bracket reached so far and ctx's error.
func alphaBetaBounds(ctx context.Context, pi mech.Prior, p mech.Mechanism, alpha, beta float64) (lower, upper float64, err error) {
	if err := checkAlpha(alpha); err != nil {
		return 0, 0, err
	}
	if err := checkBeta(beta); err != nil {
		return 0, 0, err
	}
	if err := checkDims(pi, p); err != nil {
		return 0, 0, err
	}
	rows := supportRows(pi, p)
	if len(rows) == 0 {
		return 0, 0, &mech.FieldError{Field: "prior", Row: -1, Col: -1, Msg: "has no positive entry"}
	}
	cols := usedColumns(rows)
	infA, infB := math.IsInf(alpha, 1), math.IsInf(beta, 1)
	switch {
	case infB:
		v := ldp(rows)
		if !infA {
			v *= alpha / (alpha - 1)
		}
		return v, v, nil
	case beta > 1 && mixed(rows, cols):
		inf := math.Inf(1)
		return inf, inf, nil
	case infA:
		v := alphaInf(rows, cols, beta)
		return v, v, nil
	case beta >= alpha:
		v := vertexForm(rows, cols, alpha, beta)
		return v, v, nil
	}
	scale := alpha / ((alpha - 1) * beta)
	lower, upper = concaveMax(ctx, rows, cols, alpha, beta, alphaTol/scale)
	lower, upper = scale*lower, scale*upper
	// The leakage is ≥ 0 (Gilani et al. (2022), Thm 2); clamp rounding.
	lower, upper = math.Max(0, lower), math.Max(0, upper)
	if err := ctx.Err(); err != nil {
		return lower, upper, err
	}
	if upper-lower > alphaFail {
		return lower, upper, &errNotCertified{lower, upper}
	}
	return lower, upper, nil
}

// checkDims reports whether p is a mechanism (mech.NewMechanism) with one
// row per entry of pi, and pi a distribution: finite, non-negative, summing
// to 1 within mech.SumTol. Unlike mech.NewPrior it admits zeros: the
// maximisations range over supp π.
func checkDims(pi mech.Prior, p mech.Mechanism) error {
	if _, err := mech.NewMechanism(p); err != nil {
		return err
	}
	if err := p.CheckPrior(pi); err != nil {
		return err
	}
	sum := 0.0
	for i, v := range pi {
		if !(v >= 0) || math.IsInf(v, 1) {
			return &mech.FieldError{Field: "prior", Row: -1, Col: i, Msg: fmt.Sprintf("is %g; a probability is finite and non-negative", v)}
		}
		sum += v
	}
	if math.Abs(sum-1) > mech.SumTol {
		return &mech.FieldError{Field: "prior", Row: -1, Col: -1, Msg: fmt.Sprintf("sums to %.17g, not 1 (tolerance %g)", sum, mech.SumTol)}
	}
	return nil
}

// supportRows returns the rows of p whose input has positive prior mass.
func supportRows(pi mech.Prior, p mech.Mechanism) mech.Mechanism {
	var rows mech.Mechanism
	for i, row := range p {
		if pi[i] > 0 {
			rows = append(rows, row)
		}
	}
	return rows
}

// usedColumns returns the columns of rows with some positive entry.
func usedColumns(rows mech.Mechanism) []int {
	var cols []int
	for j := range rows[0] {
		for _, row := range rows {
			if row[j] > 0 {
				cols = append(cols, j)
				break
			}
		}
	}
	return cols
}

// mixed reports whether a used column has a zero entry.
func mixed(rows mech.Mechanism, cols []int) bool {
	for _, j := range cols {
		for _, row := range rows {
			if row[j] == 0 {
				return true
			}
		}
	}
	return false
}

// colMax returns log max_i p_ij for each used column.
func colMaxLog(rows mech.Mechanism, cols []int) []float64 {
	lm := make([]float64, len(cols))
	for c, j := range cols {
		mx := 0.0
		for _, row := range rows {
			mx = math.Max(mx, row[j])
		}
		lm[c] = mathx.Log(mx)
	}
	return lm
}

// alphaInf evaluates Gilani et al. (2022), eq. 15, max_k 1/β log Σ_j p_kj^{1−β} max_i p_ij^β,
// for a mechanism without mixed columns when β > 1.
func alphaInf(rows mech.Mechanism, cols []int, beta float64) float64 {
	lm := colMaxLog(rows, cols)
	best := 0.0
	terms := make([]float64, len(cols))
	for _, rk := range rows {
		for c, j := range cols {
			lk := 0.0 // p_kj^0 = 1 for β = 1, even where p_kj = 0
			if beta != 1 {
				lk = (1 - beta) * mathx.Log(rk[j])
			}
			terms[c] = lk + beta*lm[c]
		}
		best = math.Max(best, logSumExp(terms)/beta)
	}
	return best
}

// vertexForm evaluates Gilani et al. (2022), eq. 11 for β ≥ α > 1 on a mechanism without
// mixed columns: max_{k,i} α/((α−1)β) log Σ_j p_kj^{1−β} p_ij^β.
func vertexForm(rows mech.Mechanism, cols []int, alpha, beta float64) float64 {
	scale := alpha / ((alpha - 1) * beta)
	best := 0.0
	terms := make([]float64, 0, len(cols))
	for _, rk := range rows {
		for _, ri := range rows {
			terms = terms[:0]
			for _, j := range cols {
				if ri[j] > 0 {
					terms = append(terms, (1-beta)*mathx.Log(rk[j])+beta*mathx.Log(ri[j]))
				}
			}
			best = math.Max(best, scale*logSumExp(terms))
		}
	}
	return best
}

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
	// (concaveMax: the row can not beat the best one); −Inf by default.
	prune float64
	// hc preconditions the Newton steps of supCG (alphapcg.go); rows that
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
	lm := colMaxLog(rows, cols)
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
		q.lc0 = math.Max(q.lc0, v)
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
		mx = math.Max(mx, gi)
		if w[i] > 0 {
			dot += w[i] * gi
		}
	}
	return lo, lo + math.Max(0, mx-dot)
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
			up = math.Min(up, G+math.Max(0, mx-dot))
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
			mu = math.Max(1e-12, 10*mu)
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
			mu = math.Max(1e-14, mu/10)
		} else {
			// Fall back on a Frank–Wolfe step towards the steepest vertex.
			if !cp.fwStep(w, trial, imx, G) && mu > 1e6 {
				break
			}
			mu = math.Max(1e-12, 10*mu)
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
		scale = math.Max(scale, math.Abs(h[i][i]))
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

// concaveMax returns a certified bracket on max over k of sup G_k, the
// maximisation of Gilani et al. (2022), eq. 6 (one k for β = 1, where the
// weights do not depend on k).
//
// For β > 1 with every a_ic > 0 (see alphacg.go):
//  1. the row of largest bound log Σ_c e^{lc_c} (a ≤ 1 after the column
//     scaling, so s_c ≤ 1) is maximised from the uniform prior;
//  2. every row is bounded at that row's optimum w by matrix products
//     (rowBounds), and again after each of two Newton steps of its own
//     with the Hessian of the first row at w (rowSteps): the first on the
//     support of w, the second also on the inputs the rows' bounds name
//     most often. Rows differ only in their weights e_c, so the steps move
//     each towards its own optimum, where the bound is much tighter than
//     at w; this settles most rows;
//  3. the rows left, by decreasing bound, are maximised from their last
//     point, each stopping as soon as its bound falls to the best value
//     found. They share one preconditioner of their Newton systems
//     (alphapcg.go): a row's steps cost matrix-vector products instead
//     of a Hessian and its factorisation.
//
// When some a_ic underflows to 0 (a large α), the rows are visited in the
// same order by the multiplicative updates of alphamm.go (concaveMaxMM).
func concaveMax(ctx context.Context, rows mech.Mechanism, cols []int, alpha, beta, tol float64) (lower, upper float64) {
	base := newConcaveProblem(rows, cols, alpha, beta)
	n := len(rows)
	w := make([]float64, n)
	for i := range w {
		w[i] = 1 / float64(n)
	}
	if beta == 1 {
		return concaveSup(ctx, base.forRow(rows, cols, 0), w, tol)
	}
	for _, row := range base.a {
		for _, v := range row {
			if v == 0 {
				return concaveMaxMM(ctx, base, rows, cols, tol)
			}
		}
	}
	cps := make([]*concaveProblem, n)
	crude := make([]float64, n)
	first := 0
	for k := range rows {
		cps[k] = base.forRow(rows, cols, k)
		crude[k] = cps[k].lc0 + logSumExp(cps[k].lc)
		if crude[k] > crude[first] {
			first = k
		}
	}
	// 1. The most promising row.
	lo, up := cps[first].supCG(ctx, w, tol)
	lower, upper = cps[first].lc0+lo, cps[first].lc0+up
	if ctx.Err() != nil {
		for _, c := range crude {
			upper = math.Max(upper, c)
		}
		return lower, upper
	}
	// 2. Every row's bound at that row's optimum and after its own steps.
	bound := make([]float64, n)
	los, ups := rowBounds(ctx, base, cps, w, nil, nil)
	for k, cp := range cps {
		bound[k] = math.Min(crude[k], cp.lc0+ups[k])
		lower = math.Max(lower, cp.lc0+los[k])
	}
	bound[first] = math.Inf(-1)
	var open []int
	for k := range cps {
		if bound[k] > lower {
			open = append(open, k)
		}
	}
	points := make([][]float64, len(open))
	for x := range points {
		points[x] = append([]float64(nil), w...)
	}
	var keep []int
	for i, v := range w {
		if v > 0 {
			keep = append(keep, i)
		}
	}
	votes := make([]int, n)
	for round := 0; round < 2 && len(open) > 0 && ctx.Err() == nil; round++ {
		if round == 1 {
			// The inputs the rows' optima need beyond keep, most named
			// first, as many as keep holds.
			var extra []int
			in := make([]bool, n)
			for _, i := range keep {
				in[i] = true
			}
			for i, v := range votes {
				if v > 0 && !in[i] {
					extra = append(extra, i)
				}
			}
			sort.Slice(extra, func(a, b int) bool { return votes[extra[a]] > votes[extra[b]] })
			keep = append(keep, extra[:min(len(extra), len(keep)+cgAdd)]...)
			sort.Ints(keep)
		}
		rowSteps(cps[first], cps, open, w, keep, points)
		sub := make([]*concaveProblem, len(open))
		for x, k := range open {
			sub[x] = cps[k]
		}
		var vs []int
		if round == 0 {
			vs = votes
		}
		los, ups = rowBounds(ctx, base, sub, nil, points, vs)
		for x, k := range open {
			bound[k] = math.Min(bound[k], cps[k].lc0+ups[x])
			if l := cps[k].lc0 + los[x]; l > lower {
				lower = l
				copy(w, points[x])
			}
		}
		kept, kp := open[:0], points[:0]
		for x, k := range open {
			if bound[k] > lower {
				kept, kp = append(kept, k), append(kp, points[x])
			}
		}
		open, points = kept, kp
	}
	// The open rows, moved together by multiplicative updates: each round
	// costs two matrix products for all of them and settles the rows whose
	// bound falls to the best value.
	next := make([][]float64, len(open))
	for x := range next {
		next[x] = make([]float64, n)
	}
	gamma, prev := make([]float64, len(open)), make([]float64, len(open))
	for x := range gamma {
		gamma[x], prev[x] = mmGamma, math.Inf(-1)
	}
	// A round's cost grows with the open rows, the Newton solves' does
	// not: stop once rowMMWindow rounds settle under 1/rowMMFew of them.
	hist := []int{len(open)}
	for round := 0; round < rowMM && len(open) > 0 && ctx.Err() == nil; round++ {
		if h := len(hist); h > rowMMWindow && (hist[h-1-rowMMWindow]-hist[h-1])*rowMMFew < hist[h-1-rowMMWindow] {
			break
		}
		sub := make([]*concaveProblem, len(open))
		for x, k := range open {
			sub[x] = cps[k]
		}
		los, ups = rowUpdates(ctx, base, sub, points, next[:len(open)], gamma)
		for x, k := range open {
			if los[x] < prev[x] {
				gamma[x] = math.Max(1, gamma[x]*mmShrink)
			}
			prev[x] = los[x]
			bound[k] = math.Min(bound[k], cps[k].lc0+ups[x])
			if l := cps[k].lc0 + los[x]; l > lower {
				lower = l
				copy(w, points[x])
			}
		}
		var kept []int
		var kp, kn [][]float64
		var kg, kprev []float64
		for x, k := range open {
			if bound[k] > lower {
				kept, kp, kn = append(kept, k), append(kp, next[x]), append(kn, points[x])
				kg, kprev = append(kg, gamma[x]), append(kprev, prev[x])
			}
		}
		open, points, next, gamma, prev = kept, kp, kn, kg, kprev
		hist = append(hist, len(open))
	}
	start := make(map[int][]float64, len(open))
	hc := &hessCache{}
	for x, k := range open {
		start[k] = points[x]
		cps[k].hc = hc
	}
	// 3. The rows the bounds leave open, the highest first.
	sort.Slice(open, func(a, b int) bool { return bound[open[a]] > bound[open[b]] })
	for _, k := range open {
		if bound[k] <= lower || ctx.Err() != nil {
			upper = math.Max(upper, bound[k])
			continue
		}
		x := start[k]
		cps[k].prune = lower - cps[k].lc0
		lo, up := cps[k].supCG(ctx, x, tol)
		if cps[k].lc0+lo > lower {
			lower = cps[k].lc0 + lo
			copy(w, x)
		}
		upper = math.Max(upper, math.Min(bound[k], cps[k].lc0+up))
	}
	for k := range cps {
		if k != first && bound[k] <= lower {
			upper = math.Max(upper, bound[k])
		}
	}
	return lower, upper
}

// concaveMaxMM is concaveMax by the multiplicative updates of alphamm.go
// for each row: the rows are visited by decreasing bound, first
// log Σ_c e^{lc_c}, then the Hölder bound at the best point found so far.
// A row whose bound does not exceed the best value found is settled by
// that bound without its own optimisation; an optimisation starts from
// that point and stops as soon as its bound falls to the best value.
func concaveMaxMM(ctx context.Context, base *concaveProblem, rows mech.Mechanism, cols []int, tol float64) (lower, upper float64) {
	n := len(rows)
	w := make([]float64, n)
	for i := range w {
		w[i] = 1 / float64(n)
	}
	type cand struct {
		k  int
		ub float64
		cp *concaveProblem
	}
	cands := make([]cand, n)
	for k := range rows {
		cp := base.forRow(rows, cols, k)
		cands[k] = cand{k: k, ub: cp.lc0 + logSumExp(cp.lc), cp: cp}
	}
	sort.Slice(cands, func(a, b int) bool { return cands[a].ub > cands[b].ub })
	lower, upper = math.Inf(-1), math.Inf(-1)
	g, h := make([]float64, n), make([]float64, len(cols))
	for _, c := range cands {
		if ctx.Err() != nil || c.ub <= lower {
			upper = math.Max(upper, c.ub)
			continue
		}
		if !math.IsInf(lower, -1) {
			f := c.cp.gradient(w, g, h)
			lo, up := c.cp.holder(f, g)
			lower = math.Max(lower, c.cp.lc0+lo)
			if c.cp.lc0+up <= lower {
				upper = math.Max(upper, c.cp.lc0+up)
				continue
			}
		}
		start := make([]float64, n)
		for i := range start {
			start[i] = (1-1e-9)*w[i] + 1e-9/float64(n) // every input alive for the update
		}
		c.cp.prune = lower - c.cp.lc0
		lo, up := concaveSup(ctx, c.cp, start, tol)
		if lo > lower {
			lower = lo
			copy(w, start)
		}
		upper = math.Max(upper, up)
	}
	return lower, upper
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
