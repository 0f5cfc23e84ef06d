package alphaopt

import (
	"context"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/pmlopt/pmlopt/internal/mathx"
)

// The supremum of the concave G(w) = log Σ_c e_c s_c(w)^r over the simplex
// (concaveProblem) by column generation: Newton's method on a small working
// set of inputs, then one product with the whole n × C matrix a that both
// certifies the point (the Hölder bound of multiplicative.go) and names the inputs
// outside the working set that would raise G (those with g_x > F, the
// violated conditions of Karush, Kuhn and Tucker). The optimum's support is
// small (tens of inputs among a thousand), so each Newton step costs
// O(s²C) for s inputs in the working set instead of the O(nC) of a
// multiplicative update, and a few rounds settle the support.
//
// It needs every a_ic > 0, which holds for β > 1 on a mechanism without
// mixed columns (otherwise the leakage is +Inf) unless α is so large that
// some a_ic = (p_ic/m_c)^α underflows (Max then uses multiplicative.go):
// every s_c is then positive for every w in the simplex, so G is smooth on
// it.

// The settings of column generation.
const (
	cgRounds     = 40   // rounds of working-set solve and certificate
	cgStart      = 48   // inputs in the first working set from a prior with full support
	cgAdd        = 16   // violators added per round, at least
	cgNewton     = 60   // Newton steps per working-set solve
	cgBatchRow   = 256  // rows per matrix product in rowBounds
	rowVotes     = 4    // inputs each row names for the second round of rowSteps
	rowMM        = 30   // batched multiplicative updates of the rows still open after rowSteps
	rowMMWindow  = 4    // rounds over which the batched updates must settle ...
	rowMMFew     = 20   // ... at least 1/rowMMFew of the open rows to go on
	mmGamma      = 3    // exponent of g_i/F in the first batched update of a row
	mmShrink     = 0.7  // factor of that exponent (down to 1) when the row's value fell
	reviveWeight = 1e-6 // weight, times g_i/F, given to an unused input that would raise G
)

// restricted is G on the inputs of a working set: a holds their rows of
// the n × C matrix contiguously.
type restricted struct {
	a    []float64 // s × C
	s, C int
	e    []float64 // e_c = exp(lc_c)
	r    float64

	sc, ep, t, q []float64 // scratch: s_c, e_c s_c^r, e_c s_c^{r−1}, q_x = Σ_c a_xc t_c
	m            []float64 // scratch: s × C, the scaled rows whose Gram matrix is the Hessian

	keep  []int      // the working set: indices into the rows of a
	cache *hessCache // preconditioner of the Newton systems (conjugategradient.go); nil for none
}

func newRestricted(cp *concaveProblem, keep []int, e []float64) *restricted {
	C := len(cp.s)
	rp := &restricted{a: make([]float64, len(keep)*C), s: len(keep), C: C, e: e, r: cp.r,
		sc: make([]float64, C), ep: make([]float64, C), t: make([]float64, C), q: make([]float64, len(keep)), m: make([]float64, len(keep)*C),
		keep: keep, cache: cp.hc}
	for x, i := range keep {
		copy(rp.a[x*C:(x+1)*C], cp.a[i])
	}
	return rp
}

// value returns F(w) = Σ_c e_c s_c^r and leaves s_c in rp.sc and
// e_c s_c^r in rp.ep.
func (rp *restricted) value(w []float64) float64 {
	C := rp.C
	for c := range rp.sc {
		rp.sc[c] = 0
	}
	for x, wx := range w {
		if wx == 0 {
			continue
		}
		row := rp.a[x*C : (x+1)*C]
		for c, v := range row {
			rp.sc[c] += wx * v
		}
	}
	f := 0.0
	for c, sc := range rp.sc {
		rp.ep[c] = rp.e[c] * math.Pow(sc, rp.r)
		f += rp.ep[c]
	}
	return f
}

// grad returns F(w) and leaves q_x = Σ_c a_xc e_c s_c^{r−1} in rp.q
// (Σ_x w_x q_x = F; ∂ log F / ∂w_x = r q_x / F).
func (rp *restricted) grad(w []float64) float64 {
	f := rp.value(w)
	rp.gradAtValue()
	return f
}

