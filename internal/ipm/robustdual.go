package ipm

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/internal/vec"
	"github.com/pmlopt/pmlopt/mech"
)

// dualIPM is the interior-point method of SolveRobust's second route:
// each output's constraint over the set written with the dual of its
// inner LP (docs/theory.md §7, "The dualised constraints"), no list of
// priors and no rounds.
//
// For a box {l ≤ π ≤ u, Σπ = 1} the least mass min_π π·p of a column is
// the largest ν(1 − Σl) + l·p − (u − l)·b over b ≥ 0, b_k ≥ ν − p_k; for
// the L1 ball of radius r around π̂ (cut by the simplex) it is the largest
// π̂·p − π̂·b − r λ over λ ≥ 0, b ≥ 0, b_k ≥ p_k − ν − λ, p_k ≥ ν − λ. The
// greatest mass max_π π·p is the least of the mirrored expressions. So
// each output j gets a few unknowns of its own (t_j, h_j, the ν and λ of
// each side: its border) and one b per letter and side, and every
// constraint is an inequality a·x ≥ 0 that touches one pair's unknowns
// and its output's, except one dense row per side and output:
//
//	p_ij ≥ h_j (p_ij ≥ 0 for ε-PML),  t_j ≥ p_ij,
//	(box) b ≥ 0, b_k − ν + p_k ≥ 0,   ν(1 − Σl) + l·p − (u − l)·b ≥ μ t_j,
//	(ball) b ≥ 0, b_k + ν + λ − p_k ≥ 0, p_k − ν + λ ≥ 0, λ ≥ 0,
//	       π̂·p − π̂·b − r λ ≥ μ t_j,
//
// and under LIP and ALIP the mirrored rows bounding κ times the greatest
// mass by h_j. A letter whose mass the box fixes (u_k = l_k) has no b:
// it would be held by nothing.
//
// Mehrotra's predictor-corrector on these rows. With ω = z/s for each
// row's slack s and multiplier z, the Newton system's Hessian is Σ ω a aᵀ,
// block diagonal over the outputs; each dense row is kept as one more
// unknown ζ = ω a·dx with diagonal −1/ω. Near the optimum these blocks
// are nearly singular in three ways, each of which a plain elimination
// turns into lost digits (robustdualnewton.go):
//
//   - every row is homogeneous, so scaling an output's whole column
//     changes no row but the row sums: each used output's own column is a
//     deflation direction, solved together with the rows' multipliers;
//   - an entry strictly inside its caps (a soft pair) is held only by its
//     output's dense row and its row sum: its p is a deflation direction
//     too;
//   - rows tight together tie unknowns with weights far above the rest
//     (t = p = ν on a column at its caps): the pairs' blocks are inverted
//     in closed form and the border's Schur complement is built from
//     positive rank-one terms (ldlt), never as a difference.
//
// Below a gap measure of dualCheckBelow each direction's residual in the
// unreduced equations is checked and, where the structured solve falls
// short, GMRES (robustdualkrylov.go) finishes it. The duals of each
// side's rows give the output's worst prior, which the certificate uses.
type dualIPM struct {
	n, m       int
	nq, no, nd int // unknowns per pair, per output; dense rows per output
	mr         int // no + nd: the border
	lip        bool
	kap        float64
	set        *mech.PriorSet
	c          []float64 // scaled objective per pair (k = j·n + i)
	scale      float64

	prow  []dualPairRow
	drow  []dualDenseRow
	orow  []dualOutRow
	qB    [2]int // the pair index of each side's b (−1 when absent)
	oT    int    // index of t among the output's unknowns
	oH    int    // of h, −1 without lower caps
	upper int    // index in drow of the upper side's row
	lower int    // of the lower side's, −1 without lower caps

	x  []float64 // pair unknowns, [(j·n + i)·nq + q]; q = 0 is p_ij
	xo []float64 // output unknowns, [j·no + o]
	y  []float64

	ps, pz [][]float64 // pair rows' slacks and multipliers, [row][j·n + i]
	pw     [][]float64 // their weights z/s where present (factor)
	rowsAt [][]int     // per letter, the pair rows present there, in order
	ds, dz []float64   // dense rows', [j·nd + d]
	os, oz [][]float64 // output rows', [row][j]

	// residuals
	rdx, rdo     []float64 // dual, per unknown
	rpp          [][]float64
	rpd          []float64
	rpo          [][]float64
	ra           []float64
	comp         float64
	primI, dualI float64
	obj          float64 // the scaled objective at the point (residuals)
	npairs       int     // complementary pairs (pairs)
	held         float64
	dinv         []float64 // inverted pair blocks, nq² per pair
	dinvF        []float64 // per pair: nq × mr
	// per output: A'⁻¹ (no × no), C⁻¹ (nd × nd) and B (no × nd) of the
	// border's Schur complement (factor).
	soInv, cinv, bm []float64
	ldl             ldlt
	vt, w1, w2      []float64 // factor's scratch
	sDots           []float64 // factor's: a row's terms of S from Ṽ and from V_ζ
	tmpO, tmpZ      []float64
	bOn             []bool // [k·nq + q]: letter k has the b of pair index q
	krylovTol       float64
	krylov          *gmresWork // gmres's scratch
	// Deflation (core): which outputs' columns (defl) and pairs' p
	// (pinP) are directions, their data (dirs, outDirs), K's entries
	// (kent), S⁻¹C and the system of the directions (gmat, gchol).
	defl          []bool
	pinP          []bool // per pair: p carried by a soft pair's direction
	wmax, freeReg []float64
	maxPinned     int
	dirs          []deflDir
	outDirs       [][]int
	kent          []kEntry
	sinvC, gmat   []float64
	rho, alpha    []float64
	sigSave       []float64
	gchol         cholesky
	stars         []pairStarWeights // per pair, gathered by choosePins
	S             []float64
	chol          cholesky
	scratch       []float64
	gx, go_       []float64
	aff, cor      dualDir
	rcp           [][]float64
	rcd           []float64
	rco           [][]float64
	tmpP          []float64
	tmpR, tmpR2   []float64
	rhsY          []float64
	rx            []float64
	bwt, bvs      []float64 // gatherPairBorder's and flushPairBorder's scratch
	bkind         []int
	bedge, bself  []float64 // the summed weights of the border's terms (gatherPairBorder)
	bdiff         []float64
	bchol         []float64 // addBorderDense's Cholesky factor
	fix           dualDir
}

