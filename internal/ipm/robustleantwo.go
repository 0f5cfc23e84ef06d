package ipm

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/mech"
)

// leanTwo is leanBox for LIP and ALIP over a box: both sides of the
// budget dualised, each with its own level and b's (docs/theory.md §7,
// "The dualised constraints"; dualIPM's rows for a box with lower caps).
//
// Each output j has its entries p_kj, for each letter whose mass the box
// leaves free one b_kj (upper side) and one b'_kj (lower side), its caps
// t_j and h_j and its levels ν_j and ν'_j, and the rows
//
//	(A) p_kj − h_j ≥ 0,  (C) t_j − p_kj ≥ 0,
//	(B) b_kj ≥ 0,        (E) b_kj − ν_j + p_kj ≥ 0,
//	(B') b'_kj ≥ 0,      (E') b'_kj + ν'_j − p_kj ≥ 0,
//	(D) ν_j (1 − Σl) + l·p_j − (u − l)·b_j − μ t_j ≥ 0,
//	(D') h_j − κ (ν'_j (1 − Σl) + l·p_j + (u − l)·b'_j) ≥ 0,
//
// with the row sums Σ_j p_kj = 1; the objective is Σ c_kj p_kj. D's
// bracket is the least mass of the column over the box, D”s the
// greatest (their inner LPs' duals).
//
// The Newton systems are solved as leanBox's, with a larger border. A
// pair's b and b' each touch p through one row, so eliminating them
// leaves a star centred on p: rows to h (ω_A), t (ω_C), ν (ω_B ω_E/(ω_B +
// ω_E)) and ν' (likewise), whose weights sum to p's pivot π. D⁻¹ = u uᵀ/π
// + diag(0, 1/(ω_B + ω_E), 1/(ω_B' + ω_E')) with u = (1, −g, g'), all in
// closed form. Eliminating p then joins every two of the star's leaves
// by an edge of weight w w'/π: the border's block on (t, h, ν, ν') is a
// weighted graph's Laplacian, the edges' weights summed over the letters
// (positive terms) and added to an L D Lᵀ factor by rank-one updates
// (Gill, Golub, Murray and Saunders, "Methods for modifying matrix
// factorizations", Math. Comp. 1974), which keeps the small weights next
// to the 10⁸ times larger ones of rows tight together. The two dense
// rows are kept as unknowns ζ, ζ' with their 2×2 block C < 0; the
// border's inverse is formed from C⁻¹ and that of A' = A − B C⁻¹ Bᵀ, A
// plus two more positive terms. Deflation (the used outputs' columns,
// the soft pairs) and the corrector's refinement are leanBox's.
type leanTwo struct {
	// mem holds the per-pair and per-output slices (staggered).
	mem *staggered
	// eta is the largest fraction of the way to the boundary a step
	// goes (leanEta, or leanRetryEta on a second run).
	eta     float64
	n, m    int
	mu, kap float64
	l, w    []float64
	free    []bool
	sl      float64
	set     *mech.PriorSet
	c       []float64
	scale   float64

	p, b, b2           []float64 // per pair
	t, h, nu, nu2      []float64 // per output
	y                  []float64
	sA, zA, sC, zC     []float64 // per pair
	sB, zB, sE, zE     []float64
	sB2, zB2, sE2, zE2 []float64
	sD, zD, sD2, zD2   []float64 // per output

	// residuals
	rA, rC, rB, rE, rB2, rE2, rD, rD2 []float64
	rdp, rdb, rdb2                    []float64
	rdt, rdh, rdn, rdn2               []float64
	ra                                []float64
	npairs                            int
	leanRun

	// weights ω = z/s and 1/s per row
	wA, wC, wB, wE, wB2, wE2, wD, wD2 []float64
	iA, iC, iB, iE, iB2, iE2, iD, iD2 []float64

	// factor: per pair π and 1/π (0 where p is held), g = ω_E/(ω_B +
	// ω_E), 1/(ω_B + ω_E) and the lower side's g', 1/(ω_B' + ω_E'), and
	// V's row f/π, f = uᵀF (6); per output the border's inverse (36); the
	// system on y.
	pv, ipv, g, ib, g2, ib2 []float64
	vf                      []float64
	sbi                     []float64
	sy                      []float64
	chol                    cholesky
	ldl                     ldlt
	// V and V S_b⁻¹, a row per letter of six columns per output.
	vt, wk []float64
	bm     [8]float64
	ev     [4]float64

	isDefl, pinned []bool
	wmax           []float64
	leanDirs
	hz, hz2                           []float64
	cA, cC, cB, cE, cB2, cE2, cD, cD2 []float64
	gp, gb, gb2, gt, gh, gn, gn2      []float64
	hp, hb, hb2, ht, hh, hn, hn2      []float64
	aff, cor, fix                     leanTwoDir
	r2                                []float64
}

// leanTwoDir is a Newton direction of leanTwo.
type leanTwoDir struct {
	p, b, b2, t, h, nu, nu2, y []float64
	sA, zA, sC, zC, sB, zB     []float64
	sE, zE, sB2, zB2, sE2, zE2 []float64
	sD, zD, sD2, zD2           []float64
}

func newLeanTwoDir(n, m int, a *staggered) leanTwoDir {
	K := n * m
	v := a.take
	return leanTwoDir{p: v(K), b: v(K), b2: v(K), t: v(m), h: v(m), nu: v(m), nu2: v(m), y: v(n),
		sA: v(K), zA: v(K), sC: v(K), zC: v(K), sB: v(K), zB: v(K), sE: v(K), zE: v(K),
		sB2: v(K), zB2: v(K), sE2: v(K), zE2: v(K), sD: v(m), zD: v(m), sD2: v(m), zD2: v(m)}
}

// leanFreeReg is the proximal term on the levels ν, ν', in units of the
// output's largest row weight: where a side's dense row is loose (or its
// inner LP degenerate) they are held by loose rows only and their
// curvatures fall to rounding (dualFreeReg). It does not enter the
// objective, and the refinement solves the unperturbed equations.
//
// The b's take none, as in leanBox: each is eliminated alone, its pivot
// ω_B + ω_E a sum of two positive weights, and what it leaves on the
// border has one sign. A proximal term on them would outweigh the
// curvature of a b whose rows are both loose while its dual equation
// z_B + z_E = w z_D is not met (a letter of small width w under a
// tight dense row): the step would move that b by the residual over
// the term, and the refinement, preconditioned by the perturbed
// factor, would not recover the difference.
const leanFreeReg = 1e-13

// leanTwoStride is the length of an output-local vector of leanTwo: p, b,
// b' over the letters, then t, h, ν, ν', ζ, ζ'.
func leanTwoStride(n int) int { return 3*n + 6 }

