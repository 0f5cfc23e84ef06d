package ipm

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/mech"
)

// leanBall is an interior point for ε-PML over the L1 ball of radius r
// around π̂ (cut by the simplex) with the inner minimum dualised
// (docs/theory.md §7, "The dualised constraints"), specialised to that
// one case as leanBox is to a box: dualIPM's rows, its unknowns in flat
// arrays, its Newton systems reduced in closed form.
//
// Each output j has its entries p_kj, one b_kj per letter, its cap t_j,
// its level ν_j and its radius multiplier λ_j, and the rows
//
//	(A) p_kj ≥ 0,  (C) t_j − p_kj ≥ 0,
//	(B) b_kj ≥ 0,  (E) b_kj + ν_j + λ_j − p_kj ≥ 0,
//	(F) p_kj − ν_j + λ_j ≥ 0,  (L) λ_j ≥ 0,
//	(D) π̂·p_j − π̂·b_j − r λ_j − μ t_j ≥ 0,
//
// with the row sums Σ_j p_kj = 1; the objective is Σ c_kj p_kj.
//
// Mehrotra's predictor-corrector, reduced as leanBox's: in output j's
// block the dense row D is kept as one more unknown ζ with diagonal
// −1/ω_D, each letter's pair (p_kj, b_kj) is a 2×2 block inverted in
// closed form, and the border is (t_j, ν_j, λ_j, ζ_j). Eliminating a pair
// from the rows A, C, B, E and F leaves on (t, ν, λ) a sum of rank-one
// terms of positive weight along six fixed directions (ballDirs), the
// Schur complement of a sum of rank-one terms being the sum over the
// triples of rows of their weights' product times the triple's generalised
// cross product, over the pair's determinant; the row L adds a seventh
// term along e_λ. The border's determinant and adjugate then follow by
// Cauchy–Binet as sums of positive terms (ballBorderInverse): near the
// optimum a pair's weights lie 10⁸ apart, and entries formed as
// differences would lose the small ones.
//
// The used outputs' columns and the soft pairs are deflation directions
// solved with the row sums' multipliers, and each corrector is refined in
// the unreduced equations, as in leanBox (below leanExactGap). The answer stands only when
// settle certifies it.
type leanBall struct {
	// mem holds the per-pair and per-output slices (staggered).
	mem *staggered
	// eta is the largest fraction of the way to the boundary a step
	// goes (leanEta, or leanRetryEta on a second run).
	eta   float64
	n, m  int
	mu, r float64
	pc    []float64 // π̂ per letter
	set   *mech.PriorSet
	c     []float64 // scaled objective per pair (k = j·n + i)
	scale float64

	p, b       []float64 // per pair
	t, nu, lam []float64 // per output
	y          []float64 // per letter
	sA, zA     []float64 // the rows' slacks and multipliers, per pair
	sC, zC     []float64
	sB, zB     []float64
	sE, zE     []float64
	sF, zF     []float64
	sL, zL     []float64 // per output
	sD, zD     []float64

	// residuals
	rA, rC, rB, rE, rF, rL, rD []float64 // a·x − s
	rdp, rdb                   []float64 // c + Aᵀz − Eᵀy on p and b
	rdt, rdn, rdl              []float64 // on t, ν and λ
	ra                         []float64 // Σ_j p_kj − 1
	npairs                     int
	leanRun

	// The rows' weights ω = z/s and inverse slacks 1/s.
	wA, wC, wB, wE, wF, wL, wD []float64
	iA, iC, iB, iE, iF, iL, iD []float64

	// factor: per pair D⁻¹ (ipp, ipb, ibb) and D⁻¹F's rows vp, vb (4
	// per pair, on t, ν, λ, ζ); per output S_b⁻¹ (16); the system on y.
	ipp, ipb, ibb []float64
	vp, vb        []float64
	sbi           []float64
	sy            []float64
	chol          cholesky
	wk            []float64 // V S_b⁻¹ for one output, N×4

	// Deflation, as leanBox's: the directions are output-local vectors
	// (p, b over the letters, then t, ν, λ and the dense row's entry).
	isDefl    []bool
	pinned    []bool
	piv, wmax []float64
	leanDirs
	hz []float64
	// complementarity right-hand sides, per row
	cA, cC, cB, cE, cF, cL, cD []float64
	// solve's scratch: g on p, b, t, ν, λ and H⁻¹g
	gp, gb, gt, gn, gl []float64
	hp, hb, ht, hn, hl []float64
	aff, cor, fix      ballDir
	r2                 []float64
}

// ballDir is a Newton direction of leanBall.
type ballDir struct {
	p, b, t, nu, lam, y    []float64
	sA, zA, sC, zC, sB, zB []float64
	sE, zE, sF, zF         []float64
	sL, zL, sD, zD         []float64
}

func newBallDir(n, m int, a *staggered) ballDir {
	K := n * m
	v := a.take
	return ballDir{p: v(K), b: v(K), t: v(m), nu: v(m), lam: v(m), y: v(n),
		sA: v(K), zA: v(K), sC: v(K), zC: v(K), sB: v(K), zB: v(K), sE: v(K), zE: v(K),
		sF: v(K), zF: v(K), sL: v(m), zL: v(m), sD: v(m), zD: v(m)}
}

