package worstcase

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/solver"
)

// TestBinomialCountingCurve: the counting query with a binomial(N−1, p)
// prior has letters of mass down to p^(N−1) and thresholds whose allowed
// outputs carry almost no mass, where the column generation's master must
// keep its weights on one scale (at N = 20 and p = 0.1, ε* reaches 45
// nats). Its order curve closes with the pure-Go probes alone, up to a
// handful of LPs, and every threshold agrees with plain bisection over the
// full feasibility LP.
func TestBinomialCountingCurve(t *testing.T) {
	s, err := solver.Get("revised")
	require.NoError(t, err)
	type binomial struct {
		n int
		p float64
	}
	cases := []binomial{{20, 0.1}}
	if !testlong.Short() {
		cases = append(cases, binomial{16, 0.3})
	}
	for _, c := range cases {
		n := c.n
		pi, err := instance.Binomial(n-1, c.p)
		require.NoError(t, err)
		u, err := instance.Counting(n)
		require.NoError(t, err)
		o := u.Order()
		pts, err := OrderCurve(context.Background(), pi, o, Options{Solver: s})
		require.NoError(t, err)
		require.Len(t, pts, n)
		lps := 0
		for _, p := range pts {
			lps += p.LPSolves
			pat := o.Pattern(p.H)
			audit(t, pi, pat, Result{OptimalEpsilonLower: p.OptimalEpsilonLower, OptimalEpsilon: p.OptimalEpsilon, Mechanism: p.Mechanism, Lower: p.Lower, Proof: p.Proof}, 1e-9*math.Max(1, p.OptimalEpsilon))
			want := plainLeastEpsilon(t, s, pi, pat, 1e-11)
			require.InDelta(t, want, p.OptimalEpsilon, 2e-9*math.Max(1, want), "N = %d, h = %d: bracket [%v, %v]", n, p.H, p.OptimalEpsilonLower, p.OptimalEpsilon)
		}
		t.Logf("N = %d: %d LPs", n, lps)
		require.LessOrEqual(t, lps, 3, "N = %d", n)
	}
}

// TestValueCurveCountsEveryThreshold: a value curve reports one point per
// step, and its counts add up to the work on every threshold (as reported
// one by one to Options.Settled), those inside the steps included.
func TestValueCurveCountsEveryThreshold(t *testing.T) {
	in := familyInstance(t, "counting-binomial", 16, 1)
	var settled, starts int
	byH := map[int]int{}
	opt := Options{Workers: 1, Settled: func(p Point) {
		settled += p.LPSolves + p.GoProbes
		byH[p.H] = p.LPSolves + p.GoProbes
	}}
	pts, err := ValueCurve(context.Background(), in.Prior, in.Utility, opt)
	require.NoError(t, err)
	got := 0
	for _, p := range pts {
		got += p.LPSolves + p.GoProbes
		starts += byH[p.H]
	}
	assert.Equal(t, settled, got)
	assert.Greater(t, settled, starts, "no work inside a step: the test proves nothing")
}

// TestOpeningsCloseWithoutLP: where ε* is an output's opening c_j =
// −log π(A_j) (with a uniform prior, log(N/|A_j|): log 4 and log 8 on the
// coarse family at N = 64), the probes just above it return points of
// nearly parallel columns that audit 1e-9 above their ε, and probes there
// alone leave those thresholds to LPs. Probed at the opening itself,
// the column generation gives a mechanism within rounding of it: every
// threshold closes without an LP, the breakpoints are bracketed within
// 1e-13 of log 4 and log 8, and each agrees with plain bisection over the
// full LP.
func TestOpeningsCloseWithoutLP(t *testing.T) {
	s, err := solver.Get("revised")
	require.NoError(t, err)
	in := familyInstance(t, "coarse", 64, 1)
	o := in.Order()
	pts, err := OrderCurve(context.Background(), in.Prior, o, Options{Solver: s, Probes: ProbesColumns})
	require.NoError(t, err)
	require.Len(t, pts, 16)
	breaks := map[int]float64{13: math.Log(4), 15: math.Log(8)}
	for _, p := range pts {
		assert.Zero(t, p.LPSolves, "h = %d", p.H)
		pat := o.Pattern(p.H)
		audit(t, in.Prior, pat, Result{OptimalEpsilonLower: p.OptimalEpsilonLower, OptimalEpsilon: p.OptimalEpsilon, Mechanism: p.Mechanism, Lower: p.Lower, Proof: p.Proof}, 1e-9*math.Max(1, p.OptimalEpsilon))
		if c, ok := breaks[p.H]; ok {
			assert.InDelta(t, c, p.OptimalEpsilon, 1e-13, "h = %d", p.H)
			assert.InDelta(t, c, p.OptimalEpsilonLower, 1e-13, "h = %d", p.H)
		}
		if breaks[p.H] > 0 || p.H == 8 {
			want := plainLeastEpsilon(t, s, in.Prior, pat, 1e-11)
			assert.InDelta(t, want, p.OptimalEpsilon, 2e-9*math.Max(1, want), "h = %d", p.H)
		}
	}
}

// TestReachIsTheMechanismsWorstCase: on a value curve, the thresholds a
// solved threshold's mechanism covers are those up to its worst-case
// value (mech.Utility.WorstCaseValue), which the curve then inherits
// without a search.
func TestReachIsTheMechanismsWorstCase(t *testing.T) {
	in := familyInstance(t, "random", 12, 3)
	fam, vs, err := valueFamily(in.Prior, in.Utility)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(4, 5))
	jumps := 0
	for trial := range 20 {
		a := rng.IntN(fam.k - 1)
		r, err := LeastEpsilon(context.Background(), in.Prior, fam.pattern(a), Options{})
		require.NoError(t, err)
		c := &curveRun{fam: fam, res: make([]*Result, fam.k)}
		c.res[a] = &r
		w := in.Utility.WorstCaseValue(r.Mechanism)
		want := a
		for k := a + 1; k < fam.k-1; k++ {
			if vs[k] <= w {
				want = k
			}
		}
		assert.Equal(t, want, c.reach(a, fam.k-1), "trial %d, a = %d, worst case %v", trial, a, w)
		if want > a {
			jumps++
		}
	}
	assert.Greater(t, jumps, 5, "the mechanisms reach no further than their thresholds: the test proves little")
}

// familyInstance is the instance of the named family of package instance
// with n letters, drawn with seed.
func familyInstance(t *testing.T, name string, n int, seed uint64) instance.Instance {
	t.Helper()
	f, err := instance.Lookup(name)
	require.NoError(t, err)
	in, err := f.New(n, seed)
	require.NoError(t, err)
	return in
}