// newLeanTwo sets up the rows and dualIPM's starting point.
func newLeanTwo(pi mech.Prior, u mech.Utility, set *mech.PriorSet, mu, kap float64) *leanTwo {
	n, m := u.Dims()
	K := n * m
	a := new(staggered)
	v := a.take
	x := &leanTwo{eta: leanEta, n: n, m: m, mu: mu, kap: kap, set: set, l: v(n), w: v(n), free: make([]bool, n), sl: 1}
	x.c, x.scale = scaledObjective(pi, u)
	nfree := 0
	for k := range n {
		x.l[k] = set.Lower[k]
		x.sl -= set.Lower[k]
		if set.Upper[k] > set.Lower[k] {
			x.free[k] = true
			x.w[k] = set.Upper[k] - set.Lower[k]
			nfree++
		}
	}
	x.p, x.b, x.b2 = v(K), v(K), v(K)
	x.t, x.h, x.nu, x.nu2, x.y = v(m), v(m), v(m), v(m), v(n)
	x.sA, x.zA, x.sC, x.zC, x.sB, x.zB, x.sE, x.zE = v(K), v(K), v(K), v(K), v(K), v(K), v(K), v(K)
	x.sB2, x.zB2, x.sE2, x.zE2 = v(K), v(K), v(K), v(K)
	x.sD, x.zD, x.sD2, x.zD2 = v(m), v(m), v(m), v(m)
	x.rA, x.rC, x.rB, x.rE, x.rB2, x.rE2, x.rD, x.rD2 = v(K), v(K), v(K), v(K), v(K), v(K), v(m), v(m)
	x.rdp, x.rdb, x.rdb2 = v(K), v(K), v(K)
	x.rdt, x.rdh, x.rdn, x.rdn2, x.ra = v(m), v(m), v(m), v(m), v(n)
	x.wA, x.wC, x.wB, x.wE, x.wB2, x.wE2, x.wD, x.wD2 = v(K), v(K), v(K), v(K), v(K), v(K), v(m), v(m)
	x.iA, x.iC, x.iB, x.iE, x.iB2, x.iE2, x.iD, x.iD2 = v(K), v(K), v(K), v(K), v(K), v(K), v(m), v(m)
	x.pv, x.ipv, x.g, x.ib, x.g2, x.ib2, x.vf = v(K), v(K), v(K), v(K), v(K), v(K), v(6*K)
	x.sbi, x.sy, x.wk, x.vt = v(36*m), v(n*n), v(6*K), v(6*K)
	x.ldl.reset(4)
	x.isDefl, x.pinned, x.wmax = make([]bool, m), make([]bool, K), v(m)
	md := leanDirsRoom(n, m)
	st := leanTwoStride(n)
	x.reserve(md, st, n, v)
	x.hz, x.hz2 = v(m), v(m)
	x.cA, x.cC, x.cB, x.cE, x.cB2, x.cE2, x.cD, x.cD2 = v(K), v(K), v(K), v(K), v(K), v(K), v(m), v(m)
	x.gp, x.gb, x.gb2, x.gt, x.gh, x.gn, x.gn2 = v(K), v(K), v(K), v(m), v(m), v(m), v(m)
	x.hp, x.hb, x.hb2, x.ht, x.hh, x.hn, x.hn2 = v(K), v(K), v(K), v(m), v(m), v(m), v(m)
	x.aff, x.cor, x.fix = newLeanTwoDir(n, m, a), newLeanTwoDir(n, m, a), newLeanTwoDir(n, m, a)
	x.r2 = v(n)
	x.npairs = 2*K + 4*nfree*m + 2*m

	// Start (dualIPM's): every entry 1/M, t and h between the entries and
	// their caps, each b half an entry, ν half an entry and ν' an entry;
	// every slack at least a tenth of an entry and every multiplier 1.
	e := 1 / float64(m)
	floor := leanFloor * e
	for j := range m {
		x.t[j] = 0.5 * e * (1 + 1/mu)
		x.h[j] = 0.5 * e * (1 + kap)
		x.nu[j], x.nu2[j] = 0.5*e, e
		for k := range n {
			pk := j*n + k
			x.p[pk] = e
			if x.free[k] {
				x.b[pk], x.b2[pk] = 0.5*e, 0.5*e
			}
		}
	}
	for j := range m {
		dv := x.sl*x.nu[j] - mu*x.t[j]
		dv2 := x.sl * x.nu2[j]
		for k := range n {
			pk := j*n + k
			p := x.p[pk]
			x.sA[pk], x.zA[pk] = max(p-x.h[j], floor), 1
			x.sC[pk], x.zC[pk] = max(x.t[j]-p, floor), 1
			dv += x.l[k] * p
			dv2 += x.l[k] * p
			if x.free[k] {
				x.sB[pk], x.zB[pk] = max(x.b[pk], floor), 1
				x.sE[pk], x.zE[pk] = max(x.b[pk]-x.nu[j]+p, floor), 1
				x.sB2[pk], x.zB2[pk] = max(x.b2[pk], floor), 1
				x.sE2[pk], x.zE2[pk] = max(x.b2[pk]+x.nu2[j]-p, floor), 1
				dv -= x.w[k] * x.b[pk]
				dv2 += x.w[k] * x.b2[pk]
			}
		}
		x.sD[j], x.zD[j] = max(dv, floor), 1
		x.sD2[j], x.zD2[j] = max(x.h[j]-kap*dv2, floor), 1
	}
	x.mem = a
	return x
}

// residuals computes the KKT residuals at the current point.
func (x *leanTwo) residuals() {
	n, m, kap := x.n, x.m, x.kap
	comp, primI, dualI, obj := 0.0, 0.0, 0.0, 0.0
	clear(x.ra)
	for j := range m {
		t, h, nu, nu2 := x.t[j], x.h[j], x.nu[j], x.nu2[j]
		zd, zd2 := x.zD[j], x.zD2[j]
		dv := x.sl*nu - x.mu*t
		dv2 := x.sl * nu2
		st, sh := -x.mu*zd, zd2
		sn, sn2 := x.sl*zd, -kap*x.sl*zd2
		for k := range n {
			pk := j*n + k
			p := x.p[pk]
			obj += x.c[pk] * p
			x.ra[k] += p
			r := p - h - x.sA[pk]
			x.rA[pk] = r
			primI = maxAbsOf(primI, r)
			r = t - p - x.sC[pk]
			x.rC[pk] = r
			primI = maxAbsOf(primI, r)
			comp += x.sA[pk]*x.zA[pk] + x.sC[pk]*x.zC[pk]
			dv += x.l[k] * p
			dv2 += x.l[k] * p
			rd := x.c[pk] - x.y[k] + x.zA[pk] - x.zC[pk] + x.l[k]*(zd-kap*zd2)
			st += x.zC[pk]
			sh -= x.zA[pk]
			if x.free[k] {
				bk, b2 := x.b[pk], x.b2[pk]
				r = bk - x.sB[pk]
				x.rB[pk] = r
				primI = maxAbsOf(primI, r)
				r = bk - nu + p - x.sE[pk]
				x.rE[pk] = r
				primI = maxAbsOf(primI, r)
				r = b2 - x.sB2[pk]
				x.rB2[pk] = r
				primI = maxAbsOf(primI, r)
				r = b2 + nu2 - p - x.sE2[pk]
				x.rE2[pk] = r
				primI = maxAbsOf(primI, r)
				comp += x.sB[pk]*x.zB[pk] + x.sE[pk]*x.zE[pk] + x.sB2[pk]*x.zB2[pk] + x.sE2[pk]*x.zE2[pk]
				dv -= x.w[k] * bk
				dv2 += x.w[k] * b2
				rd += x.zE[pk] - x.zE2[pk]
				rb := x.zB[pk] + x.zE[pk] - x.w[k]*zd
				x.rdb[pk] = rb
				dualI = maxAbsOf(dualI, rb)
				rb = x.zB2[pk] + x.zE2[pk] - kap*x.w[k]*zd2
				x.rdb2[pk] = rb
				dualI = maxAbsOf(dualI, rb)
				sn -= x.zE[pk]
				sn2 += x.zE2[pk]
			}
			x.rdp[pk] = rd
			dualI = maxAbsOf(dualI, rd)
		}
		r := dv - x.sD[j]
		x.rD[j] = r
		primI = maxAbsOf(primI, r)
		r = h - kap*dv2 - x.sD2[j]
		x.rD2[j] = r
		primI = maxAbsOf(primI, r)
		comp += x.sD[j]*zd + x.sD2[j]*zd2
		x.rdt[j], x.rdh[j], x.rdn[j], x.rdn2[j] = st, sh, sn, sn2
		dualI = maxAbsOf(maxAbsOf(maxAbsOf(maxAbsOf(dualI, st), sh), sn), sn2)
	}
	for k := range x.ra {
		x.ra[k]--
		primI = maxAbsOf(primI, x.ra[k])
	}
	x.comp, x.primI, x.dualI, x.obj = comp, primI, dualI, obj
}

