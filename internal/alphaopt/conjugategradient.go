package alphaopt

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Newton directions of the working-set solve (restricted.newton) by
// conjugate gradients preconditioned with an earlier factorisation of the
// Hessian, shared between the Newton steps of one row and between rows.
//
// The system. On the free inputs F, with A = −∇²G + shift·I (shift as in
// newtonDirection), the step is d = A⁻¹(g + ν1) with ν such that Σ d = 0.
// Its Hessian is r(r−1)/F Σ_c e_c s_c^{r−2} a_xc a_zc − g_x g_z, so a
// product A v costs two passes over the |F| × C block of a, where forming
// A costs |F|²C and its factorisation |F|³/3.
//
// The preconditioner. A Cholesky factorisation of B = A at another point,
// for another row, on a set S of inputs (hessCache) gives the operator
// M: on F ∩ S, the block of B⁻¹ (a principal block of a positive definite
// matrix is positive definite); on F \ S, the inverse diagonal of A. The
// constraint Σ d = 0 enters through the projection
// P(r) = M r − M1 (1ᵀMr)/(1ᵀM1), which is positive semi-definite, vanishes
// on multiples of 1 and maps into Σ d = 0: conjugate gradients with P solve
// A d = g + ν1 on that plane without knowing ν. The rows of eq. 6 of
// Gilani et al. (2022) differ only in their weights e_c, and one row's
// Newton steps differ only in the point, so B⁻¹A is close to the identity
// and a few products settle the step.
//
// Certification does not depend on the step: each step is accepted by the
// line search on G and every bound is computed at the point reached. A
// solve that does not converge within pcgIterations falls back on the
// factorisation, which then becomes the preconditioner.

// The settings of the preconditioned solve.
const (
	pcgIterations = 8    // products with A before falling back on a factorisation
	pcgRelTol     = 1e-6 // ‖r‖_P / ‖g‖_P at which the step is taken
	// ‖r‖_P / ‖g‖_P at which the step is taken after pcgIterations, when
	// the working-set solve is asked for a gap above pcgCoarse only (a row
	// that its bound may yet settle): an inexact Newton step still gains.
	pcgAccept = 0.3
	pcgCoarse = 1e-6
)

// hessCache holds the factorisation of the last Newton system factorised
// on the inputs in idx (indices into the rows of a).
type hessCache struct {
	idx []int
	pos map[int]int    // input → position in idx
	inv blas64.General // B⁻¹, applied by matrix-vector products (faster than two triangular solves)
}

// store replaces the cached preconditioner with the inverse of the matrix
// factorised in chol, on the inputs idx.
func (hc *hessCache) store(idx []int, chol *mat.Cholesky) {
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		hc.idx = nil
		return
	}
	S := len(idx)
	hc.inv = blas64.General{Rows: S, Cols: S, Stride: S, Data: make([]float64, S*S)}
	for x := 0; x < S; x++ {
		for z := 0; z < S; z++ {
			hc.inv.Data[x*S+z] = inv.At(x, z)
		}
	}
	hc.idx = idx
	hc.pos = make(map[int]int, len(idx))
	for p, i := range idx {
		hc.pos[i] = p
	}
}