// dualPairRow is a kind of row present at the pairs of every output:
// coefficients on the pair's unknowns and on its output's, the rows
// absent at the letters where has is false (has nil: present at all).
type dualPairRow struct {
	pair []float64 // nq
	bq   int       // the b it touches, −1 for none
	out  []float64 // no
	// pairNZ and outNZ list pair's and out's nonzero coefficients.
	pairNZ, outNZ []coef
	has           []bool
	letters       []int // the letters where the row is present, in order
	side          int   // 0 none, 1 upper, 2 lower: whose prior the multiplier weighs
}

// coef is a nonzero coefficient a on unknown i.
type coef struct {
	i int
	a float64
}

// nonzeros lists v's nonzero entries.
func nonzeros(v []float64) []coef {
	var c []coef
	for i, a := range v {
		if a != 0 {
			c = append(c, coef{i, a})
		}
	}
	return c
}

// at reports whether the row is present at letter k's pairs.
func (r *dualPairRow) at(k int) bool { return r.has == nil || r.has[k] }

// scatter adds v times the row's coefficients to px (the pair's unknowns)
// and po (its output's).
func (r *dualPairRow) scatter(v float64, px, po []float64) {
	for _, c := range r.pairNZ {
		px[c.i] += v * c.a
	}
	for _, c := range r.outNZ {
		po[c.i] += v * c.a
	}
}

// value returns the row's a·x for px the pair's unknowns and po its
// output's.
func (r *dualPairRow) value(px, po []float64) float64 {
	v := 0.0
	for _, c := range r.pairNZ {
		v += c.a * px[c.i]
	}
	for _, c := range r.outNZ {
		v += c.a * po[c.i]
	}
	return v
}

// The passes over the pair rows visit them by output j, row r and letter
// k, with the slices of the output's pairs (xj, n·nq unknowns; ps, pz
// and the like, n entries) and of its own unknowns hoisted out of the
// letters' loop.

// dualDenseRow is a side's row over a whole column: coefficients per
// letter on the pair's unknowns and on the output's.
type dualDenseRow struct {
	pair []float64 // n·nq
	out  []float64 // no
}

// scatter adds v times the row's coefficients to px (output j's pair
// unknowns, n·nq of them) and po (its own unknowns).
func (d *dualDenseRow) scatter(v float64, px, po []float64) {
	vec.AddScaled(px, v, d.pair)
	vec.AddScaled(po, v, d.out)
}

// dualOutRow is a row on an output's own unknowns (λ ≥ 0).
type dualOutRow struct {
	out []float64
}

// dualDir is a Newton direction.
type dualDir struct {
	x, xo, y []float64
	ps, pz   [][]float64
	ds, dz   []float64
	os, oz   [][]float64
}

func newDualDir(x *dualIPM) dualDir {
	d := dualDir{x: make([]float64, len(x.x)), xo: make([]float64, len(x.xo)), y: make([]float64, x.n),
		ds: make([]float64, len(x.ds)), dz: make([]float64, len(x.dz))}
	for range x.prow {
		d.ps = append(d.ps, make([]float64, x.n*x.m))
		d.pz = append(d.pz, make([]float64, x.n*x.m))
	}
	for range x.orow {
		d.os = append(d.os, make([]float64, x.m))
		d.oz = append(d.oz, make([]float64, x.m))
	}
	return d
}