// weights sets every row's weight ω = z/s and inverse slack 1/s.
func (x *leanTwo) weights() {
	n := x.n
	for pk := range x.sA {
		x.iA[pk], x.iC[pk] = 1/x.sA[pk], 1/x.sC[pk]
		x.wA[pk], x.wC[pk] = x.zA[pk]*x.iA[pk], x.zC[pk]*x.iC[pk]
	}
	for j := range x.m {
		lo, hi := j*n, (j+1)*n
		sB, zB, sE, zE := x.sB[lo:hi], x.zB[lo:hi], x.sE[lo:hi], x.zE[lo:hi]
		sB2, zB2, sE2, zE2 := x.sB2[lo:hi], x.zB2[lo:hi], x.sE2[lo:hi], x.zE2[lo:hi]
		iB, iE, iB2, iE2 := x.iB[lo:hi], x.iE[lo:hi], x.iB2[lo:hi], x.iE2[lo:hi]
		wB, wE, wB2, wE2 := x.wB[lo:hi], x.wE[lo:hi], x.wB2[lo:hi], x.wE2[lo:hi]
		for k, free := range x.free[:n] {
			if !free {
				continue
			}
			iB[k], iE[k] = 1/sB[k], 1/sE[k]
			wB[k], wE[k] = zB[k]*iB[k], zE[k]*iE[k]
			iB2[k], iE2[k] = 1/sB2[k], 1/sE2[k]
			wB2[k], wE2[k] = zB2[k]*iB2[k], zE2[k]*iE2[k]
		}
	}
	for j := range x.sD {
		x.iD[j], x.iD2[j] = 1/x.sD[j], 1/x.sD2[j]
		x.wD[j], x.wD2[j] = x.zD[j]*x.iD[j], x.zD2[j]*x.iD2[j]
	}
}

// factor builds each output's closed-form blocks and the system on the
// row sums' multipliers, and factorises it.
func (x *leanTwo) factor() error {
	n, m, kap := x.n, x.m, x.kap
	x.weights()
	sy := x.sy
	clear(sy)
	tmax := 0.0
	for _, t := range x.t {
		tmax = max(tmax, t)
	}
	x.exact = x.measureRel() <= leanExactGap
	for j, t := range x.t {
		x.isDefl[j] = x.exact && t > leanDeflateMass*tmax
	}
	x.choosePins()
	for j := range m {
		defl := x.isDefl[j]
		// 1. The pairs: the star's leaves (t, h, ν, ν') with weights
		// (ω_C, ω_A, e, e'), e = ω_B ω_E/(ω_B + ω_E), and π their sum; the
		// edges' weights w_a w_b/π summed per output (a held p's rows each
		// join its leaf to nothing, a term on the leaf alone). B (4×2)
		// starts from the dense rows' coefficients on the border, C from
		// −1/ω on its diagonal.
		var edge [4][4]float64
		var self [4]float64
		B := x.bm[:]
		clear(B)
		B[0], B[4], B[3], B[7] = -x.mu, x.sl, 1, -kap*x.sl
		c11, c12, c22 := -1/x.wD[j], 0.0, -1/x.wD2[j]
		reg := leanFreeReg * x.wmax[j]
		self[2], self[3] = reg, reg
		for k := range n {
			pk := j*n + k
			lk, wd := x.l[k], x.w[k]
			var e, e2, g, g2, ib, ib2 float64
			if x.free[k] {
				wB, wE := x.wB[pk], x.wE[pk]
				ib = 1 / (wB + wE)
				g, e = wE*ib, wB*wE*ib
				wB2, wE2 := x.wB2[pk], x.wE2[pk]
				ib2 = 1 / (wB2 + wE2)
				g2, e2 = wE2*ib2, wB2*wE2*ib2
			}
			x.g[pk], x.ib[pk], x.g2[pk], x.ib2[pk] = g, ib, g2, ib2
			lv := [4]float64{x.wC[pk], x.wA[pk], e, e2}
			if x.pinned[pk] {
				// p held at 0: each row joins its leaf to nothing; b and b'
				// are their own blocks.
				x.pv[pk], x.ipv[pk] = 0, 0
				clear(x.vf[6*pk : 6*pk+6])
				for a, v := range lv {
					self[a] += v
				}
				B[4] -= g * wd
				B[7] += kap * g2 * wd
				c11 -= wd * wd * ib
				c22 -= kap * kap * wd * wd * ib2
				continue
			}
			pv := lv[0] + lv[1] + lv[2] + lv[3]
			ipv := 1 / pv
			x.pv[pk], x.ipv[pk] = pv, ipv
			a1, a2 := lk+g*wd, lk+g2*wd
			vf := x.vf[6*pk : 6*pk+6]
			vf[0], vf[1], vf[2], vf[3] = -lv[0]*ipv, -lv[1]*ipv, -lv[2]*ipv, -lv[3]*ipv
			vf[4], vf[5] = a1*ipv, -kap*a2*ipv
			for a := range 4 {
				for bb := a + 1; bb < 4; bb++ {
					edge[a][bb] += lv[a] * lv[bb] * ipv
				}
				B[2*a] += lv[a] * a1 * ipv
				B[2*a+1] -= kap * lv[a] * a2 * ipv
			}
			B[4] -= g * wd
			B[7] += kap * g2 * wd
			c11 -= a1*a1*ipv + wd*wd*ib
			c12 += kap * a1 * a2 * ipv
			c22 -= kap * kap * (a2*a2*ipv + wd*wd*ib2)
		}
		// 2. A as L D Lᵀ from the edges and the held terms; t dropped on a
		// deflated output (its column's direction carries it), with a unit
		// pivot of its own.
		ldl := &x.ldl
		ldl.reset(4)
		ev := x.ev[:]
		for a := range 4 {
			clear(ev)
			ev[a] = 1
			if defl && a == 0 {
				ev[0] = 0
			} else {
				ldl.update(self[a], ev)
			}
			for bb := a + 1; bb < 4; bb++ {
				ev[bb] = -1
				ldl.update(edge[a][bb], ev)
				ev[bb] = 0
			}
		}
		if defl {
			clear(ev)
			ev[0] = 1
			ldl.update(1, ev)
			B[0], B[1] = 0, 0
		}
		// 3. The border's inverse, the ζ's eliminated first: an unused
		// output's A is singular along (1, 1, 1, 1), which only the dense
		// rows hold.
		sb := x.sbi[36*j : 36*j+36]
		if !x.borderByC(sb, c11, c12, c22, defl) {
			return errBrokeDown
		}
		// 4. The output's p-block of H⁻¹ is diag(1/π) + V S_b⁻¹ Vᵀ; its
		// rows of V and of V S_b⁻¹ go to the output's six columns of the
		// letters' rows of vt and wk (a held p's row of V and 1/π are 0).
		vo := x.vf[6*j*n : 6*(j+1)*n]
		for k := range n {
			f := vo[6*k : 6*k+6]
			at := k*6*m + 6*j
			w := x.wk[at : at+6]
			copy(x.vt[at:at+6], f)
			for a := range 6 {
				s := sb[6*a : 6*a+6]
				w[a] = s[0]*f[0] + s[1]*f[1] + s[2]*f[2] + s[3]*f[3] + s[4]*f[4] + s[5]*f[5]
			}
			sy[k*n+k] += x.ipv[j*n+k]
		}
	}
	// 5. Every output's V S_b⁻¹ Vᵀ into the lower triangle of the
	// system at once, then its factor and the deflation directions'.
	addLowerProduct(sy, n, x.wk, x.vt, 6*m)
	if x.chol.factorize(sy, n) == n {
		return errBrokeDown
	}
	return x.deflate()
}

