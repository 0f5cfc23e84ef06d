package ipm

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/internal/vec"
	"github.com/pmlopt/pmlopt/mech"
)

// robustIPM is the interior-point method of SolveRobust on the relaxation
// of the problem over a prior set that keeps, for each output j, finitely
// many priors: a list lo[j] for the upper caps and, under LIP and ALIP, a
// list hi[j] for the lower caps. With c the scaled objective, it solves
//
//	max Σ c_ij p_ij  s.t.  Σ_j p_ij = 1                      (dual y_i)
//	                       p_ij + s_ij = t_j                   (s ≥ 0, dual w)
//	                       p_ij − r_ij = h_j                   (r ≥ 0, dual z; ε-PML: h ≡ 0, r ≡ p)
//	                       π·p_·j − μ t_j − σ_jπ = 0, π ∈ lo[j] (σ ≥ 0, dual β)
//	                       h_j − κ π·p_·j − τ_jπ = 0, π ∈ hi[j] (τ ≥ 0, dual γ)
//
// with μ = e^{−ε_u} (ε for ε-PML) and κ = e^{−ε_l}: t_j is at most e^{ε_u}
// times the output's mass under every listed prior and h_j at least
// e^{−ε_l} times it. The Newton system is reduced as Solve's is: each
// pair's dp_ij = d_ij (ĥ_ij − dy_i + Σ_l G_il x_l) with d = 1/(w/s + z/r),
// x the output's own unknowns (dt, dh, dβ, dγ) and G's columns w/s, z/r,
// the listed priors and −κ times the lower lists' priors; the output's
// equations are then K x = b + Uᵀ dy with U = D G and K = E + Gᵀ D G
// (symmetric, indefinite: E holds −Σ w/s, −Σ z/r, −μ, 1 and the rows'
// σ/β and τ/γ), and dy solves the N×N system
//
//	(Σ_j D_j − U_j K_j⁻¹ U_jᵀ) dy = rhs,
//
// which is Solve's reduced system with a rank-(1 + |lo[j]| + …) update per
// output in place of its rank 2. So an iteration costs O(N² Σ_j m_j) with
// m_j the output's unknowns, a few more than Solve's 2 per output.
type robustIPM struct {
	n, m     int
	lip      bool // lower caps h_j (LIP, ALIP)
	mu, kap  float64
	c        []float64 // scaled objective per pair (k = j·n + i)
	scale    float64
	lo, hi   [][][]float64
	p, s, r  []float64 // r aliases p without lower caps
	z, w     []float64
	t, h     []float64
	y        []float64
	sig, bet [][]float64
	tau, gam [][]float64

	// residuals
	f1, f5, f6 []float64 // per pair
	f2, f3     []float64 // per output
	f4         []float64 // per input
	f7, f8     [][]float64
	comp       float64
	primI      float64
	dualI      float64
	// held is measureRel of the point runTo left (the best it saw).
	held float64
	// reg is the relative floor added to the diagonal of the output
	// blocks' prior rows (one of robustRegs in the runs SolveRobust
	// repeats; see factor).
	reg float64

	// Newton system
	e, f, d []float64
	// scratch holds invertScaled's scale factors and inverse.
	scratch []float64
	S       []float64 // n×n, row-major, lower triangle used
	chol    cholesky
	outs    []robustBlock
	gw, hz  []float64
	hh      []float64
	rhsY    []float64
	aff     robustDir
	cor     robustDir
	nsw     []float64 // complementarity right-hand sides
	nrz     []float64
	nsb     [][]float64
	ntg     [][]float64
}

// robustBlock is output j's part of the Newton system: its unknowns'
// matrix K (inverted), U = D G by columns and W = U K⁻¹.
type robustBlock struct {
	size int
	kinv []float64
	u, g [][]float64
	wcol [][]float64
	b, x []float64
}