// ballDirs are the directions on (t, ν, λ) of the border's rank-one
// terms: a pair's rows leave e_t (A, C with B or E), e_ν + e_λ (A, B, E),
// e_λ − e_ν (A, F with B or E), e_t − e_ν − e_λ (C, B, E), e_t − e_ν + e_λ
// (C, F with B or E) and e_λ (B, E, F; and the row L).
var ballDirs = [6][3]float64{{1, 0, 0}, {0, 1, 1}, {0, -1, 1}, {1, -1, -1}, {1, -1, 1}, {0, 0, 1}}

// The border's layout in a deflation direction: the letters' p and b,
// then these.
const (
	ballT = iota
	ballNu
	ballLam
	ballZeta
	ballBorder
)

// leanBallApplies reports whether the lean ball route takes the problem:
// ε-PML over an L1 ball of positive radius (dualApplies).
func leanBallApplies(set *mech.PriorSet, lip bool) bool {
	return !lip && !set.IsBox() && dualApplies(set)
}

// newLeanBall sets up the rows and dualIPM's starting point.
func newLeanBall(pi mech.Prior, u mech.Utility, set *mech.PriorSet, mu float64) *leanBall {
	n, m := u.Dims()
	K := n * m
	a := new(staggered)
	v := a.take
	x := &leanBall{eta: leanEta, n: n, m: m, mu: mu, r: set.Radius, pc: slices.Clone(pi), set: set}
	x.c, x.scale = scaledObjective(pi, u)
	x.p, x.b, x.t, x.nu, x.lam, x.y = v(K), v(K), v(m), v(m), v(m), v(n)
	x.sA, x.zA, x.sC, x.zC, x.sB, x.zB = v(K), v(K), v(K), v(K), v(K), v(K)
	x.sE, x.zE, x.sF, x.zF = v(K), v(K), v(K), v(K)
	x.sL, x.zL, x.sD, x.zD = v(m), v(m), v(m), v(m)
	x.rA, x.rC, x.rB, x.rE, x.rF, x.rL, x.rD = v(K), v(K), v(K), v(K), v(K), v(m), v(m)
	x.rdp, x.rdb, x.rdt, x.rdn, x.rdl, x.ra = v(K), v(K), v(m), v(m), v(m), v(n)
	x.wA, x.wC, x.wB, x.wE, x.wF, x.wL, x.wD = v(K), v(K), v(K), v(K), v(K), v(m), v(m)
	x.iA, x.iC, x.iB, x.iE, x.iF, x.iL, x.iD = v(K), v(K), v(K), v(K), v(K), v(m), v(m)
	x.ipp, x.ipb, x.ibb, x.vp, x.vb = v(K), v(K), v(K), v(4*K), v(4*K)
	x.sbi, x.sy, x.wk = v(16*m), v(n*n), v(4*n)
	x.cA, x.cC, x.cB, x.cE, x.cF, x.cL, x.cD = v(K), v(K), v(K), v(K), v(K), v(m), v(m)
	x.gp, x.gb, x.gt, x.gn, x.gl = v(K), v(K), v(m), v(m), v(m)
	x.hp, x.hb, x.ht, x.hn, x.hl = v(K), v(K), v(m), v(m), v(m)
	x.aff, x.cor, x.fix = newBallDir(n, m, a), newBallDir(n, m, a), newBallDir(n, m, a)
	x.r2 = v(n)
	x.isDefl, x.pinned = make([]bool, m), make([]bool, K)
	x.piv, x.wmax = v(K), v(m)
	md := leanDirsRoom(n, m)
	st := 2*n + ballBorder
	x.reserve(md, st, n, v)
	x.hz = v(m)
	x.npairs = 5*K + 2*m

	// Start (dualIPM's): every entry 1/M, t between the entries and their
	// cap, each b and λ half an entry, ν an entry; every slack at least a
	// tenth of an entry and every multiplier 1.
	e := 1 / float64(m)
	floor := leanFloor * e
	for j := range m {
		t, nu, lam := 0.5*e*(1+1/mu), e, 0.5*e
		x.t[j], x.nu[j], x.lam[j] = t, nu, lam
		dv := -x.r*lam - mu*t
		for k := range n {
			pk := j*n + k
			p, b := e, 0.5*e
			x.p[pk], x.b[pk] = p, b
			x.sA[pk], x.zA[pk] = max(p, floor), 1
			x.sC[pk], x.zC[pk] = max(t-p, floor), 1
			x.sB[pk], x.zB[pk] = max(b, floor), 1
			x.sE[pk], x.zE[pk] = max(b+nu+lam-p, floor), 1
			x.sF[pk], x.zF[pk] = max(p-nu+lam, floor), 1
			dv += x.pc[k] * (p - b)
		}
		x.sL[j], x.zL[j] = max(lam, floor), 1
		x.sD[j], x.zD[j] = max(dv, floor), 1
	}
	x.mem = a
	return x
}