// borderByC writes the border's inverse into sb for the factor of A in
// ldl, B in bm and C = [[c11, c12], [c12, c22]] (negative definite), t's row
// and column 0 where defl: A' = A + B (−C)⁻¹ Bᵀ (−C⁻¹ = R Rᵀ, one term per column of B R), then
// [[A'⁻¹, −A'⁻¹ B C⁻¹], [·, C⁻¹ + C⁻¹ Bᵀ A'⁻¹ B C⁻¹]].
func (x *leanTwo) borderByC(sb []float64, c11, c12, c22 float64, defl bool) bool {
	B, ev, ldl := x.bm[:], x.ev[:], &x.ldl
	det := c11*c22 - c12*c12
	if !(det > 0) || !(c11 < 0) || math.IsInf(det, 0) {
		return false
	}
	i11, i12, i22 := c22/det, -c12/det, c11/det // C⁻¹
	r11 := math.Sqrt(-i11)
	r21 := -i12 / r11
	r22 := math.Sqrt(max(0, -i22-r21*r21))
	for a := range 4 {
		ev[a] = B[2*a]*r11 + B[2*a+1]*r21
	}
	ldl.update(1, ev)
	for a := range 4 {
		ev[a] = B[2*a+1] * r22
	}
	ldl.update(1, ev)
	var ai [16]float64
	ldl.inverse(ai[:])
	if defl {
		for a := range 4 {
			ai[a], ai[4*a] = 0, 0
		}
	}
	var bc [8]float64 // B C⁻¹
	for a := range 4 {
		bc[2*a] = B[2*a]*i11 + B[2*a+1]*i12
		bc[2*a+1] = B[2*a]*i12 + B[2*a+1]*i22
	}
	var q [8]float64 // A'⁻¹ B C⁻¹
	for a := range 4 {
		for d := range 2 {
			v := 0.0
			for c := range 4 {
				v += ai[4*a+c] * bc[2*c+d]
			}
			q[2*a+d] = v
		}
	}
	for a := range 4 {
		copy(sb[6*a:6*a+4], ai[4*a:4*a+4])
		sb[6*a+4], sb[6*a+5] = -q[2*a], -q[2*a+1]
		sb[24+a], sb[30+a] = -q[2*a], -q[2*a+1]
	}
	for d := range 2 {
		for e := range 2 {
			v := 0.0
			for c := range 4 {
				v += bc[2*c+d] * q[2*c+e]
			}
			sb[6*(4+d)+4+e] = v
		}
	}
	sb[28] += i11
	sb[29] += i12
	sb[34] += i12
	sb[35] += i22
	return true
}

// choosePins is leanBox.choosePins for both sides' rows.
func (x *leanTwo) choosePins() {
	n, m := x.n, x.m
	for j := range m {
		wm := max(x.wD[j], x.wD2[j])
		for k := range n {
			pk := j*n + k
			wA, wC := x.wA[pk], x.wC[pk]
			pv := wA + wC
			wm = max(wm, max(wA, wC))
			if x.free[k] {
				wB, wE := x.wB[pk], x.wE[pk]
				wB2, wE2 := x.wB2[pk], x.wE2[pk]
				pv += wE*wB/(wB+wE) + wE2*wB2/(wB2+wE2)
				wm = max(wm, max(max(wB, wE), max(wB2, wE2)))
			}
			x.pv[pk] = pv
		}
		x.wmax[j] = wm
		if x.isDefl[j] {
			x.isDefl[j] = x.columnNearNull(j)
		}
	}
	pinSoftPairs(n, m, x.pv, x.wmax, x.isDefl, x.pinned)
}

// columnNearNull is leanBox.columnNearNull on both sides' rows.
func (x *leanTwo) columnNearNull(j int) bool {
	n := x.n
	comp := x.sD[j]*x.zD[j] + x.sD2[j]*x.zD2[j]
	norm := x.t[j]*x.t[j] + x.h[j]*x.h[j] + x.nu[j]*x.nu[j] + x.nu2[j]*x.nu2[j]
	for k := range n {
		pk := j*n + k
		comp += x.sA[pk]*x.zA[pk] + x.sC[pk]*x.zC[pk]
		norm += x.p[pk] * x.p[pk]
		if x.free[k] {
			comp += x.sB[pk]*x.zB[pk] + x.sE[pk]*x.zE[pk] + x.sB2[pk]*x.zB2[pk] + x.sE2[pk]*x.zE2[pk]
			norm += x.b[pk]*x.b[pk] + x.b2[pk]*x.b2[pk]
		}
	}
	return comp < leanSoftRel*norm*x.wmax[j]
}

