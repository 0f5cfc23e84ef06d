package ipm

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/mech"
)

// leanBox is an interior point for ε-PML over a box {l ≤ π ≤ u, Σπ = 1}
// with the inner minimum dualised (docs/theory.md §7, "The dualised
// constraints"), specialised to that one case: dualIPM's rows, its
// unknowns in flat arrays, its Newton systems reduced in closed form.
//
// Each output j has its entries p_kj, one b_kj per letter whose mass the
// box leaves free (u_k > l_k), its cap t_j and its level ν_j, and the rows
//
//	(A) p_kj ≥ 0,  (C) t_j − p_kj ≥ 0,
//	(B) b_kj ≥ 0,  (E) b_kj − ν_j + p_kj ≥ 0,
//	(D) ν_j (1 − Σl) + l·p_j − (u − l)·b_j − μ t_j ≥ 0,
//
// with the row sums Σ_j p_kj = 1; the objective is Σ c_kj p_kj.
//
// Mehrotra's predictor-corrector (Mehrotra, "On the implementation of a
// primal-dual interior point method", SIAM J. Optim. 2(4), 1992). The
// Newton system's Hessian H = Σ ω a aᵀ (ω = z/s per row) is block
// diagonal over the outputs. In output j's block the dense row D is kept
// as one more unknown ζ with diagonal −1/ω_D, so that what is left is an
// arrow: a 2×2 block per letter on (p_kj, b_kj), inverted in closed form,
// and a border (t_j, ν_j, ζ_j) of three. The p-block of H_j⁻¹ is then the
// diagonal of the letters' pivots plus V S_b⁻¹ Vᵀ with V = (D⁻¹F)_p (N×3)
// and S_b the border's 3×3 Schur complement: the N×N system on the row
// sums' multipliers is a sum over outputs of a diagonal and a rank-3
// update, factorised by cholesky. Every entry of D⁻¹, V and S_b is formed
// as a sum of terms of one sign where the signs allow (dualIPM's
// eliminatePair): near the optimum a pair's weights lie 10⁸ apart, and a
// difference would lose the small ones.
//
// Near the optimum two kinds of direction are nearly null in an output's
// block, and eliminating the block with them divides by the
// complementarity: a used output's whole column (every row is
// homogeneous) and a soft pair's entry (strictly inside its caps, held
// only by the dense row and its row sum). Both are carried by unknowns of
// their own, solved together with the row sums' multipliers (deflate),
// as dualIPM does; what the blocks then solve is well conditioned. Once
// the relative gap is below leanExactGap, each corrector is checked in
// the unreduced equations and refined where it falls short. The answer
// stands only when settle certifies it, as dualIPM's does.
type leanBox struct {
	// mem holds the per-pair and per-output slices (staggered).
	mem *staggered
	// eta is the largest fraction of the way to the boundary a step
	// goes (leanEta, or leanRetryEta on a second run).
	eta   float64
	n, m  int
	mu    float64
	l, w  []float64 // the box's lower bounds and widths u − l per letter
	free  []bool    // per letter: u_k > l_k (the letter has its b)
	sl    float64   // 1 − Σl
	set   *mech.PriorSet
	c     []float64 // scaled objective per pair (k = j·n + i)
	scale float64

	p, b   []float64 // per pair
	t, nu  []float64 // per output
	y      []float64 // per letter
	sA, zA []float64 // the rows' slacks and multipliers, per pair
	sC, zC []float64
	sB, zB []float64
	sE, zE []float64
	sD, zD []float64 // per output

	// residuals
	rA, rC, rB, rE, rD []float64 // a·x − s
	rdp, rdb           []float64 // c + Aᵀz − Eᵀy on p and b
	rdt, rdn           []float64 // on t and ν
	ra                 []float64 // Σ_j p_kj − 1
	npairs             int
	leanRun

	// The rows' weights ω = z/s and inverse slacks 1/s (weights).
	wA, wC, wB, wE, wD []float64
	iA, iC, iB, iE, iD []float64

	// factor: per pair D⁻¹ (ipp, ipb, ibb) and D⁻¹F's rows vp, vb (3
	// per pair); per output S_b⁻¹ (9); the system on y.
	ipp, ipb, ibb []float64
	vp, vb        []float64
	sbi           []float64
	sy            []float64
	chol          cholesky
	// V and V S_b⁻¹, a row per letter of three columns per output.
	vt, wk []float64

	// Deflation (deflate): the used outputs (isDefl), whose t is held at
	// 0 in the blocks' solve, and the soft pairs (pinned), whose p is; the
	// directions that carry them (dj: owner, dk: pair's letter or −1 for
	// the output's column), each with z and H z (dz, dkz: p, b over the
	// output's letters, then t, ν, ζ), uz = Ĥ⁻¹ Qᵀ H z (du), e = E (z −
	// uz) and S⁻¹ e (ed, ye, N each), and their system (gm, gchol).
	isDefl    []bool
	pinned    []bool
	piv, wmax []float64 // per pair its own pivot; per output its largest row weight
	leanDirs
	hz []float64 // applyInvJ's ζ per output
	// complementarity right-hand sides, per row
	cA, cC, cB, cE, cD []float64
	// solve's scratch: g on p, b, t, ν and H⁻¹g
	gp, gb, gt, gn []float64
	hp, hb, ht, hn []float64
	aff, cor, fix  leanDir
	r2             []float64 // refinement's row-sum residuals
}

// leanDir is a Newton direction of leanBox.
type leanDir struct {
	p, b, t, nu, y         []float64
	sA, zA, sC, zC, sB, zB []float64
	sE, zE, sD, zD         []float64
}

// The tolerances of the lean iterations.
const (
	// leanFloor is the start's least slack, in units of an entry 1/M.
	leanFloor = 0.1
	// leanStop is the complementarity at which the iterations end: the
	// entries' last digits.
	leanStop = 1e-15
	// leanRefine caps the refinement steps per direction, and
	// leanRefineTol is the residual, relative to the direction's
	// multipliers, below which a direction needs none.
	leanRefine    = 3
	leanRefineTol = 1e-11
	// leanDeflateMass is the share of the largest t_j above which an
	// output's column may be a deflation direction (columnNearNull
	// decides): an output no mechanism uses has every row tight and no
	// near-null direction.
	leanDeflateMass = 1e-6
	// leanSoftRel is the ratio of a pair's own pivot (its curvature left
	// after its b) to its output's largest row weight below which the
	// pair is soft: held by its output's dense row and its row sum only,
	// which weigh that much more, and carried by a deflation direction of
	// its own. It is a hundredth of dualSoftRel: the lean blocks form a
	// pivot as a sum of terms of one sign, which keeps its digits down
	// to there, and each pinned pair is one more direction in a system
	// whose factorisation is cubic in their number (docs/performance.md
	// compares the two).
	leanSoftRel = 1e-8
	// leanExactGap is the relative gap and residual below which the
	// iterations deflate and refine their directions. Further from the
	// optimum the steps are held back by the caps the entries are
	// choosing between, not by the directions' last digits, and the
	// near-null directions that deflation carries have not formed yet.
	leanExactGap = 1e-2
	// leanEta is the largest fraction of the way to the boundary a step
	// goes (robustEta's role): near the optimum the Newton step brings
	// the active rows of degenerate pairs (b = 0 = ν − p) to the boundary
	// at a full step, and each iteration then cuts the gap by 1/(1 −
	// leanEta) only.
	leanEta = 0.999
	// leanRetryEta is leanEta for the second run of a lean route whose
	// first stalled (solveLean), and leanLastEta for the third, where the
	// second stalled too.
	leanRetryEta = 0.99
	leanLastEta  = 0.95
)

