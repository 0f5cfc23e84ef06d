package ipm

import (
	"math"

	"github.com/pmlopt/pmlopt/internal/vec"
)

// dualKrylov is the most GMRES iterations per restart, and dualRestarts
// the most restarts, per direction.
const (
	dualKrylov   = 20
	dualRestarts = 2
)

// GMRES stops at a residual, relative to the right-hand side's, of a
// hundredth of the point's own gap measure, between dualKrylovTol and
// dualKrylovLoose: a direction need not be more exact than the residuals
// it corrects (an inexact Newton step).
const (
	dualKrylovTol   = 1e-12
	dualKrylovLoose = 1e-6
)

// kktApply computes K u for the unreduced Newton system K = [H Aᵀ; A 0]
// in the unknowns (dx, dxo, dy) packed in u, into out.
func (x *dualIPM) kktApply(u, out []float64) {
	n, m, nq, no := x.n, x.m, x.nq, x.no
	nx, nxo := len(x.x), len(x.xo)
	dx, dxo, dy := u[:nx], u[nx:nx+nxo], u[nx+nxo:]
	ox, oo, oy := out[:nx], out[nx:nx+nxo], out[nx+nxo:]
	clear(out)
	for j := range m {
		ob := j * no
		dxj, dxoj := dx[j*n*nq:(j+1)*n*nq], dxo[ob:ob+no]
		oxj, ooj := ox[j*n*nq:(j+1)*n*nq], oo[ob:ob+no]
		for r := range x.prow {
			row := &x.prow[r]
			ps, pz := x.ps[r][j*n:(j+1)*n], x.pz[r][j*n:(j+1)*n]
			for _, k := range row.letters {
				t := row.value(dxj[k*nq:(k+1)*nq], dxoj) * pz[k] / ps[k]
				row.scatter(t, oxj[k*nq:(k+1)*nq], ooj)
			}
		}
		for dd := range x.drow {
			i := j*x.nd + dd
			t := x.denseRowValue(dd, j, dx, dxo) * x.dz[i] / x.ds[i]
			x.drow[dd].scatter(t, ox[j*n*nq:(j+1)*n*nq], oo[ob:ob+no])
		}
		for r := range x.orow {
			t := x.outRowValue(r, j, dxo) * x.oz[r][j] / x.os[r][j]
			vec.AddScaled(oo[ob:ob+no], t, x.orow[r].out)
		}
		for k := range n {
			pk := j*n + k
			ox[pk*nq] += dy[k]
			oy[k] += dx[pk*nq]
		}
	}
	// Identity rows for the b's the set leaves out.
	for j := range m {
		for k := range n {
			pk := j*n + k
			for q := 1; q < nq; q++ {
				if !x.bOn[k*nq+q] {
					ox[pk*nq+q] += dx[pk*nq+q]
				}
			}
		}
	}
}

// precond applies the structured solve (core) to the residual r.
func (x *dualIPM) precond(r, out []float64) {
	nx, nxo := len(x.x), len(x.xo)
	c := x.fix
	ra := x.rx
	for i := range ra {
		ra[i] = -r[nx+nxo+i]
	}
	x.core(c, r[:nx], r[nx:nx+nxo], ra)
	x.pack(c, out)
}

// newtonRHS writes the right-hand side (gx, go_, −ra) of the unreduced
// Newton system that solve set up into b, packed as kktApply's unknowns.
func (x *dualIPM) newtonRHS(b []float64) {
	nx, nxo := len(x.x), len(x.xo)
	copy(b, x.gx)
	copy(b[nx:], x.go_)
	for i := range x.n {
		b[nx+nxo+i] = -x.ra[i]
	}
}

// pack writes d's unknowns (dx, dxo, dy) into u, kktApply's order.
func (x *dualIPM) pack(d dualDir, u []float64) {
	nx, nxo := len(x.x), len(x.xo)
	copy(u[:nx], d.x)
	copy(u[nx:nx+nxo], d.xo)
	copy(u[nx+nxo:], d.y)
}

// unpack is pack's inverse.
func (x *dualIPM) unpack(u []float64, d dualDir) {
	nx, nxo := len(x.x), len(x.xo)
	copy(d.x, u[:nx])
	copy(d.xo, u[nx:nx+nxo])
	copy(d.y, u[nx+nxo:])
}