// deflate is leanBox.deflate on leanTwo's output-local vectors
// (leanTwoStride): a used output's column (p, b, b', t, h, ν, ν') and a
// soft pair's p with its b and b' responses (1, −g, g').
func (x *leanTwo) deflate() error {
	n, m := x.n, x.m
	st := leanTwoStride(n)
	md, err := x.collect(n, m, st, x.isDefl, x.pinned)
	if md == 0 || err != nil {
		return err
	}
	for a, j := range x.dj {
		z, kz := x.dz[a*st:(a+1)*st], x.dkz[a*st:(a+1)*st]
		clear(z)
		if k := x.dk[a]; k < 0 {
			copy(z[:n], x.p[j*n:(j+1)*n])
			copy(z[n:2*n], x.b[j*n:(j+1)*n])
			copy(z[2*n:3*n], x.b2[j*n:(j+1)*n])
			z[3*n], z[3*n+1], z[3*n+2], z[3*n+3] = x.t[j], x.h[j], x.nu[j], x.nu2[j]
		} else {
			pk := j*n + k
			z[k], z[n+k], z[2*n+k] = 1, -x.g[pk], x.g2[pk]
		}
		x.applyH0(j, z, kz)
		// uz = Ĥ⁻¹ Qᵀ H z: Qᵀ drops t and the pinned p's.
		for k := range n {
			pk := j*n + k
			x.gp[pk], x.gb[pk], x.gb2[pk] = kz[k], kz[n+k], kz[2*n+k]
		}
		x.applyInvJ(j, 0, kz[3*n+1], kz[3*n+2], kz[3*n+3], kz[3*n+4], kz[3*n+5])
		u := x.du[a*st : (a+1)*st]
		copy(u[:n], x.hp[j*n:(j+1)*n])
		copy(u[n:2*n], x.hb[j*n:(j+1)*n])
		copy(u[2*n:3*n], x.hb2[j*n:(j+1)*n])
		u[3*n], u[3*n+1], u[3*n+2], u[3*n+3] = 0, x.hh[j], x.hn[j], x.hn2[j]
		u[3*n+4], u[3*n+5] = x.hz[j], x.hz2[j]
		e, y := x.ed[a*n:(a+1)*n], x.ye[a*n:(a+1)*n]
		for k := range n {
			e[k] = z[k] - u[k]
		}
		copy(y, e)
		x.chol.solve(y)
	}
	x.factorGram(n, x.curvature)
	return nil
}

// curvature returns K_ab = z_aᵀ H z_b − (Qᵀ H z_a)·uz_b for two
// directions of one output.
func (x *leanTwo) curvature(a, b int) float64 {
	n := x.n
	st := leanTwoStride(n)
	j := x.dj[a]
	za, kzb := x.dz[a*st:(a+1)*st], x.dkz[b*st:(b+1)*st]
	kza, ub := x.dkz[a*st:(a+1)*st], x.du[b*st:(b+1)*st]
	lo, hi := letterSpan(x.dk[a], n)
	v := 0.0
	for o := 0; o < 3*n; o += n {
		for k := lo; k < hi; k++ {
			v += za[o+k] * kzb[o+k]
		}
	}
	for i := 3 * n; i < 3*n+4; i++ {
		v += za[i] * kzb[i]
	}
	for k := lo; k < hi; k++ {
		if !x.pinned[j*n+k] {
			v -= kza[k] * ub[k]
		}
	}
	for o := n; o < 3*n; o += n {
		for k := lo; k < hi; k++ {
			v -= kza[o+k] * ub[o+k]
		}
	}
	for i := 3*n + 1; i < st; i++ {
		v -= kza[i] * ub[i]
	}
	return v
}

// applyH0 writes H₀ z into kz for an output-local z, H₀ the Hessian of
// every row but the dense ones, and the dense rows' a·z into kz's ζ and
// ζ' entries: the augmented block's product.
func (x *leanTwo) applyH0(j int, z, kz []float64) {
	n, kap := x.n, x.kap
	zt, zh, zn, zn2 := z[3*n], z[3*n+1], z[3*n+2], z[3*n+3]
	kt, kh, kn, kn2 := 0.0, 0.0, 0.0, 0.0
	kd, kd2 := x.sl*zn-x.mu*zt, zh-kap*x.sl*zn2
	for k := range n {
		pk := j*n + k
		zp := z[k]
		fa := x.wA[pk] * (zp - zh)
		fc := x.wC[pk] * (zt - zp)
		kp := fa - fc
		kh -= fa
		kt += fc
		kd += x.l[k] * zp
		kd2 -= kap * x.l[k] * zp
		kb, kb2 := 0.0, 0.0
		if x.free[k] {
			zb, zb2 := z[n+k], z[2*n+k]
			fe := x.wE[pk] * (zb - zn + zp)
			fe2 := x.wE2[pk] * (zb2 + zn2 - zp)
			kp += fe - fe2
			kb = x.wB[pk]*zb + fe
			kb2 = x.wB2[pk]*zb2 + fe2
			kn -= fe
			kn2 += fe2
			kd -= x.w[k] * zb
			kd2 -= kap * x.w[k] * zb2
		}
		kz[k], kz[n+k], kz[2*n+k] = kp, kb, kb2
	}
	kz[3*n], kz[3*n+1], kz[3*n+2], kz[3*n+3] = kt, kh, kn, kn2
	kz[3*n+4], kz[3*n+5] = kd, kd2
}

// applyInv writes H⁻¹ g into h (g's ζ parts 0), output by output.
func (x *leanTwo) applyInv() {
	for j := range x.m {
		x.applyInvJ(j, x.gt[j], x.gh[j], x.gn[j], x.gn2[j], 0, 0)
	}
}

// applyInvJ solves output j's block for the right-hand side gp, gb, gb2
// on its pairs and r on its border (t, h, ν, ν', ζ, ζ') into hp … hz2:
// the pairs' blocks, then the border, then the pairs again. A deflated
// output's t is held at 0.
func (x *leanTwo) applyInvJ(j int, rt, rh, rn, rn2, rz, rz2 float64) {
	n, kap := x.n, x.kap
	lo, hi := j*n, (j+1)*n
	l, w, free := x.l[:n], x.w[:n], x.free[:n]
	gp, gb, gb2 := x.gp[lo:hi], x.gb[lo:hi], x.gb2[lo:hi]
	hp, hb, hb2 := x.hp[lo:hi], x.hb[lo:hi], x.hb2[lo:hi]
	g, g2, ib, ib2, ipv := x.g[lo:hi], x.g2[lo:hi], x.ib[lo:hi], x.ib2[lo:hi], x.ipv[lo:hi]
	wA, wC, wE, wE2 := x.wA[lo:hi], x.wC[lo:hi], x.wE[lo:hi], x.wE2[lo:hi]
	vf := x.vf[6*lo : 6*hi]
	for k := range n {
		if !free[k] {
			p := gp[k] * ipv[k]
			hp[k], hb[k], hb2[k] = p, 0, 0
			rt += wC[k] * p
			rh += wA[k] * p
			rz -= l[k] * p
			rz2 += kap * l[k] * p
			continue
		}
		p := (gp[k] - g[k]*gb[k] + g2[k]*gb2[k]) * ipv[k]
		b := gb[k]*ib[k] - g[k]*p
		b2 := gb2[k]*ib2[k] + g2[k]*p
		hp[k], hb[k], hb2[k] = p, b, b2
		rt += wC[k] * p
		rh += wA[k] * p
		rn += wE[k] * (p + b)
		rn2 += wE2[k] * (p - b2)
		rz -= l[k]*p - w[k]*b
		rz2 += kap * (l[k]*p + w[k]*b2)
	}
	sb := x.sbi[36*j : 36*j+36]
	var v [6]float64
	for a := range 6 {
		s := sb[6*a : 6*a+6]
		v[a] = s[0]*rt + s[1]*rh + s[2]*rn + s[3]*rn2 + s[4]*rz + s[5]*rz2
	}
	x.ht[j], x.hh[j], x.hn[j], x.hn2[j], x.hz[j], x.hz2[j] = v[0], v[1], v[2], v[3], v[4], v[5]
	for k := range n {
		f := vf[6*k : 6*k+6]
		fv := f[0]*v[0] + f[1]*v[1] + f[2]*v[2] + f[3]*v[3] + f[4]*v[4] + f[5]*v[5]
		hp[k] -= fv
		if free[k] {
			hb[k] -= -g[k]*fv - g[k]*v[2] - w[k]*ib[k]*v[4]
			hb2[k] -= g2[k]*fv + g2[k]*v[3] - kap*w[k]*ib2[k]*v[5]
		}
	}
}

