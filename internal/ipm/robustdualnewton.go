package ipm

import (
	"math"

	"github.com/pmlopt/pmlopt/internal/vec"
)

// dualFreeReg, times the largest row weight of an output, is added to the
// curvature of its b's and of its ν's and λ's in the structured solve (a
// proximal term): where a side's dense row is loose these unknowns are
// held by loose rows only, their curvatures fall to rounding level and
// their huge inverses spoil the solve of the other unknowns. They do not
// enter the objective, and the residual check and GMRES use the
// unregularised equations.
const dualFreeReg = 1e-16

// dualSoftRel is the ratio of a pair's own pivot (its curvature left
// after its b's) to the largest row weight of its output below which the
// pair counts as soft: its p is then a deflation direction, since the
// rows that hold it (its output's dense row, its row sum) weigh that
// much more and eliminating it first would lose as many digits.
const dualSoftRel = 1e-6

// dualDeflateMass is the share of the largest t_j above which an
// output's own column is deflated (core): an output that no mechanism
// uses has every row tight and no soft direction.
const dualDeflateMass = 1e-6

// factor builds each output's bordered block, eliminates its pairs and
// adds its part to the N×N system of the rows' multipliers, sets up the
// deflation directions, and factorises both systems. A pivot the
// Cholesky factorisations skip (rounding noise, as in Solve) gives its
// unknown a zero step.
func (x *dualIPM) factor() error {
	n, m, nq, no, mr := x.n, x.m, x.nq, x.no, x.mr
	clear(x.S)
	tmax := 0.0
	for j := range m {
		tmax = max(tmax, x.xo[j*no+x.oT])
	}
	x.rowWeights()
	for j := range m {
		x.defl[j] = x.xo[j*no+x.oT] > dualDeflateMass*tmax
		w := 0.0
		for r := range x.prow {
			pw := x.pw[r][j*n : (j+1)*n]
			for _, k := range x.prow[r].letters {
				w = max(w, pw[k])
			}
		}
		for d := range x.nd {
			w = max(w, x.dz[j*x.nd+d]/x.ds[j*x.nd+d])
		}
		x.wmax[j] = w
		x.freeReg[j] = dualFreeReg * w
	}
	x.choosePins()
	x.dirs, x.kent = x.dirs[:0], x.kent[:0]
	nd := x.nd
	for j := range m {
		for k := range n {
			pk := j*n + k
			x.eliminatePair(j, k, x.dinv[pk*nq*nq:(pk+1)*nq*nq], x.dinvF[pk*nq*mr:(pk+1)*nq*mr])
		}
		// The border's Schur complement S = E − Fᵀ D⁻¹ F in blocks: A on
		// the output's unknowns, kept as L D Lᵀ built from positive
		// rank-one terms (gatherPairBorder), B against the dense rows' ζ and
		// C on the ζ (negative definite). Eliminating ζ first leaves
		// A' = A + B (−C)⁻¹ Bᵀ, a few more positive terms: near the optimum
		// A has weights 10⁸ apart (two rows of a pair tight together tie
		// two of its unknowns), and a sum formed entry by entry would keep
		// none of the small ones' digits.
		ldl := &x.ldl
		ldl.reset(no)
		for r := range x.orow {
			w := x.oz[r][j] / x.os[r][j]
			ldl.update(w, x.orow[r].out)
		}
		for k := range n {
			x.gatherPairBorder(j, k)
		}
		x.flushPairBorder(ldl, j)
		for o := range no {
			if o != x.oT && o != x.oH {
				e := x.bdiff[:no]
				clear(e)
				e[o] = 1
				ldl.update(x.freeReg[j], e)
			}
		}
		if x.defl[j] {
			// t is carried by α: its own unknown is held at 0.
			e := x.bdiff[:no]
			clear(e)
			e[x.oT] = 1
			ldl.update(1, e)
		}
		// The border's own block E enters only against the ζ: B starts
		// from the dense rows' coefficients on the output's unknowns (t's
		// dropped where α carries it), C from −1/ω on its diagonal.
		Bm := x.bm[j*no*nd : (j+1)*no*nd]
		Ci := x.cinv[j*nd*nd : (j+1)*nd*nd]
		clear(Ci)
		for d := range nd {
			for o, co := range x.drow[d].out {
				Bm[o*nd+d] = x.outCoef(j, o, co)
			}
			Ci[d*nd+d] = -x.ds[j*nd+d] / x.dz[j*nd+d]
		}
		// B −= Σ_k (D⁻¹F)ᵀ g_d and C −= Σ_k g_dᵀ D⁻¹ g_d', by D⁻¹F's
		// symmetry with Fᵀ D⁻¹ (F's ζ columns are the g's).
		for k := range n {
			pk := j*n + k
			df := x.dinvF[pk*nq*mr : (pk+1)*nq*mr]
			for d := range nd {
				gd := x.drow[d].pair[k*nq : (k+1)*nq]
				for a := range mr {
					// Column a of D⁻¹F against g_d, summed in order.
					v := 0.0
					for l, g := range gd {
						v += df[l*mr+a] * g
					}
					if a < no {
						Bm[a*nd+d] -= v
					} else {
						Ci[(a-no)*nd+d] -= v
					}
				}
			}
		}
		if err := invertScaled(Ci, nd, &x.scratch); err != nil {
			return err
		}
		// A' = A + B (−C)⁻¹ Bᵀ: (−C)⁻¹ = −Ci = R Rᵀ, one term per column
		// of B R.
		if err := x.addBorderDense(ldl, Bm, Ci); err != nil {
			return err
		}
		So := x.soInv[j*no*no : (j+1)*no*no]
		ldl.inverse(So)
		// The rows' system gains diag(D⁻¹_pp) + Ṽ A'⁻¹ Ṽᵀ + V_ζ C⁻¹ V_ζᵀ,
		// with V the p rows of D⁻¹F and Ṽ = V_o − V_ζ C⁻¹ Bᵀ.
		vt, w1, w2 := x.vt, x.w1, x.w2
		for k := range n {
			pk := j*n + k
			vrow := x.dinvF[pk*nq*mr : pk*nq*mr+mr]
			vz := vrow[no:]
			// c = C⁻¹ V_ζ (nd), Ṽ = V_o − B c.
			mulInOrder(w2[k*nd:(k+1)*nd], Ci, vz)
			subMulInOrder(vt[k*no:(k+1)*no], vrow[:no], Bm, w2[k*nd:(k+1)*nd])
			mulInOrder(w1[k*no:(k+1)*no], So, vt[k*no:(k+1)*no])
		}
		// The V_ζ rows: the ζ columns of D⁻¹F's p rows, nq·mr apart.
		vzs := x.dinvF[j*n*nq*mr+no : (j+1)*n*nq*mr]
		for i := range n {
			row := x.S[i*n : i*n+i+1]
			d1, d2 := x.sDots[:i+1], x.sDots[n:n+i+1]
			vec.DotRows(d1, vt, no, w1[i*no:(i+1)*no])
			vec.DotRows(d2, vzs, nq*mr, w2[i*nd:(i+1)*nd])
			for kk := range row {
				row[kk] += d1[kk]
				row[kk] += d2[kk]
			}
			x.S[i*n+i] += x.dinv[(j*n+i)*nq*nq]
		}
		x.deflateOutput(j)
	}
	x.chol.factorize(x.S, n)
	if err := x.factorDeflation(); err != nil {
		return err
	}
	return nil
}