// robustDir is a Newton direction.
type robustDir struct {
	p, s, r, z, w, t, h, y []float64
	sig, bet, tau, gam     [][]float64
}

func newRobustDir(n, m int, lip bool, lo, hi [][][]float64) robustDir {
	v := func(l int) []float64 { return make([]float64, l) }
	K := n * m
	d := robustDir{p: v(K), s: v(K), z: v(K), w: v(K), t: v(m), h: v(m), y: v(n)}
	d.r = d.p
	if lip {
		d.r = v(K)
	}
	d.sig, d.bet, d.tau, d.gam = make([][]float64, m), make([][]float64, m), make([][]float64, m), make([][]float64, m)
	for j := range m {
		d.sig[j], d.bet[j] = v(len(lo[j])), v(len(lo[j]))
		if lip {
			d.tau[j], d.gam[j] = v(len(hi[j])), v(len(hi[j]))
		}
	}
	return d
}

// newRobustIPM starts the iterations for the objective π̂_i u_ij (pi
// normalised) with the lists lo and hi (hi nil without lower caps).
func newRobustIPM(pi mech.Prior, u mech.Utility, mu, kap float64, lip bool, lo, hi [][][]float64) *robustIPM {
	n, m := u.Dims()
	K := n * m
	v := func(l int) []float64 { return make([]float64, l) }
	x := &robustIPM{n: n, m: m, lip: lip, mu: mu, kap: kap, lo: lo, hi: hi}
	x.c, x.scale = scaledObjective(pi, u)
	x.p, x.s, x.z, x.w = v(K), v(K), v(K), v(K)
	x.r = x.p
	if lip {
		x.r = v(K)
	}
	x.t, x.h, x.y = v(m), v(m), v(n)
	x.f1, x.f5, x.f6 = v(K), v(K), v(K)
	x.f2, x.f3, x.f4 = v(m), v(m), v(n)
	x.e, x.f, x.d = v(K), v(K), v(K)
	x.gw, x.hz, x.hh, x.nsw, x.nrz = v(K), v(K), v(K), v(K), v(K)
	x.rhsY = v(n)
	x.S = v(n * n)
	x.sig, x.bet, x.tau, x.gam = make([][]float64, m), make([][]float64, m), make([][]float64, m), make([][]float64, m)
	x.f7, x.f8, x.nsb, x.ntg = make([][]float64, m), make([][]float64, m), make([][]float64, m), make([][]float64, m)
	x.outs = make([]robustBlock, m)
	for j := range m {
		L, H := len(lo[j]), 0
		if lip {
			H = len(hi[j])
		}
		x.sig[j], x.bet[j], x.f7[j], x.nsb[j] = v(L), v(L), v(L), v(L)
		x.tau[j], x.gam[j], x.f8[j], x.ntg[j] = v(H), v(H), v(H), v(H)
		size := 1 + L + H
		if lip {
			size++
		}
		ob := robustBlock{size: size, kinv: v(size * size), b: v(size), x: v(size)}
		ob.u, ob.g, ob.wcol = make([][]float64, size), make([][]float64, size), make([][]float64, size)
		for l := range size {
			ob.u[l], ob.g[l], ob.wcol[l] = v(n), v(n), v(n)
		}
		x.outs[j] = ob
	}
	x.aff = newRobustDir(n, m, lip, lo, hi)
	x.cor = newRobustDir(n, m, lip, lo, hi)

	// Start: every row spread evenly, t_j above the entries and on the
	// estimate's marginal row where that is higher, h_j below them, the
	// slacks positive (not necessarily feasible) and the duals 1.
	for k := range x.p {
		x.p[k] = 1 / float64(m)
	}
	for j := range m {
		x.t[j] = max(3/float64(m), 1/(float64(m)*mu))
		x.h[j] = 0.5 * kap / float64(m)
	}
	for j := range m {
		for k := j * n; k < (j+1)*n; k++ {
			x.s[k] = x.t[j] - x.p[k]
			x.z[k], x.w[k] = 1, 1
			if lip {
				x.r[k] = max(x.p[k]-x.h[j], 0.5*x.p[k])
			}
		}
		for l, pr := range lo[j] {
			q := x.mass(pr, j)
			x.sig[j][l] = max(q-mu*x.t[j], 0.5*q)
			x.bet[j][l] = 1
		}
		if lip {
			for l, pr := range hi[j] {
				q := kap * x.mass(pr, j)
				x.tau[j][l] = max(x.h[j]-q, 0.5*q)
				x.gam[j][l] = 1
			}
		}
	}
	return x
}