// solve is leanBox.solve for leanTwo's rows.
func (x *leanTwo) solve(d *leanTwoDir, check bool) {
	n, m, kap := x.n, x.m, x.kap
	// 1. g = r_d + Σ_r a_r (c_r − z_r r_r)/s_r over the unknowns.
	l, w, free := x.l[:n], x.w[:n], x.free[:n]
	for j := range m {
		qd := x.cD[j]*x.iD[j] - x.wD[j]*x.rD[j]
		qd2 := x.cD2[j]*x.iD2[j] - x.wD2[j]*x.rD2[j]
		gt, gh := x.rdt[j]-x.mu*qd, x.rdh[j]+qd2
		gn, gn2 := x.rdn[j]+x.sl*qd, x.rdn2[j]-kap*x.sl*qd2
		lo, hi := j*n, (j+1)*n
		gp, gb, gb2 := x.gp[lo:hi], x.gb[lo:hi], x.gb2[lo:hi]
		rdp, rdb, rdb2 := x.rdp[lo:hi], x.rdb[lo:hi], x.rdb2[lo:hi]
		rA, cA, iA, wA := x.rA[lo:hi], x.cA[lo:hi], x.iA[lo:hi], x.wA[lo:hi]
		rC, cC, iC, wC := x.rC[lo:hi], x.cC[lo:hi], x.iC[lo:hi], x.wC[lo:hi]
		rB, cB, iB, wB := x.rB[lo:hi], x.cB[lo:hi], x.iB[lo:hi], x.wB[lo:hi]
		rE, cE, iE, wE := x.rE[lo:hi], x.cE[lo:hi], x.iE[lo:hi], x.wE[lo:hi]
		rB2, cB2, iB2, wB2 := x.rB2[lo:hi], x.cB2[lo:hi], x.iB2[lo:hi], x.wB2[lo:hi]
		rE2, cE2, iE2, wE2 := x.rE2[lo:hi], x.cE2[lo:hi], x.iE2[lo:hi], x.wE2[lo:hi]
		for k := range n {
			qa := cA[k]*iA[k] - wA[k]*rA[k]
			qc := cC[k]*iC[k] - wC[k]*rC[k]
			g := rdp[k] + qa - qc + l[k]*(qd-kap*qd2)
			gt += qc
			gh -= qa
			if free[k] {
				qb := cB[k]*iB[k] - wB[k]*rB[k]
				qe := cE[k]*iE[k] - wE[k]*rE[k]
				qb2 := cB2[k]*iB2[k] - wB2[k]*rB2[k]
				qe2 := cE2[k]*iE2[k] - wE2[k]*rE2[k]
				g += qe - qe2
				gb[k] = rdb[k] + qb + qe - w[k]*qd
				gb2[k] = rdb2[k] + qb2 + qe2 - kap*w[k]*qd2
				gn -= qe
				gn2 += qe2
			} else {
				gb[k], gb2[k] = 0, 0
			}
			gp[k] = g
		}
		x.gt[j], x.gh[j], x.gn[j], x.gn2[j] = gt, gh, gn, gn2
	}
	x.reduced(x.ra, d)
	x.recover(d, true)
	// 2. Refinement, as leanBox's.
	if !check || !x.exact {
		return
	}
	f := &x.fix
	res := x.dirResiduals(d)
	for range leanRefine {
		if !(res > leanRefineTol*x.dirSize(d)) {
			break
		}
		x.reduced(x.r2, f)
		x.recover(f, false)
		x.addDir(d, f, 1)
		next := x.dirResiduals(d)
		if !(next < res) {
			x.addDir(d, f, -1)
			break
		}
		res = next
	}
}

// reduced is leanBox.reduced on leanTwo's blocks.
func (x *leanTwo) reduced(ra []float64, d *leanTwoDir) {
	n, m := x.n, x.m
	// 1. r_α = zᵀ g − uzᵀ Qᵀ g, before g changes.
	st := leanTwoStride(n)
	md := len(x.dj)
	ralpha := x.ra2[:md]
	for a, j := range x.dj {
		z, u := x.dz[a*st:(a+1)*st], x.du[a*st:(a+1)*st]
		r := z[3*n]*x.gt[j] + (z[3*n+1]-u[3*n+1])*x.gh[j] + (z[3*n+2]-u[3*n+2])*x.gn[j] + (z[3*n+3]-u[3*n+3])*x.gn2[j]
		for k := range n {
			pk := j*n + k
			gp := z[k] * x.gp[pk]
			if !x.pinned[pk] {
				gp -= u[k] * x.gp[pk]
			}
			r += gp + (z[n+k]-u[n+k])*x.gb[pk] + (z[2*n+k]-u[2*n+k])*x.gb2[pk]
		}
		ralpha[a] = r
	}
	x.applyInv()
	dy := d.y
	copy(dy, ra)
	for j := range m {
		for k := range n {
			dy[k] += x.hp[j*n+k]
		}
	}
	x.chol.solve(dy)
	// 2. α, then dy.
	x.correct(n, ralpha, dy)
	// 3. w = Ĥ⁻¹ Qᵀ (g − Eᵀ dy) − α uz, and dx = α z + w.
	for j := range m {
		for k := range n {
			x.gp[j*n+k] -= dy[k]
		}
	}
	x.applyInv()
	for a, j := range x.dj {
		al := ralpha[a]
		z, u := x.dz[a*st:(a+1)*st], x.du[a*st:(a+1)*st]
		for k := range n {
			pk := j*n + k
			x.hp[pk] += al * (z[k] - u[k])
			x.hb[pk] += al * (z[n+k] - u[n+k])
			x.hb2[pk] += al * (z[2*n+k] - u[2*n+k])
		}
		x.ht[j] += al * z[3*n]
		x.hh[j] += al * (z[3*n+1] - u[3*n+1])
		x.hn[j] += al * (z[3*n+2] - u[3*n+2])
		x.hn2[j] += al * (z[3*n+3] - u[3*n+3])
	}
	copy(d.p, x.hp)
	copy(d.b, x.hb)
	copy(d.b2, x.hb2)
	copy(d.t, x.ht)
	copy(d.h, x.hh)
	copy(d.nu, x.hn)
	copy(d.nu2, x.hn2)
}