// dualApplies reports whether the dualised route can take the set: each
// side's inner LP must have an interior, or its dual unknowns run off to
// infinity along the free directions of a set that is a single prior.
func dualApplies(set *mech.PriorSet) bool {
	if set.IsBox() {
		sl, su := 0.0, 0.0
		for k := range set.Lower {
			sl += set.Lower[k]
			su += set.Upper[k]
		}
		return 1-sl > dualFixedMass && su-1 > dualFixedMass
	}
	return set.Radius > dualFixedMass
}

// dualFixedMass is the mass 1 − Σl (or the radius) below which the set
// counts as one prior for the dualised route.
const dualFixedMass = 1e-9

// newDualIPM sets up the rows for the set and the starting point.
func newDualIPM(pi mech.Prior, u mech.Utility, set *mech.PriorSet, mu, kap float64, lip bool) *dualIPM {
	n, m := u.Dims()
	x := &dualIPM{n: n, m: m, lip: lip, kap: kap, lower: -1, oH: -1, set: set}
	x.c, x.scale = scaledObjective(pi, u)
	box := set.IsBox()
	// Unknowns: p, b_up, [b_low] per pair; t, [h], ν_up, [λ_up], [ν_low,
	// λ_low] per output.
	x.nq = 2
	x.qB = [2]int{1, -1}
	if lip {
		x.nq = 3
		x.qB[1] = 2
	}
	o := 0
	next := func() int { o++; return o - 1 }
	x.oT = next()
	if lip {
		x.oH = next()
	}
	oNu := [2]int{next(), -1}
	oLam := [2]int{-1, -1}
	if !box {
		oLam[0] = next()
	}
	if lip {
		oNu[1] = next()
		if !box {
			oLam[1] = next()
		}
	}
	x.no = o
	pr := func(side int, has []bool, pc map[int]float64, oc map[int]float64) {
		r := dualPairRow{pair: make([]float64, x.nq), out: make([]float64, x.no), has: has, side: side, bq: -1}
		for q, v := range pc {
			r.pair[q] = v
			if q > 0 {
				r.bq = q
			}
		}
		for q, v := range oc {
			r.out[q] = v
		}
		r.pairNZ, r.outNZ = nonzeros(r.pair), nonzeros(r.out)
		for k := range n {
			if r.at(k) {
				r.letters = append(r.letters, k)
			}
		}
		x.prow = append(x.prow, r)
	}
	// The caps: p ≥ h (p ≥ 0) and t ≥ p.
	if lip {
		pr(0, nil, map[int]float64{0: 1}, map[int]float64{x.oH: -1})
	} else {
		pr(0, nil, map[int]float64{0: 1}, nil)
	}
	pr(0, nil, map[int]float64{0: -1}, map[int]float64{x.oT: 1})
	sides := 1
	if lip {
		sides = 2
	}
	for sd := range sides {
		var has []bool // a ball's letters all have their b
		if box {
			has = make([]bool, n)
			for k := range n {
				has[k] = set.Upper[k] > set.Lower[k]
			}
		}
		qb, nu, lam := x.qB[sd], oNu[sd], oLam[sd]
		pr(sd+1, has, map[int]float64{qb: 1}, nil) // b ≥ 0
		dr := dualDenseRow{pair: make([]float64, n*x.nq), out: make([]float64, x.no)}
		if sd == 0 {
			// The least mass is at least μ t.
			if box {
				pr(1, has, map[int]float64{qb: 1, 0: 1}, map[int]float64{nu: -1})
				sl := 0.0
				for k := range n {
					sl += set.Lower[k]
					dr.pair[k*x.nq] = set.Lower[k]
					dr.pair[k*x.nq+qb] = -(set.Upper[k] - set.Lower[k])
				}
				dr.out[nu] = 1 - sl
			} else {
				pr(1, has, map[int]float64{qb: 1, 0: -1}, map[int]float64{nu: 1, lam: 1})
				pr(1, nil, map[int]float64{0: 1}, map[int]float64{nu: -1, lam: 1})
				for k := range n {
					dr.pair[k*x.nq] = pi[k]
					dr.pair[k*x.nq+qb] = -pi[k]
				}
				dr.out[lam] = -set.Radius
			}
			dr.out[x.oT] = -mu
			x.upper = len(x.drow)
		} else {
			// h is at least κ times the greatest mass.
			if box {
				pr(2, has, map[int]float64{qb: 1, 0: -1}, map[int]float64{nu: 1})
				sl := 0.0
				for k := range n {
					sl += set.Lower[k]
					dr.pair[k*x.nq] = -kap * set.Lower[k]
					dr.pair[k*x.nq+qb] = -kap * (set.Upper[k] - set.Lower[k])
				}
				dr.out[nu] = -kap * (1 - sl)
			} else {
				pr(2, has, map[int]float64{qb: 1, 0: 1}, map[int]float64{nu: -1, lam: 1})
				pr(2, nil, map[int]float64{0: -1}, map[int]float64{nu: 1, lam: 1})
				for k := range n {
					dr.pair[k*x.nq] = -kap * pi[k]
					dr.pair[k*x.nq+qb] = -kap * pi[k]
				}
				dr.out[lam] = -kap * set.Radius
			}
			dr.out[x.oH] = 1
			x.lower = len(x.drow)
		}
		x.drow = append(x.drow, dr)
		if lam >= 0 {
			r := dualOutRow{out: make([]float64, x.no)}
			r.out[lam] = 1
			x.orow = append(x.orow, r)
		}
	}
	x.nd = len(x.drow)
	x.mr = x.no + x.nd
	x.bOn = make([]bool, n*x.nq)
	for k := range n {
		for q := 1; q < x.nq; q++ {
			x.bOn[k*x.nq+q] = x.hasB(k, q)
		}
	}
	K := n * m
	v := func(l int) []float64 { return make([]float64, l) }
	x.x, x.xo, x.y = v(K*x.nq), v(m*x.no), v(n)
	for range x.prow {
		x.ps, x.pz, x.rpp, x.rcp = append(x.ps, v(K)), append(x.pz, v(K)), append(x.rpp, v(K)), append(x.rcp, v(K))
		x.pw = append(x.pw, v(K))
	}
	x.rowsAt = make([][]int, n)
	for k := range n {
		for r := range x.prow {
			if x.prow[r].at(k) {
				x.rowsAt[k] = append(x.rowsAt[k], r)
			}
		}
	}
	x.ds, x.dz, x.rpd, x.rcd = v(m*x.nd), v(m*x.nd), v(m*x.nd), v(m*x.nd)
	for range x.orow {
		x.os, x.oz, x.rpo, x.rco = append(x.os, v(m)), append(x.oz, v(m)), append(x.rpo, v(m)), append(x.rco, v(m))
	}
	x.rdx, x.rdo, x.ra = v(K*x.nq), v(m*x.no), v(n)
	x.gx, x.go_ = v(K*x.nq), v(m*x.no)
	x.dinv = v(K * x.nq * x.nq)
	x.dinvF = v(K * x.nq * x.mr)
	x.soInv, x.cinv, x.bm = v(m*x.no*x.no), v(m*x.nd*x.nd), v(m*x.no*x.nd)
	x.vt, x.w1, x.w2, x.tmpO, x.tmpZ = v(n*x.no), v(n*x.no), v(n*x.nd), v(x.no), v(x.nd)
	x.sDots = v(2 * n)
	x.stars = make([]pairStarWeights, K)
	x.S = v(n * n)
	x.tmpP = v(n * x.nq)
	x.tmpR, x.tmpR2 = v(x.mr), v(x.mr)
	x.rhsY = v(n)
	x.aff, x.cor = newDualDir(x), newDualDir(x)
	// GMRES's preconditioner (core) solves for the unknowns alone.
	x.fix = dualDir{x: v(len(x.x)), xo: v(len(x.xo)), y: v(n)}
	x.npairs = x.pairs()
	x.rx = v(n)
	x.bdiff, x.bchol = v(x.no), v(x.nd*x.nd)
	x.bvs = v(2 * x.no)
	x.bedge, x.bself = v(len(x.prow)*len(x.prow)), v(len(x.prow))
	x.defl = make([]bool, m)
	x.pinP = make([]bool, K)
	x.wmax, x.freeReg = v(m), v(m)
	x.outDirs = make([][]int, m)
	// The directions' system is dense (core): its cost grows as the cube
	// of their count, and past n + m soft pairs (a face of optimal
	// mechanisms, not a vertex) eliminating the rest in place costs less
	// than the digits it loses, which GMRES recovers.
	x.maxPinned = n + m

	// Start: every row spread evenly, t_j between the entries and their
	// cap, h_j between κ times the entries and the entries, each b a half
	// of an entry where the letter has it, the ν's and λ's about an entry;
	// every slack at least a tenth of an entry (not necessarily consistent
	// with the unknowns) and every multiplier 1.
	e := 1 / float64(m)
	for j := range m {
		for k := range n {
			pk := j*n + k
			x.x[pk*x.nq] = e
			for sd := range sides {
				if q := x.qB[sd]; x.bOn[k*x.nq+q] {
					x.x[pk*x.nq+q] = 0.5 * e
				}
			}
		}
		xo := x.xo[j*x.no : (j+1)*x.no]
		xo[x.oT] = 0.5 * e * (1 + 1/mu)
		if lip {
			xo[x.oH] = 0.5 * e * (1 + kap)
		}
		for sd := range sides {
			xo[oNu[sd]] = e
			if box && sd == 0 {
				xo[oNu[sd]] = 0.5 * e
			}
			if oLam[sd] >= 0 {
				xo[oLam[sd]] = 0.5 * e
			}
		}
	}
	floor := 0.1 * e
	x.eachRow(func(v float64) (float64, float64) { return max(v, floor), 1 })
	return x
}

