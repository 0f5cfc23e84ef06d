package ipm

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/mech"
)

// leanBallTwo is leanBall for LIP and ALIP: both sides of the budget over
// the L1 ball of radius r around π̂ (cut by the simplex) dualised, each
// with its own level, radius multiplier and b's (docs/theory.md §7, "The
// dualised constraints"; dualIPM's rows for a ball with lower caps).
//
// Each output j has its entries p_kj, one b_kj and one b'_kj per letter,
// its caps t_j and h_j, and for each side the levels of the inner LP's
// dual written as the two values its pair rows compare p with: v_E = ν +
// λ and v_F = ν − λ on the upper side, v_E' = ν' − λ' and v_F' = ν' + λ'
// on the lower. The rows are
//
//	(A) p_kj − h_j ≥ 0,          (C) t_j − p_kj ≥ 0,
//	(B) b_kj ≥ 0,                (E) b_kj + v_E − p_kj ≥ 0,
//	(B') b'_kj ≥ 0,              (E') b'_kj + p_kj − v_E' ≥ 0,
//	(L) v_E − v_F ≥ 0,           (L') v_F' − v_E' ≥ 0,
//	(G) h_j − v_F ≥ 0,           (G') v_F' − t_j ≥ 0,
//	(D) π̂·p_j − π̂·b_j − (r/2)(v_E − v_F) − μ t_j ≥ 0,
//	(D') h_j − κ (π̂·p_j + π̂·b'_j + (r/2)(v_F' − v_E')) ≥ 0,
//
// with the row sums Σ_j p_kj = 1; the objective is Σ c_kj p_kj. D's
// bracket is the least mass of the column over the ball, D”s the
// greatest (their inner LPs' duals, dualIPM's rows with ν and λ changed
// to the v's, which L and L' keep λ, λ' ≥ 0 for). The inner LPs ask
// v_F ≤ p_kj and v_F' ≥ p_kj of every letter; the caps already hold
// every entry between h_j and t_j, so G and G' ask it once per output.
// The two constraint sets have the same mechanisms: from a point of the
// per-letter rows, raising h_j to max(h_j, v_F) and lowering t_j to
// min(t_j, v_F') keeps A and C and only loosens D and D'.
//
// In these unknowns every pair row compares p with one border unknown
// (a leaf) or is a b's own row, as leanTwo's over a box. So the Newton
// systems are solved as leanTwo's: eliminating b and b' leaves a star
// centred on p with four leaves (t, h, v_E, v_E'), D⁻¹ in closed form,
// and eliminating p joins every two leaves by an edge of weight w w'/π;
// L, L', G and G' are four more edges. The border's block is a
// weighted graph's Laplacian, added to an L D Lᵀ factor by positive
// rank-one updates, and the dense rows are kept as ζ, ζ' and eliminated
// first (leanTwo.borderByC's steps on six leaves). Deflation (the used
// outputs' columns and the soft pairs) and the corrector's refinement are
// leanBox's. The answer stands only when
// settle certifies it.
type leanBallTwo struct {
	// mem holds the per-pair and per-output slices (staggered).
	mem *staggered
	// eta is the largest fraction of the way to the boundary a step
	// goes (leanEta, or leanRetryEta on a second run).
	eta        float64
	n, m       int
	mu, kap, r float64
	pc         []float64 // π̂ per letter
	set        *mech.PriorSet
	c          []float64 // scaled objective per pair (k = j·n + i)
	scale      float64

	p, b, b2 []float64 // per pair
	u        []float64 // per output, btLeaves: t, h, v_E, v_F, v_E', v_F'
	y        []float64 // per letter
	s, z     [btRows][]float64

	// residuals
	rp             [btRows][]float64 // a·x − s
	rdp, rdb, rdb2 []float64         // c + Aᵀz − Eᵀy on p, b and b'
	rdu            []float64         // on the border, per output
	ra             []float64         // Σ_j p_kj − 1
	npairs         int
	leanRun

	// The rows' weights ω = z/s and inverse slacks 1/s, and the
	// complementarity right-hand sides.
	w, is, cr [btRows][]float64
	q         [btRows][]float64 // solve's (c − z r)/s per row

	// Per pair its pivot π (choosePins) and, from factor, 1/π (0 where p
	// is held), g = ω_E/(ω_B + ω_E), 1/(ω_B + ω_E), the lower side's g',
	// 1/(ω_B' + ω_E'), and f = uᵀF (btBorder); per output the border's
	// inverse (btBorder²); the system on y.
	pv, ipv, g, ib []float64
	g2, ib2        []float64
	f              []float64
	sbi            []float64
	sy             []float64
	chol           cholesky
	ldl            ldlt
	// V's rows f/π and V S_b⁻¹, a row per letter of six columns per
	// output (btPairBorder's).
	vt, wk []float64
	bm     [2 * btLeaves]float64
	ev     [btLeaves]float64

	// Deflation, as leanBox's, on output-local vectors (btStride).
	isDefl, pinned []bool
	wmax           []float64
	leanDirs

	// solve's scratch: g on p, b, b' and the border, and H⁻¹g (with the
	// ζ's on the border).
	gp, gb, gb2, gu []float64
	hp, hb, hb2, hu []float64
	aff, cor, fix   ballTwoDir
	r2              []float64
}

// The row kinds of leanBallTwo: six per pair, then six per output.
const (
	btA = iota
	btC
	btB
	btE
	btB2
	btE2
	btL
	btL2
	btG
	btG2
	btD
	btD2
	btRows
	btPairRows = btL
)

// The border of leanBallTwo: the leaves, then the dense rows' ζ and ζ'.
const (
	btT = iota
	btH
	btVE
	btVE2
	btVF
	btVF2
	btZ
	btZ2
	btBorder
	btLeaves = btZ
)

// btStar is the number of leaves of a pair's star, btStarLeaf their
// places on the border: v_F and v_F' are joined to the caps by G and G',
// not to the pairs.
const btStar = 4

var btStarLeaf = [btStar]int{btT, btH, btVE, btVE2}