// scaledObjective returns the objective π_i u_ij per pair (k = j·n + i)
// divided by its largest magnitude, and that magnitude (1 for a zero
// objective).
func scaledObjective(pi mech.Prior, u mech.Utility) ([]float64, float64) {
	n, m := u.Dims()
	c, scale := make([]float64, n*m), 0.0
	for j := range m {
		for i := range n {
			c[j*n+i] = pi[i] * u[i][j]
			scale = max(scale, math.Abs(c[j*n+i]))
		}
	}
	if scale == 0 {
		scale = 1
	}
	for k := range c {
		c[k] /= scale
	}
	return c, scale
}

// mass returns Σ_i pr_i p_ij at the current point.
func (x *robustIPM) mass(pr []float64, j int) float64 {
	return vec.Dot(pr, x.p[j*x.n:(j+1)*x.n])
}

func massOf(pr, col []float64) float64 { return vec.Dot(pr, col) }

// residuals computes the KKT residuals at the current point.
func (x *robustIPM) residuals() {
	n, m := x.n, x.m
	clear(x.f4)
	x.comp, x.primI, x.dualI = 0, 0, 0
	for j := range m {
		k0 := j * n
		col := x.p[k0 : k0+n]
		var ws, zs float64
		for i := range n {
			k := k0 + i
			x.f1[k] = x.c[k] - x.y[i] - x.w[k] + x.z[k]
			x.f5[k] = x.t[j] - x.p[k] - x.s[k]
			if x.lip {
				x.f6[k] = x.p[k] - x.h[j] - x.r[k]
			}
			x.primI = max(x.primI, max(math.Abs(x.f5[k]), math.Abs(x.f6[k]))/max(1, x.t[j]))
			x.f4[i] += x.p[k]
			ws += x.w[k]
			zs += x.z[k]
			x.comp += x.s[k]*x.w[k] + x.r[k]*x.z[k]
		}
		f1 := x.f1[k0 : k0+n]
		bs := 0.0
		for l, pr := range x.lo[j] {
			vec.AddScaled(f1, x.bet[j][l], pr)
			bs += x.bet[j][l]
			x.f7[j][l] = massOf(pr, col) - x.mu*x.t[j] - x.sig[j][l]
			x.primI = max(x.primI, math.Abs(x.f7[j][l]))
			x.comp += x.sig[j][l] * x.bet[j][l]
		}
		x.f2[j] = ws - x.mu*bs
		if x.lip {
			gs := 0.0
			for l, pr := range x.hi[j] {
				vec.AddScaled(f1, -x.kap*x.gam[j][l], pr)
				gs += x.gam[j][l]
				x.f8[j][l] = x.h[j] - x.kap*massOf(pr, col) - x.tau[j][l]
				x.primI = max(x.primI, math.Abs(x.f8[j][l]))
				x.comp += x.tau[j][l] * x.gam[j][l]
			}
			x.f3[j] = -zs + gs
		}
		x.dualI = max(x.dualI, max(math.Abs(x.f2[j]), math.Abs(x.f3[j])))
		x.dualI = max(x.dualI, maxAbs(f1))
	}
	for i := range x.f4 {
		x.f4[i]--
	}
	x.primI = max(x.primI, maxAbs(x.f4))
}