// rowWeights sets each present pair row's weight ω = z/s (pw), which
// the stars, the eliminations and the deflation directions read: factor
// sets them first.
func (x *dualIPM) rowWeights() {
	n := x.n
	for r := range x.prow {
		s, z, w, letters := x.ps[r], x.pz[r], x.pw[r], x.prow[r].letters
		for j := range x.m {
			sj, zj, wj := s[j*n:(j+1)*n], z[j*n:(j+1)*n], w[j*n:(j+1)*n]
			for _, k := range letters {
				wj[k] = zj[k] / sj[k]
			}
		}
	}
}

// eliminatePair writes the inverse of pair (j, k)'s block D = Aᵖᵀ Ω Aᵖ
// into inv and D⁻¹F (F = Aᵖᵀ Ω Aᵒ, with the dense rows' coefficients as
// its last nd columns) into df (nq × mr). The pair's rows form a star:
// rows on p alone (weights summing to δ_p), for each side's b a row on b
// alone (δ_b) and one row on b and p with coefficients ±1 (ω_b, sign σ_b
// of their product). Eliminating the b's leaves π = δ_p + Σ_b ω_b δ_b /
// (δ_b + ω_b) on p, a sum of positive terms, and with g_b = σ_b ω_b /
// (δ_b + ω_b)
//
//	(D⁻¹)_pp = 1/π,  (D⁻¹)_pb = −g_b/π,
//	(D⁻¹)_bb' = [b = b'] / (δ_b + ω_b) + g_b g_b' / π.
//
// D⁻¹F is summed from each row's response D⁻¹ ω_r a_r, also in closed
// form: ω_r c/π times (1, −g_b) for a row on p alone, and for the row of
// side b, by Sherman–Morrison on D without it (p's pivot π' = π less its
// term, b's δ_b), D⁻¹_rest a / (1/ω_b + 1/π' + 1/δ_b). Forming D and F
// and multiplying would lose δ_p next to a huge ω_b: D⁻¹'s entries are
// then huge along p − b and F's along p + b, and their product cancels. A
// b the set leaves out at this letter is held at 0 (an identity row).
func (x *dualIPM) eliminatePair(j, k int, inv, df []float64) {
	nq, no, mr := x.nq, x.no, x.mr
	pk := j*x.n + k
	clear(inv)
	clear(df)
	st := &x.stars[pk]
	db, wb, g, term, on, dp, piv := st.db, st.wb, st.g, st.term, st.on, st.dp, st.piv
	if x.pinP[pk] {
		x.eliminatePinned(j, k, inv, df, db, wb, on)
		return
	}
	inv[0] = 1 / piv
	for q := 1; q < nq; q++ {
		if !on[q] {
			inv[q*nq+q] = 1
			continue
		}
		inv[q] = -g[q] / piv
		inv[q*nq] = inv[q]
		for q2 := 1; q2 < nq; q2++ {
			if on[q2] {
				inv[q*nq+q2] = g[q] * g[q2] / piv
			}
		}
		inv[q*nq+q] += 1 / (db[q] + wb[q])
	}
	var y [3]float64
	for _, r := range x.rowsAt[k] {
		row := &x.prow[r]
		if row.bq >= 0 && row.pair[0] == 0 {
			continue
		}
		w := x.pw[r][pk]
		if q := row.bq; q < 0 {
			f := w / piv * row.pair[0]
			y[0] = f
			for q2 := 1; q2 < nq; q2++ {
				y[q2] = -g[q2] * f
			}
		} else {
			pr := dp
			for q2 := 1; q2 < nq; q2++ {
				if q2 != q {
					pr += term[q2]
				}
			}
			den := 1/w + 1/pr + 1/db[q]
			cp, cb := row.pair[0], row.pair[q]
			y[0] = cp / pr / den
			for q2 := 1; q2 < nq; q2++ {
				y[q2] = -g[q2] * y[0]
			}
			y[q] = cb / db[q] / den
		}
		for _, c := range row.outNZ {
			if c.i == x.oT && x.defl[j] {
				continue
			}
			for q2 := range nq {
				df[q2*mr+c.i] += c.a * y[q2]
			}
		}
	}
	for d := range x.drow {
		gd := x.drow[d].pair[k*nq : (k+1)*nq]
		for a := range nq {
			df[a*mr+no+d] = dotInOrder(inv[a*nq:(a+1)*nq], gd)
		}
	}
}