// leanBallTwoFreeReg is the proximal term on the levels v_E … v_F', in
// units of the output's largest row weight (leanFreeReg's role): where a
// side's dense row is loose its levels are held by loose rows only. The
// b's need none: each keeps its own row B and, through E or E', its
// level's. A term as large as leanFreeReg on them outweighs the true
// curvature of a b whose letter has a mass of 10⁻⁸ under π̂ (a binomial
// prior's tail), which the refinement then cannot recover.
const leanBallTwoFreeReg = 1e-14

// btStride is the length of an output-local vector of leanBallTwo: p, b,
// b' over the letters, then the border.
func btStride(n int) int { return 3*n + btBorder }

// ballTwoDir is a Newton direction of leanBallTwo.
type ballTwoDir struct {
	p, b, b2, u, y []float64
	s, z           [btRows][]float64
}

func newBallTwoDir(n, m int, a *staggered) ballTwoDir {
	K := n * m
	v := a.take
	d := ballTwoDir{p: v(K), b: v(K), b2: v(K), u: v(btLeaves * m), y: v(n)}
	for r := range btRows {
		l := K
		if r >= btPairRows {
			l = m
		}
		d.s[r], d.z[r] = v(l), v(l)
	}
	return d
}

// leanBallTwoApplies reports whether the lean ball route for two sides
// takes the problem: LIP or ALIP over an L1 ball of positive radius
// (dualApplies).
func leanBallTwoApplies(set *mech.PriorSet, lip bool) bool {
	return lip && !set.IsBox() && dualApplies(set)
}

// newLeanBallTwo sets up the rows and dualIPM's starting point.
func newLeanBallTwo(pi mech.Prior, u mech.Utility, set *mech.PriorSet, mu, kap float64) *leanBallTwo {
	n, m := u.Dims()
	K := n * m
	a := new(staggered)
	v := a.take
	x := &leanBallTwo{eta: leanEta, n: n, m: m, mu: mu, kap: kap, r: set.Radius, pc: slices.Clone(pi), set: set}
	x.c, x.scale = scaledObjective(pi, u)
	x.p, x.b, x.b2, x.u, x.y = v(K), v(K), v(K), v(btLeaves*m), v(n)
	for r := range btRows {
		l := K
		if r >= btPairRows {
			l = m
		}
		x.s[r], x.z[r], x.rp[r] = v(l), v(l), v(l)
		x.w[r], x.is[r], x.cr[r], x.q[r] = v(l), v(l), v(l), v(l)
	}
	x.rdp, x.rdb, x.rdb2, x.rdu, x.ra = v(K), v(K), v(K), v(btLeaves*m), v(n)
	x.pv, x.ipv, x.g, x.ib, x.g2, x.ib2, x.f = v(K), v(K), v(K), v(K), v(K), v(K), v(btBorder*K)
	x.sbi, x.sy, x.wk, x.vt = v(btBorder*btBorder*m), v(n*n), v(len(btPairBorder)*K), v(len(btPairBorder)*K)
	x.ldl.reset(btLeaves)
	x.isDefl, x.pinned, x.wmax = make([]bool, m), make([]bool, K), v(m)
	md := leanDirsRoom(n, m)
	st := btStride(n)
	x.reserve(md, st, n, v)
	x.dj, x.dk = make([]int, 0, md), make([]int, 0, md)
	x.gp, x.gb, x.gb2, x.gu = v(K), v(K), v(K), v(btLeaves*m)
	x.hp, x.hb, x.hb2, x.hu = v(K), v(K), v(K), v(btBorder*m)
	x.aff, x.cor, x.fix = newBallTwoDir(n, m, a), newBallTwoDir(n, m, a), newBallTwoDir(n, m, a)
	x.r2 = v(n)
	x.npairs = btPairRows*K + (btRows-btPairRows)*m

	// Start (dualIPM's): every entry 1/M, t and h between the entries and
	// their caps, each b and b' half an entry, ν and ν' an entry and λ
	// and λ' half one; every slack at least a tenth of an entry and every
	// multiplier 1.
	e := 1 / float64(m)
	floor := leanFloor * e
	for j := range m {
		uj := x.u[btLeaves*j : btLeaves*(j+1)]
		uj[btT], uj[btH] = 0.5*e*(1+1/mu), 0.5*e*(1+kap)
		uj[btVE], uj[btVF] = 1.5*e, 0.5*e
		uj[btVE2], uj[btVF2] = 0.5*e, 1.5*e
		for k := range n {
			pk := j*n + k
			x.p[pk], x.b[pk], x.b2[pk] = e, 0.5*e, 0.5*e
		}
	}
	for j := range m {
		uj := x.u[btLeaves*j : btLeaves*(j+1)]
		for k := range n {
			pk := j*n + k
			a := btPairValues(x.p[pk], x.b[pk], x.b2[pk], uj)
			for r := range btPairRows {
				x.s[r][pk], x.z[r][pk] = max(a[r], floor), 1
			}
		}
		a := x.outValues(j, x.p, x.b, x.b2, x.u)
		for r := btPairRows; r < btRows; r++ {
			x.s[r][j], x.z[r][j] = max(a[r-btPairRows], floor), 1
		}
	}
	x.mem = a
	return x
}

// btPairValues returns a pair's rows a·x for its p, b, b' and its
// output's border u.
func btPairValues(p, b, b2 float64, u []float64) [btPairRows]float64 {
	return [btPairRows]float64{
		btA: p - u[btH], btC: u[btT] - p,
		btB: b, btE: b + u[btVE] - p,
		btB2: b2, btE2: b2 + p - u[btVE2],
	}
}

// outValues returns output j's rows L, L', G, G', D and D' (a·x) for the
// unknowns p, b, b' (per pair) and u (per output).
func (x *leanBallTwo) outValues(j int, p, b, b2, u []float64) [btRows - btPairRows]float64 {
	n := x.n
	uj := u[btLeaves*j : btLeaves*(j+1)]
	lo, hi := 0.0, 0.0
	for k := range n {
		pk := j*n + k
		lo += x.pc[k] * (p[pk] - b[pk])
		hi += x.pc[k] * (p[pk] + b2[pk])
	}
	r2 := 0.5 * x.r
	lo -= r2*(uj[btVE]-uj[btVF]) + x.mu*uj[btT]
	hi += r2 * (uj[btVF2] - uj[btVE2])
	return [btRows - btPairRows]float64{uj[btVE] - uj[btVF], uj[btVF2] - uj[btVE2],
		uj[btH] - uj[btVF], uj[btVF2] - uj[btT], lo, uj[btH] - x.kap*hi}
}