// eachRow sets every present row's slack and multiplier to f(a·x).
func (x *dualIPM) eachRow(f func(ax float64) (s, z float64)) {
	n, nq, no := x.n, x.nq, x.no
	for j := range x.m {
		xj, xoj := x.x[j*n*nq:(j+1)*n*nq], x.xo[j*no:(j+1)*no]
		for r := range x.prow {
			row := &x.prow[r]
			ps, pz := x.ps[r][j*n:(j+1)*n], x.pz[r][j*n:(j+1)*n]
			for _, k := range row.letters {
				ps[k], pz[k] = f(row.value(xj[k*nq:(k+1)*nq], xoj))
			}
		}
		for d := range x.drow {
			x.ds[j*x.nd+d], x.dz[j*x.nd+d] = f(x.denseRowValue(d, j, x.x, x.xo))
		}
		for r := range x.orow {
			x.os[r][j], x.oz[r][j] = f(x.outRowValue(r, j, x.xo))
		}
	}
}

// outRowValue returns output row r's value a_r·x at output j, for xo
// over the outputs' unknowns.
func (x *dualIPM) outRowValue(r, j int, xo []float64) float64 {
	return vec.Dot(x.orow[r].out, xo[j*x.no:(j+1)*x.no])
}

// denseRowValue returns dense row d's value a_d·x at output j.
func (x *dualIPM) denseRowValue(d, j int, xs, xo []float64) float64 {
	dr := &x.drow[d]
	base := j * x.n * x.nq
	return vec.Dot(dr.pair, xs[base:base+x.n*x.nq]) + vec.Dot(dr.out, xo[j*x.no:(j+1)*x.no])
}