// pairStarWeights is a pair's rows gathered as eliminatePair's star: dp
// on p alone, for each b its own row's weight db (with freeReg) and its
// joining row's wb, the g_b and terms ω_b δ_b/(δ_b + ω_b), and the pivot
// π left on p.
type pairStarWeights struct {
	db, wb, g, term [3]float64
	on              [3]bool
	dp, piv         float64
}

// softDot returns z·v for the pair's soft direction z = (1, −g_b) and v
// over the pair's unknowns.
func (st *pairStarWeights) softDot(v []float64) float64 {
	s := v[0]
	for q := 1; q < len(v); q++ {
		s -= st.g[q] * v[q]
	}
	return s
}

// addSoft adds c z to v over the pair's unknowns, z = (1, −g_b) its soft
// direction.
func (st *pairStarWeights) addSoft(c float64, v []float64) {
	v[0] += c
	for q := 1; q < len(v); q++ {
		v[q] -= c * st.g[q]
	}
}

// pairStar gathers pair (j, k)'s rows into st (see eliminatePair).
func (x *dualIPM) pairStar(j, k int, st *pairStarWeights) {
	*st = pairStarWeights{}
	var sg [3]float64
	pk := j*x.n + k
	for _, r := range x.rowsAt[k] {
		row := &x.prow[r]
		w := x.pw[r][pk]
		q := row.bq
		switch {
		case q < 0:
			st.dp += w * row.pair[0] * row.pair[0]
		case row.pair[0] == 0:
			st.db[q] += w
			st.on[q] = true
		default:
			st.wb[q] += w
			sg[q] = row.pair[0] * row.pair[q]
			st.on[q] = true
		}
	}
	st.piv = st.dp
	for q := 1; q < x.nq; q++ {
		if !st.on[q] {
			continue
		}
		st.db[q] += x.freeReg[j]
		st.term[q] = st.wb[q] * st.db[q] / (st.db[q] + st.wb[q])
		st.piv += st.term[q]
		st.g[q] = sg[q] * st.wb[q] / (st.db[q] + st.wb[q])
	}
}

// choosePins gathers every pair's star (stars, which eliminatePair
// reads) and sets pinP: the soft pairs, whose pivot π is below
// dualSoftRel of their output's largest row weight, up to maxPinned in
// all, and never every pair of a letter: the rows' system S of the
// unpinned entries must keep each letter's row sum (its multiplier's
// pivot), so the letter's least soft pair stays.
func (x *dualIPM) choosePins() {
	n, m := x.n, x.m
	clear(x.pinP)
	pinned := 0
	for k := range n {
		keep, best := 0, math.Inf(-1)
		for j := range m {
			x.pairStar(j, k, &x.stars[j*n+k])
			rel := x.stars[j*n+k].piv / x.wmax[j]
			if rel > best {
				keep, best = j, rel
			}
			x.pinP[j*n+k] = rel < dualSoftRel
		}
		x.pinP[keep*n+k] = false
		for j := range m {
			if x.pinP[j*n+k] {
				if pinned == x.maxPinned {
					x.pinP[j*n+k] = false
					continue
				}
				pinned++
			}
		}
	}
}

// eliminatePinned is eliminatePair for a pair whose p is carried by a
// deflation direction (a soft pair): p is held at 0 and each b, joined to
// nothing else in the pair, is its own 1×1 block δ_b + ω_b.
func (x *dualIPM) eliminatePinned(j, k int, inv, df []float64, db, wb [3]float64, on [3]bool) {
	nq, no, mr := x.nq, x.no, x.mr
	pk := j*x.n + k
	for q := 1; q < nq; q++ {
		if on[q] {
			inv[q*nq+q] = 1 / (db[q] + wb[q])
		} else {
			inv[q*nq+q] = 1
		}
	}
	for _, r := range x.rowsAt[k] {
		row := &x.prow[r]
		q := row.bq
		if q < 0 || row.pair[0] == 0 {
			continue
		}
		yb := x.pw[r][pk] * row.pair[q] / (db[q] + wb[q])
		for _, c := range row.outNZ {
			if c.i == x.oT && x.defl[j] {
				continue
			}
			df[q*mr+c.i] += c.a * yb
		}
	}
	for d := range x.drow {
		gd := x.drow[d].pair[k*nq : (k+1)*nq]
		for q := 1; q < nq; q++ {
			df[q*mr+no+d] = inv[q*nq+q] * gd[q]
		}
	}
}