// dualEq writes base + Aᵀz − Eᵀy into op, ob, ob2 and ou (the dual
// equations' left-hand sides for the multipliers z and y) and returns
// their largest magnitude.
func (x *leanBallTwo) dualEq(z *[btRows][]float64, y, bp, bb, bb2, bu, op, ob, ob2, ou []float64) float64 {
	n, m, kap := x.n, x.m, x.kap
	r2 := 0.5 * x.r
	worst := 0.0
	for j := range m {
		zl, zl2, zd, zd2 := z[btL][j], z[btL2][j], z[btD][j], z[btD2][j]
		zg, zg2 := z[btG][j], z[btG2][j]
		var s [btLeaves]float64
		s[btT] = -x.mu*zd - zg2
		s[btH] = zd2 + zg
		s[btVE] = zl - r2*zd
		s[btVF] = -zl + r2*zd - zg
		s[btVE2] = -zl2 + kap*r2*zd2
		s[btVF2] = zl2 - kap*r2*zd2 + zg2
		for k := range n {
			pk := j*n + k
			pc := x.pc[k]
			zE, zE2 := z[btE][pk], z[btE2][pk]
			a := bp[pk] - y[k] + z[btA][pk] - z[btC][pk] - zE + zE2 + pc*(zd-kap*zd2)
			bv := z[btB][pk] + zE - pc*zd
			b2 := z[btB2][pk] + zE2 - kap*pc*zd2
			if bb != nil {
				bv += bb[pk]
				b2 += bb2[pk]
			}
			op[pk], ob[pk], ob2[pk] = a, bv, b2
			worst = maxAbsOf(maxAbsOf(maxAbsOf(worst, a), bv), b2)
			s[btT] += z[btC][pk]
			s[btH] -= z[btA][pk]
			s[btVE] += zE
			s[btVE2] -= zE2
		}
		o := ou[btLeaves*j : btLeaves*(j+1)]
		for a := range btLeaves {
			if bu != nil {
				s[a] += bu[btLeaves*j+a]
			}
			o[a] = s[a]
			worst = maxAbsOf(worst, s[a])
		}
	}
	return worst
}

// residuals computes the KKT residuals at the current point.
func (x *leanBallTwo) residuals() {
	n, m := x.n, x.m
	comp, primI, obj := 0.0, 0.0, 0.0
	clear(x.ra)
	for j := range m {
		uj := x.u[btLeaves*j : btLeaves*(j+1)]
		for k := range n {
			pk := j*n + k
			p := x.p[pk]
			obj += x.c[pk] * p
			x.ra[k] += p
			a := btPairValues(p, x.b[pk], x.b2[pk], uj)
			for r := range btPairRows {
				v := a[r] - x.s[r][pk]
				x.rp[r][pk] = v
				primI = maxAbsOf(primI, v)
				comp += x.s[r][pk] * x.z[r][pk]
			}
		}
		a := x.outValues(j, x.p, x.b, x.b2, x.u)
		for r := btPairRows; r < btRows; r++ {
			v := a[r-btPairRows] - x.s[r][j]
			x.rp[r][j] = v
			primI = maxAbsOf(primI, v)
			comp += x.s[r][j] * x.z[r][j]
		}
	}
	dualI := x.dualEq(&x.z, x.y, x.c, nil, nil, nil, x.rdp, x.rdb, x.rdb2, x.rdu)
	for k := range x.ra {
		x.ra[k]--
		primI = maxAbsOf(primI, x.ra[k])
	}
	x.comp, x.primI, x.dualI, x.obj = comp, primI, dualI, obj
}

// weights sets every row's weight ω = z/s and inverse slack 1/s.
func (x *leanBallTwo) weights() {
	for r := range btRows {
		s, z, w, is := x.s[r], x.z[r], x.w[r], x.is[r]
		for i := range s {
			is[i] = 1 / s[i]
			w[i] = z[i] * is[i]
		}
	}
}