// residuals computes the KKT residuals at the current point.
func (x *leanBall) residuals() {
	n, m := x.n, x.m
	comp, primI, dualI, obj := 0.0, 0.0, 0.0, 0.0
	clear(x.ra)
	for j := range m {
		t, nu, lam := x.t[j], x.nu[j], x.lam[j]
		zd := x.zD[j]
		dv := -x.r*lam - x.mu*t
		st, sn, sl := -x.mu*zd, 0.0, x.zL[j]-x.r*zd
		for k := range n {
			pk := j*n + k
			p, b, pc := x.p[pk], x.b[pk], x.pc[k]
			obj += x.c[pk] * p
			x.ra[k] += p
			r := p - x.sA[pk]
			x.rA[pk] = r
			primI = maxAbsOf(primI, r)
			r = t - p - x.sC[pk]
			x.rC[pk] = r
			primI = maxAbsOf(primI, r)
			r = b - x.sB[pk]
			x.rB[pk] = r
			primI = maxAbsOf(primI, r)
			r = b + nu + lam - p - x.sE[pk]
			x.rE[pk] = r
			primI = maxAbsOf(primI, r)
			r = p - nu + lam - x.sF[pk]
			x.rF[pk] = r
			primI = maxAbsOf(primI, r)
			comp += x.sA[pk]*x.zA[pk] + x.sC[pk]*x.zC[pk] + x.sB[pk]*x.zB[pk] +
				x.sE[pk]*x.zE[pk] + x.sF[pk]*x.zF[pk]
			dv += pc * (p - b)
			zE, zF := x.zE[pk], x.zF[pk]
			rd := x.c[pk] - x.y[k] + x.zA[pk] - x.zC[pk] - zE + zF + pc*zd
			x.rdp[pk] = rd
			dualI = maxAbsOf(dualI, rd)
			rb := x.zB[pk] + zE - pc*zd
			x.rdb[pk] = rb
			dualI = maxAbsOf(dualI, rb)
			st += x.zC[pk]
			sn += zE - zF
			sl += zE + zF
		}
		r := lam - x.sL[j]
		x.rL[j] = r
		primI = maxAbsOf(primI, r)
		r = dv - x.sD[j]
		x.rD[j] = r
		primI = maxAbsOf(primI, r)
		comp += x.sL[j]*x.zL[j] + x.sD[j]*zd
		x.rdt[j], x.rdn[j], x.rdl[j] = st, sn, sl
		dualI = maxAbsOf(maxAbsOf(maxAbsOf(dualI, st), sn), sl)
	}
	for k := range x.ra {
		x.ra[k]--
		primI = maxAbsOf(primI, x.ra[k])
	}
	x.comp, x.primI, x.dualI, x.obj = comp, primI, dualI, obj
}

// weights sets every row's weight ω = z/s and inverse slack 1/s.
func (x *leanBall) weights() {
	inv := func(w, is, s, z []float64) {
		for i := range s {
			is[i] = 1 / s[i]
			w[i] = z[i] * is[i]
		}
	}
	inv(x.wA, x.iA, x.sA, x.zA)
	inv(x.wC, x.iC, x.sC, x.zC)
	inv(x.wB, x.iB, x.sB, x.zB)
	inv(x.wE, x.iE, x.sE, x.zE)
	inv(x.wF, x.iF, x.sF, x.zF)
	inv(x.wL, x.iL, x.sL, x.zL)
	inv(x.wD, x.iD, x.sD, x.zD)
}

// factor chooses the deflation directions, builds the blocks and the
// system on the row sums' multipliers, and factorises both systems.
func (x *leanBall) factor() error {
	x.weights()
	tmax := 0.0
	for _, t := range x.t {
		tmax = max(tmax, t)
	}
	x.exact = x.measureRel() <= leanExactGap
	for j, t := range x.t {
		x.isDefl[j] = x.exact && t > leanDeflateMass*tmax
	}
	x.choosePins()
	if err := x.blocks(); err != nil {
		return err
	}
	return x.deflate()
}