// leanEtas are the step lengths of a lean route's runs, in the order
// solveLean tries them.
var leanEtas = [...]float64{leanEta, leanRetryEta, leanLastEta}

// leanDirs holds the deflation directions of a lean route: each one's
// owner (dj) and pair's letter (dk, −1 for the output's column), their
// output-local vectors z, H z and uz (stride st each), E (z − uz) and
// S⁻¹ E (z − uz) (N each), and their system (gm, gchol). exact is the
// factor's verdict that the iteration deflates and refines (its relative
// gap within leanExactGap), which the solves then follow.
type leanDirs struct {
	exact           bool
	dj, dk          []int
	dz, dkz, du     []float64
	ed, ye, gm, ra2 []float64
	gchol           cholesky
}

// collect lists the directions: each used output's column (isDefl)
// and its pinned pairs, then makes room for them at stride st. It
// returns their count, and errBrokeDown past leanMaxDirs.
func (d *leanDirs) collect(n, m, st int, isDefl, pinned []bool) (int, error) {
	d.dj, d.dk = d.dj[:0], d.dk[:0]
	for j := range m {
		if !isDefl[j] {
			continue
		}
		d.dj, d.dk = append(d.dj, j), append(d.dk, -1)
		for k := range n {
			if pinned[j*n+k] {
				d.dj, d.dk = append(d.dj, j), append(d.dk, k)
			}
		}
	}
	md := len(d.dj)
	if md == 0 {
		return 0, nil
	}
	if md > leanMaxDirs(n, m) {
		return md, errBrokeDown
	}
	d.reserve(md, st, n, nil)
	return md, nil
}

// factorGram forms and factorises the directions' system: entry (a, b)
// is e_a·S⁻¹e_b, plus curvature(a, b) for two directions of one output.
// The products are the lower triangle of E·(S⁻¹E)ᵀ, formed as one
// (setLowerProduct): with one direction per output used, their number
// grows with the outputs, and the products, O(d²N), are the largest part
// of an iteration on a location grid.
func (d *leanDirs) factorGram(n int, curvature func(a, b int) float64) {
	md := len(d.dj)
	gm := d.gm[:md*md]
	setLowerProduct(gm, md, d.ed[:md*n], d.ye[:md*n], n)
	for a := range md {
		for b := range a + 1 {
			if d.dj[a] == d.dj[b] {
				gm[a*md+b] += curvature(a, b)
			}
			gm[b*md+a] = gm[a*md+b]
		}
	}
	d.gchol.factorize(gm, md)
}

// correct turns ralpha (the directions' right-hand sides) into their
// weights α against the row sums' step dy, and adds their S⁻¹ E
// responses to dy: α = K⁻¹ (r_α − Eᵀ dy), dy += Σ α_a S⁻¹ e_a.
func (d *leanDirs) correct(n int, ralpha, dy []float64) {
	md := len(ralpha)
	for a := range md {
		e := d.ed[a*n : (a+1)*n]
		v := 0.0
		for k := range n {
			v += e[k] * dy[k]
		}
		ralpha[a] -= v
	}
	if md > 0 {
		d.gchol.solve(ralpha)
		for a := range md {
			axpy(dy, ralpha[a], d.ye[a*n:(a+1)*n])
		}
	}
}

// reserve makes room for md directions of stride st over n letters,
// from take where it is given (the route's first allocation), else
// growing what is there.
func (d *leanDirs) reserve(md, st, n int, take func(int) []float64) {
	if take == nil {
		if len(d.gm) >= md*md && len(d.dz) >= md*st {
			return
		}
		// Twice the room, or more: the count grows a few directions an
		// iteration near the optimum.
		md = max(md, 2*len(d.ra2))
		take = func(k int) []float64 { return make([]float64, k) }
	}
	d.dz, d.dkz, d.du = take(md*st), take(md*st), take(md*st)
	d.ed, d.ye, d.gm, d.ra2 = take(md*n), take(md*n), take(md*md), take(md)
}

// leanDirsRoom is the deflation directions a lean route makes room for
// at its start: one per output and N + M soft pairs. deflate grows it
// where an optimal face leaves more entries strictly inside their caps
// (symmetric families, many outputs): a soft pair left unpinned has a
// pivot below the rounding of its block, and the directions lose their
// digits.
func leanDirsRoom(n, m int) int { return 2*m + n }

// leanMaxDirs is the most deflation directions a lean iteration takes:
// past it (a face of optimal mechanisms with more than about 16(N + M)
// entries strictly inside their caps, or leanMaxDirsRoom) the iteration
// breaks down to the routes past the lean ones. The directions' system,
// factorised at every iteration, costs O(d³) for d directions, but those
// routes cost more where the lean one needs many: they stall on the same
// faces, and the LP over the set that then decides is N·M pairs wide.
// Under ALIP, abs-zipf's faces need about 8.4(N + M) directions at 48
// letters and 13(N + M) at 64, and the symmetric families about 5(N + M)
// at 48 (docs/performance.md, "Wide faces").
func leanMaxDirs(n, m int) int { return min(16*(n+m), leanMaxDirsRoom) }

// leanMaxDirsRoom bounds the directions' system, d² entries factorised in
// place, to 128 MiB.
const leanMaxDirsRoom = 4096

func newLeanDir(n, m int, a *staggered) leanDir {
	K := n * m
	v := a.take
	return leanDir{p: v(K), b: v(K), t: v(m), nu: v(m), y: v(n),
		sA: v(K), zA: v(K), sC: v(K), zC: v(K), sB: v(K), zB: v(K), sE: v(K), zE: v(K), sD: v(m), zD: v(m)}
}

