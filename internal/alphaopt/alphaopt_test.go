package alphaopt

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/mech"
)

// TestAlphaBetaMatchesRowByRow compares the column-generation method with
// the multiplicative updates of every row (maxByUpdates), two different
// algorithms with certified brackets that must overlap.
func TestAlphaBetaMatchesRowByRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	n, m := 150, 60
	if testlong.Short() {
		n, m = 100, 30
	}
	// Small β/α with α large: optimum supports of many inputs, rows whose
	// values are close, Newton steps by preconditioned conjugate gradients.
	for _, ab := range [][2]float64{{1.5, 1.2}, {4, 2}, {1.1, 1.05}, {2, 1.001}, {6, 1.1}, {8, 1.2}, {5, 1.05}, {20, 1.5}} {
		alpha, beta := ab[0], ab[1]
		p := randinst.Mechanism(rng, n, m, 0)
		cols := UsedColumns(p)
		scale := alpha / ((alpha - 1) * beta)
		tol := 1e-11 / scale // leakage's target accuracy
		lo, up := Max(context.Background(), p, cols, alpha, beta, tol)
		base := newConcaveProblem(p, cols, alpha, beta)
		loMM, upMM := maxByUpdates(context.Background(), base, p, cols, tol)
		assert.LessOrEqual(t, up-lo, 1e-9/scale, "α, β = %v", ab)
		assert.LessOrEqual(t, lo, upMM+1e-12, "α, β = %v", ab)
		assert.LessOrEqual(t, loMM, up+1e-12, "α, β = %v", ab)
	}
}

// TestPCGDirectionMatchesFactorisation compares the Newton step by
// preconditioned conjugate gradients, with a preconditioner factorised for
// another row at another point on an overlapping set of inputs, with the
// step solved by the Cholesky factorisation of the Hessian itself.
func TestPCGDirectionMatchesFactorisation(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	p := randinst.Mechanism(rng, 60, 40, 0)
	cols := UsedColumns(p)
	base := newConcaveProblem(p, cols, 6, 1.1)
	keep := make([]int, 30)
	for x := range keep {
		keep[x] = 2 * x
	}
	newton := func(cp *concaveProblem, w []float64, free []int) (*restricted, []float64, []float64, [][]float64, float64) {
		e := make([]float64, len(cp.lc))
		for c, l := range cp.lc {
			e[c] = math.Exp(l)
		}
		rp := newRestricted(cp, keep, e)
		f := rp.grad(w)
		g := make([]float64, len(keep))
		for x, q := range rp.q {
			g[x] = rp.r * (q/f - 1)
		}
		h := make([][]float64, len(keep))
		for x := range h {
			h[x] = make([]float64, len(keep))
		}
		rp.hessian(f, h)
		d, ok := newtonDirection(h, g, free, 1e-14)
		require.True(t, ok)
		return rp, d, g, h, f
	}
	all := make([]int, len(keep))
	for x := range all {
		all[x] = x
	}
	// The preconditioner: row 3 at one point, on the first 24 inputs of keep.
	ref := base.forRow(p, cols, 3)
	w0 := randinst.Dirichlet(rng, len(keep))
	_, _, _, hRef, _ := newton(ref, w0, all)
	hc := &hessCache{}
	_, chol, ok := factorDirection(hRef, make([]float64, len(keep)), all[:24], 1e-14)
	require.True(t, ok)
	hc.store(keep[:24], chol)
	// Row 7 at a point near it (the steps of Max precondition the
	// rows near the point where the factorisation was made), on the
	// preconditioner's inputs and on a subset of them.
	cp := base.forRow(p, cols, 7)
	cp.hc = hc
	w := make([]float64, len(w0))
	for x := range w {
		w[x] = w0[x] * (1 + 0.05*rng.Float64())
	}
	mech.Normalise(w)
	for _, free := range [][]int{all[:24], all[3:22]} {
		rp, want, g, _, f := newton(cp, w, free)
		got, ok := rp.pcgDirection(f, g, free, 1e-14, 0)
		require.True(t, ok)
		norm, diff, sum := 0.0, 0.0, 0.0
		for x := range want {
			norm = math.Max(norm, math.Abs(want[x]))
			diff = math.Max(diff, math.Abs(got[x]-want[x]))
			sum += got[x]
		}
		assert.Less(t, diff, 1e-4*norm, "free = %v", free)
		assert.InDelta(t, 0, sum, 1e-12*norm, "Σ d = 0")
		for x := range got {
			if !slices.Contains(free, x) {
				assert.Zero(t, got[x], "input %d is not free", x)
			}
		}
	}
}
