package instance

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

// priorTol is how far from 1 a generated prior may sum.
const priorTol = 1e-12

func checkPrior(t *testing.T, pi mech.Prior, what string) {
	t.Helper()
	s := 0.0
	for i, v := range pi {
		require.Greater(t, v, 0.0, "%s: letter %d", what, i)
		s += v
	}
	assert.InDelta(t, 1, s, priorTol, what)
	_, err := mech.NewPrior(pi)
	assert.NoError(t, err, what)
}

// binomialExact is C(n, k) p^k (1−p)^(n−k) in exact rational arithmetic
// for p = num/den, rounded once to float64.
func binomialExact(n, k int, num, den int64) float64 {
	c := new(big.Int).Binomial(int64(n), int64(k))
	q := new(big.Int).Exp(big.NewInt(num), big.NewInt(int64(k)), nil)
	r := new(big.Int).Exp(big.NewInt(den-num), big.NewInt(int64(n-k)), nil)
	top := new(big.Int).Mul(c, new(big.Int).Mul(q, r))
	bot := new(big.Int).Exp(big.NewInt(den), big.NewInt(int64(n)), nil)
	f, _ := new(big.Rat).SetFrac(top, bot).Float64()
	return f
}

func TestBinomialAgainstExactMasses(t *testing.T) {
	// binomial(n, 3/10) for small n, and binomial(600, 1/20), whose masses
	// reach about 1e-781 at k = 600: the letters up to the underflow
	// threshold must be exact to rounding, the rest refused.
	for _, n := range []int{0, 1, 2, 5, 20, 63} {
		pi, err := Binomial(n, 0.3)
		require.NoError(t, err)
		require.Len(t, pi, n+1)
		checkPrior(t, pi, "binomial")
		for k, v := range pi {
			want := binomialExact(n, k, 3, 10)
			assert.InDelta(t, 1, v/want, 1e-12, "n=%d k=%d: %g vs %g", n, k, v, want)
		}
	}
	// binomial(250, 1/20): the smallest mass, k = 250, is 20^−250 ≈ 5.5e-326...
	// below the normal range, so the prior is refused.
	_, err := Binomial(250, 0.05)
	assert.ErrorContains(t, err, "smallest normal")
	// binomial(220, 1/20): the smallest mass is 20^−220 ≈ 5.9e-287, normal.
	pi, err := Binomial(220, 0.05)
	require.NoError(t, err)
	checkPrior(t, pi, "binomial(220, 0.05)")
	for _, k := range []int{0, 11, 100, 200, 219, 220} {
		want := binomialExact(220, k, 1, 20)
		assert.InDelta(t, 1, pi[k]/want, 1e-11, "k=%d: %g vs %g", k, pi[k], want)
	}
	assert.Less(t, pi.Min(), 1e-280)
	for _, bad := range []float64{0, 1, -0.1, math.NaN()} {
		_, err := Binomial(5, bad)
		assert.Error(t, err, "p = %v", bad)
	}
}

func TestZipfAndGeometric(t *testing.T) {
	pi, err := Zipf(4, 1)
	require.NoError(t, err)
	h := 1 + 1.0/2 + 1.0/3 + 1.0/4
	for k, v := range pi {
		assert.InDelta(t, 1/(float64(k+1)*h), v, 1e-15)
	}
	for _, s := range []float64{0, 0.5, 1, 2, 40} {
		pi, err := Zipf(100, s)
		require.NoError(t, err)
		checkPrior(t, pi, "zipf")
		assert.InDelta(t, math.Pow(100, -s), pi[99]/pi[0], 1e-12*math.Pow(100, -s), "s = %v", s)
	}
	_, err = Zipf(200, 150) // 200^−150 ≈ 1e-345
	assert.ErrorContains(t, err, "smallest normal")

	pi, err = Geometric(3, 0.5)
	require.NoError(t, err)
	for k, want := range []float64{4.0 / 7, 2.0 / 7, 1.0 / 7} {
		assert.InDelta(t, want, pi[k], 1e-15)
	}
	pi, err = Geometric(500, 0.25) // last mass ≈ 0.75 · 4^−499 ≈ 4e-301
	require.NoError(t, err)
	checkPrior(t, pi, "geometric")
	assert.InDelta(t, 1, pi[499]/(0.75*math.Pow(0.25, 499)), 1e-12)
	for _, bad := range []float64{0, -1, math.Inf(1)} {
		_, err := Geometric(5, bad)
		assert.Error(t, err)
	}
}