// gatherPairBorder adds pair (j, k)'s part of the border's Schur
// complement, Aᵒᵀ (Ω − Ω Aᵖ D⁻¹ Aᵖᵀ Ω) Aᵒ, to the weights of positive
// rank-one terms that flushPairBorder adds to the output's ldlt: each b
// is eliminated from its two rows (b ≥ 0 with weight ω₁, the row joining
// it to p with ω₂) into that row without b, of weight ω₁ω₂/(ω₁ + ω₂); then
// p from the rows left, each r of weight ŵ_r = ω_r c_r² (c_r its
// coefficient on p) and vector v_r = a_r/c_r of coefficients on the
// output's unknowns, which leaves
//
//	(1/Σ ŵ) Σ_{r<r'} ŵ_r ŵ_r' (v_r − v_r')(v_r − v_r')ᵀ.
//
// Near the optimum the weights span many orders of magnitude, and the
// difference of the two sums in the first form keeps none of the small
// ones' digits. A row's coefficients are the same at every letter, so the
// term of rows r and r' has the same vector at every pair of the output:
// its weights are summed over the pairs (positive terms, no cancellation)
// and each such vector is one update (a held p's rows each add ω_r a_r
// a_rᵀ, summed the same way).
func (x *dualIPM) gatherPairBorder(j, k int) {
	pk := j*x.n + k
	R := len(x.prow)
	// The rows left after the b's: their kinds and weights, a joining
	// row's with its b eliminated (the star's term, pairStar).
	st := &x.stars[pk]
	wt, kind := x.bwt[:0], x.bkind[:0]
	for _, r := range x.rowsAt[k] {
		row := &x.prow[r]
		if row.bq >= 0 && row.pair[0] == 0 {
			continue
		}
		w := x.pw[r][pk]
		if q := row.bq; q >= 0 {
			w = st.term[q]
		}
		wt, kind = append(wt, w), append(kind, r)
	}
	x.bwt, x.bkind = wt, kind
	if x.pinP[pk] {
		// p held: each row adds its own term.
		for l, w := range wt {
			if ldltTakes(w) {
				x.bself[kind[l]] += w
			}
		}
		return
	}
	W := 0.0
	for l, r := range kind {
		c := x.prow[r].pair[0]
		wt[l] *= c * c
		W += wt[l]
	}
	if !(W > 0) {
		return
	}
	for l := range wt {
		for l2 := l + 1; l2 < len(wt); l2++ {
			// A term ldlt.update would refuse must not spoil the sum of
			// the others.
			if v := wt[l] * wt[l2] / W; ldltTakes(v) {
				x.bedge[kind[l]*R+kind[l2]] += v
			}
		}
	}
}

// flushPairBorder adds the terms gatherPairBorder summed for output j to
// ldl and clears their weights.
func (x *dualIPM) flushPairBorder(ldl *ldlt, j int) {
	no, R := x.no, len(x.prow)
	// v_r: the row's coefficients on the output's unknowns over its
	// coefficient on p (t's dropped where the output's column is
	// deflated); a_r for the held p's terms.
	coeffs := func(r int, dst []float64, overC bool) {
		row := &x.prow[r]
		for o := range no {
			v := x.outCoef(j, o, row.out[o])
			if overC {
				v /= row.pair[0]
			}
			dst[o] = v
		}
	}
	a, b, d := x.bvs[:no], x.bvs[no:2*no], x.bdiff[:no]
	for r := range R {
		if w := x.bself[r]; w > 0 {
			coeffs(r, a, false)
			ldl.update(w, a)
		}
		x.bself[r] = 0
		have := false
		for r2 := r + 1; r2 < R; r2++ {
			w := x.bedge[r*R+r2]
			x.bedge[r*R+r2] = 0
			if !(w > 0) {
				continue
			}
			if !have {
				coeffs(r, a, true)
				have = true
			}
			coeffs(r2, b, true)
			for o := range no {
				d[o] = a[o] - b[o]
			}
			ldl.update(w, d)
		}
	}
}

// addBorderDense adds B (−C)⁻¹ Bᵀ to ldl, with Ci = C⁻¹ (nd × nd,
// negative definite): −Ci = R Rᵀ by Cholesky, and each column of B R is
// a term.
func (x *dualIPM) addBorderDense(ldl *ldlt, Bm, Ci []float64) error {
	no, nd := x.no, x.nd
	R := x.bchol // its lower triangle, written before it is read
	for a := range nd {
		for b := 0; b <= a; b++ {
			v := -Ci[a*nd+b]
			for c := range b {
				v -= R[a*nd+c] * R[b*nd+c]
			}
			if a == b {
				if !(v > 0) {
					return errBrokeDown
				}
				R[a*nd+a] = math.Sqrt(v)
			} else {
				R[a*nd+b] = v / R[b*nd+b]
			}
		}
	}
	col := x.bdiff[:no]
	for c := range nd {
		for o := range no {
			v := 0.0
			for d := c; d < nd; d++ {
				v += Bm[o*nd+d] * R[d*nd+c]
			}
			col[o] = v
		}
		ldl.update(1, col)
	}
	return nil
}

// applyInverse solves output j's bordered block for the right-hand side
// (gp on the pairs, gr on the border), leaving the pairs' solution in gp
// and the border's in gr.
func (x *dualIPM) applyInverse(j int, gp, gr []float64) {
	n, nq, mr := x.n, x.nq, x.mr
	tmp := x.tmpP
	mulBlocksInOrder(tmp, x.dinv[j*n*nq*nq:(j+1)*n*nq*nq], gp, nq)
	// gr − Fᵀ D⁻¹ gp, with Fᵀ D⁻¹ = (D⁻¹F)ᵀ by symmetry: D⁻¹F's rows
	// for the output's pairs are one n·nq × mr block.
	df := x.dinvF[j*n*nq*mr : (j+1)*n*nq*mr]
	r := x.tmpR
	copy(r, gr)
	vec.SubRows(r, gp, df, mr)
	// x_o = A'⁻¹ (r_o − B C⁻¹ r_ζ), x_ζ = C⁻¹ (r_ζ − Bᵀ x_o).
	no, nd := x.no, x.nd
	Bm := x.bm[j*no*nd : (j+1)*no*nd]
	Ci := x.cinv[j*nd*nd : (j+1)*nd*nd]
	So := x.soInv[j*no*no : (j+1)*no*no]
	cz, ro := x.tmpZ, x.tmpO
	mulInOrder(cz, Ci, r[no:])
	subMulInOrder(ro, r[:no], Bm, cz)
	vec.DotRows(gr[:no], So, no, ro)
	subMulTransInOrder(cz, r[no:], Bm, gr[:no])
	mulInOrder(gr[no:no+nd], Ci, cz)
	vec.DotRows(gp, df, mr, gr)
	for i, t := range tmp[:n*nq] {
		gp[i] = t - gp[i]
	}
}