func (x *robustIPM) measure() float64 { return max(x.comp, max(x.primI, x.dualI)) }

// pairs is the number of complementary pairs.
func (x *robustIPM) pairs() int {
	c := 2 * len(x.p)
	for j := range x.m {
		c += len(x.lo[j])
		if x.lip {
			c += len(x.hi[j])
		}
	}
	return c
}

var errRobustSingular = errors.New("ipm: singular output block over the prior lists")

// factor builds every output's block and the reduced N×N system, and
// factorises it.
func (x *robustIPM) factor() error {
	n, m := x.n, x.m
	for k := range x.p {
		x.e[k] = x.w[k] / x.s[k]
		x.f[k] = x.z[k] / x.r[k]
		x.d[k] = 1 / (x.e[k] + x.f[k])
	}
	S := x.S
	clear(S)
	for j := range m {
		ob := &x.outs[j]
		k0 := j * n
		e, f, d := x.e[k0:k0+n], x.f[k0:k0+n], x.d[k0:k0+n]
		// G's columns: t, [h], β per lo prior, [γ per hi prior].
		copy(ob.g[0], e)
		l := 1
		if x.lip {
			copy(ob.g[1], f)
			l = 2
		}
		offB := l
		for _, pr := range x.lo[j] {
			copy(ob.g[l], pr)
			l++
		}
		offG := l
		if x.lip {
			for _, pr := range x.hi[j] {
				g := ob.g[l]
				for i := range n {
					g[i] = -x.kap * pr[i]
				}
				l++
			}
		}
		sz := ob.size
		for a := range sz {
			for i := range n {
				ob.u[a][i] = d[i] * ob.g[a][i]
			}
		}
		K := ob.kinv
		for a := range sz {
			for b := 0; b <= a; b++ {
				v := vec.Dot(ob.g[a], ob.u[b])
				K[a*sz+b], K[b*sz+a] = v, v
			}
		}
		// E's −Σ w/s and −Σ z/r against Gᵀ D G's Σ e² d and Σ f² d:
		// the differences are −Σ e f d, summed as such, since near the
		// optimum one of e and f is huge on each pair and the difference
		// of the sums keeps none of its digits.
		efd := 0.0
		for i := range n {
			efd += e[i] * f[i] * d[i]
		}
		K[0] = -efd
		// A prior row's diagonal is πᵀ D π + σ/β. When several listed
		// priors are tight at the optimum (ties in the column, which the
		// worst priors of a box or ball break in many ways), σ/β vanishes
		// on all of them, their rows tend to linearly dependent ones and
		// the block's inverse loses the digits the rows' residual needs.
		// With reg > 0 each such diagonal is raised by reg times itself, a
		// proximal term on the multipliers β and γ: the direction is an
		// inexact Newton step, and convergence is still judged on the
		// residuals computed from the point itself.
		for q := range x.lo[j] {
			a := offB + q
			K[a] -= x.mu
			K[a*sz] -= x.mu
			K[a*sz+a] += x.sig[j][q]/x.bet[j][q] + x.reg*K[a*sz+a]
		}
		if x.lip {
			K[1*sz+1] = -efd
			for q := range x.hi[j] {
				a := offG + q
				K[1*sz+a]++
				K[a*sz+1]++
				K[a*sz+a] += x.tau[j][q]/x.gam[j][q] + x.reg*K[a*sz+a]
			}
		}
		if err := invertScaled(K, sz, &x.scratch); err != nil {
			return err
		}
		for a := range sz {
			wc := ob.wcol[a]
			clear(wc)
			for b := range sz {
				vec.AddScaled(wc, K[b*sz+a], ob.u[b])
			}
		}
		// S −= W Uᵀ on the lower triangle; S_ii += d_i.
		for i := range n {
			row := S[i*n : i*n+i+1]
			for a := range sz {
				if c := ob.wcol[a][i]; c != 0 {
					vec.AddScaled(row, -c, ob.u[a][:i+1])
				}
			}
			S[i*n+i] += d[i]
		}
	}
	x.chol.factorize(S, n)
	return nil
}