func TestDirichlet(t *testing.T) {
	// Dirichlet(1) is normalised standard exponentials, drawn in order
	// from the stream: the bench's random instances depend on it bit for
	// bit.
	a, b := rand.New(rand.NewPCG(7, 8)), rand.New(rand.NewPCG(7, 8))
	for n := 1; n < 40; n++ {
		pi, err := Dirichlet(a, n, 1)
		require.NoError(t, err)
		want := make(mech.Prior, n)
		s := 0.0
		for i := range want {
			want[i] = b.ExpFloat64()
			s += want[i]
		}
		for i := range want {
			want[i] /= s
		}
		assert.Equal(t, want, pi)
	}
	// Dirichlet(a) on 3 letters has mean 1/3 and variance (1/3)(2/3)/(3a+1)
	// per entry.
	for _, conc := range []float64{0.3, 1, 2.5} {
		rng := rand.New(rand.NewPCG(3, 4))
		const trials = 20000
		mean, sq := 0.0, 0.0
		for k := 0; k < trials; k++ {
			pi, err := Dirichlet(rng, 3, conc)
			require.NoError(t, err)
			checkPrior(t, pi, "dirichlet")
			mean += pi[1]
			sq += pi[1] * pi[1]
		}
		mean /= trials
		variance := sq/trials - mean*mean
		want := (2.0 / 9) / (3*conc + 1)
		assert.InDelta(t, 1.0/3, mean, 4*math.Sqrt(want/trials), "a = %v", conc)
		assert.InDelta(t, want, variance, 0.05*want, "a = %v", conc)
	}
}

func TestCountingIsSongOechteringEq12(t *testing.T) {
	// Song and Oechtering (2026), eq. (12): the order of the 7-letter
	// counting query.
	want := mech.Order{{7, 6, 5, 4, 3, 2, 1}, {5, 7, 6, 4, 3, 2, 1}, {3, 5, 7, 6, 4, 2, 1}, {1, 3, 5, 7, 6, 4, 2},
		{1, 2, 3, 5, 7, 6, 4}, {1, 2, 3, 4, 5, 7, 6}, {1, 2, 3, 4, 5, 6, 7}}
	u, err := Counting(7)
	require.NoError(t, err)
	assert.Equal(t, want, u.Order())
	assert.Equal(t, []float64{-10, -5, -2, 0, -1, -4, -9}, u[3])
	assert.Equal(t, []float64{-37, -26, -17, -10, -5, -2, 0}, u[6])
}

func TestLineLosses(t *testing.T) {
	a, _ := AbsLoss(5)
	s, _ := SquareLoss(5)
	hm, _ := Hamming(5)
	bd, _ := Bands(9, 4)
	for x := 0; x < 5; x++ {
		for y := 0; y < 5; y++ {
			d := math.Abs(float64(x - y))
			assert.Equal(t, -d, a[x][y]+0)
			assert.Equal(t, -d*d, s[x][y]+0)
			assert.Equal(t, map[bool]float64{true: 0, false: -1}[x == y], hm[x][y])
		}
	}
	assert.Equal(t, []float64{0, 0, 0, 0, -1, -1, -1, -1, -2}, bd[0])
	assert.Equal(t, []float64{-1, 0, 0, 0, 0, 0, 0, 0, -1}, bd[4])
	assert.Len(t, bd.Values(), 3)
}