// factor chooses the deflation directions, builds each output's
// closed-form blocks and the system on the row sums' multipliers, and
// factorises both systems.
func (x *leanBallTwo) factor() error {
	n, m, kap := x.n, x.m, x.kap
	x.weights()
	sy := x.sy
	clear(sy)
	tmax := 0.0
	for j := range m {
		tmax = max(tmax, x.u[btLeaves*j+btT])
	}
	x.exact = x.measureRel() <= leanExactGap
	for j := range m {
		x.isDefl[j] = x.exact && x.u[btLeaves*j+btT] > leanDeflateMass*tmax
	}
	x.choosePins()
	w := &x.w
	r2 := 0.5 * x.r
	for j := range m {
		defl := x.isDefl[j]
		// 1. The pairs: the star's leaves (t, h, v_E, v_E') with weights
		// (ω_C, ω_A, e, e'), e = ω_B ω_E/(ω_B + ω_E), and π their sum;
		// the edges' weights w_a w_b/π summed per output (a held p's rows
		// each join its leaf to nothing, a term on the leaf alone), and L,
		// L', G and G' four more edges. B (border leaves × 2)
		// starts from the dense rows' coefficients on the border, C from
		// −1/ω on its diagonal.
		var edge [btLeaves][btLeaves]float64
		var self [btLeaves]float64
		B := x.bm[:]
		clear(B)
		B[2*btT], B[2*btVE], B[2*btVF] = -x.mu, -r2, r2
		B[2*btH+1], B[2*btVE2+1], B[2*btVF2+1] = 1, kap*r2, -kap*r2
		c11, c12, c22 := -1/w[btD][j], 0.0, -1/w[btD2][j]
		reg := leanBallTwoFreeReg * x.wmax[j]
		for a := btVE; a < btLeaves; a++ {
			self[a] = reg
		}
		edge[btVE][btVF] = w[btL][j]
		edge[btVE2][btVF2] = w[btL2][j]
		edge[btH][btVF] = w[btG][j]
		edge[btT][btVF2] = w[btG2][j]
		for k := range n {
			pk := j*n + k
			pc := x.pc[k]
			wB, wE := w[btB][pk], w[btE][pk]
			ib := 1 / (wB + wE)
			g, e := wE*ib, wB*wE*ib
			wB2, wE2 := w[btB2][pk], w[btE2][pk]
			ib2 := 1 / (wB2 + wE2)
			g2, e2 := wE2*ib2, wB2*wE2*ib2
			x.g[pk], x.ib[pk], x.g2[pk], x.ib2[pk] = g, ib, g2, ib2
			lv := [btStar]float64{w[btC][pk], w[btA][pk], e, e2}
			// b's and b''s own rows, whether p is held or not.
			B[2*btVE] += pc * g
			B[2*btVE2+1] -= kap * pc * g2
			c11 -= pc * pc * ib
			c22 -= kap * kap * pc * pc * ib2
			if x.pinned[pk] {
				// p held at 0: each row joins its leaf to nothing; b and b'
				// are their own blocks.
				x.ipv[pk] = 0
				clear(x.f[btBorder*pk : btBorder*(pk+1)])
				for a, v := range lv {
					self[btStarLeaf[a]] += v
				}
				continue
			}
			pv := 0.0
			for _, v := range lv {
				pv += v
			}
			ipv := 1 / pv
			x.ipv[pk] = ipv
			// uᵀ of the dense rows' coefficients, u = (1, g, −g'): 1 − g
			// and 1 − g' formed as quotients.
			a1, a2 := pc*wB*ib, pc*wB2*ib2
			f := x.f[btBorder*pk : btBorder*(pk+1)]
			for a, v := range lv {
				f[btStarLeaf[a]] = -v
			}
			f[btVF], f[btVF2] = 0, 0
			f[btZ], f[btZ2] = a1, -kap*a2
			for a := range btStar {
				la := btStarLeaf[a]
				for bb := a + 1; bb < btStar; bb++ {
					edge[la][btStarLeaf[bb]] += lv[a] * lv[bb] * ipv
				}
				B[2*la] += lv[a] * a1 * ipv
				B[2*la+1] -= kap * lv[a] * a2 * ipv
			}
			c11 -= a1 * a1 * ipv
			c12 += kap * a1 * a2 * ipv
			c22 -= kap * kap * a2 * a2 * ipv
		}
		// 2. A as L D Lᵀ from the edges and the held terms; t dropped on a
		// deflated output (its column's direction carries it), with a unit
		// pivot of its own.
		ldl := &x.ldl
		ldl.reset(btLeaves)
		ev := x.ev[:]
		for a := range btLeaves {
			clear(ev)
			ev[a] = 1
			if defl && a == btT {
				ev[btT] = 0
			} else {
				ldl.update(self[a], ev)
			}
			for bb := a + 1; bb < btLeaves; bb++ {
				ev[bb] = -1
				ldl.update(edge[a][bb], ev)
				ev[bb] = 0
			}
		}
		if defl {
			clear(ev)
			ev[btT] = 1
			ldl.update(1, ev)
			B[2*btT], B[2*btT+1] = 0, 0
		}
		// 3. The border's inverse, the ζ's eliminated first: an unused
		// output's A is singular along (1, …, 1), which only the dense
		// rows hold.
		sb := x.sbi[btBorder*btBorder*j : btBorder*btBorder*(j+1)]
		if !x.borderByC(sb, c11, c12, c22, defl) {
			return errBrokeDown
		}
		// 4. The output's p-block of H⁻¹ is diag(1/π) + V S_b⁻¹ Vᵀ with
		// V's rows f/π, which are 0 at v_F and v_F': its other six
		// columns of V and of V S_b⁻¹ go to the output's columns of the
		// letters' rows of vt and wk (a held p's rows are 0).
		for k := range n {
			pk := j*n + k
			at := k*len(btPairBorder)*m + len(btPairBorder)*j
			vr, wr := x.vt[at:at+len(btPairBorder)], x.wk[at:at+len(btPairBorder)]
			if x.pinned[pk] {
				clear(vr)
				clear(wr)
				continue
			}
			f := x.f[btBorder*pk : btBorder*(pk+1)]
			ipv := x.ipv[pk]
			var fa [btBorder]float64
			for c, a := range btPairBorder {
				fa[a] = f[a] * ipv
				vr[c] = fa[a]
			}
			for c, a := range btPairBorder {
				wr[c] = dotPairBorder((*[btBorder]float64)(sb[btBorder*a:]), &fa)
			}
			sy[k*n+k] += ipv
		}
	}
	// Every output's V S_b⁻¹ Vᵀ into the lower triangle of the system at
	// once.
	addLowerProduct(sy, n, x.wk, x.vt, len(btPairBorder)*m)
	// 5. The system's factor, then the deflation directions' system.
	if x.chol.factorize(sy, n) == n {
		return errBrokeDown
	}
	return x.deflate()
}

// borderByC is leanTwo.borderByC on six leaves: it writes the border's
// inverse into sb for the factor of A in ldl, B in bm and C = [[c11,
// c12], [c12, c22]] (negative definite), t's row and column 0 where
// defl: A' = A + B (−C)⁻¹ Bᵀ (−C⁻¹ = R Rᵀ, one term per column of B R),
// then [[A'⁻¹, −A'⁻¹ B C⁻¹], [·, C⁻¹ + C⁻¹ Bᵀ A'⁻¹ B C⁻¹]].
func (x *leanBallTwo) borderByC(sb []float64, c11, c12, c22 float64, defl bool) bool {
	const nl, nb = btLeaves, btBorder
	B, ev, ldl := x.bm[:], x.ev[:], &x.ldl
	det := c11*c22 - c12*c12
	if !(det > 0) || !(c11 < 0) || math.IsInf(det, 0) {
		return false
	}
	i11, i12, i22 := c22/det, -c12/det, c11/det // C⁻¹
	r11 := math.Sqrt(-i11)
	r21 := -i12 / r11
	r22 := math.Sqrt(max(0, -i22-r21*r21))
	for a := range nl {
		ev[a] = B[2*a]*r11 + B[2*a+1]*r21
	}
	ldl.update(1, ev)
	for a := range nl {
		ev[a] = B[2*a+1] * r22
	}
	ldl.update(1, ev)
	var ai [nl * nl]float64
	ldl.inverse(ai[:])
	if defl {
		for a := range nl {
			ai[a], ai[nl*a] = 0, 0
		}
	}
	var bc, q [2 * nl]float64 // B C⁻¹ and A'⁻¹ B C⁻¹
	for a := range nl {
		bc[2*a] = B[2*a]*i11 + B[2*a+1]*i12
		bc[2*a+1] = B[2*a]*i12 + B[2*a+1]*i22
	}
	for a := range nl {
		for d := range 2 {
			v := 0.0
			for c := range nl {
				v += ai[nl*a+c] * bc[2*c+d]
			}
			q[2*a+d] = v
		}
	}
	for a := range nl {
		copy(sb[nb*a:nb*a+nl], ai[nl*a:nl*(a+1)])
		sb[nb*a+nl], sb[nb*a+nl+1] = -q[2*a], -q[2*a+1]
		sb[nb*nl+a], sb[nb*(nl+1)+a] = -q[2*a], -q[2*a+1]
	}
	for d := range 2 {
		for e := range 2 {
			v := 0.0
			for c := range nl {
				v += bc[2*c+d] * q[2*c+e]
			}
			sb[nb*(nl+d)+nl+e] = v
		}
	}
	sb[nb*nl+nl] += i11
	sb[nb*nl+nl+1] += i12
	sb[nb*(nl+1)+nl] += i12
	sb[nb*(nl+1)+nl+1] += i22
	return true
}