// invertScaled inverts the symmetric sz×sz matrix a in place, equilibrated
// first by the square roots of its diagonal's sizes: its entries span
// many orders of magnitude near the optimum (σ/β grows without bound on
// the loose priors' rows), and elimination on the equilibrated matrix
// keeps the small entries' digits.
func invertScaled(a []float64, sz int, scratch *[]float64) error {
	if cap(*scratch) < sz*sz+sz {
		*scratch = make([]float64, sz*sz+sz)
	}
	sc, inv := (*scratch)[:sz], (*scratch)[sz:sz+sz*sz]
	for i := range sz {
		v := math.Abs(a[i*sz+i])
		if v > 0 && !math.IsInf(v, 0) {
			sc[i] = 1 / math.Sqrt(v)
		} else {
			sc[i] = 1
		}
	}
	for i := range sz {
		for j := range sz {
			a[i*sz+j] *= sc[i] * sc[j]
		}
	}
	if err := invertSmall(a, inv, sz); err != nil {
		return err
	}
	for i := range sz {
		for j := range sz {
			a[i*sz+j] *= sc[i] * sc[j]
		}
	}
	return nil
}

// invertSmall inverts the sz×sz matrix a in place by Gauss–Jordan
// elimination with partial pivoting, inv (sz² entries) its scratch.
func invertSmall(a, inv []float64, sz int) error {
	clear(inv)
	for i := range sz {
		inv[i*sz+i] = 1
	}
	for c := range sz {
		p, best := -1, 0.0
		for r := c; r < sz; r++ {
			if v := math.Abs(a[r*sz+c]); v > best {
				p, best = r, v
			}
		}
		if p < 0 || !(best > 0) || math.IsInf(best, 0) {
			return errRobustSingular
		}
		if p != c {
			for q := range sz {
				a[p*sz+q], a[c*sz+q] = a[c*sz+q], a[p*sz+q]
				inv[p*sz+q], inv[c*sz+q] = inv[c*sz+q], inv[p*sz+q]
			}
		}
		piv := 1 / a[c*sz+c]
		for q := range sz {
			a[c*sz+q] *= piv
			inv[c*sz+q] *= piv
		}
		for r := range sz {
			if r == c {
				continue
			}
			if f := a[r*sz+c]; f != 0 {
				for q := range sz {
					a[r*sz+q] -= f * a[c*sz+q]
					inv[r*sz+q] -= f * inv[c*sz+q]
				}
			}
		}
	}
	copy(a, inv)
	return nil
}