// residuals computes the KKT residuals at the current point.
func (x *dualIPM) residuals() {
	n, m, nq, no := x.n, x.m, x.nq, x.no
	comp, primI := 0.0, 0.0
	clear(x.ra)
	for k := range x.rdx {
		x.rdx[k] = 0
	}
	clear(x.rdo)
	for j := range m {
		for k := range n {
			pk := j*n + k
			x.rdx[pk*nq] = x.c[pk] - x.y[k]
			x.ra[k] += x.x[pk*nq]
		}
		ob := j * no
		xj, xoj := x.x[j*n*nq:(j+1)*n*nq], x.xo[ob:ob+no]
		rdx, rdo := x.rdx[j*n*nq:(j+1)*n*nq], x.rdo[ob:ob+no]
		for r := range x.prow {
			row := &x.prow[r]
			ps, pz, rpp := x.ps[r][j*n:(j+1)*n], x.pz[r][j*n:(j+1)*n], x.rpp[r][j*n:(j+1)*n]
			for _, k := range row.letters {
				s, z := ps[k], pz[k]
				rp := row.value(xj[k*nq:(k+1)*nq], xoj) - s
				rpp[k] = rp
				primI = max(primI, math.Abs(rp))
				comp += s * z
				row.scatter(z, rdx[k*nq:(k+1)*nq], rdo)
			}
		}
		for d := range x.drow {
			dr := &x.drow[d]
			s, z := x.ds[j*x.nd+d], x.dz[j*x.nd+d]
			rp := x.denseRowValue(d, j, x.x, x.xo) - s
			x.rpd[j*x.nd+d] = rp
			primI = max(primI, math.Abs(rp))
			comp += s * z
			vec.AddScaled(rdx, z, dr.pair)
			vec.AddScaled(rdo, z, dr.out)
		}
		for r := range x.orow {
			s, z := x.os[r][j], x.oz[r][j]
			rp := x.outRowValue(r, j, x.xo) - s
			x.rpo[r][j] = rp
			primI = max(primI, math.Abs(rp))
			comp += s * z
			vec.AddScaled(rdo, z, x.orow[r].out)
		}
	}
	for i := range x.ra {
		x.ra[i]--
	}
	x.comp = comp
	x.primI = max(primI, maxAbs(x.ra))
	x.dualI = max(maxAbs(x.rdx), maxAbs(x.rdo))
	x.obj = x.objective()
}

