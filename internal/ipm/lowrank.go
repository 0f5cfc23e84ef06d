package ipm

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pmlopt/pmlopt/internal/vec"
)

// lowRankSys solves the reduced Newton system M x = b of factor without
// forming M, for problems with far fewer outputs than inputs (the
// restricted problems of an active set over outputs).
//
// M is the diagonal D (rowSumD) plus one symmetric rank-2 update per
// output: with W_j = [v1_j v2_j] (the pairs' g d and π d, as N-vectors)
// and K_j the output's 2×2 block, u1 v1ᵀ − u2 v2ᵀ = W_j G_j W_jᵀ where
// G_j = [[i21, −i22], [i11, −i12]] is K_j⁻¹ up to signs and order, so
// G_j⁻¹ = [[k12, k11], [−k22, −k21]] needs no division. So M = D + W G Wᵀ
// with W = [W_1 … W_m] (N × 2m) and, by the Sherman–Morrison–Woodbury
// identity,
//
//	M⁻¹ b = D⁻¹ b − D⁻¹ W S⁻¹ Wᵀ D⁻¹ b,  S = G⁻¹ + Wᵀ D⁻¹ W  (2m × 2m),
//
// an iteration then costs O(N m² + m³) instead of O(N² m + N³). S is
// symmetric and indefinite; it is factorised by LU with partial pivoting.
// Without the marginal rows (LDP) each output has the one column v1_j
// and G_j = i21 = 1/es.
//
// Near the optimum D has entries of the order of the gap (letters with no
// free pair), where the identity loses digits that the dense Cholesky
// keeps: refineSteps rounds of iterative refinement, with the residual
// computed from M's factors, recover them.
type lowRankSys struct {
	n, cols int
	dinv    []float64 // 1/D_i
	rdinv   []float64 // D_i^{-1/2}
	// wt is (D^{-1/2} W)ᵀ, cols × N row-major: each column of W is a
	// contiguous row, for the dot products of gram and apply.
	wt []float64
	s  *mat.Dense
	lu mat.LU
	// scratch
	z, y     *mat.VecDense
	t        []float64
	res, cor []float64
	// pcg's vectors
	pr, pz, pp, pq, px []float64
	// floor is the fraction of M's diagonal D is raised to in this
	// iteration's factor (diagFloor, or more after a failed rescue).
	floor float64
}

// refineSteps bounds the rounds of iterative refinement of a low-rank
// solve (each costs one more pass over the pairs); they stop early once
// the residual is within refineTol of b (its rounding level: stopping
// ten times above it leaves LIP's capped pairs short of the digits their
// gap needs), or stops halving.
// diagFloor is the fraction of M's diagonal entry below which D_i is
// raised to it: a letter with no free pair has D_i of the order of the
// gap, whose inverse in the identity would swamp S. Raising it only adds
// to the positive definite M (a dual regularisation), which the
// refinement then corrects for.
const diagFloor = 1e-11

const (
	refineSteps = 20
	refineTol   = 1e-15
)

// denseFallback is the residual, relative to the right-hand side, above
// which a low-rank solve counts as failed and is rescued (conjugate
// gradients, a stronger floor, conjugate gradients on an earlier dense
// factor, then, up to denseRescueMax inputs, the dense N×N system). Near the
// optimum of some restricted problems the identity loses every digit: the
// residual is then of the order of the right-hand side, and a step along
// that direction leaves the central path at once. A residual a millionth
// of the right-hand side still gives the step what it needs: each
// iteration computes its directions afresh and the certificate is proved
// from the point, not from the solves; a stricter bound sends the late
// rounds of LIP's active set through rescues and dense factors that do not
// shorten their path.
const denseFallback = 1e-6

// Where the refinement fails, conjugate gradients preconditioned by the
// identity's solve take at most woodburySteps steps; where those fail,
// the floor is raised floorStep-fold, at most floorRetries times (up to
// maxDiagFloor), and they run again.
const (
	woodburySteps = 60
	floorRetries  = 2
	floorStep     = 1e3
	maxDiagFloor  = 1e-5
)

// denseRescueMax is the largest N for which a low-rank solve that no
// rescue recovers falls back on the dense N×N system (2·8·N² bytes: 268
// MB at 4 096); above it the solve fails, and the interior point with it.
var denseRescueMax = 4096

// testLowRankFails, set by tests only, counts every refined low-rank
// solve as failed, so that the rescues are exercised on small problems;
// testWoodburyFails, with it, also skips the conjugate gradients
// preconditioned by the identity, so that the stale factor's rescue and
// the dense fallback are.
var testLowRankFails, testWoodburyFails bool