// gradAtValue computes rp.q at the point of the last value call.
func (rp *restricted) gradAtValue() {
	C := rp.C
	for c, sc := range rp.sc {
		rp.t[c] = rp.ep[c] / sc
	}
	for x := range rp.q {
		row := rp.a[x*C : (x+1)*C]
		v := 0.0
		for c, a := range row {
			v += a * rp.t[c]
		}
		rp.q[x] = v
	}
}

// hessian stores ∇² log F at the point of the last grad call in h:
// r(r−1)/F Σ_c e_c s_c^{r−2} a_xc a_zc − (r q_x/F)(r q_z/F), the first
// term as the Gram matrix of the rows a_xc (e_c s_c^{r−2})^{1/2}.
func (rp *restricted) hessian(f float64, h [][]float64) {
	C, s := rp.C, rp.s
	for c, sc := range rp.sc {
		rp.t[c] = math.Sqrt(rp.ep[c]) / sc
	}
	for x := 0; x < s; x++ {
		row, mr := rp.a[x*C:(x+1)*C], rp.m[x*C:(x+1)*C]
		for c, a := range row {
			mr[c] = a * rp.t[c]
		}
	}
	gram := blas64.Symmetric{N: s, Stride: s, Data: make([]float64, s*s), Uplo: blas.Upper}
	blas64.Syrk(blas.NoTrans, 1, blas64.General{Rows: s, Cols: C, Stride: C, Data: rp.m}, 0, gram)
	coef := rp.r * (rp.r - 1) / f
	for x := 0; x < s; x++ {
		gx := rp.r * rp.q[x] / f
		for z := x; z < s; z++ {
			v := coef*gram.Data[x*s+z] - gx*rp.r*rp.q[z]/f
			h[x][z], h[z][x] = v, v
		}
	}
}

// newton maximises log F over the simplex on the working set from w
// (overwritten) until its own Hölder gap r log(max_x q_x / F) is at most
// tol, by Newton steps on the inputs with weight and those whose q_x
// exceeds F, each followed by a projected backtracking search.
func (rp *restricted) newton(ctx context.Context, w []float64, tol float64) {
	s := rp.s
	h := make([][]float64, s)
	for i := range h {
		h[i] = make([]float64, s)
	}
	g := make([]float64, s)
	trial := make([]float64, s)
	mu := 1e-14
	f, fresh := 0.0, false // fresh: rp holds F, s and q at w
	for it := 0; it < cgNewton && ctx.Err() == nil; it++ {
		if !fresh {
			f = rp.grad(w)
		}
		G := mathx.Log(f)
		mx := 0.0
		for x, q := range rp.q {
			mx = max(mx, q)
			// The gradient less its mean Σ_x w_x ∂_x G = r: the Newton
			// step does not change (it keeps Σ d = 0), but the inputs
			// with weight then enter it with gradients near 0, not near r,
			// and their steps do not cancel to rounding.
			g[x] = rp.r * (q/f - 1)
		}
		if rp.r*mathx.LogRatio(mx, f) <= tol {
			return
		}
		var free []int
		for x := range w {
			if w[x] > 0 || rp.q[x] > f {
				free = append(free, x)
			}
		}
		factored := false
		d, free, ok := freeDirection(w, free, func(free []int) ([]float64, bool) {
			accept := 0.0
			if tol > pcgCoarse {
				accept = pcgAccept
			}
			d, ok := rp.pcgDirection(f, g, free, mu, accept)
			if ok {
				return d, true
			}
			// The factorisation, which preconditions the next solves.
			if !factored {
				rp.hessian(f, h)
				factored = true
			}
			d, chol, ok := factorDirection(h, g, free, mu)
			if ok && chol != nil && rp.cache != nil {
				idx := make([]int, len(free))
				for x, i := range free {
					idx[x] = rp.keep[i]
				}
				rp.cache.store(idx, chol)
			}
			return d, ok
		})
		if !ok {
			mu = max(1e-12, 10*mu)
			continue
		}
		slope := 0.0
		for _, x := range free {
			slope += g[x] * d[x]
		}
		moved := false
		fresh = false // the trials below overwrite rp's state
		for t, try := 1.0, 0; try < 40 && !moved; t, try = t/2, try+1 {
			sum := 0.0
			for x := range trial {
				trial[x] = max(0, w[x]+t*d[x])
				sum += trial[x]
			}
			for x := range trial {
				trial[x] /= sum
			}
			ft := rp.value(trial)
			if Gt := mathx.Log(ft); Gt > G && Gt >= G+1e-4*t*slope {
				copy(w, trial)
				rp.gradAtValue()
				f, fresh, moved = ft, true, true
			}
		}
		if !moved {
			// Near an optimum that gives some inputs weights far below the
			// others', G no longer resolves the gain of a step that the
			// certificate still needs. Along the segment w + t d, t ≤ the
			// first t that zeroes an input, G is concave, so a t where the
			// slope ∇G·d is still ≥ 0 has raised G in exact arithmetic;
			// halve t until it is.
			tmax, block := 1.0, -1
			for _, x := range free {
				if d[x] < 0 && w[x]+d[x] < 0 {
					if t := w[x] / -d[x]; t < tmax {
						tmax, block = t, x
					}
				}
			}
			for t, try := tmax, 0; try < 40 && !moved; t, try = t/2, try+1 {
				for x := range trial {
					trial[x] = max(0, w[x]+t*d[x])
				}
				if try == 0 && block >= 0 {
					trial[block] = 0
				}
				ft := rp.grad(trial)
				dir := 0.0
				for _, x := range free {
					dir += rp.q[x] * d[x]
				}
				if dir/ft >= 0 {
					copy(w, trial)
					f, fresh, moved = ft, true, true
				}
			}
		}
		if !moved {
			// G no longer resolves the progress of a Newton step: the
			// point is as good as rounding allows.
			return
		}
		mu = max(1e-14, mu/10)
	}
}

