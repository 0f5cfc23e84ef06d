package leakage

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
)

// issue22 is a 4×3 mechanism on which maximal α-leakage (α = 2) is not
// certified within alphaFail.
var (
	issue22Prior = mech.Prior{3.0 / 19, 6.0 / 19, 6.0 / 19, 4.0 / 19}
	issue22Mech  = mech.Mechanism{
		{1, 0, 0},
		{59000000.0 / 144000007, 7.0 / 144000007, 85000000.0 / 144000007},
		{4000000.0 / 4000003, 0, 3.0 / 4000003},
		{25.0 / 86, 0, 61.0 / 86},
	}
)

func TestAuditKeepsAnUncertifiedBracket(t *testing.T) {
	r, err := Audit(issue22Prior, issue22Mech, 2, 1)
	require.NoError(t, err)
	lo, up := r.MaximalAlphaLeakage, r.MaximalAlphaLeakageUpper
	assert.LessOrEqual(t, lo, up)
	// Both ends are certified: the lower end is Sibson's information at
	// some prior, so no prior on a fine grid of the simplex beats the
	// upper end, and the grid comes close to the lower end.
	grid := math.Inf(-1)
	const k = 80
	for a := 0; a <= k; a++ {
		for b := 0; a+b <= k; b++ {
			for c := 0; a+b+c <= k; c++ {
				w := []float64{float64(a) / k, float64(b) / k, float64(c) / k, float64(k-a-b-c) / k}
				grid = math.Max(grid, sibson(issue22Mech, w, 2))
			}
		}
	}
	assert.LessOrEqual(t, grid, up+tol)
	assert.InDelta(t, grid, lo, 1e-3)
	if up-lo > alphaFail {
		require.Len(t, r.Notes, 1)
		assert.Contains(t, r.Notes[0], "maximal α-leakage not certified")
	}
	// β = 1 shares the work: (α,1)-leakage is α-leakage.
	assert.Equal(t, lo, r.MaximalAlphaBetaLeakage)
	assert.Equal(t, up, r.MaximalAlphaBetaLeakageUpper)
}

// TestAlphaBoundsHoldOnLargeMechanisms checks the bracket of the
// multiplicative-update-and-Newton method on mechanisms too large for a
// grid: the lower end is at most the Sibson information of the prior it
// reports being attained by (so at least that of any prior tried), and the
// upper end is at least the Sibson information of every random prior.
func TestAlphaBoundsHoldOnLargeMechanisms(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for _, n := range []int{20, 80} {
		p := randinst.Mechanism(rng, n, n/2+3, 0.3)
		pi := randinst.Prior(rng, n, 0.01)
		for _, ab := range [][2]float64{{2, 1}, {1.5, 1}, {4, 2}, {3, 1.5}} {
			lo, up, err := MaximalAlphaBetaLeakageBounds(pi, p, ab[0], ab[1])
			if math.IsInf(lo, 1) {
				continue // a mixed column with β > 1
			}
			require.NoError(t, err, "n=%d α,β=%v", n, ab)
			assert.LessOrEqual(t, up-lo, 1e-9)
			for trial := 0; trial < 200 && ab[1] == 1; trial++ {
				w := randinst.Dirichlet(rng, n)
				assert.LessOrEqual(t, sibson(p, w, ab[0]), up+tol)
			}
		}
	}
}

func TestAuditRejectsBadInput(t *testing.T) {
	pi := mech.Uniform(2)
	_, err := Audit(pi, mech.Mechanism{{0.5, 0.5}, {1}}, 2, 1)
	require.Error(t, err, "ragged")
	_, err = Audit(pi, mech.Mechanism{{math.NaN(), 1}, {0.5, 0.5}}, 2, 1)
	require.Error(t, err, "NaN entry")
	assert.Contains(t, err.Error(), "NaN")
	_, err = Audit(mech.Prior{math.NaN(), 1}, mech.Mechanism{{1, 0}, {0, 1}}, 2, 1)
	require.Error(t, err, "NaN prior")
	_, err = Audit(pi, nil, 2, 1)
	require.Error(t, err, "nil mechanism")
}

func TestAuditStopsWithItsContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := randinst.Mechanism(rng, 60, 60, 0)
	pi := randinst.Prior(rng, 60, 0.01)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := AuditContext(ctx, pi, p, 2, 1)
	require.ErrorIs(t, err, context.Canceled)
}

func BenchmarkMaximalAlphaLeakage1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1000))
	p := randinst.Mechanism(rng, 1000, 1000, 0)
	pi := randinst.Prior(rng, 1000, 0.01)
	for _, ab := range [][2]float64{{2, 1}, {4, 2}, {3, 1.5}, {1.5, 1.2}, {1.1, 1.05}, {2, 1.001}, {10, 1.5},
		{6, 1.1}, {8, 1.2}, {5, 1.05}, {20, 1.5}} {
		b.Run(fmt.Sprintf("alpha=%g,beta=%g", ab[0], ab[1]), func(b *testing.B) {
			for b.Loop() {
				if _, err := MaximalAlphaBetaLeakage(pi, p, ab[0], ab[1]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestLRDPProductMatchesPairs compares the matrix-product form of LRDP with
// the pairwise log-domain sums it replaces on large mechanisms.
func TestLRDPProductMatchesPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	p := randinst.Mechanism(rng, 120, 100, 0)
	for _, alpha := range []float64{1.5, 2, 7} {
		got, ok := lrdpProduct(p, alpha)
		require.True(t, ok)
		want := 0.0
		for i := range p {
			for k := range p {
				if i != k {
					want = math.Max(want, renyiRows(p[i], p[k], alpha))
				}
			}
		}
		assert.InDelta(t, want, got, 1e-12*math.Max(1, want), "α = %g", alpha)
	}
	// A used column with a zero: +Inf, as the pairwise sums give.
	z := make(mech.Mechanism, len(p))
	for i := range p {
		z[i] = append([]float64(nil), p[i]...)
	}
	z[3][7], z[3][8] = 0, z[3][7]+z[3][8]
	v, ok := lrdpProduct(z, 2)
	require.True(t, ok)
	assert.True(t, math.IsInf(v, 1))
	// Ratios whose powers leave float64 are left to the pairwise sums.
	_, ok = lrdpProduct(p, 1e4)
	assert.False(t, ok)
	// Small mechanisms too.
	_, ok = lrdpProduct(mech.Mechanism{{0.5, 0.5}, {0.25, 0.75}}, 2)
	assert.False(t, ok)
}