// lowRankCols returns the columns per output of the low-rank form.
func (w *workspace) lowRankCols() int {
	if w.form.marg {
		return 2
	}
	return 1
}

// factorLowRank builds and factorises S from the quantities factor computed
// (d, v1, v2, k and rowSumD), with D raised to floor times M's diagonal.
func (w *workspace) factorLowRank(floor float64) error {
	st := w.st
	n, per := st.n, w.lowRankCols()
	cols := per * st.m
	lr := w.lr
	if lr == nil || lr.n != n || lr.cols != cols {
		lr = &lowRankSys{n: n, cols: cols, dinv: make([]float64, n), rdinv: make([]float64, n),
			wt: make([]float64, cols*n), s: mat.NewDense(cols, cols, nil),
			z: mat.NewVecDense(cols, nil), y: mat.NewVecDense(cols, nil), t: make([]float64, n),
			res: make([]float64, n), cor: make([]float64, n)}
		w.lr = lr
	}
	lr.floor = floor
	// M's diagonal, to floor D by: D_i plus the updates' (i, i) entries.
	w.splitRows(2*st.m, func(lo, hi int) {
		clear(lr.res[lo:hi])
		for j := range st.m {
			k0, k1 := st.pairsOf(j, lo, hi)
			for k := k0; k < k1; k++ {
				i := st.row[k]
				lr.res[i] += w.u1[k] * w.v1[k]
				if per == 2 {
					lr.res[i] -= w.u2[k] * w.v2[k]
				}
			}
		}
	})
	for i, v := range w.rowSumD {
		if !(v > 0) || math.IsInf(v, 0) {
			return errors.New("ipm: singular diagonal in the low-rank system")
		}
		lr.dinv[i] = 1 / max(v, floor*(v+math.Abs(lr.res[i])))
		lr.rdinv[i] = math.Sqrt(lr.dinv[i])
	}
	if !st.full {
		clear(lr.wt)
	}
	w.split(st.m, 2*n, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			c1 := lr.wt[per*j*n : (per*j+1)*n]
			for k := st.colStart[j]; k < st.colStart[j+1]; k++ {
				i := st.row[k]
				c1[i] = w.v1[k] * lr.rdinv[i]
			}
			if per == 2 {
				c2 := lr.wt[(per*j+1)*n : (per*j+2)*n]
				for k := st.colStart[j]; k < st.colStart[j+1]; k++ {
					i := st.row[k]
					c2[i] = w.v2[k] * lr.rdinv[i]
				}
			}
		}
	})
	if err := w.gram(lr.s.RawMatrix().Data, lr.wt, cols, n); err != nil {
		return err
	}
	sd := lr.s.RawMatrix()
	for j := range st.m {
		if st.colStart[j] == st.colStart[j+1] {
			// An output with no pairs: its columns of W are 0, and G⁻¹'s
			// block is replaced by the identity (any invertible block).
			for c := per * j; c < per*j+per; c++ {
				sd.Data[c*sd.Stride+c] = 1
			}
			continue
		}
		kk := w.kk[j]
		if per == 1 {
			sd.Data[j*sd.Stride+j] += kk[0]
			continue
		}
		// G_j⁻¹ = [[k12, k11], [−k22, −k21]].
		k11, k12, k21, k22 := kk[0], kk[1], kk[2], kk[3]
		a, b := per*j, per*j+1
		sd.Data[a*sd.Stride+a] += k12
		sd.Data[a*sd.Stride+b] += k11
		sd.Data[b*sd.Stride+a] -= k22
		sd.Data[b*sd.Stride+b] -= k21
	}
	lr.lu.Factorize(lr.s)
	return nil
}