// solve computes the direction for the current residuals and the
// complementarity right-hand sides nsw, nrz, nsb, ntg into d.
func (x *robustIPM) solve(d robustDir) {
	n, m := x.n, x.m
	for k := range x.p {
		x.gw[k] = x.nsw[k]/x.s[k] - x.e[k]*x.f5[k]
		x.hz[k] = x.nrz[k]/x.r[k] - x.f[k]*x.f6[k]
		x.hh[k] = x.f1[k] - x.gw[k] + x.hz[k]
	}
	copy(x.rhsY, x.f4)
	for j := range m {
		ob := &x.outs[j]
		k0 := j * n
		hh := x.hh[k0 : k0+n]
		gsum, hsum := 0.0, 0.0
		for i := range n {
			gsum += x.gw[k0+i]
			hsum += x.hz[k0+i]
			x.rhsY[i] += x.d[k0+i] * hh[i]
		}
		ob.b[0] = -x.f2[j] - gsum
		l := 1
		if x.lip {
			ob.b[1] = -x.f3[j] + hsum
			l = 2
		}
		for q := range x.lo[j] {
			ob.b[l] = -x.f7[j][q] + x.nsb[j][q]/x.bet[j][q]
			l++
		}
		if x.lip {
			for q := range x.hi[j] {
				ob.b[l] = -x.f8[j][q] + x.ntg[j][q]/x.gam[j][q]
				l++
			}
		}
		for a := range ob.size {
			ob.b[a] -= vec.Dot(ob.u[a], hh)
		}
		for a := range ob.size {
			vec.AddScaled(x.rhsY, ob.b[a], ob.wcol[a])
		}
	}
	x.chol.solve(x.rhsY)
	dy := d.y
	copy(dy, x.rhsY)
	for j := range m {
		ob := &x.outs[j]
		k0 := j * n
		sz := ob.size
		for b := range sz {
			ob.b[b] += vec.Dot(ob.u[b], dy)
		}
		for a := range sz {
			v := 0.0
			for b := range sz {
				v += ob.kinv[a*sz+b] * ob.b[b]
			}
			ob.x[a] = v
		}
		dp := d.p[k0 : k0+n]
		for i := range n {
			dp[i] = x.d[k0+i] * (x.hh[k0+i] - dy[i])
		}
		for a := range sz {
			vec.AddScaled(dp, ob.x[a], ob.u[a])
		}
		d.t[j] = ob.x[0]
		l := 1
		if x.lip {
			d.h[j] = ob.x[1]
			l = 2
		}
		for i := range n {
			k := k0 + i
			d.s[k] = d.t[j] - d.p[k] + x.f5[k]
			if x.lip {
				d.r[k] = d.p[k] - d.h[j] + x.f6[k]
			}
			d.w[k] = (x.nsw[k] - x.w[k]*d.s[k]) / x.s[k]
			d.z[k] = (x.nrz[k] - x.z[k]*d.r[k]) / x.r[k]
		}
		for q, pr := range x.lo[j] {
			d.bet[j][q] = ob.x[l]
			l++
			d.sig[j][q] = massOf(pr, dp) - x.mu*d.t[j] + x.f7[j][q]
		}
		if x.lip {
			for q, pr := range x.hi[j] {
				d.gam[j][q] = ob.x[l]
				l++
				d.tau[j][q] = d.h[j] - x.kap*massOf(pr, dp) + x.f8[j][q]
			}
		}
	}
}

// stepLengths returns the largest primal and dual steps in (0, 1] that
// keep the slacks and their duals nonnegative along d.
func (x *robustIPM) stepLengths(d robustDir) (ap, ad float64) {
	ap = stepTo(x.s, d.s, x.r, d.r)
	ad = stepTo(x.w, d.w, x.z, d.z)
	for j := range x.m {
		ap = min(ap, stepTo(x.sig[j], d.sig[j], x.tau[j], d.tau[j]))
		ad = min(ad, stepTo(x.bet[j], d.bet[j], x.gam[j], d.gam[j]))
	}
	return ap, ad
}