// choosePins sets each pair's own pivot π (its curvature left after its
// b and b') and each output's largest row weight, and pins the soft pairs
// of the used outputs as leanBox.choosePins does.
func (x *leanBallTwo) choosePins() {
	n, m := x.n, x.m
	w := &x.w
	for j := range m {
		wm := 0.0
		for r := btPairRows; r < btRows; r++ {
			wm = max(wm, w[r][j])
		}
		for k := range n {
			pk := j*n + k
			for r := range btPairRows {
				wm = max(wm, w[r][pk])
			}
			wB, wE, wB2, wE2 := w[btB][pk], w[btE][pk], w[btB2][pk], w[btE2][pk]
			x.pv[pk] = w[btA][pk] + w[btC][pk] + wE*wB/(wB+wE) + wE2*wB2/(wB2+wE2)
		}
		x.wmax[j] = wm
	}
	pinSoftPairs(n, m, x.pv, x.wmax, x.isDefl, x.pinned)
}

// deflate is leanBox.deflate on leanBallTwo's output-local vectors
// (btStride): a used output's column (p, b, b', t, h, v's) and a soft
// pair's p with its b and b' responses (1, g, −g').
func (x *leanBallTwo) deflate() error {
	n, m := x.n, x.m
	st := btStride(n)
	md, err := x.collect(n, m, st, x.isDefl, x.pinned)
	if md == 0 || err != nil {
		return err
	}
	o := 3 * n
	for a, j := range x.dj {
		z, kz := x.dz[a*st:(a+1)*st], x.dkz[a*st:(a+1)*st]
		clear(z)
		if k := x.dk[a]; k < 0 {
			copy(z[:n], x.p[j*n:(j+1)*n])
			copy(z[n:2*n], x.b[j*n:(j+1)*n])
			copy(z[2*n:3*n], x.b2[j*n:(j+1)*n])
			copy(z[o:o+btLeaves], x.u[btLeaves*j:btLeaves*(j+1)])
		} else {
			pk := j*n + k
			z[k], z[n+k], z[2*n+k] = 1, x.g[pk], -x.g2[pk]
		}
		x.applyH0(j, z, kz)
		// uz = Ĥ⁻¹ Qᵀ H z: Qᵀ drops t and the pinned p's.
		for k := range n {
			pk := j*n + k
			x.gp[pk], x.gb[pk], x.gb2[pk] = kz[k], kz[n+k], kz[2*n+k]
		}
		var rb [btBorder]float64
		copy(rb[:], kz[o:o+btBorder])
		rb[btT] = 0
		x.applyInvJ(j, &rb)
		u := x.du[a*st : (a+1)*st]
		copy(u[:n], x.hp[j*n:(j+1)*n])
		copy(u[n:2*n], x.hb[j*n:(j+1)*n])
		copy(u[2*n:3*n], x.hb2[j*n:(j+1)*n])
		copy(u[o:o+btBorder], x.hu[btBorder*j:btBorder*(j+1)])
		u[o+btT] = 0
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
func (x *leanBallTwo) curvature(a, b int) float64 {
	n := x.n
	st := btStride(n)
	o := 3 * n
	j := x.dj[a]
	za, kzb := x.dz[a*st:(a+1)*st], x.dkz[b*st:(b+1)*st]
	kza, ub := x.dkz[a*st:(a+1)*st], x.du[b*st:(b+1)*st]
	lo, hi := letterSpan(x.dk[a], n)
	v := 0.0
	for s := 0; s < o; s += n {
		for k := lo; k < hi; k++ {
			v += za[s+k] * kzb[s+k]
		}
	}
	for i := o; i < o+btLeaves; i++ {
		v += za[i] * kzb[i]
	}
	for k := lo; k < hi; k++ {
		if !x.pinned[j*n+k] {
			v -= kza[k] * ub[k]
		}
	}
	for s := n; s < o; s += n {
		for k := lo; k < hi; k++ {
			v -= kza[s+k] * ub[s+k]
		}
	}
	for i := o + btH; i < st; i++ {
		v -= kza[i] * ub[i]
	}
	return v
}

// applyH0 writes H₀ z into kz for an output-local z, H₀ the Hessian of
// every row but the dense ones, and the dense rows' a·z into kz's ζ and
// ζ' entries: the augmented block's product.
func (x *leanBallTwo) applyH0(j int, z, kz []float64) {
	n, kap := x.n, x.kap
	o := 3 * n
	w := &x.w
	zu := z[o : o+btLeaves]
	var ku [btLeaves]float64
	r2 := 0.5 * x.r
	lo := -r2*(zu[btVE]-zu[btVF]) - x.mu*zu[btT]
	hi := r2 * (zu[btVF2] - zu[btVE2])
	fl := w[btL][j] * (zu[btVE] - zu[btVF])
	fl2 := w[btL2][j] * (zu[btVF2] - zu[btVE2])
	fg := w[btG][j] * (zu[btH] - zu[btVF])
	fg2 := w[btG2][j] * (zu[btVF2] - zu[btT])
	ku[btVE] += fl
	ku[btVF] -= fl + fg
	ku[btVF2] += fl2 + fg2
	ku[btVE2] -= fl2
	ku[btH] += fg
	ku[btT] -= fg2
	for k := range n {
		pk := j*n + k
		zp, zb, zb2 := z[k], z[n+k], z[2*n+k]
		a := btPairValues(zp, zb, zb2, zu)
		for r := range btPairRows {
			a[r] *= w[r][pk]
		}
		kz[k] = a[btA] - a[btC] - a[btE] + a[btE2]
		kz[n+k] = a[btB] + a[btE]
		kz[2*n+k] = a[btB2] + a[btE2]
		ku[btT] += a[btC]
		ku[btH] -= a[btA]
		ku[btVE] += a[btE]
		ku[btVE2] -= a[btE2]
		lo += x.pc[k] * (zp - zb)
		hi += x.pc[k] * (zp + zb2)
	}
	copy(kz[o:o+btLeaves], ku[:])
	kz[o+btZ], kz[o+btZ2] = lo, zu[btH]-kap*hi
}

// applyInv writes H⁻¹ g into h (g's ζ parts 0), output by output.
func (x *leanBallTwo) applyInv() {
	var rb [btBorder]float64
	for j := range x.m {
		copy(rb[:btLeaves], x.gu[btLeaves*j:btLeaves*(j+1)])
		rb[btZ], rb[btZ2] = 0, 0
		x.applyInvJ(j, &rb)
	}
}

// applyInvJ solves output j's block for the right-hand side gp, gb, gb2
// on its pairs and rb on its border into hp, hb, hb2 and hu: the pairs'
// blocks, then the border, then the pairs again. A deflated output's t
// is held at 0. rb is overwritten.
func (x *leanBallTwo) applyInvJ(j int, rb *[btBorder]float64) {
	n, kap := x.n, x.kap
	lo, hi := j*n, (j+1)*n
	w := &x.w
	wA, wC, wE, wE2 := w[btA][lo:hi], w[btC][lo:hi], w[btE][lo:hi], w[btE2][lo:hi]
	gp, gb, gb2 := x.gp[lo:hi], x.gb[lo:hi], x.gb2[lo:hi]
	hp, hb, hb2 := x.hp[lo:hi], x.hb[lo:hi], x.hb2[lo:hi]
	g, g2, ib, ib2, ipv := x.g[lo:hi], x.g2[lo:hi], x.ib[lo:hi], x.ib2[lo:hi], x.ipv[lo:hi]
	pinned, pc := x.pinned[lo:hi], x.pc[:n]
	for k := range n {
		p := 0.0
		if !pinned[k] {
			p = (gp[k] + g[k]*gb[k] - g2[k]*gb2[k]) * ipv[k]
		}
		b := gb[k]*ib[k] + g[k]*p
		b2 := gb2[k]*ib2[k] - g2[k]*p
		hp[k], hb[k], hb2[k] = p, b, b2
		rb[btT] += wC[k] * p
		rb[btH] += wA[k] * p
		rb[btVE] += wE[k] * (p - b)
		rb[btVE2] += wE2[k] * (p + b2)
		rb[btZ] -= pc[k] * (p - b)
		rb[btZ2] += kap * pc[k] * (p + b2)
	}
	sb := x.sbi[btBorder*btBorder*j : btBorder*btBorder*(j+1)]
	v := x.hu[btBorder*j : btBorder*(j+1)]
	for a := range btBorder {
		v[a] = dotBorder((*[btBorder]float64)(sb[btBorder*a:]), rb)
	}
	fs := x.f[btBorder*lo : btBorder*hi]
	va := (*[btBorder]float64)(v)
	for k := range n {
		fv := 0.0
		if !pinned[k] {
			fv = dotPairBorder((*[btBorder]float64)(fs[btBorder*k:]), va) * ipv[k]
		}
		hp[k] -= fv
		hb[k] -= g[k]*fv + g[k]*v[btVE] - pc[k]*ib[k]*v[btZ]
		hb2[k] -= -g2[k]*fv - g2[k]*v[btVE2] - kap*pc[k]*ib2[k]*v[btZ2]
	}
}

// The border has eight unknowns, dotBorder's terms: this index fails to
// compile otherwise.
var _ = [1]int{}[btBorder-8]

// dotBorder is the dot product of two border vectors, in two halves.
func dotBorder(a, b *[btBorder]float64) float64 {
	return (a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3]) + (a[4]*b[4] + a[5]*b[5] + a[6]*b[6] + a[7]*b[7])
}

// btPairBorder are the border entries a pair's row f of V can have: its
// star's leaves and the ζ's, not v_F and v_F' (joined to the caps only).
// dotPairBorder's terms are those: these indices fail to compile
// otherwise.
var btPairBorder = [6]int{btT, btH, btVE, btVE2, btZ, btZ2}

var (
	_ = [1]int{}[btVF-4]
	_ = [1]int{}[btVF2-5]
	_ = [1]int{}[btZ-6]
)

// dotPairBorder is the dot product of two border vectors of which one is
// 0 at v_F and v_F'.
func dotPairBorder(a, b *[btBorder]float64) float64 {
	return (a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3]) + (a[6]*b[6] + a[7]*b[7])
}