// solveLowRank overwrites b with the solution of M x = b.
func (w *workspace) solveLowRank(b []float64) error {
	lr := w.lr
	x := make([]float64, lr.n)
	if err := w.apply(b, x); err != nil {
		return err
	}
	scale, last, res := maxAbs(b), math.Inf(1), math.Inf(1)
	for range refineSteps {
		if w.stopped() {
			return errStopped
		}
		w.mulM(x, lr.res)
		for i := range lr.res {
			lr.res[i] = b[i] - lr.res[i]
		}
		res = maxAbs(lr.res)
		if res <= refineTol*scale || res > last/2 {

			break
		}
		last = res
		if err := w.apply(lr.res, lr.cor); err != nil {
			return err
		}
		for i := range x {
			x[i] += lr.cor[i]
		}
	}
	if testLowRankFails {
		res = math.Inf(1)
	}
	if !(res <= denseFallback*scale) && !testWoodburyFails {
		// Conjugate gradients on the exact M, preconditioned by the
		// identity's solve (the inverse of M plus the floor's diagonal):
		// where the identity lost digits, its solve is still close to
		// M⁻¹ but for a few directions, which conjugate gradients
		// recover in a few dozen steps of O(N·m) each.
		for range floorRetries + 1 {
			if res = w.pcg(b, x, scale, woodburySteps, w.apply); res <= denseFallback*scale {
				w.rescued++
				break
			}
			if w.halted.Load() {
				return errStopped
			}
			if w.lr.floor >= maxDiagFloor {
				break
			}
			// A stronger floor: a better-conditioned capacitance matrix
			// and a preconditioner further from M, kept for the rest of
			// this iteration's solves.
			w.lr.floor *= floorStep
			if err := w.factorLowRank(w.lr.floor); err != nil {
				return err
			}
		}
	}
	if !(res <= denseFallback*scale) && w.staleChol && w.chol.n == lr.n {
		if res = w.pcg(b, x, scale, pcgSteps, w.cholPrecond); res <= denseFallback*scale {
			w.rescued++
		}
		if w.halted.Load() {
			return errStopped
		}
	}
	if !(res <= denseFallback*scale) {
		if lr.n > denseRescueMax {
			return errors.New("ipm: the low-rank Newton system did not converge")
		}
		// The identity lost the digits: this iteration's system is
		// solved the dense way.
		return w.denseSolve(b)
	}
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errors.New("ipm: singular capacitance matrix")
		}
	}
	copy(b, x)
	return nil
}

// denseSolve overwrites b with the solution of M x = b through the dense
// N×N matrix of factor, built and factorised once per iteration from the
// same quantities (every output having every input, in order). It looks
// at the context every pollOutputs outputs while it builds the matrix.
func (w *workspace) denseSolve(b []float64) error {
	if !w.denseReady {
		st := w.st
		n := st.n
		if w.mat == nil {
			w.mat = mat.NewDense(n, n, nil)
		}
		data := w.mat.RawMatrix().Data
		clear(data)
		for j := range st.m {
			if j%pollOutputs == 0 && w.stopped() {
				return errStopped
			}
			k0, k1 := st.colStart[j], st.colStart[j+1]
			v1, v2 := w.v1[k0:k1], w.v2[k0:k1]
			for kk := k0; kk < k1; kk++ {
				rowData := data[st.row[kk]*n : (st.row[kk]+1)*n]
				vec.AddScaled(rowData, w.u1[kk], v1)
				if w.form.marg {
					vec.AddScaled(rowData, -w.u2[kk], v2)
				}
			}
		}
		for i := range n {
			data[i*n+i] += w.rowSumD[i]
		}
		w.chol.factorizeSplit(data, n, w.split)
		w.denseReady = true
		w.staleChol = true
		w.denseFactors++
	}
	w.chol.solve(b)
	return nil
}

// Conjugate gradients on M x = b preconditioned by the dense factor of an
// earlier iteration of the same problem: where the identity loses its
// digits, one iteration's M differs from the last factorised one mostly
// by the diagonal scalings of the pairs that are still moving, so a few
// dozen products with M (O(N·pairs) each) and triangular solves (O(N²))
// replace a new O(N²·m + N³) dense factor. pcgSteps bounds the steps and
// pcgTol is the residual, relative to b, they aim at.
const (
	pcgSteps = 40
	pcgTol   = 1e-11
)

// cholPrecond sets z to the solution of (an earlier) M z = r by the
// dense factor in w.chol.
func (w *workspace) cholPrecond(r, z []float64) error {
	copy(z, r)
	w.chol.solve(z)
	return nil
}