// step makes one predictor-corrector iteration; the residuals must be up
// to date.
func (x *robustIPM) step() error {
	if err := x.factor(); err != nil {
		return err
	}
	muC := x.comp / float64(x.pairs())
	for k := range x.p {
		x.nsw[k] = -x.s[k] * x.w[k]
		x.nrz[k] = -x.r[k] * x.z[k]
	}
	for j := range x.m {
		for q := range x.lo[j] {
			x.nsb[j][q] = -x.sig[j][q] * x.bet[j][q]
		}
		for q := range x.tau[j] {
			x.ntg[j][q] = -x.tau[j][q] * x.gam[j][q]
		}
	}
	a := x.aff
	x.solve(a)
	ap, ad := x.stepLengths(a)
	aff := 0.0
	for k := range x.p {
		aff += (x.s[k]+ap*a.s[k])*(x.w[k]+ad*a.w[k]) + (x.r[k]+ap*a.r[k])*(x.z[k]+ad*a.z[k])
	}
	for j := range x.m {
		for q := range x.lo[j] {
			aff += (x.sig[j][q] + ap*a.sig[j][q]) * (x.bet[j][q] + ad*a.bet[j][q])
		}
		for q := range x.tau[j] {
			aff += (x.tau[j][q] + ap*a.tau[j][q]) * (x.gam[j][q] + ad*a.gam[j][q])
		}
	}
	sigma := math.Pow(aff/x.comp, 3)
	target := sigma * muC
	for k := range x.p {
		x.nsw[k] = target - x.s[k]*x.w[k] - a.s[k]*a.w[k]
		x.nrz[k] = target - x.r[k]*x.z[k] - a.r[k]*a.z[k]
	}
	for j := range x.m {
		for q := range x.lo[j] {
			x.nsb[j][q] = target - x.sig[j][q]*x.bet[j][q] - a.sig[j][q]*a.bet[j][q]
		}
		for q := range x.tau[j] {
			x.ntg[j][q] = target - x.tau[j][q]*x.gam[j][q] - a.tau[j][q]*a.gam[j][q]
		}
	}
	c := x.cor
	x.solve(c)
	ap, ad = x.stepLengths(c)
	eta := stepFraction(robustEta, muC)
	ap, ad = min(1, eta*ap), min(1, eta*ad)
	for k := range x.p {
		x.p[k] += ap * c.p[k]
		x.s[k] += ap * c.s[k]
		x.w[k] += ad * c.w[k]
		x.z[k] += ad * c.z[k]
	}
	if x.lip {
		for k := range x.r {
			x.r[k] += ap * c.r[k]
		}
	}
	for j := range x.m {
		x.t[j] += ap * c.t[j]
		x.h[j] += ap * c.h[j]
		for q := range x.lo[j] {
			x.sig[j][q] += ap * c.sig[j][q]
			x.bet[j][q] += ad * c.bet[j][q]
		}
		for q := range x.tau[j] {
			x.tau[j][q] += ap * c.tau[j][q]
			x.gam[j][q] += ad * c.gam[j][q]
		}
	}
	for i := range x.y {
		x.y[i] += ad * c.y[i]
	}
	if math.IsNaN(x.p[0]) || math.IsNaN(x.y[0]) {
		return errBrokeDown
	}
	return nil
}

// run iterates from the current point until observe says to stop, the
// iterations stall or maxIter is reached (the package's iterate). observe
// sees each point whose residuals and complementarity are below near.
func (x *robustIPM) run(ctx context.Context, maxIter int, near float64, observe func(it int) (improved, done bool)) error {
	_, err := iterate(ctx, x, maxIter, near, observe)
	return err
}

func (x *robustIPM) gapMeasure() float64 { return x.measure() }

// tiny reports the complementarity below which a point is observed
// whatever its residuals, and the one at which the iterations end.
func (x *robustIPM) tiny() (near, stop bool) { return x.comp < 1e-12, x.comp < 1e-15 }

// weights returns, for output j, the prior Σ_π β_π π / Σ β of its upper
// caps' multipliers (its lower caps' when high), a prior of the set's
// convex hull of the lists; nil when the multipliers vanish.
func (x *robustIPM) weights(j int, high bool) []float64 {
	list, mult := x.lo[j], x.bet[j]
	if high {
		list, mult = x.hi[j], x.gam[j]
	}
	tot := 0.0
	for _, b := range mult {
		tot += max(0, b)
	}
	if !(tot > 0) || math.IsInf(tot, 0) {
		return nil
	}
	a := make([]float64, x.n)
	for q, pr := range list {
		vec.AddScaled(a, max(0, mult[q])/tot, pr)
	}
	return a
}

func (x *robustIPM) String() string { return fmt.Sprintf("robustIPM(%d×%d)", x.n, x.m) }

// robustEta caps the fraction of the way to the boundary that a step
// goes: nearer, the slacks of the caps that the optimum leaves loose fall
// to rounding level and the output blocks turn singular.
const robustEta = 0.995