// recover sets d's slacks and multipliers from its unknowns, as
// leanBox.recover.
func (x *leanTwo) recover(d *leanTwoDir, withRes bool) {
	n, kap := x.n, x.kap
	f := 0.0
	if withRes {
		f = 1
	}
	l, w, free := x.l[:n], x.w[:n], x.free[:n]
	for j := range x.m {
		lo, hi := j*n, (j+1)*n
		dt, dh, dn, dn2 := d.t[j], d.h[j], d.nu[j], d.nu2[j]
		dv := x.sl*dn - x.mu*dt
		dv2 := x.sl * dn2
		dp, db, db2 := d.p[lo:hi], d.b[lo:hi], d.b2[lo:hi]
		sA, zA, sC, zC := d.sA[lo:hi], d.zA[lo:hi], d.sC[lo:hi], d.zC[lo:hi]
		sB, zB, sE, zE := d.sB[lo:hi], d.zB[lo:hi], d.sE[lo:hi], d.zE[lo:hi]
		sB2, zB2, sE2, zE2 := d.sB2[lo:hi], d.zB2[lo:hi], d.sE2[lo:hi], d.zE2[lo:hi]
		rA, cA, iA, wA := x.rA[lo:hi], x.cA[lo:hi], x.iA[lo:hi], x.wA[lo:hi]
		rC, cC, iC, wC := x.rC[lo:hi], x.cC[lo:hi], x.iC[lo:hi], x.wC[lo:hi]
		rB, cB, iB, wB := x.rB[lo:hi], x.cB[lo:hi], x.iB[lo:hi], x.wB[lo:hi]
		rE, cE, iE, wE := x.rE[lo:hi], x.cE[lo:hi], x.iE[lo:hi], x.wE[lo:hi]
		rB2, cB2, iB2, wB2 := x.rB2[lo:hi], x.cB2[lo:hi], x.iB2[lo:hi], x.wB2[lo:hi]
		rE2, cE2, iE2, wE2 := x.rE2[lo:hi], x.cE2[lo:hi], x.iE2[lo:hi], x.wE2[lo:hi]
		for k := range n {
			p := dp[k]
			ds := p - dh + f*rA[k]
			sA[k], zA[k] = ds, f*cA[k]*iA[k]-wA[k]*ds
			ds = dt - p + f*rC[k]
			sC[k], zC[k] = ds, f*cC[k]*iC[k]-wC[k]*ds
			dv += l[k] * p
			dv2 += l[k] * p
			if free[k] {
				b, b2 := db[k], db2[k]
				ds = b + f*rB[k]
				sB[k], zB[k] = ds, f*cB[k]*iB[k]-wB[k]*ds
				ds = b - dn + p + f*rE[k]
				sE[k], zE[k] = ds, f*cE[k]*iE[k]-wE[k]*ds
				ds = b2 + f*rB2[k]
				sB2[k], zB2[k] = ds, f*cB2[k]*iB2[k]-wB2[k]*ds
				ds = b2 + dn2 - p + f*rE2[k]
				sE2[k], zE2[k] = ds, f*cE2[k]*iE2[k]-wE2[k]*ds
				dv -= w[k] * b
				dv2 += w[k] * b2
			}
		}
		ds := dv + f*x.rD[j]
		d.sD[j], d.zD[j] = ds, f*x.cD[j]*x.iD[j]-x.wD[j]*ds
		ds = dh - kap*dv2 + f*x.rD2[j]
		d.sD2[j], d.zD2[j] = ds, f*x.cD2[j]*x.iD2[j]-x.wD2[j]*ds
	}
}

// dirResiduals is leanBox.dirResiduals for leanTwo's rows.
func (x *leanTwo) dirResiduals(d *leanTwoDir) float64 {
	n, m, kap := x.n, x.m, x.kap
	copy(x.r2, x.ra)
	r2, y := x.r2[:n], d.y[:n]
	l, w, free := x.l[:n], x.w[:n], x.free[:n]
	worst := 0.0
	for j := range m {
		zd, zd2 := d.zD[j], d.zD2[j]
		gt, gh := x.rdt[j]-x.mu*zd, x.rdh[j]+zd2
		gn, gn2 := x.rdn[j]+x.sl*zd, x.rdn2[j]-kap*x.sl*zd2
		lo, hi := j*n, (j+1)*n
		dp, zA, zC := d.p[lo:hi], d.zA[lo:hi], d.zC[lo:hi]
		zB, zE, zB2, zE2 := d.zB[lo:hi], d.zE[lo:hi], d.zB2[lo:hi], d.zE2[lo:hi]
		rdp, rdb, rdb2 := x.rdp[lo:hi], x.rdb[lo:hi], x.rdb2[lo:hi]
		gp, gb, gb2 := x.gp[lo:hi], x.gb[lo:hi], x.gb2[lo:hi]
		for k := range n {
			r2[k] += dp[k]
			g := rdp[k] - y[k] + zA[k] - zC[k] + l[k]*(zd-kap*zd2)
			gt += zC[k]
			gh -= zA[k]
			if free[k] {
				g += zE[k] - zE2[k]
				b := rdb[k] + zB[k] + zE[k] - w[k]*zd
				b2 := rdb2[k] + zB2[k] + zE2[k] - kap*w[k]*zd2
				gb[k], gb2[k] = b, b2
				worst = maxAbsOf(maxAbsOf(worst, b), b2)
				gn -= zE[k]
				gn2 += zE2[k]
			} else {
				gb[k], gb2[k] = 0, 0
			}
			gp[k] = g
			worst = maxAbsOf(worst, g)
		}
		x.gt[j], x.gh[j], x.gn[j], x.gn2[j] = gt, gh, gn, gn2
		worst = maxAbsOf(maxAbsOf(maxAbsOf(maxAbsOf(worst, gt), gh), gn), gn2)
	}
	return max(worst, maxAbs(x.r2))
}

// dirSize is the scale against which a direction's residuals are
// measured: its largest multiplier step, or 1.
func (x *leanTwo) dirSize(d *leanTwoDir) float64 {
	s := max(maxAbs(d.y), max(maxAbs(d.zC), maxAbs(d.zA)))
	return max(1, max(s, max(maxAbs(d.zD), maxAbs(d.zD2))))
}

// addDir adds a·f to d.
func (x *leanTwo) addDir(d, f *leanTwoDir, a float64) {
	for _, v := range [][2][]float64{{d.p, f.p}, {d.b, f.b}, {d.b2, f.b2}, {d.t, f.t}, {d.h, f.h},
		{d.nu, f.nu}, {d.nu2, f.nu2}, {d.y, f.y},
		{d.sA, f.sA}, {d.zA, f.zA}, {d.sC, f.sC}, {d.zC, f.zC}, {d.sB, f.sB}, {d.zB, f.zB},
		{d.sE, f.sE}, {d.zE, f.zE}, {d.sB2, f.sB2}, {d.zB2, f.zB2}, {d.sE2, f.sE2}, {d.zE2, f.zE2},
		{d.sD, f.sD}, {d.zD, f.zD}, {d.sD2, f.sD2}, {d.zD2, f.zD2}} {
		axpy(v[0], a, v[1])
	}
}