// blocks builds each output's closed-form blocks and the system on the
// row sums' multipliers, and factorises it.
func (x *leanBall) blocks() error {
	n, m := x.n, x.m
	sy := x.sy
	clear(sy)
	for j := range m {
		// 1. The letters' 2×2 blocks D = [[δp + ωE, −ωE], [−ωE, δb + ωE]]
		// (δp = ωA + ωC + ωF, δb = ωB), det = δp δb + ωE (δp + δb), their
		// inverses and D⁻¹F, F the coupling to (t, ν, λ, ζ): (−ωC, −ωE −
		// ωF, ωF − ωE, π̂) on p, (0, ωE, ωE, −π̂) on b. The border's Schur
		// complement on (t, ν, λ) is Σ c_d d dᵀ over ballDirs, each letter
		// adding to c its rows' triples (ballDirs' comment) over det; the
		// couplings to ζ and ζ's own entry are formed likewise.
		var cw [6]float64
		var tz, nz, lz, zz float64
		cw[5] = x.wL[j]
		for k := range n {
			pk := j*n + k
			wA, wC, wB, wE, wF := x.wA[pk], x.wC[pk], x.wB[pk], x.wE[pk], x.wF[pk]
			pc := x.pc[k]
			v, vb := x.vp[4*pk:4*pk+4], x.vb[4*pk:4*pk+4]
			if x.pinned[pk] {
				// p held at 0: rows C and F hold the border alone, b is
				// its own block with rows B and E.
				ib := 1 / (wB + wE)
				x.ipp[pk], x.ipb[pk], x.ibb[pk] = 0, 0, ib
				v[0], v[1], v[2], v[3] = 0, 0, 0, 0
				vb[0], vb[1], vb[2], vb[3] = 0, wE*ib, wE*ib, -pc*ib
				cw[0] += wC
				cw[2] += wF
				cw[1] += wB * wE * ib
				nz += wE * pc * ib
				lz += wE * pc * ib
				zz += pc * pc * ib
				continue
			}
			dp := wA + wC + wF
			det := dp*wB + wE*(dp+wB)
			id := 1 / det
			x.ipp[pk], x.ipb[pk], x.ibb[pk] = (wB+wE)*id, wE*id, (dp+wE)*id
			v[0] = -wC * (wB + wE) * id
			v[1] = -(wB*wE + wB*wF + wE*wF) * id
			v[2] = (wB*wF + wE*wF - wB*wE) * id
			v[3] = pc * wB * id
			vb[0] = -wC * wE * id
			vb[1] = wE * (wA + wC) * id
			vb[2] = wE * (wA + wC + 2*wF) * id
			vb[3] = -pc * dp * id
			be := wB + wE
			cw[0] += wA * wC * be * id
			cw[1] += wA * wB * wE * id
			cw[2] += wA * wF * be * id
			cw[3] += wC * wB * wE * id
			cw[4] += wC * wF * be * id
			cw[5] += 4 * wB * wE * wF * id
			tz += pc * wC * wB * id
			nz += pc * (wB*wE + wB*wF + wE*wF + wA*wE + wC*wE) * id
			lz += pc * (wB*wE + wE*wF + wA*wE + wC*wE - wB*wF) * id
			zz += pc * pc * (dp + wB) * id
		}
		// S_b = [[T, v], [vᵀ, −ζ]] with v = (tz − μ, nz, lz − r) and ζ =
		// 1/ω_D + zz > 0.
		vv := [3]float64{tz - x.mu, nz, lz - x.r}
		ze := 1/x.wD[j] + zz
		if !ballBorderInverse(x.sbi[16*j:16*j+16], &cw, vv, ze, x.isDefl[j]) {
			return errBrokeDown
		}
		// 2. The output's p-block of H⁻¹, diag(D⁻¹_pp) + V S_b⁻¹ Vᵀ, into
		// the lower triangle of the system.
		sb := x.sbi[16*j : 16*j+16]
		wk := x.wk
		for k := range n {
			v := x.vp[4*(j*n+k):]
			for a := range 4 {
				wk[4*k+a] = sb[4*a]*v[0] + sb[4*a+1]*v[1] + sb[4*a+2]*v[2] + sb[4*a+3]*v[3]
			}
		}
		vj := x.vp[4*j*n:]
		for k := range n {
			a0, a1, a2, a3 := wk[4*k], wk[4*k+1], wk[4*k+2], wk[4*k+3]
			row := sy[k*n : k*n+k+1]
			for k2 := range row {
				row[k2] += a0*vj[4*k2] + a1*vj[4*k2+1] + a2*vj[4*k2+2] + a3*vj[4*k2+3]
			}
			row[k] += x.ipp[j*n+k]
		}
	}
	// 3. The system's factor.
	if x.chol.factorize(sy, n) == n {
		return errBrokeDown
	}
	return nil
}

