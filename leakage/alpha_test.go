package leakage

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/alphaopt"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/mech"
)

// alphaBetaArg evaluates the argument of the log in Gilani et al. (2022),
// eq. 6 for row k directly from p: Σ_j p_kj^{1−β} (Σ_i w_i p_ij^α)^{β/α}.
func alphaBetaArg(p mech.Mechanism, k int, w []float64, alpha, beta float64) float64 {
	s := 0.0
	for j := range p[k] {
		in := 0.0
		for i := range p {
			in += w[i] * math.Pow(p[i][j], alpha)
		}
		s += math.Pow(p[k][j], 1-beta) * math.Pow(in, beta/alpha)
	}
	return s
}

// plainAlphaBeta maximises eq. 6 row by row with many multiplicative updates
// w_i ← w_i ∂_i H / Σ_x w_x ∂_x H from the uniform prior, computed from p
// without any scaling, pruning or working set; it returns the best value
// reached, a lower bound on the leakage.
func plainAlphaBeta(p mech.Mechanism, alpha, beta float64, iters int) float64 {
	n, m := p.Dims()
	scale := alpha / ((alpha - 1) * beta)
	best := math.Inf(-1)
	pa := make([][]float64, n)
	for i := range p {
		pa[i] = make([]float64, m)
		for j, v := range p[i] {
			pa[i][j] = math.Pow(v, alpha)
		}
	}
	s, t, g := make([]float64, m), make([]float64, m), make([]float64, n)
	for k := range p {
		w := make([]float64, n)
		for i := range w {
			w[i] = 1 / float64(n)
		}
		for it := 0; it <= iters; it++ {
			f := 0.0
			for j := range s {
				s[j] = 0
				for i := range w {
					s[j] += w[i] * pa[i][j]
				}
				f += math.Pow(p[k][j], 1-beta) * math.Pow(s[j], beta/alpha)
				t[j] = math.Pow(p[k][j], 1-beta) * math.Pow(s[j], beta/alpha-1)
			}
			best = math.Max(best, scale*math.Log(f))
			dot := 0.0
			for i := range g {
				g[i] = 0
				for j := range t {
					g[i] += pa[i][j] * t[j]
				}
				dot += w[i] * g[i]
			}
			for i := range w {
				w[i] *= g[i] / dot
			}
		}
	}
	return best
}

// alphaBetaPairs are (α, β) with 1 < β < α: β/α near 1 and near 0, α near
// 1 and large.
var alphaBetaPairs = [][2]float64{
	{1.5, 1.2}, {4, 2}, {3, 1.5}, {2, 1.9}, {1.1, 1.05}, {1.01, 1.005},
	{1.5, 1.01}, {2, 1.001}, {1.2, 1.19}, {10, 1.5}, {6, 1.1}, {8, 7.99},
}

// TestAlphaBetaGrid compares the bracket with a fine grid of the simplex
// on mechanisms with 3 inputs: the grid is feasible, so no grid point may
// beat the upper end, and a fine grid comes close to the lower end.
func TestAlphaBetaGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const k = 300
	for trial, ab := range alphaBetaPairs {
		alpha, beta := ab[0], ab[1]
		p := randinst.Mechanism(rng, 3, 2+trial%4, 0)
		lo, up, err := MaximalAlphaBetaLeakageBounds(mech.Uniform(3), p, alpha, beta)
		require.NoError(t, err, "α, β = %v", ab)
		assert.LessOrEqual(t, up-lo, 1e-9)
		scale := alpha / ((alpha - 1) * beta)
		grid := math.Inf(-1)
		for a := 0; a <= k; a++ {
			for b := 0; a+b <= k; b++ {
				w := []float64{float64(a) / k, float64(b) / k, float64(k-a-b) / k}
				for row := range p {
					grid = math.Max(grid, scale*math.Log(alphaBetaArg(p, row, w, alpha, beta)))
				}
			}
		}
		assert.LessOrEqual(t, grid, up+1e-12, "α, β = %v", ab)
		assert.InDelta(t, grid, lo, 1e-3, "α, β = %v", ab)
	}
}