// solve computes the direction for the current residuals and the
// complementarity right-hand sides rc* into d, checked (gmres) where
// check is set and the point is near the optimum: the predictor's
// direction only sets the centring and the corrector's second-order
// terms, and is not checked.
func (x *dualIPM) solve(d dualDir, check bool) {
	n, m, nq, no := x.n, x.m, x.nq, x.no
	// g = rd + Σ a (rc/s − ω rp).
	copy(x.gx, x.rdx)
	copy(x.go_, x.rdo)
	for j := range m {
		ob := j * no
		gx, gxo := x.gx[j*n*nq:(j+1)*n*nq], x.go_[ob:ob+no]
		for r := range x.prow {
			row := &x.prow[r]
			ps, pz, rpp, rcp := x.ps[r][j*n:(j+1)*n], x.pz[r][j*n:(j+1)*n], x.rpp[r][j*n:(j+1)*n], x.rcp[r][j*n:(j+1)*n]
			for _, k := range row.letters {
				v := (rcp[k] - pz[k]*rpp[k]) / ps[k]
				row.scatter(v, gx[k*nq:(k+1)*nq], gxo)
			}
		}
		for dd := range x.drow {
			i := j*x.nd + dd
			v := (x.rcd[i] - x.dz[i]*x.rpd[i]) / x.ds[i]
			x.drow[dd].scatter(v, x.gx[j*n*nq:(j+1)*n*nq], x.go_[ob:ob+no])
		}
		for r := range x.orow {
			v := (x.rco[r][j] - x.oz[r][j]*x.rpo[r][j]) / x.os[r][j]
			vec.AddScaled(x.go_[ob:ob+no], v, x.orow[r].out)
		}
	}
	if !check || x.measureRel() > dualCheckBelow {
		x.core(d, x.gx, x.go_, x.ra)
	} else {
		x.gmres(d)
	}
	x.finish(d)
}

// dualCheckBelow is the gap measure below which each direction's
// residual in the unreduced equations is checked (and GMRES run where it
// is too large): above it the structured solve is exact to far more
// digits than the point has.
const dualCheckBelow = 1e-3

// core solves H dx + Aᵀ dy = (gx, gxo), A dx = −ra into d's unknowns.
// Output j's unknowns are dx_j = Σ_a c_a z_a + w_j over its deflation
// directions z_a (deflateOutput) with w_j held at 0 on their pinned
// coordinates: each output's block is solved for w (applyInverse), and
// the c's and dy come from
//
//	K c + Cᵀ dy = ρ,   C c − S dy = −σ,
//
// with S the rows' system of the w's (x.S), K the directions' curvature
// left after the w's (block diagonal by output), C their coupling to the
// rows, and ρ, σ the right-hand sides after the w's: (K + Cᵀ S⁻¹ C) c =
// ρ − Cᵀ S⁻¹ σ and dy = S⁻¹(σ + C c). Eliminating c first would divide by
// K's near-zero pivots.
func (x *dualIPM) core(d dualDir, gx, gxo, ra []float64) {
	n, m, nq, no := x.n, x.m, x.nq, x.no
	copy(x.rhsY, ra)
	gr := x.tmpR2
	Q := len(x.dirs)
	rho := x.rho[:Q]
	for j := range m {
		gp := d.x[j*n*nq : (j+1)*n*nq]
		copy(gp, gx[j*n*nq:(j+1)*n*nq])
		clear(gr)
		copy(gr, gxo[j*no:(j+1)*no])
		dj := x.outDirs[j]
		for _, a := range dj {
			rho[a] = x.dirDot(a, gp, gr)
		}
		x.restrict(j, gp, gr)
		x.applyInverse(j, gp, gr)
		for _, a := range dj {
			dr := &x.dirs[a]
			rho[a] -= vec.Dot(dr.hP, gp) + vec.Dot(dr.hR, gr)
		}
		for i := range n {
			x.rhsY[i] += gp[i*nq]
		}
	}
	coef := x.alpha[:Q]
	if Q > 0 {
		sig := append(x.sigSave[:0], x.rhsY...)
		x.sigSave = sig
		x.chol.solve(sig)
		for a := range Q {
			coef[a] = rho[a] - vec.Dot(x.dirs[a].c, sig)
		}
		x.gchol.solve(coef)
		for a := range Q {
			vec.AddScaled(x.rhsY, coef[a], x.dirs[a].c)
		}
	}
	x.chol.solve(x.rhsY)
	copy(d.y, x.rhsY)
	for j := range m {
		gp := d.x[j*n*nq : (j+1)*n*nq]
		copy(gp, gx[j*n*nq:(j+1)*n*nq])
		for i := range n {
			gp[i*nq] -= d.y[i]
		}
		clear(gr)
		copy(gr, gxo[j*no:(j+1)*no])
		for _, a := range x.outDirs[j] {
			vec.AddScaled(gp, -coef[a], x.dirs[a].hP)
			vec.AddScaled(gr, -coef[a], x.dirs[a].hR)
		}
		x.restrict(j, gp, gr)
		x.applyInverse(j, gp, gr)
		xo := d.xo[j*no : (j+1)*no]
		copy(xo, gr[:no])
		for _, a := range x.outDirs[j] {
			x.addDir(a, coef[a], gp, xo)
		}
	}
}