// pairs is the number of complementary pairs.
func (x *dualIPM) pairs() int {
	c := x.m * (x.nd + len(x.orow))
	for _, row := range x.prow {
		if row.has == nil {
			c += x.n * x.m
			continue
		}
		for _, h := range row.has {
			if h {
				c += x.m
			}
		}
	}
	return c
}

// hasB reports whether letter k has the b of pair index q.
func (x *dualIPM) hasB(k, q int) bool {
	for _, row := range x.prow {
		if row.bq == q && row.pair[0] == 0 {
			return row.at(k)
		}
	}
	return false
}

// stepLengths returns the largest primal and dual steps in (0, 1] that
// keep the slacks and their multipliers nonnegative along d.
func (x *dualIPM) stepLengths(d dualDir) (ap, ad float64) {
	ap = stepTo(x.ds, d.ds, nil, nil)
	ad = stepTo(x.dz, d.dz, nil, nil)
	for r := range x.prow {
		ap = min(ap, x.stepPresent(r, x.ps[r], d.ps[r]))
		ad = min(ad, x.stepPresent(r, x.pz[r], d.pz[r]))
	}
	for r := range x.orow {
		ap = min(ap, stepTo(x.os[r], d.os[r], nil, nil))
		ad = min(ad, stepTo(x.oz[r], d.oz[r], nil, nil))
	}
	return ap, ad
}

// stepPresent is stepTo over the pairs where pair row r is present.
func (x *dualIPM) stepPresent(r int, v, dv []float64) float64 {
	row := &x.prow[r]
	if row.has == nil {
		return stepTo(v, dv, nil, nil)
	}
	a := 1.0
	n := x.n
	for j := range x.m {
		vj, dvj := v[j*n:(j+1)*n], dv[j*n:(j+1)*n]
		for _, k := range row.letters {
			if dd := dvj[k]; dd < 0 {
				if t := -vj[k] / dd; t < a || t != t {
					a = t
				}
			}
		}
	}
	return a
}

// The passes of step over every present row's slack s, multiplier z,
// their steps ds and dz and its complementarity right-hand side rc visit
// the pair rows (by row, output and letter), the dense rows and the
// output rows in turn: the sums are formed in that order.

// setAffineRHS sets rc = −s z for the predictor.
func (x *dualIPM) setAffineRHS() {
	n := x.n
	for r := range x.prow {
		s, z, rc, letters := x.ps[r], x.pz[r], x.rcp[r], x.prow[r].letters
		for j := range x.m {
			sj, zj, rcj := s[j*n:(j+1)*n], z[j*n:(j+1)*n], rc[j*n:(j+1)*n]
			for _, k := range letters {
				rcj[k] = -sj[k] * zj[k]
			}
		}
	}
	for i, s := range x.ds {
		x.rcd[i] = -s * x.dz[i]
	}
	for r := range x.orow {
		for j, s := range x.os[r] {
			x.rco[r][j] = -s * x.oz[r][j]
		}
	}
}

// affineComp returns the complementarity Σ (s + ap ds)(z + ad dz) after
// the steps ap and ad along d.
func (x *dualIPM) affineComp(d *dualDir, ap, ad float64) float64 {
	n := x.n
	aff := 0.0
	for r := range x.prow {
		s, z, ds, dz, letters := x.ps[r], x.pz[r], d.ps[r], d.pz[r], x.prow[r].letters
		for j := range x.m {
			sj, zj, dsj, dzj := s[j*n:(j+1)*n], z[j*n:(j+1)*n], ds[j*n:(j+1)*n], dz[j*n:(j+1)*n]
			for _, k := range letters {
				aff += (sj[k] + ap*dsj[k]) * (zj[k] + ad*dzj[k])
			}
		}
	}
	for i, s := range x.ds {
		aff += (s + ap*d.ds[i]) * (x.dz[i] + ad*d.dz[i])
	}
	for r := range x.orow {
		for j, s := range x.os[r] {
			aff += (s + ap*d.os[r][j]) * (x.oz[r][j] + ad*d.oz[r][j])
		}
	}
	return aff
}

// setCorrectorRHS sets rc = target − s z − ds dz for the corrector, with
// d the predictor's direction.
func (x *dualIPM) setCorrectorRHS(d *dualDir, target float64) {
	n := x.n
	for r := range x.prow {
		s, z, ds, dz, rc, letters := x.ps[r], x.pz[r], d.ps[r], d.pz[r], x.rcp[r], x.prow[r].letters
		for j := range x.m {
			sj, zj, dsj, dzj, rcj := s[j*n:(j+1)*n], z[j*n:(j+1)*n], ds[j*n:(j+1)*n], dz[j*n:(j+1)*n], rc[j*n:(j+1)*n]
			for _, k := range letters {
				rcj[k] = target - sj[k]*zj[k] - dsj[k]*dzj[k]
			}
		}
	}
	for i, s := range x.ds {
		x.rcd[i] = target - s*x.dz[i] - d.ds[i]*d.dz[i]
	}
	for r := range x.orow {
		for j, s := range x.os[r] {
			x.rco[r][j] = target - s*x.oz[r][j] - d.os[r][j]*d.oz[r][j]
		}
	}
}