// TestAlphaBetaPlainUpdates compares the bracket with a long run of plain
// multiplicative updates, row by row, on mechanisms large enough for the
// working sets of column generation (more inputs than its first working
// set) and for the pruning of rows.
func TestAlphaBetaPlainUpdates(t *testing.T) {
	if testlong.Short() {
		t.Skip("plain updates on 100 × 20 mechanisms")
	}
	rng := rand.New(rand.NewPCG(23, 24))
	for trial, ab := range alphaBetaPairs {
		alpha, beta := ab[0], ab[1]
		p := randinst.Mechanism(rng, 100, 20, 0)
		pi := randinst.Prior(rng, 100, 0)
		lo, up, err := MaximalAlphaBetaLeakageBounds(pi, p, alpha, beta)
		require.NoError(t, err, "α, β = %v", ab)
		assert.LessOrEqual(t, up-lo, 1e-9, "α, β = %v", ab)
		// Every value the updates reach is attained, so at most the upper
		// end; after many updates they come close to the lower end, unless
		// β/α is so near 1 that G is nearly linear and they crawl.
		plain := plainAlphaBeta(p, alpha, beta, 300+100*(trial%3))
		assert.LessOrEqual(t, plain, up+1e-12, "α, β = %v", ab)
		if beta/alpha <= 0.9 {
			assert.InDelta(t, plain, lo, 2e-3, "α, β = %v", ab)
		}
	}
}

// TestAlphaBetaClosedForms checks limits and symmetric cases.
func TestAlphaBetaClosedForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	p := randinst.Mechanism(rng, 30, 12, 0)
	pi := randinst.Prior(rng, 30, 0)
	cols := alphaopt.UsedColumns(p)
	// β ↑ α: the supremum moves to a vertex (Gilani et al. (2022), eq. 11),
	// and the leakage is continuous in β.
	for _, alpha := range []float64{1.5, 3} {
		near, err := MaximalAlphaBetaLeakage(pi, p, alpha, alpha*(1-1e-7))
		require.NoError(t, err)
		assert.InDelta(t, vertexForm(p, cols, alpha, alpha), near, 1e-5, "α = %g", alpha)
	}
	// β ↓ 1: maximal α-leakage.
	for _, alpha := range []float64{1.5, 4} {
		one, err := MaximalAlphaLeakage(pi, p, alpha)
		require.NoError(t, err)
		near, err := MaximalAlphaBetaLeakage(pi, p, alpha, 1+1e-8)
		require.NoError(t, err)
		assert.InDelta(t, one, near, 1e-6, "α = %g", alpha)
	}
	// α → ∞: Gilani et al. (2022), eq. 15; the gap shrinks like 1/α.
	for _, beta := range []float64{1.2, 2} {
		limit := alphaInf(p, cols, beta)
		prev := math.Inf(1)
		for _, alpha := range []float64{50, 500} {
			v, err := MaximalAlphaBetaLeakage(pi, p, alpha, beta)
			require.NoError(t, err)
			gap := math.Abs(v - limit)
			assert.Less(t, gap, prev, "α = %g, β = %g", alpha, beta)
			prev = gap
		}
		assert.Less(t, prev, 0.05, "β = %g", beta)
	}
	// A deterministic mechanism: a used column with zeros makes every
	// β > 1 infinite.
	eye := mech.Mechanism{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	v, err := MaximalAlphaBetaLeakage(mech.Uniform(3), eye, 3, 1.5)
	require.NoError(t, err)
	assert.True(t, math.IsInf(v, 1))
}

// TestAlphaBetaStopsWithItsContext cancels the maximisation before it
// starts: the error is the context's and the bracket still holds.
func TestAlphaBetaStopsWithItsContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	p := randinst.Mechanism(rng, 80, 80, 0)
	pi := randinst.Prior(rng, 80, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	lo, up, err := alphaBetaBounds(ctx, pi, p, 1.5, 1.2)
	require.ErrorIs(t, err, context.Canceled)
	want, err := MaximalAlphaBetaLeakage(pi, p, 1.5, 1.2)
	require.NoError(t, err)
	assert.LessOrEqual(t, lo, want+1e-12)
	assert.GreaterOrEqual(t, up, want-1e-12)
}