// restrict zeroes output j's right-hand side on the pinned coordinates.
func (x *dualIPM) restrict(j int, gp, gr []float64) {
	if x.defl[j] {
		gr[x.oT] = 0
	}
	for k := range x.n {
		if x.pinP[j*x.n+k] {
			gp[k*x.nq] = 0
		}
	}
}

// outCoef returns c, a row's coefficient on output j's unknown o, or 0
// on t where the output's column is deflated: α carries the column, and
// t's own unknown is held at 0.
func (x *dualIPM) outCoef(j, o int, c float64) float64 {
	if o == x.oT && x.defl[j] {
		return 0
	}
	return c
}

// dirDot returns z_aᵀ g for output-local vectors (gp over the pairs, gr
// over the border).
func (x *dualIPM) dirDot(a int, gp, gr []float64) float64 {
	dr := &x.dirs[a]
	n, nq, no := x.n, x.nq, x.no
	j := dr.j
	if dr.k < 0 {
		return vec.Dot(x.x[j*n*nq:(j+1)*n*nq], gp) + vec.Dot(x.xo[j*no:(j+1)*no], gr[:no])
	}
	return x.stars[j*n+dr.k].softDot(gp[dr.k*nq : (dr.k+1)*nq])
}

// addDir adds c z_a to output-local vectors.
func (x *dualIPM) addDir(a int, c float64, gp, xo []float64) {
	dr := &x.dirs[a]
	n, nq, no := x.n, x.nq, x.no
	j := dr.j
	if dr.k < 0 {
		vec.AddScaled(gp, c, x.x[j*n*nq:(j+1)*n*nq])
		vec.AddScaled(xo, c, x.xo[j*no:(j+1)*no])
		return
	}
	x.stars[j*n+dr.k].addSoft(c, gp[dr.k*nq:(dr.k+1)*nq])
}

// deflDir is a deflation direction of output j: its own column x̂_j
// (k < 0; t pinned) or the soft direction (1, −g_b) of pair (j, k) (p
// pinned). h = H z on the unpinned unknowns (hP over the pairs, hR over
// the border, with the dense rows' values a_d·z in their ζ places), y =
// H⁻¹ h on them, and c = P z − P H⁻¹ h its coupling to the rows.
type deflDir struct {
	j, k   int
	hP, hR []float64
	yP, yR []float64
	c      []float64
}

// rowDot returns a_r·z for pair row r at pair (j, kk) and direction a.
func (x *dualIPM) rowDot(a, r, kk int) float64 {
	dr := &x.dirs[a]
	row := &x.prow[r]
	j := dr.j
	if dr.k < 0 {
		// The row's value at the current point (residuals).
		pk := j*x.n + kk
		return x.rpp[r][pk] + x.ps[r][pk]
	}
	if kk != dr.k {
		return 0
	}
	pk := j*x.n + kk
	q := row.bq
	switch {
	case q < 0:
		return row.pair[0]
	case row.pair[0] == 0:
		return -row.pair[q] * x.stars[pk].g[q]
	}
	// The joining row: c_p − c_b g_b = c_p δ_b / (δ_b + ω_b), with the
	// star's weights g_b was formed from.
	st := &x.stars[pk]
	return row.pair[0] * st.db[q] / (st.db[q] + st.wb[q])
}

// deflateOutput adds output j's deflation directions: its own column
// where it is used (defl) and the soft pairs' (pinP), with their h, H⁻¹h
// and c, and their entries of K (x.kent).
func (x *dualIPM) deflateOutput(j int) {
	dirs := x.addOutputDirs(j)
	for _, a := range dirs {
		x.dirCurvature(a)
		x.dirCoupling(a)
	}
	x.addKBlock(j, dirs)
}

// addOutputDirs appends output j's directions to x.dirs, its column's
// first, and returns their indices (x.outDirs[j]).
func (x *dualIPM) addOutputDirs(j int) []int {
	first := len(x.dirs)
	if x.defl[j] {
		x.appendDir(j, -1)
	}
	for k := range x.n {
		if x.pinP[j*x.n+k] {
			x.appendDir(j, k)
		}
	}
	x.outDirs[j] = x.outDirs[j][:0]
	for a := first; a < len(x.dirs); a++ {
		x.outDirs[j] = append(x.outDirs[j], a)
	}
	return x.outDirs[j]
}

// appendDir appends direction (j, k) to x.dirs, reusing the slices of
// an earlier factorisation's direction in its place.
func (x *dualIPM) appendDir(j, k int) {
	n, nq, mr := x.n, x.nq, x.mr
	a := len(x.dirs)
	if cap(x.dirs) > a {
		x.dirs = x.dirs[:a+1]
	} else {
		x.dirs = append(x.dirs, deflDir{})
	}
	dr := &x.dirs[a]
	dr.j, dr.k = j, k
	if len(dr.hP) != n*nq {
		dr.hP, dr.yP = make([]float64, n*nq), make([]float64, n*nq)
		dr.hR, dr.yR = make([]float64, mr), make([]float64, mr)
		dr.c = make([]float64, n)
	}
}