// gmresWork is gmres's scratch, allocated on its first call: the
// right-hand side, the iterate, the residual, a product, the Krylov basis
// V and its preconditioned images Z, the Hessenberg matrix, the Givens
// rotations and the least-squares solution. The basis vectors are
// allocated when first used (basis): most directions pass the check on
// the structured solve's answer and use none.
type gmresWork struct {
	L            int
	b, u, r, tmp []float64
	V, Z, H      [][]float64
	cs, sn, g, y []float64
}

func newGmresWork(L int) *gmresWork {
	v := func(l int) []float64 { return make([]float64, l) }
	k := dualKrylov
	w := &gmresWork{L: L, b: v(L), u: v(L), r: v(L), tmp: v(L), cs: v(k), sn: v(k), g: v(k + 1), y: v(k)}
	w.V, w.Z, w.H = make([][]float64, k+1), make([][]float64, k), make([][]float64, k+1)
	for i := range k + 1 {
		w.H[i] = v(k)
	}
	return w
}

// basis returns vs[i] (a vector of V or Z), allocating it on first use.
func (w *gmresWork) basis(vs [][]float64, i int) []float64 {
	if vs[i] == nil {
		vs[i] = make([]float64, w.L)
	}
	return vs[i]
}

// gmres solves the unreduced Newton system for the right-hand side
// (gx, go_, −ra) into d's unknowns: the structured solve's answer (core),
// kept where its residual in the unreduced equations is within krylovTol
// of the right-hand side; else up to dualRestarts cycles of dualKrylov
// steps of GMRES (Saad and Schultz, "GMRES: a generalized minimal
// residual algorithm for solving nonsymmetric linear systems", 1986;
// Givens rotations), right-preconditioned by the structured solve, whose
// shortfalls (the rare directions the deflation and the regularisation
// of the free unknowns leave) are few.
func (x *dualIPM) gmres(d dualDir) {
	L := len(x.x) + len(x.xo) + x.n
	if x.krylov == nil {
		x.krylov = newGmresWork(L)
	}
	ws := x.krylov
	b, u, r, tmp := ws.b, ws.u, ws.r, ws.tmp
	V, Z, Hh, cs, sn, g := ws.V, ws.Z, ws.H, ws.cs, ws.sn, ws.g
	x.newtonRHS(b)
	bn := math.Sqrt(vec.Dot(b, b))
	if bn == 0 {
		clear(u)
		x.unpack(u, d)
		return
	}
	// Start from the structured solve's answer.
	x.precond(b, u)
	for range dualRestarts {
		x.kktApply(u, tmp)
		for i := range r {
			r[i] = b[i] - tmp[i]
		}
		beta := math.Sqrt(vec.Dot(r, r))
		if beta <= x.krylovTol*bn {
			break
		}
		v0 := ws.basis(V, 0)
		for i := range r {
			v0[i] = r[i] / beta
		}
		g[0] = beta
		used := 0
		for it := range dualKrylov {
			z := ws.basis(Z, it)
			x.precond(V[it], z)
			w := ws.basis(V, it+1)
			x.kktApply(z, w)
			for i := 0; i <= it; i++ {
				h := vec.Dot(w, V[i])
				Hh[i][it] = h
				vec.AddScaled(w, -h, V[i])
			}
			hn := math.Sqrt(vec.Dot(w, w))
			Hh[it+1][it] = hn
			for i := 0; i < it; i++ {
				a, c := Hh[i][it], Hh[i+1][it]
				Hh[i][it] = cs[i]*a + sn[i]*c
				Hh[i+1][it] = -sn[i]*a + cs[i]*c
			}
			den := math.Hypot(Hh[it][it], Hh[it+1][it])
			if den == 0 {
				break
			}
			cs[it], sn[it] = Hh[it][it]/den, Hh[it+1][it]/den
			Hh[it][it] = den
			Hh[it+1][it] = 0
			g[it+1] = -sn[it] * g[it]
			g[it] *= cs[it]
			used = it + 1
			if math.Abs(g[it+1]) <= x.krylovTol*bn || hn == 0 {
				break
			}
			for i := range w {
				w[i] /= hn
			}
		}
		yv := ws.y[:used]
		for i := used - 1; i >= 0; i-- {
			v := g[i]
			for l := i + 1; l < used; l++ {
				v -= Hh[i][l] * yv[l]
			}
			yv[i] = v / Hh[i][i]
		}
		for i := range used {
			vec.AddScaled(u, yv[i], Z[i])
		}
	}
	x.unpack(u, d)
}