// leanFits reports whether the lean iterations over a box take the set:
// a box that leaves some mass free (dualApplies), under ε-PML (leanBox),
// LIP or ALIP (leanTwo).
func leanFits(set *mech.PriorSet) bool {
	return set.IsBox() && dualApplies(set)
}

// newLeanBox sets up the rows and dualIPM's starting point.
func newLeanBox(pi mech.Prior, u mech.Utility, set *mech.PriorSet, mu float64) *leanBox {
	n, m := u.Dims()
	K := n * m
	a := new(staggered)
	v := a.take
	x := &leanBox{eta: leanEta, n: n, m: m, mu: mu, set: set, l: v(n), w: v(n), free: make([]bool, n), sl: 1}
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
	x.p, x.b, x.t, x.nu, x.y = v(K), v(K), v(m), v(m), v(n)
	x.sA, x.zA, x.sC, x.zC, x.sB, x.zB, x.sE, x.zE = v(K), v(K), v(K), v(K), v(K), v(K), v(K), v(K)
	x.sD, x.zD = v(m), v(m)
	x.rA, x.rC, x.rB, x.rE, x.rD = v(K), v(K), v(K), v(K), v(m)
	x.rdp, x.rdb, x.rdt, x.rdn, x.ra = v(K), v(K), v(m), v(m), v(n)
	x.ipp, x.ipb, x.ibb, x.vp, x.vb = v(K), v(K), v(K), v(3*K), v(3*K)
	x.sbi, x.sy, x.wk, x.vt = v(9*m), v(n*n), v(3*K), v(3*K)
	x.cA, x.cC, x.cB, x.cE, x.cD = v(K), v(K), v(K), v(K), v(m)
	x.wA, x.wC, x.wB, x.wE, x.wD = v(K), v(K), v(K), v(K), v(m)
	x.iA, x.iC, x.iB, x.iE, x.iD = v(K), v(K), v(K), v(K), v(m)
	x.gp, x.gb, x.gt, x.gn = v(K), v(K), v(m), v(m)
	x.hp, x.hb, x.ht, x.hn = v(K), v(K), v(m), v(m)
	x.aff, x.cor, x.fix = newLeanDir(n, m, a), newLeanDir(n, m, a), newLeanDir(n, m, a)
	x.r2 = v(n)
	x.isDefl, x.pinned = make([]bool, m), make([]bool, K)
	x.piv, x.wmax = v(K), v(m)
	md := leanDirsRoom(n, m)
	x.reserve(md, 2*n+3, n, v)
	x.hz = v(m)
	x.npairs = 2*K + 2*nfree*m + m

	// Start (dualIPM's): every entry 1/M, t between the entries and their
	// cap, each b half an entry, ν half an entry; every slack at least a
	// tenth of an entry and every multiplier 1.
	e := 1 / float64(m)
	floor := leanFloor * e
	for j := range m {
		x.t[j] = 0.5 * e * (1 + 1/mu)
		x.nu[j] = 0.5 * e
		for k := range n {
			pk := j*n + k
			x.p[pk] = e
			if x.free[k] {
				x.b[pk] = 0.5 * e
			}
		}
	}
	for j := range m {
		dv := x.sl*x.nu[j] - mu*x.t[j]
		for k := range n {
			pk := j*n + k
			x.sA[pk], x.zA[pk] = max(x.p[pk], floor), 1
			x.sC[pk], x.zC[pk] = max(x.t[j]-x.p[pk], floor), 1
			dv += x.l[k] * x.p[pk]
			if x.free[k] {
				x.sB[pk], x.zB[pk] = max(x.b[pk], floor), 1
				x.sE[pk], x.zE[pk] = max(x.b[pk]-x.nu[j]+x.p[pk], floor), 1
				dv -= x.w[k] * x.b[pk]
			}
		}
		x.sD[j], x.zD[j] = max(dv, floor), 1
	}
	x.mem = a
	return x
}

// residuals computes the KKT residuals at the current point.
func (x *leanBox) residuals() {
	n, m := x.n, x.m
	comp, primI, dualI, obj := 0.0, 0.0, 0.0, 0.0
	clear(x.ra)
	for j := range m {
		t, nu := x.t[j], x.nu[j]
		zd := x.zD[j]
		dv := x.sl*nu - x.mu*t
		st, sn := -x.mu*zd, x.sl*zd
		for k := range n {
			pk := j*n + k
			p := x.p[pk]
			obj += x.c[pk] * p
			x.ra[k] += p
			r := p - x.sA[pk]
			x.rA[pk] = r
			primI = maxAbsOf(primI, r)
			r = t - p - x.sC[pk]
			x.rC[pk] = r
			primI = maxAbsOf(primI, r)
			comp += x.sA[pk]*x.zA[pk] + x.sC[pk]*x.zC[pk]
			dv += x.l[k] * p
			rd := x.c[pk] - x.y[k] + x.zA[pk] - x.zC[pk] + x.l[k]*zd
			st += x.zC[pk]
			if x.free[k] {
				bk := x.b[pk]
				r = bk - x.sB[pk]
				x.rB[pk] = r
				primI = maxAbsOf(primI, r)
				r = bk - nu + p - x.sE[pk]
				x.rE[pk] = r
				primI = maxAbsOf(primI, r)
				comp += x.sB[pk]*x.zB[pk] + x.sE[pk]*x.zE[pk]
				dv -= x.w[k] * bk
				rd += x.zE[pk]
				rb := x.zB[pk] + x.zE[pk] - x.w[k]*zd
				x.rdb[pk] = rb
				dualI = maxAbsOf(dualI, rb)
				sn -= x.zE[pk]
			}
			x.rdp[pk] = rd
			dualI = maxAbsOf(dualI, rd)
		}
		r := dv - x.sD[j]
		x.rD[j] = r
		primI = maxAbsOf(primI, r)
		comp += x.sD[j] * zd
		x.rdt[j], x.rdn[j] = st, sn
		dualI = maxAbsOf(maxAbsOf(dualI, st), sn)
	}
	for k := range x.ra {
		x.ra[k]--
		primI = maxAbsOf(primI, x.ra[k])
	}
	x.comp, x.primI, x.dualI, x.obj = comp, primI, dualI, obj
}

// weights sets every row's weight ω = z/s and inverse slack 1/s.
func (x *leanBox) weights() {
	for pk := range x.sA {
		x.iA[pk], x.iC[pk] = 1/x.sA[pk], 1/x.sC[pk]
		x.wA[pk], x.wC[pk] = x.zA[pk]*x.iA[pk], x.zC[pk]*x.iC[pk]
		if x.free[pk%x.n] {
			x.iB[pk], x.iE[pk] = 1/x.sB[pk], 1/x.sE[pk]
			x.wB[pk], x.wE[pk] = x.zB[pk]*x.iB[pk], x.zE[pk]*x.iE[pk]
		}
	}
	for j := range x.sD {
		x.iD[j] = 1 / x.sD[j]
		x.wD[j] = x.zD[j] * x.iD[j]
	}
}