// dirLetters returns the letters [lo, hi) of direction a's pair rows:
// every letter for an output's column, a soft pair's own for its
// direction.
func (x *dualIPM) dirLetters(a int) (lo, hi int) {
	if k := x.dirs[a].k; k >= 0 {
		return k, k + 1
	}
	return 0, x.n
}

// dirCurvature sets direction a's h = H z_a on the unpinned unknowns:
// the pair rows' terms (an output's column has them on the pairs too),
// the output rows' for an output's column, and the dense rows' values
// a_d·z_a in their ζ places.
func (x *dualIPM) dirCurvature(a int) {
	dr := &x.dirs[a]
	j, nq, no := dr.j, x.nq, x.no
	clear(dr.hP)
	clear(dr.hR)
	if k := dr.k; k >= 0 {
		pk := j*x.n + k
		for _, r := range x.rowsAt[k] {
			za := x.rowDot(a, r, k)
			if za == 0 {
				continue
			}
			wz := x.pw[r][pk] * za
			for _, c := range x.prow[r].outNZ {
				dr.hR[c.i] += wz * c.a
			}
		}
	} else {
		n := x.n
		for r := range x.prow {
			row := &x.prow[r]
			pw, rp, ps := x.pw[r][j*n:(j+1)*n], x.rpp[r][j*n:(j+1)*n], x.ps[r][j*n:(j+1)*n]
			for _, k := range row.letters {
				// a_r·z for the output's column: the row's value.
				za := rp[k] + ps[k]
				if za == 0 {
					continue
				}
				wz := pw[k] * za
				for _, c := range row.pairNZ {
					dr.hP[k*nq+c.i] += wz * c.a
				}
				for _, c := range row.outNZ {
					dr.hR[c.i] += wz * c.a
				}
			}
		}
	}
	if dr.k < 0 {
		for r := range x.orow {
			bz := x.outRowValue(r, j, x.xo)
			vec.AddScaled(dr.hR[:no], x.oz[r][j]/x.os[r][j]*bz, x.orow[r].out)
		}
		for d := range x.drow {
			dr.hR[no+d] = x.denseRowValue(d, j, x.x, x.xo)
		}
	} else {
		st := &x.stars[j*x.n+dr.k]
		for d := range x.drow {
			dr.hR[no+d] = st.softDot(x.drow[d].pair[dr.k*nq : (dr.k+1)*nq])
		}
	}
	x.restrict(j, dr.hP, dr.hR)
}

// dirCoupling sets direction a's y = H⁻¹ h and its coupling to the rows,
// c = P z − P y (0 at the pinned entries).
func (x *dualIPM) dirCoupling(a int) {
	dr := &x.dirs[a]
	j, n, nq := dr.j, x.n, x.nq
	copy(dr.yP, dr.hP)
	copy(dr.yR, dr.hR)
	x.applyInverse(j, dr.yP, dr.yR)
	for i := range n {
		dr.c[i] = -dr.yP[i*nq]
		if x.pinP[j*n+i] {
			dr.c[i] = 0
		}
	}
	if dr.k < 0 {
		for i := range n {
			dr.c[i] += x.x[(j*n+i)*nq]
		}
	} else {
		dr.c[dr.k] += 1
	}
}

// addKBlock appends K's entries between output j's directions (x.kent):
// z_aᵀ H z_b over the rows other than the dense ones, less h_aᵀ H⁻¹ h_b.
func (x *dualIPM) addKBlock(j int, dirs []int) {
	for ia, a := range dirs {
		loA, hiA := x.dirLetters(a)
		for _, b := range dirs[:ia+1] {
			// The rows at the letters both directions have: none for
			// soft pairs at two letters.
			loB, hiB := x.dirLetters(b)
			v := x.dirRowSum(a, b, max(loA, loB), min(hiA, hiB))
			if x.dirs[a].k < 0 && x.dirs[b].k < 0 {
				for r := range x.orow {
					bz := x.outRowValue(r, j, x.xo)
					v += x.oz[r][j] / x.os[r][j] * bz * bz
				}
			}
			da, db := &x.dirs[a], &x.dirs[b]
			v -= vec.Dot(da.hP, db.yP) + vec.Dot(da.hR, db.yR)
			x.kent = append(x.kent, kEntry{a, b, v})
		}
	}
}

// dirRowSum returns Σ ω_r (a_r·z_a)(a_r·z_b) over the pair rows of
// directions a and b's output at the letters [lo, hi).
func (x *dualIPM) dirRowSum(a, b, lo, hi int) float64 {
	n, j := x.n, x.dirs[a].j
	v := 0.0
	if hi-lo == 1 {
		k := lo
		for _, r := range x.rowsAt[k] {
			if za := x.rowDot(a, r, k); za != 0 {
				v += x.pw[r][j*n+k] * za * x.rowDot(b, r, k)
			}
		}
		return v
	}
	if lo >= hi {
		return 0
	}
	// Both are the output's column, whose a_r·z is the row's value.
	for r := range x.prow {
		pw, rp, ps := x.pw[r][j*n:(j+1)*n], x.rpp[r][j*n:(j+1)*n], x.ps[r][j*n:(j+1)*n]
		for _, k := range x.prow[r].letters {
			if za := rp[k] + ps[k]; za != 0 {
				v += pw[k] * za * za
			}
		}
	}
	return v
}

// kEntry is an entry of K (between two directions of one output).
type kEntry struct {
	a, b int
	v    float64
}