// supCG returns a certified bracket on sup G (without lc0) from w, which
// it overwrites with the best point found; it stops once the bracket is
// narrower than tol, once its upper end is at most cp.prune, or when ctx
// is done. w must be in the simplex; every a_ic must be positive. A w with
// full support (the uniform prior) starts the working set from the inputs
// of largest g_x.
func (cp *concaveProblem) supCG(ctx context.Context, w []float64, tol float64) (lo, up float64) {
	n := len(w)
	g, h := make([]float64, n), make([]float64, len(cp.s))
	best := make([]float64, n)
	if cp.hc == nil {
		// One preconditioner for the Newton steps of every round.
		defer func() { cp.hc = nil }()
		cp.hc = &hessCache{}
	}
	e := make([]float64, len(cp.lc))
	for c, l := range cp.lc {
		e[c] = math.Exp(l)
	}
	lo, up = math.Inf(-1), math.Inf(1)
	order := make([]int, n)
	var prev []int
	lastLo, lastUp := lo, up
	size, bestDense := cgStart, false
	for round := 0; round < cgRounds && ctx.Err() == nil; round++ {
		// 1. Certify w with one product with a.
		f := cp.gradient(w, g, h)
		l, u := cp.holder(f, g)
		if l > lo {
			lo = l
			copy(best, w)
			bestDense = true
			for _, v := range w {
				bestDense = bestDense && v > 0
			}
		}
		up = min(up, u)
		if up-lo <= tol || up <= cp.prune {
			break
		}
		// A working set drawn from a prior with full support that ends
		// below it was too small for the optimum's support: draw twice as
		// many inputs from that prior.
		if l < lo && bestDense {
			copy(w, best)
			size *= 2
			prev = prev[:0]
			continue
		}
		// A round whose iterate neither raised G nor lowered the bound
		// with the same working set as the last will not be followed by
		// one that does.
		if round > 0 && !(l > lastLo) && !(u < lastUp) && len(prev) > 0 && cp.sameSupport(w, prev) {
			break
		}
		lastLo, lastUp = l, u
		// 2. The working set: the inputs with weight and the largest
		// violators g_x > F. From a prior with full support, the cgStart
		// inputs of largest g_x.
		var keep []int
		in := make([]bool, n)
		support := 0
		for _, v := range w {
			if v > 0 {
				support++
			}
		}
		add := max(cgAdd, support/2)
		if support == n && n > 2*size {
			support, add = 0, size
			for i := range w {
				w[i] = 0
			}
		}
		for i, v := range w {
			if v > 0 {
				in[i] = true
				keep = append(keep, i)
			}
		}
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(x, y int) bool { return g[order[x]] > g[order[y]] })
		for _, i := range order {
			if add == 0 || (support > 0 && !(g[i] > f)) {
				break
			}
			if !in[i] {
				in[i] = true
				keep = append(keep, i)
				add--
			}
		}
		sort.Ints(keep)
		if support == 0 {
			for _, i := range keep {
				w[i] = 1 / float64(len(keep))
			}
		}
		// The same working set as the last round leaves only the
		// restricted solve's own accuracy to gain: ask it for more.
		subTol := tol / 4
		if slices.Equal(keep, prev) {
			subTol = tol / 64
		} else if lo < cp.prune {
			// A row that may yet be settled by its bound needs the
			// restricted optimum only as far as the bound's excess.
			subTol = max(subTol, (up-cp.prune)/4)
		}
		prev = append(prev[:0], keep...)
		// 3. Newton on the working set.
		rp := newRestricted(cp, keep, e)
		ws := make([]float64, len(keep))
		for x, i := range keep {
			ws[x] = w[i]
		}
		rp.newton(ctx, ws, subTol)
		for i := range w {
			w[i] = 0
		}
		for x, i := range keep {
			w[i] = ws[x]
		}
	}
	// 4. Working sets too small for an optimum with a large support, or
	// too many rounds: finish with the multiplicative updates, every input
	// alive so that they can revive one.
	if up-lo > tol && up > cp.prune && ctx.Err() == nil {
		for i := range w {
			w[i] = (1-1e-9)*best[i] + 1e-9/float64(n)
		}
		l, u := cp.supMM(ctx, w, tol)
		if l > lo {
			lo = l
			copy(best, w)
		}
		up = min(up, u)
	}
	copy(w, best)
	return lo, up
}