// ballBorderInverse writes S_b⁻¹ (4×4, on t, ν, λ, ζ) into sb for S_b =
// [[T, v], [vᵀ, −ζ]], T = Σ_d c_d d dᵀ over ballDirs; with dropT, t is
// held at 0 and its row and column of S_b⁻¹ are 0. By the ζ pivot, T' =
// T + v vᵀ/ζ: T'⁻¹ = adj(T')/det T' with, by Cauchy–Binet, det T' the sum
// over triples of directions (pairs on (ν, λ)) of their weights' product
// times their determinant squared and adj(T') the sum over pairs of their
// weights' product times their cross product's outer square; v is the
// seventh direction, of weight 1/ζ. Then S_b⁻¹ = [[T'⁻¹, T'⁻¹v/ζ], [·,
// −det T/(ζ det T')]]. False when S_b is singular.
func ballBorderInverse(sb []float64, cw *[6]float64, v [3]float64, ze float64, dropT bool) bool {
	var dirs [7][3]float64
	var c [7]float64
	copy(dirs[:6], ballDirs[:])
	copy(c[:6], cw[:])
	dirs[6], c[6] = v, 1/ze
	clear(sb)
	if dropT {
		for i := range dirs {
			dirs[i][0] = 0
		}
	}
	var dT, dTp float64
	var adj [3][3]float64
	for i := range 7 {
		for j := i + 1; j < 7; j++ {
			cc := c[i] * c[j]
			if cc == 0 {
				continue
			}
			a, b := dirs[i], dirs[j]
			cr := [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
			if dropT {
				// On (ν, λ) the cross product's t entry is the pair's
				// determinant, and adj(T') = [[T'_λλ, −T'_νλ], [·, T'_νν]].
				d := cr[0] * cr[0] * cc
				dTp += d
				if j < 6 {
					dT += d
				}
				continue
			}
			for r := range 3 {
				for s := range 3 {
					adj[r][s] += cc * cr[r] * cr[s]
				}
			}
			for k := j + 1; k < 7; k++ {
				d := cr[0]*dirs[k][0] + cr[1]*dirs[k][1] + cr[2]*dirs[k][2]
				d = d * d * cc * c[k]
				dTp += d
				if k < 6 {
					dT += d
				}
			}
		}
	}
	if dropT {
		for i := range 7 {
			a := dirs[i]
			adj[2][2] += c[i] * a[1] * a[1]
			adj[1][1] += c[i] * a[2] * a[2]
			adj[1][2] -= c[i] * a[1] * a[2]
		}
		adj[2][1] = adj[1][2]
	}
	if !(dTp > 0) || math.IsInf(dTp, 0) {
		return false
	}
	id := 1 / dTp
	lo := 0
	if dropT {
		lo = 1
	}
	for r := lo; r < 3; r++ {
		w := 0.0
		for s := lo; s < 3; s++ {
			sb[4*r+s] = adj[r][s] * id
			w += sb[4*r+s] * v[s]
		}
		sb[4*r+3], sb[12+r] = w/ze, w/ze
	}
	sb[15] = -dT / (ze * dTp)
	return true
}

// choosePins sets each pair's own pivot (its curvature left after its b)
// and each output's largest row weight, and pins the soft pairs of the
// used outputs as leanBox.choosePins does.
func (x *leanBall) choosePins() {
	n, m := x.n, x.m
	for j := range m {
		wm := max(x.wD[j], x.wL[j])
		for k := range n {
			pk := j*n + k
			wA, wC, wB, wE, wF := x.wA[pk], x.wC[pk], x.wB[pk], x.wE[pk], x.wF[pk]
			x.piv[pk] = wA + wC + wF + wE*wB/(wB+wE)
			wm = max(wm, max(max(wA, wC), max(max(wB, wE), wF)))
		}
		x.wmax[j] = wm
	}
	pinSoftPairs(n, m, x.piv, x.wmax, x.isDefl, x.pinned)
}

// deflate sets up the deflation directions and their system, as
// leanBox.deflate: each used output's column z_j = (p_j, b_j, t_j, ν_j,
// λ_j), and each soft pair's p with its b's response.
func (x *leanBall) deflate() error {
	n, m := x.n, x.m
	st := 2*n + ballBorder
	md, err := x.collect(n, m, st, x.isDefl, x.pinned)
	if md == 0 || err != nil {
		return err
	}
	o := 2 * n
	for a, j := range x.dj {
		z, kz := x.dz[a*st:(a+1)*st], x.dkz[a*st:(a+1)*st]
		clear(z)
		if k := x.dk[a]; k < 0 {
			copy(z[:n], x.p[j*n:(j+1)*n])
			copy(z[n:2*n], x.b[j*n:(j+1)*n])
			z[o+ballT], z[o+ballNu], z[o+ballLam] = x.t[j], x.nu[j], x.lam[j]
		} else {
			pk := j*n + k
			z[k] = 1
			z[n+k] = x.wE[pk] / (x.wB[pk] + x.wE[pk])
		}
		x.applyH0(j, z, kz)
		// uz = Ĥ⁻¹ Qᵀ H z: Qᵀ drops t and the pinned p's.
		for k := range n {
			pk := j*n + k
			x.gp[pk], x.gb[pk] = kz[k], kz[n+k]
		}
		x.applyInvJ(j, 0, kz[o+ballNu], kz[o+ballLam], kz[o+ballZeta])
		u := x.du[a*st : (a+1)*st]
		copy(u[:n], x.hp[j*n:(j+1)*n])
		copy(u[n:2*n], x.hb[j*n:(j+1)*n])
		u[o+ballT], u[o+ballNu], u[o+ballLam], u[o+ballZeta] = 0, x.hn[j], x.hl[j], x.hz[j]
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
func (x *leanBall) curvature(a, b int) float64 {
	n := x.n
	st := 2*n + ballBorder
	o := 2 * n
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
	for i := o; i < o+ballZeta; i++ {
		v += za[i] * kzb[i]
	}
	for k := lo; k < hi; k++ {
		if !x.pinned[j*n+k] {
			v -= kza[k] * ub[k]
		}
		v -= kza[n+k] * ub[n+k]
	}
	for _, i := range [3]int{ballNu, ballLam, ballZeta} {
		v -= kza[o+i] * ub[o+i]
	}
	return v
}

// applyH0 writes H₀ z into kz for an output-local z (p, b over the
// letters, then t, ν, λ), H₀ the Hessian of every row but the dense one,
// and the dense row's a_D·z into kz's ζ entry.
func (x *leanBall) applyH0(j int, z, kz []float64) {
	n := x.n
	o := 2 * n
	zt, zn, zl := z[o+ballT], z[o+ballNu], z[o+ballLam]
	kt, kn, kl, kd := 0.0, 0.0, x.wL[j]*zl, -x.r*zl-x.mu*zt
	for k := range n {
		pk := j*n + k
		zp, zb := z[k], z[n+k]
		fc := x.wC[pk] * (zt - zp)
		fe := x.wE[pk] * (zb + zn + zl - zp)
		ff := x.wF[pk] * (zp - zn + zl)
		kz[k] = x.wA[pk]*zp - fc - fe + ff
		kz[n+k] = x.wB[pk]*zb + fe
		kt += fc
		kn += fe - ff
		kl += fe + ff
		kd += x.pc[k] * (zp - zb)
	}
	kz[o+ballT], kz[o+ballNu], kz[o+ballLam], kz[o+ballZeta] = kt, kn, kl, kd
}

// applyInv writes H⁻¹ g into h (g's ζ part 0), output by output.
func (x *leanBall) applyInv() {
	for j := range x.m {
		x.applyInvJ(j, x.gt[j], x.gn[j], x.gl[j], 0)
	}
}

// applyInvJ solves output j's block for the right-hand side gp, gb on its
// pairs and (rt, rn, rl, rz) on its border into hp, hb, ht, hn, hl, hz:
// the letters' blocks, then the border, then the letters again. A
// deflated output's t is held at 0.
func (x *leanBall) applyInvJ(j int, rt, rn, rl, rz float64) {
	n := x.n
	for k := range n {
		pk := j*n + k
		gp, gb := x.gp[pk], x.gb[pk]
		hp := x.ipp[pk]*gp + x.ipb[pk]*gb
		hb := x.ipb[pk]*gp + x.ibb[pk]*gb
		x.hp[pk], x.hb[pk] = hp, hb
		wC, wE, wF := x.wC[pk], x.wE[pk], x.wF[pk]
		rt += wC * hp
		rn += (wE+wF)*hp - wE*hb
		rl += (wE-wF)*hp - wE*hb
		rz -= x.pc[k] * (hp - hb)
	}
	sb := x.sbi[16*j : 16*j+16]
	var h [4]float64
	for a := range 4 {
		h[a] = sb[4*a]*rt + sb[4*a+1]*rn + sb[4*a+2]*rl + sb[4*a+3]*rz
	}
	x.ht[j], x.hn[j], x.hl[j], x.hz[j] = h[0], h[1], h[2], h[3]
	for k := range n {
		pk := j*n + k
		v, vb := x.vp[4*pk:4*pk+4], x.vb[4*pk:4*pk+4]
		x.hp[pk] -= v[0]*h[0] + v[1]*h[1] + v[2]*h[2] + v[3]*h[3]
		x.hb[pk] -= vb[0]*h[0] + vb[1]*h[1] + vb[2]*h[2] + vb[3]*h[3]
	}
}

// solve computes the direction d for the current residuals and the
// complementarity right-hand sides cA … cD and, where check is set,
// refines it against its residuals in the unreduced equations, as
// leanBox.solve does.
func (x *leanBall) solve(d *ballDir, check bool) {
	n, m := x.n, x.m
	// 1. g = r_d + Σ_r a_r (c_r − z_r r_r)/s_r over the unknowns.
	for j := range m {
		qd := x.cD[j]*x.iD[j] - x.wD[j]*x.rD[j]
		ql := x.cL[j]*x.iL[j] - x.wL[j]*x.rL[j]
		gt, gn, gl := x.rdt[j]-x.mu*qd, x.rdn[j], x.rdl[j]+ql-x.r*qd
		for k := range n {
			pk := j*n + k
			qa := x.cA[pk]*x.iA[pk] - x.wA[pk]*x.rA[pk]
			qc := x.cC[pk]*x.iC[pk] - x.wC[pk]*x.rC[pk]
			qb := x.cB[pk]*x.iB[pk] - x.wB[pk]*x.rB[pk]
			qe := x.cE[pk]*x.iE[pk] - x.wE[pk]*x.rE[pk]
			qf := x.cF[pk]*x.iF[pk] - x.wF[pk]*x.rF[pk]
			pc := x.pc[k]
			x.gp[pk] = x.rdp[pk] + qa - qc - qe + qf + pc*qd
			x.gb[pk] = x.rdb[pk] + qb + qe - pc*qd
			gt += qc
			gn += qe - qf
			gl += qe + qf
		}
		x.gt[j], x.gn[j], x.gl[j] = gt, gn, gl
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

// reduced solves H dx + Eᵀ dy = g, E dx = −ra for g in gp … gl into d's
// unknowns, as leanBox.reduced does; gp … gl are overwritten.
func (x *leanBall) reduced(ra []float64, d *ballDir) {
	n, m := x.n, x.m
	st := 2*n + ballBorder
	o := 2 * n
	// 1. r_α = zᵀ g − uzᵀ Qᵀ g, before g changes.
	md := len(x.dj)
	ralpha := x.ra2[:md]
	for a, j := range x.dj {
		z, u := x.dz[a*st:(a+1)*st], x.du[a*st:(a+1)*st]
		r := z[o+ballT]*x.gt[j] + (z[o+ballNu]-u[o+ballNu])*x.gn[j] + (z[o+ballLam]-u[o+ballLam])*x.gl[j]
		for k := range n {
			pk := j*n + k
			gp := z[k] * x.gp[pk]
			if !x.pinned[pk] {
				gp -= u[k] * x.gp[pk]
			}
			r += gp + (z[n+k]-u[n+k])*x.gb[pk]
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
		}
		x.ht[j] += al * z[o+ballT]
		x.hn[j] += al * (z[o+ballNu] - u[o+ballNu])
		x.hl[j] += al * (z[o+ballLam] - u[o+ballLam])
	}
	copy(d.p, x.hp)
	copy(d.b, x.hb)
	copy(d.t, x.ht)
	copy(d.nu, x.hn)
	copy(d.lam, x.hl)
}

// recover sets d's slacks and multipliers from its unknowns: ds = a·dx
// + r and dz = (c − z ds)/s per row, with r and c the residuals and
// right-hand sides when withRes, else 0.
func (x *leanBall) recover(d *ballDir, withRes bool) {
	n := x.n
	f := 0.0
	if withRes {
		f = 1
	}
	row := func(s, z []float64, i int, ds float64, r, c, is, w []float64) {
		ds += f * r[i]
		s[i], z[i] = ds, f*c[i]*is[i]-w[i]*ds
	}
	for j := range x.m {
		dt, dn, dl := d.t[j], d.nu[j], d.lam[j]
		dv := -x.r*dl - x.mu*dt
		for k := range n {
			pk := j*n + k
			dp, db := d.p[pk], d.b[pk]
			row(d.sA, d.zA, pk, dp, x.rA, x.cA, x.iA, x.wA)
			row(d.sC, d.zC, pk, dt-dp, x.rC, x.cC, x.iC, x.wC)
			row(d.sB, d.zB, pk, db, x.rB, x.cB, x.iB, x.wB)
			row(d.sE, d.zE, pk, db+dn+dl-dp, x.rE, x.cE, x.iE, x.wE)
			row(d.sF, d.zF, pk, dp-dn+dl, x.rF, x.cF, x.iF, x.wF)
			dv += x.pc[k] * (dp - db)
		}
		row(d.sL, d.zL, j, dl, x.rL, x.cL, x.iL, x.wL)
		row(d.sD, d.zD, j, dv, x.rD, x.cD, x.iD, x.wD)
	}
}

// dirResiduals writes d's residuals in the row sums (R₂, into r2) and in
// the dual equations (R₃, into gp … gl), and returns their largest
// magnitude.
func (x *leanBall) dirResiduals(d *ballDir) float64 {
	n, m := x.n, x.m
	copy(x.r2, x.ra)
	worst := 0.0
	for j := range m {
		zd := d.zD[j]
		gt, gn, gl := x.rdt[j]-x.mu*zd, x.rdn[j], x.rdl[j]+d.zL[j]-x.r*zd
		for k := range n {
			pk := j*n + k
			pc := x.pc[k]
			x.r2[k] += d.p[pk]
			zE, zF := d.zE[pk], d.zF[pk]
			gp := x.rdp[pk] - d.y[k] + d.zA[pk] - d.zC[pk] - zE + zF + pc*zd
			gb := x.rdb[pk] + d.zB[pk] + zE - pc*zd
			x.gp[pk], x.gb[pk] = gp, gb
			worst = maxAbsOf(maxAbsOf(worst, gp), gb)
			gt += d.zC[pk]
			gn += zE - zF
			gl += zE + zF
		}
		x.gt[j], x.gn[j], x.gl[j] = gt, gn, gl
		worst = maxAbsOf(maxAbsOf(maxAbsOf(worst, gt), gn), gl)
	}
	return max(worst, maxAbs(x.r2))
}

// dirSize is the scale against which a direction's residuals are
// measured: its largest multiplier step, or 1.
func (x *leanBall) dirSize(d *ballDir) float64 {
	return max(1, max(maxAbs(d.y), max(maxAbs(d.zC), maxAbs(d.zD))))
}

// addDir adds a·f to d.
func (x *leanBall) addDir(d, f *ballDir, a float64) {
	for _, v := range [][2][]float64{{d.p, f.p}, {d.b, f.b}, {d.t, f.t}, {d.nu, f.nu}, {d.lam, f.lam}, {d.y, f.y},
		{d.sA, f.sA}, {d.zA, f.zA}, {d.sC, f.sC}, {d.zC, f.zC}, {d.sB, f.sB}, {d.zB, f.zB},
		{d.sE, f.sE}, {d.zE, f.zE}, {d.sF, f.sF}, {d.zF, f.zF}, {d.sL, f.sL}, {d.zL, f.zL},
		{d.sD, f.sD}, {d.zD, f.zD}} {
		axpy(v[0], a, v[1])
	}
}

// rows lists each row kind's slacks and multipliers, their directions in
// d and the complementarity right-hand sides.
func (x *leanBall) rows(d *ballDir) [7][5][]float64 {
	return [7][5][]float64{
		{x.sA, x.zA, d.sA, d.zA, x.cA}, {x.sC, x.zC, d.sC, d.zC, x.cC},
		{x.sB, x.zB, d.sB, d.zB, x.cB}, {x.sE, x.zE, d.sE, d.zE, x.cE},
		{x.sF, x.zF, d.sF, d.zF, x.cF}, {x.sL, x.zL, d.sL, d.zL, x.cL},
		{x.sD, x.zD, d.sD, d.zD, x.cD}}
}

// stepLengths returns the largest primal and dual steps in (0, limit] that
// keep the slacks and multipliers nonnegative along d.
func (x *leanBall) stepLengths(d *ballDir, limit float64) (ap, ad float64) {
	ap, ad = limit, limit
	for _, r := range x.rows(d) {
		ap = min(ap, stepWithin(limit, r[0], r[2], nil, nil))
		ad = min(ad, stepWithin(limit, r[1], r[3], nil, nil))
	}
	return ap, ad
}

// affineComp returns the complementarity after steps ap and ad along d.
func (x *leanBall) affineComp(d *ballDir, ap, ad float64) float64 {
	c := 0.0
	for _, r := range x.rows(d) {
		s, z, ds, dz := r[0], r[1], r[2], r[3]
		for i := range s {
			c += (s[i] + ap*ds[i]) * (z[i] + ad*dz[i])
		}
	}
	return c
}

// step makes one predictor-corrector iteration; the residuals must be up
// to date.
func (x *leanBall) step() error {
	if err := x.factor(); err != nil {
		return err
	}
	muC := x.comp / float64(x.npairs)
	// 1. The affine direction: c = −s z.
	a := &x.aff
	rows := x.rows(a)
	for _, r := range rows {
		negProd(r[4], r[0], r[1])
	}
	x.solve(a, false)
	ap, ad := x.stepLengths(a, 1)
	sigma := math.Pow(x.affineComp(a, ap, ad)/x.comp, 3)
	target := sigma * muC
	// 2. The corrector: c = σμ − s z − ds dz of the affine direction.
	for _, r := range rows {
		corrector(r[4], r[0], r[1], r[2], r[3], target)
	}
	c := &x.cor
	x.solve(c, true)
	// 3. The step (leanRun.advance).
	apMax, adMax := x.stepLengths(c, 1/x.eta)
	x.advance(x.residuals, apMax, adMax, stepFraction(x.eta, muC), func(ap, ad float64) float64 { return x.affineComp(c, ap, ad) }, func(ap, ad float64) {
		axpy(x.p, ap, c.p)
		axpy(x.b, ap, c.b)
		axpy(x.t, ap, c.t)
		axpy(x.nu, ap, c.nu)
		axpy(x.lam, ap, c.lam)
		axpy(x.y, ad, c.y)
		for _, r := range x.rows(c) {
			axpy(r[0], ap, r[2])
			axpy(r[1], ad, r[3])
		}
	})
	if math.IsNaN(x.p[0]) || math.IsNaN(x.y[0]) {
		return errBrokeDown
	}
	return nil
}

// runTo runs x (leanRun.run), keeping the entries and the multipliers
// its reading uses.
func (x *leanBall) runTo(ctx context.Context, maxIter int, tol float64) (iters int, done bool, err error) {
	return x.run(ctx, x, maxIter, tol, [][]float64{x.p, x.zA, x.zC, x.zE, x.zF, x.zD, x.y})
}

// prior returns output j's worst prior read off the multipliers, as
// dualIPM.prior does: π̂_k + (z_F − z_E)/z_D on letter k, the inner LP's
// solution, moved into the ball (intoSet) where rounding leaves it just
// outside, or the ball's greedy worst prior for the column where it is
// far; nil for an unused output.
func (x *leanBall) prior(j int) []float64 {
	n := x.n
	if zd := x.zD[j]; zd > 0 && !math.IsInf(zd, 0) {
		pr := make([]float64, n)
		finite := true
		for k := range n {
			pk := j*n + k
			v := x.pc[k] + (x.zF[pk]-x.zE[pk])/zd
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
	return x.set.Extreme(tiedColumn(col), false)
}

// reading returns what SolveRobust's result needs from the point.
func (x *leanBall) reading() *robustReading {
	n, m := x.n, x.m
	rd := &robustReading{n: n, m: m, scale: x.scale, y: x.y, p: slices.Clone(x.p),
		up: make([][]float64, m), down: make([][]float64, m),
		capUp: make([]float64, m), capDown: make([]float64, m)}
	for j := range m {
		rd.up[j] = x.prior(j)
		for i := range n {
			rd.capDown[j] += x.zA[j*n+i]
			rd.capUp[j] += x.zC[j*n+i]
		}
	}
	return rd
}

func (x *leanBall) String() string { return fmt.Sprintf("leanBall(%d×%d)", x.n, x.m) }

// solveRobustLeanBall is SolveRobust's lean route over an L1 ball: ε-PML
// by leanBall, certified by settle as solveRobustDual's answer is
// (solveLean: one run, two where the first stalls). Its Cuts is 0.
func solveRobustLeanBall(ctx context.Context, p RobustProblem, pi mech.Prior, mu, kap float64, lip bool, maxIter int, target, accept float64) (*RobustResult, error) {
	if !leanBallApplies(p.Set, lip) {
		return nil, ErrRobustNotConverged
	}
	return solveLean(ctx, func(eta float64) robustOnce {
		x := newLeanBall(pi, p.Utility, p.Set, mu)
		x.eta = eta
		return x
	}, p, pi, maxIter, target, accept)
}

// release hands x's slices back to their pool; x is not used after it.
func (x *leanBall) release() { x.mem.release() }