// factor builds each output's closed-form blocks and the system on the
// row sums' multipliers, and factorises it.
func (x *leanBox) factor() error {
	n, m := x.n, x.m
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
		// 1. The letters' 2×2 blocks D = [[δp + ωE, ωE], [ωE, δb + ωE]]
		// (δp = ωA + ωC, δb = ωB), their inverses and D⁻¹F, F the
		// coupling to (t, ν, ζ): (−ωC, −ωE, l) on p, (0, −ωE, −w) on b;
		// det = δp δb + ωE (δp + δb). The border's Schur complement S_b =
		// G − Σ Fᵀ D⁻¹ F has on (t, ν) the block T = α e_t e_tᵀ + β (e_t −
		// e_ν)(e_t − e_ν)ᵀ + γ e_ν e_νᵀ, each letter adding to α, β and γ
		// positive terms: where a letter's rows C, B and E are tight
		// together (t = p = ν) β is 10⁸ times α and γ, and T's entries
		// summed would lose them; det T = αβ + αγ + βγ keeps them.
		var al, be, ga, tz, nz, zz float64
		for k := range n {
			pk := j*n + k
			wA, wC := x.wA[pk], x.wC[pk]
			dp := wA + wC
			l, wd := x.l[k], x.w[k]
			v, vb := x.vp[3*pk:3*pk+3], x.vb[3*pk:3*pk+3]
			if x.pinned[pk] {
				// p held at 0: row C holds t alone, b is its own block.
				x.ipp[pk], x.ipb[pk], x.ibb[pk] = 0, 0, 0
				v[0], v[1], v[2] = 0, 0, 0
				vb[0], vb[1], vb[2] = 0, 0, 0
				al += wC
				if x.free[k] {
					wB, wE := x.wB[pk], x.wE[pk]
					ib := 1 / (wB + wE)
					x.ibb[pk] = ib
					vb[1], vb[2] = -wE*ib, -wd*ib
					ga += wE * wB * ib
					nz -= wE * wd * ib
					zz += wd * wd * ib
				}
				continue
			}
			if !x.free[k] {
				x.ipp[pk], x.ipb[pk], x.ibb[pk] = 1/dp, 0, 0
				v[0], v[1], v[2] = -wC/dp, 0, l/dp
				vb[0], vb[1], vb[2] = 0, 0, 0
				al += wC * wA / dp
				tz += wC * l / dp
				zz += l * l / dp
				continue
			}
			wB, wE := x.wB[pk], x.wE[pk]
			db := wB
			det := dp*db + wE*(dp+db)
			id := 1 / det
			x.ipp[pk], x.ipb[pk], x.ibb[pk] = (db+wE)*id, -wE*id, (dp+wE)*id
			v[0], v[1], v[2] = -wC*(db+wE)*id, -wE*db*id, (l*(db+wE)+wd*wE)*id
			vb[0], vb[1], vb[2] = wC*wE*id, -wE*dp*id, -(l*wE+wd*(dp+wE))*id
			al += wC * wA * (db + wE) * id
			be += wC * wE * db * id
			ga += wA * wE * db * id
			tz += wC * (l*(db+wE) + wE*wd) * id
			nz += wE * (db*l - dp*wd) * id
			zz += ((db+wE)*l*l + 2*wE*l*wd + (dp+wE)*wd*wd) * id
		}
		// S_b = [[T, v], [vᵀ, −ζ]] with v = (tz − μ, nz + 1 − Σl) and ζ =
		// 1/ω_D + zz > 0. Its inverse by the ζ pivot: T' = T + v vᵀ/ζ,
		// det T' = det T + Q/ζ with Q = vᵀ adj(T) v = β(v₁ + v₂)² + γ v₁²
		// + α v₂², both sums of positive terms.
		v1, v2 := tz-x.mu, nz+x.sl
		ze := 1/x.wD[j] + zz
		sb := x.sbi[9*j : 9*j+9]
		if x.isDefl[j] {
			// t is carried by the column's direction and held at 0: the
			// border is (ν, ζ), [[β + γ, v₂], [v₂, −ζ]].
			nn := be + ga
			den := nn*ze + v2*v2
			if !(den > 0) || math.IsInf(den, 0) {
				return errBrokeDown
			}
			clear(sb)
			sb[4], sb[5], sb[7], sb[8] = ze/den, v2/den, v2/den, -nn/den
		} else if !x.borderInverse(sb, al, be, ga, v1, v2, ze) {
			return errBrokeDown
		}
		// 2. The output's p-block of H⁻¹ is diag(1/π) + V S_b⁻¹ Vᵀ; its
		// rows of V and of V S_b⁻¹ go to the output's three columns of
		// the letters' rows of vt and wk.
		for k := range n {
			v := x.vp[3*(j*n+k):]
			at := k*3*m + 3*j
			copy(x.vt[at:at+3], v[:3])
			x.wk[at] = sb[0]*v[0] + sb[1]*v[1] + sb[2]*v[2]
			x.wk[at+1] = sb[3]*v[0] + sb[4]*v[1] + sb[5]*v[2]
			x.wk[at+2] = sb[6]*v[0] + sb[7]*v[1] + sb[8]*v[2]
			sy[k*n+k] += x.ipp[j*n+k]
		}
	}
	// 3. Every output's V S_b⁻¹ Vᵀ into the lower triangle of the system
	// at once, then its factor and the deflation directions' system.
	addLowerProduct(sy, n, x.wk, x.vt, 3*m)
	if x.chol.factorize(sy, n) == n {
		return errBrokeDown
	}
	return x.deflate()
}

// choosePins sets each pair's own pivot π (its curvature left after its
// b) and each output's largest row weight, and pins the soft pairs of
// the used outputs: π below leanSoftRel of the largest weight, never
// every pair of a letter (its row sum keeps the pair of largest π, or
// the rows' system would lose the letter's pivot).
func (x *leanBox) choosePins() {
	n, m := x.n, x.m
	for j := range m {
		wm := x.wD[j]
		for k := range n {
			pk := j*n + k
			wA, wC := x.wA[pk], x.wC[pk]
			pv := wA + wC
			wm = max(wm, max(wA, wC))
			if x.free[k] {
				wB, wE := x.wB[pk], x.wE[pk]
				pv += wE * wB / (wB + wE)
				wm = max(wm, max(wB, wE))
			}
			x.piv[pk] = pv
		}
		x.wmax[j] = wm
		if x.isDefl[j] {
			x.isDefl[j] = x.columnNearNull(j)
		}
	}
	pinSoftPairs(n, m, x.piv, x.wmax, x.isDefl, x.pinned)
}