// sameSupport reports whether the inputs with weight in w are among keep.
func (cp *concaveProblem) sameSupport(w []float64, keep []int) bool {
	in := 0
	for _, i := range keep {
		if w[i] > 0 {
			in++
		}
	}
	for _, v := range w {
		if v > 0 {
			in--
		}
	}
	return in == 0
}

// rowBounds returns, for each row problem in cps, log F and the Hölder
// bound on sup G (both without lc0) at the common point w, or at
// points[k] for row k when w is nil, by products of the rows' weights with
// a in blocks of cgBatchRow rows: the bound of one row costs a product with
// the whole n × C matrix, and a matrix product does many at once faster
// than one at a time.
//
// It also counts, in votes, how often each input is among the rowVotes
// inputs of largest g_x > F of a row: the inputs the rows' optima need
// beyond the support of w.
func rowBounds(ctx context.Context, base *concaveProblem, cps []*concaveProblem, w []float64, points [][]float64, votes []int) (lo, up []float64) {
	n, C := len(base.a), len(base.s)
	sr, sr1 := make([]float64, C), make([]float64, C)
	powers := func(x []float64) {
		base.mix(x)
		for c, sc := range base.s {
			sr[c] = math.Pow(sc, base.r)
			sr1[c] = sr[c] / sc
		}
	}
	if w != nil {
		powers(w)
	}
	am := base.matrix()
	lo, up = unsettled(len(cps))
	for start := 0; start < len(cps) && ctx.Err() == nil; start += cgBatchRow {
		end := min(len(cps), start+cgBatchRow)
		m := end - start
		y := blas64.General{Rows: m, Cols: C, Stride: C, Data: make([]float64, m*C)}
		f := make([]float64, m)
		for k := start; k < end; k++ {
			if w == nil {
				powers(points[k])
			}
			yr := y.Data[(k-start)*C : (k-start+1)*C]
			for c, l := range cps[k].lc {
				e := math.Exp(l)
				f[k-start] += e * sr[c]
				yr[c] = e * sr1[c]
			}
		}
		gm := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, y, am, 0, gm)
		for k := start; k < end; k++ {
			g := gm.Data[(k-start)*n : (k-start+1)*n]
			lo[k], up[k] = cps[k].holder(f[k-start], g)
			if votes != nil {
				vote(g, f[k-start], votes)
			}
		}
	}
	return lo, up
}