// factorDeflation factorises K + Cᵀ S⁻¹ C after S's factorisation.
func (x *dualIPM) factorDeflation() error {
	n := x.n
	Q := len(x.dirs)
	if Q == 0 {
		return nil
	}
	// The count of directions changes from one factorisation to the
	// next: the scratch grows by half again as many.
	if cap(x.rho) < Q {
		c := Q + Q/2
		x.sinvC, x.gmat = make([]float64, c*n), make([]float64, c*c)
		x.rho, x.alpha = make([]float64, c), make([]float64, c)
	}
	sc := x.sinvC[:Q*n]
	for a := range Q {
		copy(sc[a*n:(a+1)*n], x.dirs[a].c)
		x.chol.solve(sc[a*n : (a+1)*n])
	}
	G := x.gmat[:Q*Q]
	for a := range Q {
		row := G[a*Q : a*Q+a+1]
		vec.DotRows(row, sc, n, x.dirs[a].c)
		for b, v := range row {
			G[b*Q+a] = v
		}
	}
	for _, e := range x.kent {
		v := e.v
		if e.a == e.b {
			v = max(0, v)
		}
		G[e.a*Q+e.b] += v
		if e.a != e.b {
			G[e.b*Q+e.a] += v
		}
	}
	x.gchol.factorize(G, Q)
	return nil
}

// finish sets the slacks' and multipliers' steps from the unknowns':
// ds = a·dx + rp, dz = (rc − z ds)/s.
func (x *dualIPM) finish(d dualDir) {
	n, m, nq, no := x.n, x.m, x.nq, x.no
	for j := range m {
		dxj, dxoj := d.x[j*n*nq:(j+1)*n*nq], d.xo[j*no:(j+1)*no]
		for r := range x.prow {
			row := &x.prow[r]
			lo, hi := j*n, (j+1)*n
			ps, pz, rpp, rcp := x.ps[r][lo:hi], x.pz[r][lo:hi], x.rpp[r][lo:hi], x.rcp[r][lo:hi]
			dps, dpz := d.ps[r][lo:hi], d.pz[r][lo:hi]
			for _, k := range row.letters {
				ds := row.value(dxj[k*nq:(k+1)*nq], dxoj) + rpp[k]
				dps[k] = ds
				dpz[k] = (rcp[k] - pz[k]*ds) / ps[k]
			}
		}
		for dd := range x.drow {
			i := j*x.nd + dd
			ds := x.denseRowValue(dd, j, d.x, d.xo) + x.rpd[i]
			d.ds[i] = ds
			d.dz[i] = (x.rcd[i] - x.dz[i]*ds) / x.ds[i]
		}
		for r := range x.orow {
			ds := x.outRowValue(r, j, d.xo) + x.rpo[r][j]
			d.os[r][j] = ds
			d.oz[r][j] = (x.rco[r][j] - x.oz[r][j]*ds) / x.os[r][j]
		}
	}
}

// The products with the output blocks' small dense matrices (row-major):
// each entry's products summed in index order, unfused, as the rest of
// the elimination rounds them (internal/vec's kernels fuse the products
// and round differently).

// dotInOrder returns x·y.
func dotInOrder(x, y []float64) float64 {
	v := 0.0
	for i, xi := range x {
		v += xi * y[i]
	}
	return v
}

// mulInOrder sets dst = a x for the len(dst)×len(x) matrix a.
func mulInOrder(dst, a, x []float64) {
	c := len(x)
	for i := range dst {
		dst[i] = dotInOrder(a[i*c:(i+1)*c], x)
	}
}

// mulBlocksInOrder sets dst = a x for the block-diagonal a of
// len(x)/b blocks of b × b, stored one after the other (row-major).
func mulBlocksInOrder(dst, a, x []float64, b int) {
	x, dst = x[:len(dst)], dst[:len(x)]
	switch b {
	case 2:
		for i := 0; i+1 < len(x); i += 2 {
			blk := a[2*i : 2*i+4]
			x0, x1 := x[i], x[i+1]
			v0, v1 := 0.0, 0.0
			v0 += blk[0] * x0
			v0 += blk[1] * x1
			v1 += blk[2] * x0
			v1 += blk[3] * x1
			dst[i], dst[i+1] = v0, v1
		}
	case 3:
		for i := 0; i+2 < len(x); i += 3 {
			blk := a[3*i : 3*i+9]
			x0, x1, x2 := x[i], x[i+1], x[i+2]
			v0, v1, v2 := 0.0, 0.0, 0.0
			v0 += blk[0] * x0
			v0 += blk[1] * x1
			v0 += blk[2] * x2
			v1 += blk[3] * x0
			v1 += blk[4] * x1
			v1 += blk[5] * x2
			v2 += blk[6] * x0
			v2 += blk[7] * x1
			v2 += blk[8] * x2
			dst[i], dst[i+1], dst[i+2] = v0, v1, v2
		}
	default:
		for i := 0; i+b <= len(x); i += b {
			mulInOrder(dst[i:i+b], a[i*b:(i+b)*b], x[i:i+b])
		}
	}
}

// subMulInOrder sets dst = v − a x for the len(dst)×len(x) matrix a.
func subMulInOrder(dst, v, a, x []float64) { subMulStrided(dst, v, a, len(x), 1, x) }

// subMulTransInOrder sets dst = v − aᵀ x for the len(x)×len(dst) matrix
// a.
func subMulTransInOrder(dst, v, a, x []float64) { subMulStrided(dst, v, a, 1, len(dst), x) }

// subMulStrided sets dst_i = v_i − Σ_l a[i·rs + l·cs] x_l, each product
// taken from v_i in turn.
func subMulStrided(dst, v, a []float64, rs, cs int, x []float64) {
	for i := range dst {
		s := v[i]
		for l, xl := range x {
			s -= a[i*rs+l*cs] * xl
		}
		dst[i] = s
	}
}