// solve computes the direction d for the current residuals and the
// complementarity right-hand sides cr and, where check is set, refines it
// against its residuals in the unreduced equations, as leanBox.solve
// does.
func (x *leanBallTwo) solve(d *ballTwoDir, check bool) {
	n, m, kap := x.n, x.m, x.kap
	r2 := 0.5 * x.r
	// 1. g = r_d + Σ_r a_r q_r over the unknowns, q_r = (c_r − z_r r_r)/s_r.
	for r := range btRows {
		q, cr, is, w, rp := x.q[r], x.cr[r], x.is[r], x.w[r], x.rp[r]
		for i := range q {
			q[i] = cr[i]*is[i] - w[i]*rp[i]
		}
	}
	qA, qC, qB, qE := x.q[btA], x.q[btC], x.q[btB], x.q[btE]
	qB2, qE2 := x.q[btB2], x.q[btE2]
	for j := range m {
		ql, ql2, qd, qd2 := x.q[btL][j], x.q[btL2][j], x.q[btD][j], x.q[btD2][j]
		qg, qg2 := x.q[btG][j], x.q[btG2][j]
		gu := x.gu[btLeaves*j : btLeaves*(j+1)]
		copy(gu, x.rdu[btLeaves*j:btLeaves*(j+1)])
		gu[btT] -= x.mu*qd + qg2
		gu[btH] += qd2 + qg
		gu[btVE] += ql - r2*qd
		gu[btVF] += -ql + r2*qd - qg
		gu[btVE2] += -ql2 + kap*r2*qd2
		gu[btVF2] += ql2 - kap*r2*qd2 + qg2
		for k := range n {
			pk := j*n + k
			pc := x.pc[k]
			qa, qc, qe, qe2 := qA[pk], qC[pk], qE[pk], qE2[pk]
			x.gp[pk] = x.rdp[pk] + qa - qc - qe + qe2 + pc*(qd-kap*qd2)
			x.gb[pk] = x.rdb[pk] + qB[pk] + qe - pc*qd
			x.gb2[pk] = x.rdb2[pk] + qB2[pk] + qe2 - kap*pc*qd2
			gu[btT] += qc
			gu[btH] -= qa
			gu[btVE] += qe
			gu[btVE2] -= qe2
		}
	}
	x.reduced(x.ra, d)
	x.recover(d, true)
	if !check || !x.exact {
		return
	}
	// 2. Refinement, undone where it does not lower the residuals.
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

// reduced solves H dx + Eᵀ dy = g, E dx = −ra for g in gp, gb, gb2 and
// gu into d's unknowns, as leanBox.reduced does; the g's are
// overwritten.
func (x *leanBallTwo) reduced(ra []float64, d *ballTwoDir) {
	n, m := x.n, x.m
	st := btStride(n)
	o := 3 * n
	// 1. r_α = zᵀ g − uzᵀ Qᵀ g, before g changes.
	md := len(x.dj)
	ralpha := x.ra2[:md]
	for a, j := range x.dj {
		z, u := x.dz[a*st:(a+1)*st], x.du[a*st:(a+1)*st]
		gu := x.gu[btLeaves*j : btLeaves*(j+1)]
		r := z[o+btT] * gu[btT]
		for c := btH; c < btLeaves; c++ {
			r += (z[o+c] - u[o+c]) * gu[c]
		}
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
	for j := range m {
		copy(d.u[btLeaves*j:btLeaves*(j+1)], x.hu[btBorder*j:btBorder*j+btLeaves])
	}
	for a, j := range x.dj {
		al := ralpha[a]
		z, u := x.dz[a*st:(a+1)*st], x.du[a*st:(a+1)*st]
		for k := range n {
			pk := j*n + k
			x.hp[pk] += al * (z[k] - u[k])
			x.hb[pk] += al * (z[n+k] - u[n+k])
			x.hb2[pk] += al * (z[2*n+k] - u[2*n+k])
		}
		du := d.u[btLeaves*j : btLeaves*(j+1)]
		du[btT] += al * z[o+btT]
		for c := btH; c < btLeaves; c++ {
			du[c] += al * (z[o+c] - u[o+c])
		}
	}
	copy(d.p, x.hp)
	copy(d.b, x.hb)
	copy(d.b2, x.hb2)
}

// recover sets d's slacks and multipliers from its unknowns: ds = a·dx
// + r and dz = (c − z ds)/s per row, with r and c the residuals and
// right-hand sides when withRes, else 0.
func (x *leanBallTwo) recover(d *ballTwoDir, withRes bool) {
	n := x.n
	for j := range x.m {
		uj := d.u[btLeaves*j : btLeaves*(j+1)]
		for k := range n {
			pk := j*n + k
			a := btPairValues(d.p[pk], d.b[pk], d.b2[pk], uj)
			for r := range btPairRows {
				d.s[r][pk] = a[r]
			}
		}
		a := x.outValues(j, d.p, d.b, d.b2, d.u)
		for r := btPairRows; r < btRows; r++ {
			d.s[r][j] = a[r-btPairRows]
		}
	}
	for r := range btRows {
		ds, dz, w := d.s[r], d.z[r], x.w[r]
		if !withRes {
			for i, v := range ds {
				dz[i] = -w[i] * v
			}
			continue
		}
		rp, cr, is := x.rp[r], x.cr[r], x.is[r]
		for i := range ds {
			v := ds[i] + rp[i]
			ds[i], dz[i] = v, cr[i]*is[i]-w[i]*v
		}
	}
}

// dirResiduals writes d's residuals in the row sums (R₂, into r2) and in
// the dual equations (R₃, into gp, gb, gb2 and gu), and returns their
// largest magnitude.
func (x *leanBallTwo) dirResiduals(d *ballTwoDir) float64 {
	n, m := x.n, x.m
	copy(x.r2, x.ra)
	for j := range m {
		for k := range n {
			x.r2[k] += d.p[j*n+k]
		}
	}
	worst := x.dualEq(&d.z, d.y, x.rdp, x.rdb, x.rdb2, x.rdu, x.gp, x.gb, x.gb2, x.gu)
	return max(worst, maxAbs(x.r2))
}

// dirSize is the scale against which a direction's residuals are
// measured: its largest multiplier step, or 1.
func (x *leanBallTwo) dirSize(d *ballTwoDir) float64 {
	s := max(maxAbs(d.y), max(maxAbs(d.z[btC]), maxAbs(d.z[btA])))
	return max(1, max(s, max(maxAbs(d.z[btD]), maxAbs(d.z[btD2]))))
}

// addDir adds a·f to d.
func (x *leanBallTwo) addDir(d, f *ballTwoDir, a float64) {
	for _, v := range [5][2][]float64{{d.p, f.p}, {d.b, f.b}, {d.b2, f.b2}, {d.u, f.u}, {d.y, f.y}} {
		axpy(v[0], a, v[1])
	}
	for r := range btRows {
		axpy(d.s[r], a, f.s[r])
		axpy(d.z[r], a, f.z[r])
	}
}

// stepLengths returns the largest primal and dual steps in (0, limit] that
// keep the slacks and multipliers nonnegative along d.
func (x *leanBallTwo) stepLengths(d *ballTwoDir, limit float64) (ap, ad float64) {
	ap, ad = limit, limit
	for r := range btRows {
		ap = min(ap, stepWithin(limit, x.s[r], d.s[r], nil, nil))
		ad = min(ad, stepWithin(limit, x.z[r], d.z[r], nil, nil))
	}
	return ap, ad
}

// affineComp returns the complementarity after steps ap and ad along d.
func (x *leanBallTwo) affineComp(d *ballTwoDir, ap, ad float64) float64 {
	c := 0.0
	for r := range btRows {
		s, z, ds, dz := x.s[r], x.z[r], d.s[r], d.z[r]
		for i := range s {
			c += (s[i] + ap*ds[i]) * (z[i] + ad*dz[i])
		}
	}
	return c
}

// step makes one predictor-corrector iteration; the residuals must be up
// to date.
func (x *leanBallTwo) step() error {
	if err := x.factor(); err != nil {
		return err
	}
	muC := x.comp / float64(x.npairs)
	// 1. The affine direction: c = −s z.
	for r := range btRows {
		negProd(x.cr[r], x.s[r], x.z[r])
	}
	a := &x.aff
	x.solve(a, false)
	ap, ad := x.stepLengths(a, 1)
	sigma := math.Pow(x.affineComp(a, ap, ad)/x.comp, 3)
	target := sigma * muC
	// 2. The corrector: c = σμ − s z − ds dz of the affine direction.
	for r := range btRows {
		corrector(x.cr[r], x.s[r], x.z[r], a.s[r], a.z[r], target)
	}
	c := &x.cor
	x.solve(c, true)
	// 3. The step (leanRun.advance).
	apMax, adMax := x.stepLengths(c, 1/x.eta)
	x.advance(x.residuals, apMax, adMax, stepFraction(x.eta, muC), func(ap, ad float64) float64 { return x.affineComp(c, ap, ad) }, func(ap, ad float64) {
		for _, v := range [4][2][]float64{{x.p, c.p}, {x.b, c.b}, {x.b2, c.b2}, {x.u, c.u}} {
			axpy(v[0], ap, v[1])
		}
		axpy(x.y, ad, c.y)
		for r := range btRows {
			axpy(x.s[r], ap, c.s[r])
			axpy(x.z[r], ad, c.z[r])
		}
	})
	if math.IsNaN(x.p[0]) || math.IsNaN(x.y[0]) {
		return errBrokeDown
	}
	return nil
}

// runTo is leanBall.runTo, keeping also the lower side's multipliers.
func (x *leanBallTwo) runTo(ctx context.Context, maxIter int, tol float64) (iters int, done bool, err error) {
	return x.run(ctx, x, maxIter, tol, [][]float64{x.p, x.z[btA], x.z[btC], x.z[btE], x.z[btE2], x.z[btG], x.z[btG2], x.z[btD], x.z[btD2], x.y})
}

// prior returns output j's worst prior for side sd (0 upper, 1 lower)
// read off the multipliers, as dualIPM.prior does: π̂_k + (z_F − z_E)/z_D
// on letter k for the upper side, π̂_k + (z_F' − z_E')/(κ z_D') for the
// lower (the inner LPs' solutions), moved into the ball where rounding
// leaves it just outside, or the ball's greedy extreme prior for the
// column where it is far; nil for an unused output. The per-letter
// multipliers z_F of the inner LP are G's z_G shared among the letters
// in proportion to their lower caps' z_A (the letters at the column's
// least entry, through which G holds them), and z_F' likewise G”s by
// the upper caps' z_C.
func (x *leanBallTwo) prior(j, sd int) []float64 {
	n := x.n
	zd, ze, zg, zc, f := x.z[btD][j], x.z[btE], x.z[btG][j], x.z[btA], 1.0
	if sd == 1 {
		zd, ze, zg, zc, f = x.z[btD2][j], x.z[btE2], x.z[btG2][j], x.z[btC], 1/x.kap
	}
	if zd > 0 && !math.IsInf(zd, 0) {
		pr := make([]float64, n)
		finite := true
		tot := 0.0
		for k := range n {
			tot += zc[j*n+k]
		}
		share := 0.0
		if tot > 0 {
			share = zg / tot
		}
		for k := range n {
			pk := j*n + k
			v := x.pc[k] + f*(share*zc[pk]-ze[pk])/zd
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
func (x *leanBallTwo) reading() *robustReading {
	n, m := x.n, x.m
	rd := &robustReading{n: n, m: m, lip: true, scale: x.scale, y: x.y, p: slices.Clone(x.p),
		up: make([][]float64, m), down: make([][]float64, m),
		capUp: make([]float64, m), capDown: make([]float64, m)}
	for j := range m {
		rd.up[j] = x.prior(j, 0)
		rd.down[j] = x.prior(j, 1)
		// The caps' multipliers carry G's and G”s too (prior): the
		// caps' own totals are those their dual equations give, μ z_D for
		// t and z_D' for h, not the multipliers' sums less z_G', z_G,
		// which cancel to nothing where a side's dense row is loose.
		rd.capUp[j] = x.mu * x.z[btD][j]
		rd.capDown[j] = x.z[btD2][j]
	}
	return rd
}

func (x *leanBallTwo) String() string { return fmt.Sprintf("leanBallTwo(%d×%d)", x.n, x.m) }

// solveRobustLeanBallTwo is SolveRobust's lean route for LIP and ALIP
// over an L1 ball, by leanBallTwo, certified by settle as
// solveRobustDual's answer is (solveLean: one run, two where the first
// stalls). Its Cuts is 0.
func solveRobustLeanBallTwo(ctx context.Context, p RobustProblem, pi mech.Prior, mu, kap float64, lip bool, maxIter int, target, accept float64) (*RobustResult, error) {
	if !leanBallTwoApplies(p.Set, lip) {
		return nil, ErrRobustNotConverged
	}
	return solveLean(ctx, func(eta float64) robustOnce {
		x := newLeanBallTwo(pi, p.Utility, p.Set, mu, kap)
		x.eta = eta
		return x
	}, p, pi, maxIter, target, accept)
}

// release hands x's slices back to their pool; x is not used after it.
func (x *leanBallTwo) release() { x.mem.release() }
