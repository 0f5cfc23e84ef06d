package alphaopt

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// rowUpdates moves many rows at once by the multiplicative update of
// multiplicative.go, raised to a power: for each row problem cps[x] at its point
// points[x] it returns log F and the Hölder bound on sup G (both without
// lc0), and stores in next[x] the point p_i (g_i/F)^γ, γ = gamma[x],
// renormalised. Every γ > 0 has the optimum as its fixed point; γ > 1
// moves further per product, and the caller lowers γ of a row whose value
// fell. An input with no weight whose g_i exceeds F (it would raise G) gets
// weight reviveWeight·g_i/F, since the update can not revive a zero.
//
// 1. S = P A for a block of cgBatchRow rows P: the outputs' weights s_c of
// every row of the block in one matrix product.
// 2. Y_kc = e_kc s_kc^{r−1} and F_k = Σ_c e_kc s_kc^r.
// 3. G = Y Aᵀ: every row's gradient g in one matrix product.
// 4. The bounds and the update from F_k and the row of G.
func rowUpdates(ctx context.Context, base *concaveProblem, cps []*concaveProblem, points, next [][]float64, gamma []float64) (lo, up []float64) {
	n, C := len(base.a), len(base.s)
	am := base.matrix()
	lo, up = unsettled(len(cps))
	for start := 0; start < len(cps) && ctx.Err() == nil; start += cgBatchRow {
		end := min(len(cps), start+cgBatchRow)
		m := end - start
		// 1.
		pm := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
		for k := start; k < end; k++ {
			copy(pm.Data[(k-start)*n:(k-start+1)*n], points[k])
		}
		sm := blas64.General{Rows: m, Cols: C, Stride: C, Data: make([]float64, m*C)}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, pm, am, 0, sm)
		// 2.
		f := make([]float64, m)
		for k := start; k < end; k++ {
			yr := sm.Data[(k-start)*C : (k-start+1)*C]
			for c, l := range cps[k].lc {
				sc := yr[c]
				e := math.Exp(l)
				if sc > 0 {
					p := math.Pow(sc, base.r)
					f[k-start] += e * p
					yr[c] = e * p / sc
				} else {
					yr[c] = math.Inf(1)
				}
			}
		}
		// 3.
		gm := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, sm, am, 0, gm)
		// 4.
		for k := start; k < end; k++ {
			g, fk := gm.Data[(k-start)*n:(k-start+1)*n], f[k-start]
			lo[k], up[k] = cps[k].holder(fk, g)
			p, q := points[k], next[k]
			sum := 0.0
			for i, pi := range p {
				switch {
				case pi > 0:
					q[i] = pi * math.Pow(g[i]/fk, gamma[k])
				case g[i] > fk:
					q[i] = reviveWeight * g[i] / fk
				default:
					q[i] = 0
				}
				sum += q[i]
			}
			for i := range q {
				q[i] /= sum
			}
		}
	}
	return lo, up
}
