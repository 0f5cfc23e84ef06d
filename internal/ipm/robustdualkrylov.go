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
		x.eachPairRow(j, func(r int, row *dualPairRow, k, pk int) {
			t := x.pairRowValue(row, j, k, dx, dxo) * x.pz[r][pk] / x.ps[r][pk]
			row.scatter(t, ox[pk*nq:(pk+1)*nq], oo[ob:ob+no])
		})
		for dd := range x.drow {
			i := j*x.nd + dd
			t := x.denseRowValue(dd, j, dx, dxo) * x.dz[i] / x.ds[i]
			x.drow[dd].scatter(t, ox[j*n*nq:(j+1)*n*nq], oo[ob:ob+no])
		}
		for r := range x.orow {
			t := vec.Dot(x.orow[r].out, dxo[ob:ob+no]) * x.oz[r][j] / x.os[r][j]
			vec.AddScaled(oo[ob:ob+no], t, x.orow[r].out)
		}
		for k := range n {
			pk := j*n + k
			ox[pk*nq] += dy[k]
			oy[k] += dx[pk*nq]
		}
	}
	// Identity rows for the b's the set leaves out.
	for pk := range n * m {
		for q := 1; q < nq; q++ {
			if !x.bOn[(pk%n)*nq+q] {
				ox[pk*nq+q] += dx[pk*nq+q]
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
	copy(out[:nx], c.x)
	copy(out[nx:nx+nxo], c.xo)
	copy(out[nx+nxo:], c.y)
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
	nx, nxo, n := len(x.x), len(x.xo), x.n
	L := nx + nxo + n
	b := make([]float64, L)
	copy(b, x.gx)
	copy(b[nx:], x.go_)
	for i := range n {
		b[nx+nxo+i] = -x.ra[i]
	}
	bn := math.Sqrt(vec.Dot(b, b))
	u := make([]float64, L)
	if bn == 0 {
		copy(d.x, u[:nx])
		copy(d.xo, u[nx:nx+nxo])
		copy(d.y, u[nx+nxo:])
		return
	}
	// Start from the structured solve's answer.
	x.precond(b, u)
	r := make([]float64, L)
	tmp := make([]float64, L)
	for range dualRestarts {
		x.kktApply(u, tmp)
		for i := range r {
			r[i] = b[i] - tmp[i]
		}
		beta := math.Sqrt(vec.Dot(r, r))
		if beta <= x.krylovTol*bn {
			break
		}
		k := dualKrylov
		V := make([][]float64, 0, k+1)
		Z := make([][]float64, 0, k)
		Hh := make([][]float64, k+1)
		for i := range Hh {
			Hh[i] = make([]float64, k)
		}
		cs, sn, g := make([]float64, k), make([]float64, k), make([]float64, k+1)
		v0 := make([]float64, L)
		for i := range v0 {
			v0[i] = r[i] / beta
		}
		V = append(V, v0)
		g[0] = beta
		used := 0
		for it := range k {
			z := make([]float64, L)
			x.precond(V[it], z)
			Z = append(Z, z)
			w := make([]float64, L)
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
			V = append(V, w)
		}
		yv := make([]float64, used)
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
	copy(d.x, u[:nx])
	copy(d.xo, u[nx:nx+nxo])
	copy(d.y, u[nx+nxo:])
}