// columnNearNull reports whether output j's column z_j is a near-null
// direction of its block: zᵀHz, which is the output's complementarity
// Σ s·z since every row of the block is homogeneous in z_j, below
// leanSoftRel of |z_j|² times the output's largest row weight, the test
// of a soft pair applied to the whole column. From the first deflating
// iterations a used output's column lies many powers of ten below that
// and an unused one's above it (its entries shrink with its slacks),
// though its mass is still far above leanDeflateMass: deflating those
// too makes the directions' system, cubic in its size, as large as the
// outputs on a location grid, with their soft pairs on top.
func (x *leanBox) columnNearNull(j int) bool {
	n := x.n
	comp := x.sD[j] * x.zD[j]
	norm := x.t[j]*x.t[j] + x.nu[j]*x.nu[j]
	for k := range n {
		pk := j*n + k
		comp += x.sA[pk]*x.zA[pk] + x.sC[pk]*x.zC[pk]
		norm += x.p[pk] * x.p[pk]
		if x.free[k] {
			comp += x.sB[pk]*x.zB[pk] + x.sE[pk]*x.zE[pk]
			norm += x.b[pk] * x.b[pk]
		}
	}
	return comp < leanSoftRel*norm*x.wmax[j]
}

// deflate sets up the deflation directions and their system. Each used
// output's column z_j = (p_j, b_j, t_j, ν_j) is near-null in its block
// (every row is homogeneous, so H z is the rows' multipliers and zᵀ H z
// the output's complementarity), and a soft pair's p (with its b's
// response) is held only by rows of other unknowns: eliminating the
// blocks with them would divide by the complementarity. With dx = Σ α_a
// z_a + w, w held at 0 on the used outputs' t and the soft pairs' p, the
// α's solve (K + Cᵀ S⁻¹ C) α = r_α − Cᵀ S⁻¹ σ, with C's columns e_a = E
// (z_a − uz_a), uz_a = Ĥ⁻¹ Qᵀ H z_a, and K_ab = z_aᵀ H z_b − (Qᵀ H
// z_a)·uz_b the curvature left along the z's after the w's, block
// diagonal by output (dualIPM's core).
func (x *leanBox) deflate() error {
	n, m := x.n, x.m
	st := 2*n + 3
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
			z[2*n], z[2*n+1] = x.t[j], x.nu[j]
		} else {
			z[k] = 1
			if pk := j*n + k; x.free[k] {
				wB, wE := x.wB[pk], x.wE[pk]
				z[n+k] = -wE / (wB + wE)
			}
		}
		x.applyH0(j, z, kz)
		// uz = Ĥ⁻¹ Qᵀ H z: Qᵀ drops t and the pinned p's.
		for k := range n {
			pk := j*n + k
			x.gp[pk], x.gb[pk] = kz[k], kz[n+k]
		}
		x.applyInvJ(j, 0, kz[2*n+1], kz[2*n+2])
		u := x.du[a*st : (a+1)*st]
		copy(u[:n], x.hp[j*n:(j+1)*n])
		copy(u[n:2*n], x.hb[j*n:(j+1)*n])
		u[2*n], u[2*n+1], u[2*n+2] = 0, x.hn[j], x.hz[j]
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
func (x *leanBox) curvature(a, b int) float64 {
	n := x.n
	st := 2*n + 3
	j := x.dj[a]
	za, kzb := x.dz[a*st:(a+1)*st], x.dkz[b*st:(b+1)*st]
	kza, ub := x.dkz[a*st:(a+1)*st], x.du[b*st:(b+1)*st]
	lo, hi := letterSpan(x.dk[a], n)
	v := 0.0
	for k := lo; k < hi; k++ {
		v += za[k] * kzb[k]
	}
	for k := lo; k < hi; k++ {
		v += za[n+k] * kzb[n+k]
	}
	v += za[2*n] * kzb[2*n]
	v += za[2*n+1] * kzb[2*n+1]
	for k := lo; k < hi; k++ {
		if !x.pinned[j*n+k] {
			v -= kza[k] * ub[k]
		}
		v -= kza[n+k] * ub[n+k]
	}
	return v - kza[2*n+1]*ub[2*n+1] - kza[2*n+2]*ub[2*n+2]
}

// letterSpan is the letters on which a deflation direction and its H₀
// product can be non-zero: every letter for an output's column (k < 0),
// the pair's own letter k for a soft pair, whose z is zero elsewhere and
// whose H₀ z is too but on the border. The curvatures' sums then skip
// only exact zeros, in the order of the full sums, so they come out the
// same to the last bit: a used output of a location grid holds tens of
// soft pairs, whose curvatures over every letter would cost O(n) each.
func letterSpan(k, n int) (lo, hi int) {
	if k < 0 {
		return 0, n
	}
	return k, k + 1
}

// applyH0 writes H₀ z into kz for an output-local z (p, b over the
// letters, then t, ν), H₀ the Hessian of every row but the dense one, and
// the dense row's a_D·z into kz's ζ entry: the augmented block's product.
func (x *leanBox) applyH0(j int, z, kz []float64) {
	n := x.n
	zt, zn := z[2*n], z[2*n+1]
	kt, kn, kd := 0.0, 0.0, x.sl*zn-x.mu*zt
	for k := range n {
		pk := j*n + k
		zp := z[k]
		fc := x.wC[pk] * (zt - zp)
		kp := x.wA[pk]*zp - fc
		kt += fc
		kd += x.l[k] * zp
		kb := 0.0
		if x.free[k] {
			zb := z[n+k]
			fe := x.wE[pk] * (zb - zn + zp)
			kp += fe
			kb = x.wB[pk]*zb + fe
			kn -= fe
			kd -= x.w[k] * zb
		}
		kz[k], kz[n+k] = kp, kb
	}
	kz[2*n], kz[2*n+1], kz[2*n+2] = kt, kn, kd
}

// borderInverse writes S_b⁻¹ into sb for T = α e_t e_tᵀ + β (e_t −
// e_ν)(…)ᵀ + γ e_ν e_νᵀ, v = (v₁, v₂) and ζ; false when S_b is singular.
func (x *leanBox) borderInverse(sb []float64, al, be, ga, v1, v2, ze float64) bool {
	dT := al*be + al*ga + be*ga
	q := be*(v1+v2)*(v1+v2) + ga*v1*v1 + al*v2*v2
	if !(dT+q/ze > 0) || math.IsInf(dT, 0) {
		return false
	}
	idt := 1 / (dT + q/ze)
	sb[0] = (be + ga + v2*v2/ze) * idt
	sb[1] = (be - v1*v2/ze) * idt
	sb[4] = (al + be + v1*v1/ze) * idt
	sb[3] = sb[1]
	sb[2] = (sb[0]*v1 + sb[1]*v2) / ze
	sb[5] = (sb[3]*v1 + sb[4]*v2) / ze
	sb[6], sb[7] = sb[2], sb[5]
	sb[8] = -dT / (ze*dT + q)
	return true
}