// moveSlacks steps the slacks by ap and the multipliers by ad along d.
func (x *dualIPM) moveSlacks(d *dualDir, ap, ad float64) {
	n := x.n
	for r := range x.prow {
		s, z, ds, dz, letters := x.ps[r], x.pz[r], d.ps[r], d.pz[r], x.prow[r].letters
		for j := range x.m {
			sj, zj, dsj, dzj := s[j*n:(j+1)*n], z[j*n:(j+1)*n], ds[j*n:(j+1)*n], dz[j*n:(j+1)*n]
			for _, k := range letters {
				sj[k] += ap * dsj[k]
				zj[k] += ad * dzj[k]
			}
		}
	}
	for i := range x.ds {
		x.ds[i] += ap * d.ds[i]
		x.dz[i] += ad * d.dz[i]
	}
	for r := range x.orow {
		for j := range x.os[r] {
			x.os[r][j] += ap * d.os[r][j]
			x.oz[r][j] += ad * d.oz[r][j]
		}
	}
}

// step makes one predictor-corrector iteration; the residuals must be up
// to date.
func (x *dualIPM) step() error {
	if err := x.factor(); err != nil {
		return err
	}
	muC := x.comp / float64(x.npairs)
	x.krylovTol = min(dualKrylovLoose, max(dualKrylovTol, 1e-2*x.measureRel()))
	a := x.aff
	x.setAffineRHS()
	x.solve(a, false)
	ap, ad := x.stepLengths(a)
	aff := x.affineComp(&a, ap, ad)
	sigma := math.Pow(aff/x.comp, 3)
	target := sigma * muC
	x.setCorrectorRHS(&a, target)
	c := x.cor
	x.solve(c, true)
	ap, ad = x.stepLengths(c)
	eta := stepFraction(robustEta, muC)
	ap, ad = min(1, eta*ap), min(1, eta*ad)
	vec.AddScaled(x.x, ap, c.x)
	vec.AddScaled(x.xo, ap, c.xo)
	vec.AddScaled(x.y, ad, c.y)
	x.moveSlacks(&c, ap, ad)
	if math.IsNaN(x.x[0]) || math.IsNaN(x.y[0]) {
		return errBrokeDown
	}
	return nil
}

// measureRel is the largest of the relative complementarity and the
// residuals.
func (x *dualIPM) measureRel() float64 { return relativeGap(x.comp, x.primI, x.dualI, x.obj) }

func (x *dualIPM) objective() float64 {
	v := 0.0
	for k, c := range x.c {
		v += c * x.x[k*x.nq]
	}
	return v
}

func (x *dualIPM) gapMeasure() float64 { return x.measureRel() }

// tiny: a dualised point is observed on its gap measure alone (a tiny
// complementarity with residuals above robustLooseTol is no answer); the
// iterations end at the entries' last digits.
func (x *dualIPM) tiny() (near, stop bool) { return false, x.comp < 1e-15 }

// runTo iterates until the relative gap and the residuals are below tol
// (then done), the iterations stall or break down, or maxIter; x is left
// at the best point it saw below robustLooseTol (its multipliers and
// entries; other unknowns are not restored).
func (x *dualIPM) runTo(ctx context.Context, maxIter int, tol float64) (iters int, done bool, err error) {
	best := math.Inf(1)
	var bx, by []float64
	var bz [][]float64
	var bdz []float64
	save := func() {
		bx, by = append(bx[:0], x.x...), append(by[:0], x.y...)
		bz = copyRows(bz, x.pz)
		bdz = append(bdz[:0], x.dz...)
	}
	// A breakdown or a failed step ends the run at the best point seen.
	iters, err = iterate(ctx, x, maxIter, robustLooseTol, func(int) (bool, bool) {
		g := x.measureRel()
		if !(g < best) {
			return false, false
		}
		best = g
		save()
		done = withinGap(x.comp, x.primI, x.dualI, x.obj, tol)
		return true, done
	})
	if cerr := ctx.Err(); cerr != nil {
		return iters, false, cerr
	}
	x.held = best
	if math.IsInf(best, 1) {
		return iters, false, fmt.Errorf("%w (the dualised iterations came within %g of no point)", ErrRobustNotConverged, robustLooseTol)
	}
	copy(x.x, bx)
	copy(x.y, by)
	copyRows(x.pz, bz)
	copy(x.dz, bdz)
	return iters, done, nil
}