// pcg improves x towards the solution of M x = b by conjugate gradients
// with the preconditioner prec (z ≈ M⁻¹ r), for at most steps steps, and
// returns the final residual's largest entry. x is left unchanged where
// the iterations do not lower the residual. A step looks at the context
// first (stopped) and ends them once it has ended; the caller then finds
// halted set.
func (w *workspace) pcg(b, x []float64, scale float64, steps int, prec func(r, z []float64) error) float64 {
	lr := w.lr
	n := lr.n
	if len(lr.pr) != n {
		lr.pr, lr.pz, lr.pp, lr.pq, lr.px = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	}
	r, z, p, q := lr.pr, lr.pz, lr.pp, lr.pq
	copy(lr.px, x)
	w.mulM(x, q)
	for i := range r {
		r[i] = b[i] - q[i]
	}
	res0 := maxAbs(r)
	res := res0
	if prec(r, z) != nil {
		return res0
	}
	copy(p, z)
	rz := vec.Dot(r, z)
	for range steps {
		if res <= pcgTol*scale || !(rz > 0) || w.stopped() {
			break
		}
		w.mulM(p, q)
		pq := vec.Dot(p, q)
		if !(pq > 0) {
			break
		}
		a := rz / pq
		vec.AddScaled(x, a, p)
		vec.AddScaled(r, -a, q)
		res = maxAbs(r)
		if prec(r, z) != nil {
			break
		}
		rz2 := vec.Dot(r, z)
		beta := rz2 / rz
		rz = rz2
		for i := range p {
			p[i] = z[i] + beta*p[i]
		}
	}
	// The recurrence's residual drifts from the true one: recompute it.
	w.mulM(x, q)
	for i := range q {
		q[i] = b[i] - q[i]
	}
	if res = maxAbs(q); !(res <= res0) {
		copy(x, lr.px)
		return res0
	}
	return res
}

// apply sets x to the Woodbury solution of M x = b: the products with
// Ŵᵀ split by its columns and with Ŵ by the inputs among the workers,
// each entry summed in one order whatever the split.
func (w *workspace) apply(b, x []float64) error {
	lr := w.lr
	n := lr.n
	// x = D^{-1/2}(c − Ŵ S⁻¹ Ŵᵀ c) with c = D^{-1/2} b and Ŵ = D^{-1/2} W.
	for i := range b {
		x[i] = b[i] * lr.rdinv[i]
	}
	z := lr.z.RawVector().Data
	w.split(lr.cols, 2*n, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			z[c] = vec.Dot(lr.wt[c*n:(c+1)*n], x)
		}
	})
	if err := lr.lu.SolveVecTo(lr.y, false, lr.z); err != nil && !errors.As(err, new(mat.Condition)) {
		return err
	}
	y := lr.y.RawVector().Data
	w.split(n, 2*lr.cols, func(lo, hi int) {
		t := lr.t[lo:hi]
		clear(t)
		for c := range lr.cols {
			vec.AddScaled(t, y[c], lr.wt[c*n+lo:c*n+hi])
		}
		for i := lo; i < hi; i++ {
			x[i] = (x[i] - lr.t[i]) * lr.rdinv[i]
		}
	})
	return nil
}

// mulM sets out to M x from M's factors: D x plus each output's
// u1 (v1·x) − u2 (v2·x) over its pairs.
func (w *workspace) mulM(x, out []float64) {
	st := w.st
	if len(w.colS1) != st.m {
		w.colMax, w.colS1, w.colS2 = make([]float64, st.m), make([]float64, st.m), make([]float64, st.m)
	}
	w.split(st.m, 4*st.n, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			k0, k1 := st.colStart[j], st.colStart[j+1]
			if st.full {
				// The output's pairs are the inputs in order: two dot
				// products with x.
				w.colS1[j], w.colS2[j] = vec.Dot(w.v1[k0:k1], x), vec.Dot(w.v2[k0:k1], x)
				continue
			}
			var s1, s2 float64
			for k := k0; k < k1; k++ {
				s1 += w.v1[k] * x[st.row[k]]
				s2 += w.v2[k] * x[st.row[k]]
			}
			w.colS1[j], w.colS2[j] = s1, s2
		}
	})
	w.splitRows(4*st.m, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = w.rowSumD[i] * x[i]
		}
		for j := range st.m {
			k0, k1 := st.pairsOf(j, lo, hi)
			s1, s2 := w.colS1[j], w.colS2[j]
			if st.full {
				vec.AddScaled(out[lo:hi], s1, w.u1[k0:k1])
				if w.form.marg {
					vec.AddScaled(out[lo:hi], -s2, w.u2[k0:k1])
				}
				continue
			}
			for k := k0; k < k1; k++ {
				out[st.row[k]] += w.u1[k] * s1
				if w.form.marg {
					out[st.row[k]] -= w.u2[k] * s2
				}
			}
		}
	})
}