// applyInv writes H⁻¹ g into h (g's ζ part 0), output by output.
func (x *leanBox) applyInv() {
	for j := range x.m {
		x.applyInvJ(j, x.gt[j], x.gn[j], 0)
	}
}

// applyInvJ solves output j's block for the right-hand side gp, gb on its
// pairs and (rt, rn, rz) on its border into hp, hb, ht, hn, hz: the
// letters' blocks, then the border, then the letters again. A deflated
// output's t is held at 0.
func (x *leanBox) applyInvJ(j int, rt, rn, rz float64) {
	n := x.n
	for k := range n {
		pk := j*n + k
		gp, gb := x.gp[pk], x.gb[pk]
		if !x.free[k] {
			hp := x.ipp[pk] * gp
			x.hp[pk], x.hb[pk] = hp, 0
			rt += x.wC[pk] * hp
			rz -= x.l[k] * hp
			continue
		}
		hp := x.ipp[pk]*gp + x.ipb[pk]*gb
		hb := x.ipb[pk]*gp + x.ibb[pk]*gb
		x.hp[pk], x.hb[pk] = hp, hb
		rt += x.wC[pk] * hp
		rn += x.wE[pk] * (hp + hb)
		rz -= x.l[k]*hp - x.w[k]*hb
	}
	sb := x.sbi[9*j : 9*j+9]
	vt := sb[0]*rt + sb[1]*rn + sb[2]*rz
	vn := sb[3]*rt + sb[4]*rn + sb[5]*rz
	vz := sb[6]*rt + sb[7]*rn + sb[8]*rz
	x.ht[j], x.hn[j], x.hz[j] = vt, vn, vz
	for k := range n {
		pk := j*n + k
		v, vb := x.vp[3*pk:3*pk+3], x.vb[3*pk:3*pk+3]
		x.hp[pk] -= v[0]*vt + v[1]*vn + v[2]*vz
		x.hb[pk] -= vb[0]*vt + vb[1]*vn + vb[2]*vz
	}
}