func TestGrid(t *testing.T) {
	u, err := Grid(3, 2) // cells (0,0) (1,0) (2,0) / (0,1) (1,1) (2,1)
	require.NoError(t, err)
	assert.InDelta(t, -math.Sqrt(5), u[0][5], 0)
	assert.InDelta(t, -2, u[3][5], 0)
	assert.InDelta(t, -1, u[1][4], 0)
	assert.InDelta(t, -math.Sqrt2, u[4][0], 0)
	for x := range u {
		assert.Equal(t, 0.0, u[x][x])
		for y := range u {
			assert.Equal(t, u[x][y], u[y][x])
		}
	}
	for _, c := range []struct{ n, w, h int }{{64, 8, 8}, {128, 16, 8}, {32, 8, 4}, {12, 4, 3}, {7, 7, 1}} {
		w, h := GridSides(c.n)
		assert.Equal(t, [2]int{c.w, c.h}, [2]int{w, h}, "n = %d", c.n)
	}
}

func TestBuckets(t *testing.T) {
	// 4 inputs at 1/8, 3/8, 5/8, 7/8 released as 2 buckets at 1/4, 3/4:
	// distances times 2·4·2 = 16.
	u, err := Buckets(4, 2)
	require.NoError(t, err)
	assert.Equal(t, mech.Utility{{-2, -10}, {-2, -6}, {-6, -2}, {-10, -2}}, u)
	f, err := Buckets(2, 4) // the transpose, finer release
	require.NoError(t, err)
	for x := 0; x < 2; x++ {
		for y := 0; y < 4; y++ {
			assert.Equal(t, u[y][x], f[x][y])
		}
	}
}

func TestFamilies(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Families() {
		assert.False(t, seen[f.Name], "duplicate %s", f.Name)
		seen[f.Name] = true
		g, err := Lookup(f.Name)
		require.NoError(t, err)
		assert.Equal(t, f.Name, g.Name)
		for _, n := range []int{2, 3, 8, 12, 64} {
			in, err := f.New(n, 5)
			require.NoError(t, err, "%s n=%d", f.Name, n)
			checkPrior(t, in.Prior, f.Name)
			require.Len(t, in.Prior, n)
			_, err = mech.NewUtility(in.Utility)
			require.NoError(t, err)
			require.Len(t, in.Utility, n)
			again, _ := f.New(n, 5)
			assert.Equal(t, in, again, "%s: the same seed gives the same instance", f.Name)
			other, _ := f.New(n, 6)
			assert.Equal(t, f.Random, !assert.ObjectsAreEqual(in, other), "%s: only random families depend on the seed", f.Name)
		}
	}
	_, err := Lookup("nope")
	assert.Error(t, err)
	_, err = Families()[0].New(1, 0)
	assert.Error(t, err)
	_, err = Family{Name: "home-made"}.New(8, 0)
	assert.Error(t, err, "a Family not from Families has no generator")
}

func TestRandomFamilyIsTheScalingInstance(t *testing.T) {
	// The random family is the bench's scaling instance: Dirichlet(1) and
	// uniform utilities from PCG(seed, n), in that order.
	f, err := Lookup("random")
	require.NoError(t, err)
	in, err := f.New(16, 2026)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(2026, 16))
	pi, err := Dirichlet(r, 16, 1)
	require.NoError(t, err)
	assert.Equal(t, pi, in.Prior)
	for x := 0; x < 16; x++ {
		for y := 0; y < 16; y++ {
			assert.Equal(t, r.Float64(), in.Utility[x][y])
		}
	}
}

// TestSubnormalParameter: a ratio or success probability of 1e-310 makes a
// mass of about 1e-310, below the smallest normal float64: refused, with
// its log −310·log 10 ≈ −713.8 (math.Log on amd64 says −709.085).
func TestSubnormalParameter(t *testing.T) {
	_, err := Geometric(2, 1e-310)
	assert.ErrorContains(t, err, "exp(-713.801)")
	_, err = Binomial(1, 1e-310)
	assert.ErrorContains(t, err, "exp(-713.801)")
}