// stepLengths returns the largest primal and dual steps in (0, limit] that
// keep the slacks and multipliers nonnegative along d.
func (x *leanTwo) stepLengths(d *leanTwoDir, limit float64) (ap, ad float64) {
	ap = min(stepWithin(limit, x.sA, d.sA, x.sC, d.sC), stepWithin(limit, x.sB, d.sB, x.sE, d.sE))
	ap = min(ap, stepWithin(limit, x.sB2, d.sB2, x.sE2, d.sE2))
	ap = min(ap, stepWithin(limit, x.sD, d.sD, x.sD2, d.sD2))
	ad = min(stepWithin(limit, x.zA, d.zA, x.zC, d.zC), stepWithin(limit, x.zB, d.zB, x.zE, d.zE))
	ad = min(ad, stepWithin(limit, x.zB2, d.zB2, x.zE2, d.zE2))
	ad = min(ad, stepWithin(limit, x.zD, d.zD, x.zD2, d.zD2))
	return ap, ad
}

// affineComp returns the complementarity after steps ap and ad along d.
func (x *leanTwo) affineComp(d *leanTwoDir, ap, ad float64) float64 {
	c := 0.0
	pair := func(s, z, ds, dz []float64, i int) float64 {
		return (s[i] + ap*ds[i]) * (z[i] + ad*dz[i])
	}
	for pk := range x.sA {
		c += pair(x.sA, x.zA, d.sA, d.zA, pk) + pair(x.sC, x.zC, d.sC, d.zC, pk)
		if x.free[pk%x.n] {
			c += pair(x.sB, x.zB, d.sB, d.zB, pk) + pair(x.sE, x.zE, d.sE, d.zE, pk)
			c += pair(x.sB2, x.zB2, d.sB2, d.zB2, pk) + pair(x.sE2, x.zE2, d.sE2, d.zE2, pk)
		}
	}
	for j := range x.sD {
		c += pair(x.sD, x.zD, d.sD, d.zD, j) + pair(x.sD2, x.zD2, d.sD2, d.zD2, j)
	}
	return c
}

// step makes one predictor-corrector iteration; the residuals must be up
// to date.
func (x *leanTwo) step() error {
	if err := x.factor(); err != nil {
		return err
	}
	muC := x.comp / float64(x.npairs)
	// 1. The affine direction: c = −s z.
	negProd(x.cA, x.sA, x.zA)
	negProd(x.cC, x.sC, x.zC)
	negProd(x.cB, x.sB, x.zB)
	negProd(x.cE, x.sE, x.zE)
	negProd(x.cB2, x.sB2, x.zB2)
	negProd(x.cE2, x.sE2, x.zE2)
	negProd(x.cD, x.sD, x.zD)
	negProd(x.cD2, x.sD2, x.zD2)
	a := &x.aff
	x.solve(a, false)
	ap, ad := x.stepLengths(a, 1)
	sigma := math.Pow(x.affineComp(a, ap, ad)/x.comp, 3)
	target := sigma * muC
	// 2. The corrector: c = σμ − s z − ds dz of the affine direction.
	corrector(x.cA, x.sA, x.zA, a.sA, a.zA, target)
	corrector(x.cC, x.sC, x.zC, a.sC, a.zC, target)
	corrector(x.cB, x.sB, x.zB, a.sB, a.zB, target)
	corrector(x.cE, x.sE, x.zE, a.sE, a.zE, target)
	corrector(x.cB2, x.sB2, x.zB2, a.sB2, a.zB2, target)
	corrector(x.cE2, x.sE2, x.zE2, a.sE2, a.zE2, target)
	corrector(x.cD, x.sD, x.zD, a.sD, a.zD, target)
	corrector(x.cD2, x.sD2, x.zD2, a.sD2, a.zD2, target)
	c := &x.cor
	x.solve(c, true)
	// 3. The step (leanRun.advance).
	apMax, adMax := x.stepLengths(c, 1/x.eta)
	x.advance(x.residuals, apMax, adMax, stepFraction(x.eta, muC), func(ap, ad float64) float64 { return x.affineComp(c, ap, ad) }, func(ap, ad float64) {
		for _, v := range [][2][]float64{{x.p, c.p}, {x.b, c.b}, {x.b2, c.b2}, {x.t, c.t}, {x.h, c.h},
			{x.nu, c.nu}, {x.nu2, c.nu2}, {x.sA, c.sA}, {x.sC, c.sC}, {x.sB, c.sB}, {x.sE, c.sE},
			{x.sB2, c.sB2}, {x.sE2, c.sE2}, {x.sD, c.sD}, {x.sD2, c.sD2}} {
			axpy(v[0], ap, v[1])
		}
		for _, v := range [][2][]float64{{x.y, c.y}, {x.zA, c.zA}, {x.zC, c.zC}, {x.zB, c.zB}, {x.zE, c.zE},
			{x.zB2, c.zB2}, {x.zE2, c.zE2}, {x.zD, c.zD}, {x.zD2, c.zD2}} {
			axpy(v[0], ad, v[1])
		}
	})
	if math.IsNaN(x.p[0]) || math.IsNaN(x.y[0]) {
		return errBrokeDown
	}
	return nil
}

// runTo is leanBox.runTo, keeping also the lower side's multipliers.
func (x *leanTwo) runTo(ctx context.Context, maxIter int, tol float64) (iters int, done bool, err error) {
	return x.run(ctx, x, maxIter, tol, [][]float64{x.p, x.zA, x.zC, x.zE, x.zE2, x.zD, x.zD2, x.y})
}

// prior returns output j's worst prior for side sd (0 upper, 1 lower)
// read off the multipliers, as dualIPM.prior does: l_k + z_E/z_D on
// letter k for the upper side, l_k + z_E'/(κ z_D') for the lower, moved
// into the box where rounding leaves it just outside, or the box's
// greedy extreme prior for the column where it is far; nil for an
// unused output.
func (x *leanTwo) prior(j, sd int) []float64 {
	n := x.n
	zd, ze, f := x.zD[j], x.zE, 1.0
	if sd == 1 {
		zd, ze, f = x.zD2[j], x.zE2, 1/x.kap
	}
	if zd > 0 && !math.IsInf(zd, 0) {
		pr := make([]float64, n)
		finite := true
		for k := range n {
			v := x.l[k]
			if x.free[k] {
				v += f * ze[j*n+k] / zd
			}
			pr[k] = max(0, v)
			finite = finite && !math.IsNaN(v) && !math.IsInf(v, 0)
		}
		if q := intoSet(x.set, pr); finite && q != nil {
			return q
		}
	}
	col := x.p[j*n : (j+1)*n]
	if slices.Max(col) <= clean.InteriorColumnNoise {
		return nil
	}
	return x.set.Extreme(tiedColumn(col), sd == 1)
}

// reading returns what SolveRobust's result needs from the point.
func (x *leanTwo) reading() *robustReading {
	n, m := x.n, x.m
	rd := &robustReading{n: n, m: m, lip: true, scale: x.scale, y: x.y, p: slices.Clone(x.p),
		up: make([][]float64, m), down: make([][]float64, m),
		capUp: make([]float64, m), capDown: make([]float64, m)}
	for j := range m {
		rd.up[j] = x.prior(j, 0)
		rd.down[j] = x.prior(j, 1)
		for i := range n {
			rd.capDown[j] += x.zA[j*n+i]
			rd.capUp[j] += x.zC[j*n+i]
		}
	}
	return rd
}

func (x *leanTwo) String() string { return fmt.Sprintf("leanTwo(%d×%d)", x.n, x.m) }

// release hands x's slices back to their pool; x is not used after it.
func (x *leanTwo) release() { x.mem.release() }