// pcgDirection returns the Newton step of newtonDirection on free (indices
// into the working set) at the point of the last grad call, with regularisation mu, by
// conjugate gradients preconditioned by rp.cache; ok is false when the
// cache is empty or the relative residual after pcgIterations products
// exceeds accept.
func (rp *restricted) pcgDirection(f float64, g []float64, free []int, mu, accept float64) (d []float64, ok bool) {
	hc := rp.cache
	nf := len(free)
	if hc == nil || hc.idx == nil || nf < 2 {
		return nil, false
	}
	C := rp.C
	// 1. The diagonal scaling of the Hessian's first term, e_c s_c^{r−2},
	// the gradient of log F and the diagonal of A.
	t2 := make([]float64, C)
	for c, sc := range rp.sc {
		t2[c] = rp.ep[c] / (sc * sc)
	}
	coef := rp.r * (rp.r - 1) / f
	gl := make([]float64, nf)
	diag := make([]float64, nf)
	scale := 0.0
	for x, i := range free {
		row := rp.a[i*C : (i+1)*C]
		v := 0.0
		for c, a := range row {
			v += a * a * t2[c]
		}
		gl[x] = rp.r * rp.q[i] / f
		diag[x] = coef*v - gl[x]*gl[x]
		scale = max(scale, math.Abs(diag[x]))
	}
	shift := mu * (1 + scale)
	for x := range diag {
		diag[x] = -diag[x] + shift
	}
	// 2. The products with A and with the preconditioner.
	u, vs, av := make([]float64, C), make([]float64, rp.s), make([]float64, rp.s)
	am := blas64.General{Rows: rp.s, Cols: C, Stride: C, Data: rp.a}
	mulA := func(v, out []float64) {
		for x := range vs {
			vs[x] = 0
		}
		gv := 0.0
		for x, i := range free {
			vs[i] = v[x]
			gv += gl[x] * v[x]
		}
		blas64.Gemv(blas.Trans, 1, am, blas64.Vector{N: rp.s, Inc: 1, Data: vs}, 0, blas64.Vector{N: C, Inc: 1, Data: u})
		for c := range u {
			u[c] *= t2[c]
		}
		blas64.Gemv(blas.NoTrans, 1, am, blas64.Vector{N: C, Inc: 1, Data: u}, 0, blas64.Vector{N: rp.s, Inc: 1, Data: av})
		for x, i := range free {
			out[x] = -(coef*av[i] - gl[x]*gv) + shift*v[x]
		}
	}
	S := len(hc.idx)
	rhs, sol := make([]float64, S), make([]float64, S)
	at := make([]int, nf) // position of each free input in hc.idx, or −1
	for x, i := range free {
		at[x] = -1
		if p, in := hc.pos[rp.keep[i]]; in {
			at[x] = p
		}
	}
	mulM := func(v, out []float64) bool {
		for p := range rhs {
			rhs[p] = 0
		}
		for x, p := range at {
			if p >= 0 {
				rhs[p] = v[x]
			}
		}
		blas64.Gemv(blas.NoTrans, 1, hc.inv, blas64.Vector{N: S, Inc: 1, Data: rhs}, 0, blas64.Vector{N: S, Inc: 1, Data: sol})
		for x, p := range at {
			if p >= 0 {
				out[x] = sol[p]
			} else {
				out[x] = v[x] / diag[x]
			}
		}
		return true
	}
	ones, m1 := make([]float64, nf), make([]float64, nf)
	for x := range ones {
		ones[x] = 1
	}
	if !mulM(ones, m1) {
		return nil, false
	}
	s1 := 0.0
	for _, v := range m1 {
		s1 += v
	}
	if !(s1 > 0) {
		return nil, false
	}
	project := func(v, out []float64) bool {
		if !mulM(v, out) {
			return false
		}
		s := 0.0
		for _, o := range out {
			s += o
		}
		for x := range out {
			out[x] -= m1[x] * s / s1
		}
		return true
	}
	// 3. Conjugate gradients on the plane Σ d = 0.
	sol0 := make([]float64, nf)
	res, z, p, ap := make([]float64, nf), make([]float64, nf), make([]float64, nf), make([]float64, nf)
	for x, i := range free {
		res[x] = g[i]
	}
	if !project(res, z) {
		return nil, false
	}
	copy(p, z)
	rz := dot(res, z)
	rz0 := rz
	if !(rz0 > 0) {
		return nil, false
	}
	for it := 0; it < pcgIterations; it++ {
		mulA(p, ap)
		pap := dot(p, ap)
		if !(pap > 0) {
			return nil, false
		}
		alpha := rz / pap
		for x := range sol0 {
			sol0[x] += alpha * p[x]
			res[x] -= alpha * ap[x]
		}
		if !project(res, z) {
			return nil, false
		}
		rzn := dot(res, z)
		if rzn <= pcgRelTol*pcgRelTol*rz0 || (it == pcgIterations-1 && rzn <= accept*accept*rz0) {
			d = make([]float64, len(g))
			for x, i := range free {
				d[i] = sol0[x]
			}
			return d, true
		}
		beta := rzn / rz
		rz = rzn
		for x := range p {
			p[x] = z[x] + beta*p[x]
		}
	}
	return nil, false
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