// solve computes the direction d for the current residuals and the
// complementarity right-hand sides cA … cD and, where check is set,
// refines it (Wilkinson's iterative refinement) against its residuals in
// the unreduced equations: the predictor's direction only sets the
// centring and the corrector's second-order terms, and is not checked.
func (x *leanBox) solve(d *leanDir, check bool) {
	n, m := x.n, x.m
	// 1. g = r_d + Σ_r a_r (c_r − z_r r_r)/s_r over the unknowns.
	for j := range m {
		qd := x.cD[j]*x.iD[j] - x.wD[j]*x.rD[j]
		gt, gn := x.rdt[j]-x.mu*qd, x.rdn[j]+x.sl*qd
		for k := range n {
			pk := j*n + k
			qa := x.cA[pk]*x.iA[pk] - x.wA[pk]*x.rA[pk]
			qc := x.cC[pk]*x.iC[pk] - x.wC[pk]*x.rC[pk]
			gp := x.rdp[pk] + qa - qc + x.l[k]*qd
			gt += qc
			if x.free[k] {
				qb := x.cB[pk]*x.iB[pk] - x.wB[pk]*x.rB[pk]
				qe := x.cE[pk]*x.iE[pk] - x.wE[pk]*x.rE[pk]
				gp += qe
				x.gb[pk] = x.rdb[pk] + qb + qe - x.w[k]*qd
				gn -= qe
			} else {
				x.gb[pk] = 0
			}
			x.gp[pk] = gp
		}
		x.gt[j], x.gn[j] = gt, gn
	}
	x.reduced(x.ra, d)
	x.recover(d, true)
	// 2. Refinement: the direction's residuals R₂ = r_a + E dx and R₃ =
	// r_d + Aᵀdz − Eᵀdy are the right-hand sides of a correction with
	// r_p = c = 0. A correction that does not lower them is undone: the
	// factor is then too far off for the refinement to converge.
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

// reduced solves H dx + Eᵀ dy = g, E dx = −ra for g in gp … gn into
// d's unknowns; gp … gn are overwritten. Each output's block is solved
// for w (t held at 0 on the deflated outputs), then α and dy from
//
//	[diag ρ   Cᵀ ] [α ]   [r_α]
//	[C       −S  ] [dy] = [−σ ]
//
// with S the rows' system of the w's, C the e_a and σ = ra + E Ĥ⁻¹ g
// (deflate): (K + Cᵀ S⁻¹ C) α = r_α − Cᵀ S⁻¹ σ and dy = S⁻¹ σ + S⁻¹ C
// α. Eliminating α first would divide by K, of the order of the
// complementarity.
func (x *leanBox) reduced(ra []float64, d *leanDir) {
	n, m := x.n, x.m
	// 1. r_α = zᵀ g − uzᵀ Qᵀ g, before g changes.
	st := 2*n + 3
	md := len(x.dj)
	ralpha := x.ra2[:md]
	for a, j := range x.dj {
		z, u := x.dz[a*st:(a+1)*st], x.du[a*st:(a+1)*st]
		r := z[2*n]*x.gt[j] + (z[2*n+1]-u[2*n+1])*x.gn[j]
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
	// 3. w = Ĥ⁻¹ Qᵀ (g − α H z − Eᵀ dy) = Ĥ⁻¹ Qᵀ (g − Eᵀ dy) − α uz, and
	// dx = α z + w.
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
		x.ht[j] += al * z[2*n]
		x.hn[j] += al * (z[2*n+1] - u[2*n+1])
	}
	copy(d.p, x.hp)
	copy(d.b, x.hb)
	copy(d.t, x.ht)
	copy(d.nu, x.hn)
}

// recover sets d's slacks and multipliers from its unknowns: ds = a·dx
// + r and dz = (c − z ds)/s per row, with r and c the residuals and
// right-hand sides when withRes, else 0.
func (x *leanBox) recover(d *leanDir, withRes bool) {
	n := x.n
	f := 0.0
	if withRes {
		f = 1
	}
	for j := range x.m {
		dt, dn := d.t[j], d.nu[j]
		dv := x.sl*dn - x.mu*dt
		for k := range n {
			pk := j*n + k
			dp := d.p[pk]
			ds := dp + f*x.rA[pk]
			d.sA[pk], d.zA[pk] = ds, f*x.cA[pk]*x.iA[pk]-x.wA[pk]*ds
			ds = dt - dp + f*x.rC[pk]
			d.sC[pk], d.zC[pk] = ds, f*x.cC[pk]*x.iC[pk]-x.wC[pk]*ds
			dv += x.l[k] * dp
			if x.free[k] {
				db := d.b[pk]
				ds = db + f*x.rB[pk]
				d.sB[pk], d.zB[pk] = ds, f*x.cB[pk]*x.iB[pk]-x.wB[pk]*ds
				ds = db - dn + dp + f*x.rE[pk]
				d.sE[pk], d.zE[pk] = ds, f*x.cE[pk]*x.iE[pk]-x.wE[pk]*ds
				dv -= x.w[k] * db
			}
		}
		ds := dv + f*x.rD[j]
		d.sD[j], d.zD[j] = ds, f*x.cD[j]*x.iD[j]-x.wD[j]*ds
	}
}

// dirResiduals writes d's residuals in the row sums (R₂, into r2) and in
// the dual equations (R₃, into gp … gn), and returns their largest
// magnitude. The other two blocks of equations recover satisfies
// exactly.
func (x *leanBox) dirResiduals(d *leanDir) float64 {
	n, m := x.n, x.m
	copy(x.r2, x.ra)
	worst := 0.0
	for j := range m {
		zd := d.zD[j]
		gt, gn := x.rdt[j]-x.mu*zd, x.rdn[j]+x.sl*zd
		for k := range n {
			pk := j*n + k
			x.r2[k] += d.p[pk]
			gp := x.rdp[pk] - d.y[k] + d.zA[pk] - d.zC[pk] + x.l[k]*zd
			gt += d.zC[pk]
			if x.free[k] {
				gp += d.zE[pk]
				gb := x.rdb[pk] + d.zB[pk] + d.zE[pk] - x.w[k]*zd
				x.gb[pk] = gb
				worst = maxAbsOf(worst, gb)
				gn -= d.zE[pk]
			} else {
				x.gb[pk] = 0
			}
			x.gp[pk] = gp
			worst = maxAbsOf(worst, gp)
		}
		x.gt[j], x.gn[j] = gt, gn
		worst = maxAbsOf(maxAbsOf(worst, gt), gn)
	}
	return max(worst, maxAbs(x.r2))
}

// dirSize is the scale against which a direction's residuals are
// measured: its largest multiplier step, or 1.
func (x *leanBox) dirSize(d *leanDir) float64 {
	return max(1, max(maxAbs(d.y), max(maxAbs(d.zC), maxAbs(d.zD))))
}

// addDir adds a·f to d.
func (x *leanBox) addDir(d, f *leanDir, a float64) {
	for _, v := range [][2][]float64{{d.p, f.p}, {d.b, f.b}, {d.t, f.t}, {d.nu, f.nu}, {d.y, f.y},
		{d.sA, f.sA}, {d.zA, f.zA}, {d.sC, f.sC}, {d.zC, f.zC}, {d.sB, f.sB}, {d.zB, f.zB},
		{d.sE, f.sE}, {d.zE, f.zE}, {d.sD, f.sD}, {d.zD, f.zD}} {
		axpy(v[0], a, v[1])
	}
}

// stepLengths returns the largest primal and dual steps in (0, limit] that
// keep the slacks and multipliers nonnegative along d.
func (x *leanBox) stepLengths(d *leanDir, limit float64) (ap, ad float64) {
	ap = min(stepWithin(limit, x.sA, d.sA, x.sC, d.sC), stepWithin(limit, x.sB, d.sB, x.sE, d.sE))
	ap = min(ap, stepWithin(limit, x.sD, d.sD, nil, nil))
	ad = min(stepWithin(limit, x.zA, d.zA, x.zC, d.zC), stepWithin(limit, x.zB, d.zB, x.zE, d.zE))
	ad = min(ad, stepWithin(limit, x.zD, d.zD, nil, nil))
	return ap, ad
}

// affineComp returns the complementarity after steps ap and ad along d.
func (x *leanBox) affineComp(d *leanDir, ap, ad float64) float64 {
	c := 0.0
	for pk := range x.sA {
		c += (x.sA[pk] + ap*d.sA[pk]) * (x.zA[pk] + ad*d.zA[pk])
		c += (x.sC[pk] + ap*d.sC[pk]) * (x.zC[pk] + ad*d.zC[pk])
		if x.free[pk%x.n] {
			c += (x.sB[pk] + ap*d.sB[pk]) * (x.zB[pk] + ad*d.zB[pk])
			c += (x.sE[pk] + ap*d.sE[pk]) * (x.zE[pk] + ad*d.zE[pk])
		}
	}
	for j := range x.sD {
		c += (x.sD[j] + ap*d.sD[j]) * (x.zD[j] + ad*d.zD[j])
	}
	return c
}

// step makes one predictor-corrector iteration; the residuals must be up
// to date.
func (x *leanBox) step() error {
	if err := x.factor(); err != nil {
		return err
	}
	muC := x.comp / float64(x.npairs)
	// 1. The affine direction: c = −s z.
	negProd(x.cA, x.sA, x.zA)
	negProd(x.cC, x.sC, x.zC)
	negProd(x.cB, x.sB, x.zB)
	negProd(x.cE, x.sE, x.zE)
	negProd(x.cD, x.sD, x.zD)
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
	corrector(x.cD, x.sD, x.zD, a.sD, a.zD, target)
	c := &x.cor
	x.solve(c, true)
	// 3. The step (leanRun.advance).
	apMax, adMax := x.stepLengths(c, 1/x.eta)
	x.advance(x.residuals, apMax, adMax, stepFraction(x.eta, muC), func(ap, ad float64) float64 { return x.affineComp(c, ap, ad) }, func(ap, ad float64) {
		axpy(x.p, ap, c.p)
		axpy(x.b, ap, c.b)
		axpy(x.t, ap, c.t)
		axpy(x.nu, ap, c.nu)
		axpy(x.y, ad, c.y)
		axpy(x.sA, ap, c.sA)
		axpy(x.sC, ap, c.sC)
		axpy(x.sB, ap, c.sB)
		axpy(x.sE, ap, c.sE)
		axpy(x.sD, ap, c.sD)
		axpy(x.zA, ad, c.zA)
		axpy(x.zC, ad, c.zC)
		axpy(x.zB, ad, c.zB)
		axpy(x.zE, ad, c.zE)
		axpy(x.zD, ad, c.zD)
	})
	if math.IsNaN(x.p[0]) || math.IsNaN(x.y[0]) {
		return errBrokeDown
	}
	return nil
}

// maxAbsOf returns the larger of m ≥ 0 and |v| (math.Max without its
// care for NaN and signed zeros, which the sums of the residuals carry
// anyway).
func maxAbsOf(m, v float64) float64 {
	// math.Abs clears the sign bit: no branch on a sign that residuals
	// flip at random.
	if v = math.Abs(v); v > m {
		return v
	}
	return m
}

// negProd sets c to −s z entrywise.
func negProd(c, s, z []float64) {
	for i := range c {
		c[i] = -s[i] * z[i]
	}
}

// corrector sets c to target − s z − ds dz entrywise.
func corrector(c, s, z, ds, dz []float64, target float64) {
	for i := range c {
		c[i] = target - s[i]*z[i] - ds[i]*dz[i]
	}
}

// axpy adds a·d to v.
func axpy(v []float64, a float64, d []float64) {
	for i := range v {
		v[i] += a * d[i]
	}
}

// runTo runs x (leanRun.run), keeping the entries and the multipliers
// its reading uses.
func (x *leanBox) runTo(ctx context.Context, maxIter int, tol float64) (iters int, done bool, err error) {
	return x.run(ctx, x, maxIter, tol, [][]float64{x.p, x.zA, x.zC, x.zE, x.zD, x.y})
}

// prior returns output j's worst prior read off the multipliers, as
// dualIPM.prior does: l_k + z_E/z_D on letter k, the inner LP's
// solution, moved into the box (intoSet) where rounding leaves it just
// outside, or the box's greedy worst prior for the column where it is
// far; nil for an unused output.
func (x *leanBox) prior(j int) []float64 {
	n := x.n
	if zd := x.zD[j]; zd > 0 && !math.IsInf(zd, 0) {
		pr := make([]float64, n)
		finite := true
		for k := range n {
			v := x.l[k]
			if x.free[k] {
				v += x.zE[j*n+k] / zd
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
	return x.set.Extreme(tiedColumn(col), false)
}

// reading returns what SolveRobust's result needs from the point.
func (x *leanBox) reading() *robustReading {
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

func (x *leanBox) String() string { return fmt.Sprintf("leanBox(%d×%d)", x.n, x.m) }

// solveRobustLean is SolveRobust's lean route: ε-PML over a box by
// leanBox, LIP and ALIP by leanTwo, certified by settle as
// solveRobustDual's answer is (solveLean: one run, two where the first
// stalls). Its Cuts is 0.
func solveRobustLean(ctx context.Context, p RobustProblem, pi mech.Prior, mu, kap float64, lip bool, maxIter int, target, accept float64) (*RobustResult, error) {
	if !leanFits(p.Set) {
		return nil, ErrRobustNotConverged
	}
	return solveLean(ctx, func(eta float64) robustOnce {
		if lip {
			x := newLeanTwo(pi, p.Utility, p.Set, mu, kap)
			x.eta = eta
			return x
		}
		x := newLeanBox(pi, p.Utility, p.Set, mu)
		x.eta = eta
		return x
	}, p, pi, maxIter, target, accept)
}

// leanMaxIter caps a lean run's iterations on n letters: past it the
// run is stalling and SolveRobust goes on. A run answers within a few
// dozen iterations at tens of letters (dualMaxIter), but its steps stay
// short longer as the letters grow: on location grids over a
// Clopper–Pearson box the iterations grow about as 4√n
// (docs/performance.md, "Location grids over a confidence box"), and
// past the cap the cutting planes take minutes there.
func leanMaxIter(n int) int {
	return dualMaxIter + int(math.Ceil(leanIterPerRoot*math.Sqrt(float64(n))))
}

// leanIterPerRoot is leanMaxIter's iterations per root of the letters.
const leanIterPerRoot = 4

// solveLean runs the lean route that start sets up, its steps going up
// to leanEta of the way to the boundary, and where that run stalls once
// more from the start with leanRetryEta, then with leanLastEta: a run
// whose step sets the dense rows' slacks to rounding level while a tie
// between outputs is still open can lose the directions' digits along
// the tie, and a run that keeps further from the boundary crosses it.
// Each run costs a fraction of the rounds that SolveRobust falls back on.
// The answer counts the runs as its Rounds and their iterations; an error
// where every run fails says why each did.
func solveLean(ctx context.Context, start func(eta float64) robustOnce, p RobustProblem, pi mech.Prior, maxIter int, target, accept float64) (*RobustResult, error) {
	maxIter = min(maxIter, leanMaxIter(len(pi)))
	type failed struct {
		r   *RobustResult
		err error
	}
	var runs []failed
	iters := 0
	for k, eta := range leanEtas {
		x := start(eta)
		// A stalled run but the last is checked only where those after
		// it fail too: most often one of them answers. The result holds
		// copies of what it read: x's slices go back to the pool.
		r, n, err := solveOnceCounting(ctx, x, p, pi, maxIter, target, accept, k < len(leanEtas)-1)
		if y, ok := x.(interface{ release() }); ok {
			y.release()
		}
		iters += n
		if err == nil {
			r.Rounds, r.Iterations = k+1, iters
			return r, nil
		}
		runs = append(runs, failed{r, err})
		if ctx.Err() != nil {
			break
		}
	}
	// A run that stalled within the accepted gap of its bound is kept, and
	// said so, for SolveRobust to fall back on.
	var kept stalledAnswer
	why := make([]string, len(runs))
	for k := range runs {
		f := &runs[k]
		f.err = resolve(f.r, f.err)
		kept.offer(f.r, f.err)
		why[k] = fmt.Sprintf("the run stepping %g of the way: %v", leanEtas[k], f.err)
	}
	for _, f := range runs {
		if kept.best != nil && f.r == kept.best {
			f.r.Rounds, f.r.Iterations = len(runs), iters
			return f.r, fmt.Errorf("%w; %s", f.err, strings.Join(why, "; "))
		}
	}
	return nil, fmt.Errorf("%w; %s", runs[len(runs)-1].err, strings.Join(why, "; "))
}

// pinSoftPairs sets pinned for the pairs of the used outputs (isDefl)
// whose own pivot piv is below leanSoftRel of their output's largest row
// weight wmax: soft pairs, carried by deflation directions. Never every
// pair of a letter: its row sum keeps the pair of largest pivot, or the
// rows' system would lose the letter's pivot.
func pinSoftPairs(n, m int, piv, wmax []float64, isDefl, pinned []bool) {
	for k := range n {
		keep, best := -1, -1.0
		for j := range m {
			pk := j*n + k
			pinned[pk] = isDefl[j] && piv[pk] < leanSoftRel*wmax[j]
			if piv[pk] > best {
				keep, best = pk, piv[pk]
			}
		}
		if keep >= 0 {
			pinned[keep] = false
		}
	}
}

// release hands x's slices back to their pool; x is not used after it.
func (x *leanBox) release() { x.mem.release() }