// vote adds 1 to votes[x] for the rowVotes inputs of largest g_x > f.
func vote(g []float64, f float64, votes []int) {
	var top [rowVotes]int
	nt := 0
	for x, v := range g {
		if !(v > f) {
			continue
		}
		if nt < rowVotes {
			top[nt] = x
			nt++
		} else if v > g[top[rowVotes-1]] {
			top[rowVotes-1] = x
		} else {
			continue
		}
		for y := nt - 1; y > 0 && g[top[y]] > g[top[y-1]]; y-- {
			top[y], top[y-1] = top[y-1], top[y]
		}
	}
	for _, x := range top[:nt] {
		votes[x]++
	}
}

// rowSteps moves, for each row k in rows, its point p_k (supported in
// keep, which holds the support of w) to p_k + d_k: d_k is the Newton step
// of row k's G on keep with the Hessian of problem ref at w (rows differ only in their weights e_c, so their
// Hessians are alike near a common optimum), with negative weights set to
// 0 and the rest rescaled to sum 1. A row's gradient costs O(sC) for s inputs in the
// support, the factorisation of the Hessian is shared.
func rowSteps(ref *concaveProblem, cps []*concaveProblem, rows []int, w []float64, keep []int, points [][]float64) {
	s := len(keep)
	if s < 2 {
		return
	}
	e := make([]float64, len(ref.lc))
	for c, l := range ref.lc {
		e[c] = math.Exp(l)
	}
	rp := newRestricted(ref, keep, e)
	ws := make([]float64, s)
	for x, i := range keep {
		ws[x] = w[i]
	}
	f := rp.grad(ws)
	h := make([][]float64, s)
	for i := range h {
		h[i] = make([]float64, s)
	}
	rp.hessian(f, h)
	a := mat.NewSymDense(s, nil)
	scale := 0.0
	for x := 0; x < s; x++ {
		for z := x; z < s; z++ {
			a.SetSym(x, z, -h[x][z])
		}
		scale = max(scale, math.Abs(h[x][x]))
	}
	for x := 0; x < s; x++ {
		a.SetSym(x, x, a.At(x, x)+1e-12*(1+scale))
	}
	var chol mat.Cholesky
	if !chol.Factorize(a) {
		return
	}
	// The inverse, applied by matrix-vector products: one per row is
	// faster than two triangular solves.
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		return
	}
	ai := blas64.General{Rows: s, Cols: s, Stride: s, Data: make([]float64, s*s)}
	for x := 0; x < s; x++ {
		for z := 0; z < s; z++ {
			ai.Data[x*s+z] = inv.At(x, z)
		}
	}
	u1 := make([]float64, s)
	s1 := 0.0
	for x := range u1 {
		for z := 0; z < s; z++ {
			u1[x] += ai.Data[x*s+z]
		}
		s1 += u1[x]
	}
	g, u0 := make([]float64, s), make([]float64, s)
	for x, k := range rows {
		cp := cps[k]
		for c, l := range cp.lc {
			rp.e[c] = math.Exp(l)
		}
		p := points[x]
		for z, i := range keep {
			ws[z] = p[i]
		}
		fk := rp.grad(ws)
		for z, q := range rp.q {
			g[z] = cp.r * (q/fk - 1)
		}
		blas64.Gemv(blas.NoTrans, 1, ai, blas64.Vector{N: s, Inc: 1, Data: g}, 0, blas64.Vector{N: s, Inc: 1, Data: u0})
		sum0 := 0.0
		for _, v := range u0 {
			sum0 += v
		}
		nu := -sum0 / s1
		sum := 0.0
		for z, i := range keep {
			p[i] = max(0, ws[z]+u0[z]+nu*u1[z])
			sum += p[i]
		}
		for _, i := range keep {
			p[i] /= sum
		}
	}
}