// Gondzio's multiple centrality correctors (J. Gondzio, "Multiple
// centrality corrections in a primal-dual method for linear programming",
// Comput. Optim. Appl. 6, 1996), used with the low-rank systems, whose
// solves cost little beside their factorisation: the restricted problems
// of an active set are far from well centred, and Mehrotra's direction
// alone then takes steps of 0.1 to 0.4 for dozens of iterations.
const (
	// correctors bounds the correctors tried per iteration.
	correctors = 4
	// centreLow and centreHigh bound the box [centreLow·μ, centreHigh·μ]
	// into which a corrector pushes the complementarity products of the
	// trial point.
	centreLow, centreHigh = 0.1, 10
	// correctorGain is the factor by which a corrector must lengthen the
	// shorter step to be kept.
	correctorGain = 1.01
)

// centrality tries up to correctors centrality correctors on the
// direction d with steps ap, ad (target the centring target σμ),
// solving into trial, and returns the direction kept (d or trial, the
// other free) with its steps. w.rpz and w.rsw hold d's right-hand sides
// on entry and are changed.
func (w *workspace) centrality(d, trial direction, ap, ad, target float64) (direction, float64, float64, error) {
	lo, hi := centreLow*target, centreHigh*target
	push := func(v float64) float64 {
		switch {
		case v < lo:
			return lo - v
		case v > hi:
			return max(hi-v, -hi)
		}
		return 0
	}
	for range correctors {
		a := min(ap, ad)
		at := min(1, 1.5*a+0.1) // the step the corrector aims at
		w.split(len(w.p), 8, func(lo, hi int) {
			for k := lo; k < hi; k++ {
				w.rpz[k] += push((w.r[k] + at*d.r[k]) * (w.z[k] + at*d.z[k]))
				w.rsw[k] += push((w.s[k] + at*d.s[k]) * (w.w[k] + at*d.w[k]))
			}
		})
		if err := w.solve(trial); err != nil {
			return d, ap, ad, err
		}
		ap2, ad2 := w.ap, w.ad
		if min(ap2, ad2) < correctorGain*a {
			break
		}
		d, trial = trial, d
		ap, ad = ap2, ad2
	}
	return d, ap, ad, nil
}

// gram sums its dot products over pieces of gramChunk entries of the rows
// of Wᵀ, and runs over them in blocks of gramRows rows: a block's pieces
// (256 KiB) stay in a core's L2 cache while every pair of rows above it
// passes over them (vec.Dots2x4: two rows against four).
const (
	gramChunk = 512
	gramRows  = 64
)

// gram sets s (c × c, row-major) to wt wtᵀ for wt c × n row-major, a
// symmetric matrix: the upper triangle is computed, the lower copied from
// it. The pairs of rows of s are shared out among the workers, paired
// from both ends (the rows' work falls along the triangle); each entry is
// summed over the pieces in order whatever the split. Each worker looks at
// the context before each piece; a stopped pass returns errStopped.
func (w *workspace) gram(s, wt []float64, c, n int) error {
	clear(s)
	pairs := (c + 1) / 2
	row := func(r, k0, k1 int) []float64 {
		r = min(r, c-1) // past the last row: a copy whose products are dropped
		return wt[r*n+k0 : r*n+k1]
	}
	w.split(pairs, c*n, func(lo, hi int) {
		var out [8]float64
		for k0 := 0; k0 < n; k0 += gramChunk {
			if w.stopped() {
				return
			}
			k1 := min(k0+gramChunk, n)
			for b0 := 0; b0 < c; b0 += gramRows {
				b1 := min(b0+gramRows, c)
				for t := lo; t < hi; t++ {
					a := 2 * (t / 2) // rows a, a+1 from the front or the back
					if t%2 == 1 {
						a = 2 * (pairs - 1 - t/2)
					}
					if a >= b1 {
						continue
					}
					a0, a1 := row(a, k0, k1), row(a+1, k0, k1)
					for q := b0 + (max(a, b0)-b0)&^3; q < b1; q += 4 {
						vec.Dots2x4(a0, a1, row(q, k0, k1), row(q+1, k0, k1), row(q+2, k0, k1), row(q+3, k0, k1), &out)
						for r := range 2 {
							for e := range 4 {
								if ar, bq := a+r, q+e; ar < c && bq < b1 && bq >= ar {
									s[ar*c+bq] += out[4*r+e]
								}
							}
						}
					}
				}
			}
		}
	})
	if w.halted.Load() {
		return errStopped
	}
	for r := 1; r < c; r++ {
		for k := range r {
			s[r*c+k] = s[k*c+r]
		}
	}
	return nil
}