// prior returns output j's worst prior for side sd (0 upper, 1 lower)
// read off the multipliers: the inner LP's solution, whose weight on
// letter k is the multipliers' total coefficient on p_kj in the side's
// rows over the dense row's multiplier (over κ times it, with the sign
// turned, on the lower side). Where the dense row is loose its
// multiplier is rounding noise and so is that ratio: a prior not within
// dualPriorTol of the set is replaced by the set's worst prior for the
// output's column (PriorSet.Extreme, the inner LP solved greedily), so
// that every prior the bound uses is one of the set; nil for an unused
// output whose multipliers give none.
func (x *dualIPM) prior(j, sd int) []float64 {
	n, nq := x.n, x.nq
	d := x.upper
	f := 1.0
	if sd == 1 {
		d, f = x.lower, -1/x.kap
	}
	if zd := x.dz[j*x.nd+d]; zd > 0 && !math.IsInf(zd, 0) {
		pr := make([]float64, n)
		for k := range n {
			v := zd * x.drow[d].pair[k*nq]
			for r := range x.prow {
				row := &x.prow[r]
				if row.side == sd+1 && row.at(k) {
					v += x.pz[r][j*n+k] * row.pair[0]
				}
			}
			pr[k] = max(0, f*v/zd)
		}
		finite := !slices.ContainsFunc(pr, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) })
		if q := intoSet(x.set, pr); finite && q != nil {
			return q
		}
	}
	col := make([]float64, n)
	for k := range n {
		col[k] = x.x[(j*n+k)*nq]
	}
	if slices.Max(col) <= clean.InteriorColumnNoise {
		return nil
	}
	return x.set.Extreme(tiedColumn(col), sd == 1)
}

// dualPriorNear is the distance (in a letter's mass, in the sum, in the
// L1 radius) within which a prior read off the multipliers is moved into
// the set rather than replaced: the multipliers hold the iterations'
// rounding, the greedy worst prior breaks the ties of a column at its
// caps another way than the optimal multipliers do and proves less.
const dualPriorNear = 1e-6

// intoSet returns pr moved into the set (a box's bounds and the sum 1; a
// ball's sum 1 and radius), or nil when it lies further than
// dualPriorNear from it.
func intoSet(set *mech.PriorSet, pr []float64) []float64 {
	if !set.Contains(pr, dualPriorNear) {
		return nil
	}
	q := slices.Clone(pr)
	if set.IsBox() {
		sum := 0.0
		for k := range q {
			q[k] = min(max(q[k], set.Lower[k]), set.Upper[k])
			sum += q[k]
		}
		// Spread the shortfall (or the excess) over the letters' room
		// towards the upper (lower) bounds, in proportion to it.
		room := 0.0
		for k := range q {
			if sum < 1 {
				room += set.Upper[k] - q[k]
			} else {
				room += q[k] - set.Lower[k]
			}
		}
		if room > 0 {
			f := (1 - sum) / room
			for k := range q {
				if sum < 1 {
					q[k] += f * (set.Upper[k] - q[k])
				} else {
					q[k] += f * (q[k] - set.Lower[k])
				}
			}
		}
		return q
	}
	sum := 0.0
	for _, v := range q {
		sum += v
	}
	dist := 0.0
	for k := range q {
		q[k] /= sum
		dist += math.Abs(q[k] - set.Center[k])
	}
	// The ball is convex around its centre: mixing towards it shrinks the
	// L1 distance in proportion.
	if dist > set.Radius {
		th := set.Radius / dist
		for k := range q {
			q[k] = set.Center[k] + th*(q[k]-set.Center[k])
		}
	}
	return q
}

// reading returns what SolveRobust's result needs from the point.
func (x *dualIPM) reading() *robustReading {
	n, m := x.n, x.m
	rd := &robustReading{n: n, m: m, lip: x.lip, scale: x.scale, y: x.y,
		p: make([]float64, n*m), up: make([][]float64, m), down: make([][]float64, m),
		capUp: make([]float64, m), capDown: make([]float64, m)}
	for k := range rd.p {
		rd.p[k] = x.x[k*x.nq]
	}
	for j := range m {
		rd.up[j] = x.prior(j, 0)
		if x.lip {
			rd.down[j] = x.prior(j, 1)
		}
		for i := range n {
			rd.capDown[j] += x.pz[0][j*n+i]
			rd.capUp[j] += x.pz[1][j*n+i]
		}
	}
	return rd
}

func (x *dualIPM) String() string { return fmt.Sprintf("dualIPM(%d×%d)", x.n, x.m) }

// heldGap is the gap measure of the point runTo left.
func (x *dualIPM) heldGap() float64 { return x.held }
