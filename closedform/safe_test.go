package closedform

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// countingOrder is the utility order U of Song & Oechtering (2026), eq. (12), typed from the
// paper (its row 4 breaks the tie u'_41 = u'_47 = −9, so it is not
// Utility.Order of eq. (11)).
var countingOrder = mech.Order{
	{7, 6, 5, 4, 3, 2, 1},
	{5, 7, 6, 4, 3, 2, 1},
	{3, 5, 7, 6, 4, 2, 1},
	{1, 3, 5, 7, 6, 4, 2},
	{1, 2, 3, 5, 7, 6, 4},
	{1, 2, 3, 4, 5, 7, 6},
	{1, 2, 3, 4, 5, 6, 7},
}

// countingCurve is ε_S(h), h = 1..7, for the counting query under the
// uniform prior, worked by hand from eq. (12): at h = 3 the least column sum
// is 3/7 (y_1: x_1..x_3), at h = 4, 5 it is 2/7 (y_1: x_1, x_2) and at
// h = 6, 7 it is 1/7 (y_1: x_1 alone).
var countingCurve = []float64{
	0, math.Log(7.0 / 3), math.Log(7.0 / 3), math.Log(7.0 / 2), math.Log(7.0 / 2), math.Log(7), math.Log(7),
}

func TestCountingQueryCurve(t *testing.T) {
	pi := mech.Uniform(7)
	curve, err := SafeCurve(pi, countingOrder)
	require.NoError(t, err)
	require.Len(t, curve, 7)
	for h := 1; h <= 7; h++ {
		assert.InDelta(t, countingCurve[h-1], curve[h-1], 1e-12, "h=%d", h)
		e, err := SafeEpsilon(pi, countingOrder, h)
		require.NoError(t, err)
		assert.InDelta(t, countingCurve[h-1], e, 1e-12, "h=%d", h)
		p, err := UtilitySafe(countingOrder, h)
		require.NoError(t, err)
		assert.InDelta(t, countingCurve[h-1], leakage.PML(pi, p), 1e-12, "audited PML, h=%d", h)
	}
}

func TestCountingQuerySchedule(t *testing.T) {
	pi := mech.Uniform(7)
	below := func(x float64) float64 { return x * (1 - 1e-9) }
	cases := []struct {
		eps  float64
		h    int
		epsS float64
	}{
		{0, 1, 0},
		{below(math.Log(7.0 / 3)), 1, 0},
		{math.Log(7.0 / 3), 3, math.Log(7.0 / 3)},
		{below(math.Log(7.0 / 2)), 3, math.Log(7.0 / 3)},
		{math.Log(7.0 / 2), 5, math.Log(7.0 / 2)},
		{1.3, 5, math.Log(7.0 / 2)},
		{below(math.Log(7)), 5, math.Log(7.0 / 2)},
		{math.Log(7), 7, math.Log(7)},
		{50, 7, math.Log(7)},
	}
	for _, c := range cases {
		h, epsS := SafeSchedule(pi, countingOrder, c.eps)
		assert.Equal(t, c.h, h, "eps=%.17g", c.eps)
		assert.InDelta(t, c.epsS, epsS, 1e-12, "eps=%.17g", c.eps)
	}

	// Figure 1 of Song & Oechtering (2026): on the grid ε = 0.50, 0.55, …, 2.00 the
	// schedule jumps at 0.85, 1.30 and 1.95.
	jumps := map[int]int{}
	prev := 0
	for k := 0; k <= 30; k++ {
		eps := 0.5 + 0.05*float64(k)
		h, _ := SafeSchedule(pi, countingOrder, eps)
		if h != prev {
			jumps[int(math.Round(eps*100))] = h
			prev = h
		}
	}
	assert.Equal(t, map[int]int{50: 1, 85: 3, 130: 5, 195: 7}, jumps)
}

func TestUtilitySafeStrict(t *testing.T) {
	for h := 1; h <= 7; h++ {
		p, err := UtilitySafe(countingOrder, h)
		require.NoError(t, err)
		for i, row := range p {
			for j, v := range row {
				if countingOrder[i][j] >= h {
					assert.Equal(t, 1/float64(8-h), v)
				} else {
					assert.Zero(t, v)
				}
			}
		}
		assert.Equal(t, h, countingOrder.WorstCaseOrder(p))
		_, err = mech.NewMechanism(p)
		require.NoError(t, err)
	}
	for _, h := range []int{0, 8, -3} {
		_, err := UtilitySafe(countingOrder, h)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "h = ")
		assert.Contains(t, err.Error(), "outside 1..7")
		_, err = SafeEpsilon(mech.Uniform(7), countingOrder, h)
		require.Error(t, err)
	}
}

// Example 1 of Song & Oechtering (2026): U of eq. (8) with x_1 the most likely letter gives
// ε_S(2) = −log(π_2 + π_3).
func TestExample1(t *testing.T) {
	o := mech.Order{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}}
	pi := mech.Prior{0.6, 0.25, 0.15}
	e, err := SafeEpsilon(pi, o, 2)
	require.NoError(t, err)
	assert.InDelta(t, -math.Log(0.25+0.15), e, 1e-15)
	p, err := UtilitySafe(o, 2)
	require.NoError(t, err)
	assert.InDelta(t, -math.Log(0.4), leakage.PML(pi, p), 1e-15)
	// The optimum of problem (2) is lower: mechanism (9) of the paper, valid
	// since π_2 + π_3 ≤ 1/2, has PML log 2.
	p9 := mech.Mechanism{
		{(1 - 2*pi[2]) / (2 * pi[0]), (1 - 2*pi[1]) / (2 * pi[0]), 0},
		{0, 1, 0},
		{1, 0, 0},
	}
	_, err = mech.NewMechanism(p9)
	require.NoError(t, err)
	assert.True(t, o.Pattern(2).Holds(p9))
	assert.InDelta(t, math.Log(2), leakage.PML(pi, p9), 1e-15)
	assert.Less(t, math.Log(2), e)
}

// For strict orders ε_S(h) is the PML of M*(h) (Cor 1), the output PML is the
// Cor 1 term (Cor 2), and the posterior keeps the prior's ratios on the
// support (Cor 2).
func TestSafeEpsilonIsPMLStrict(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		n, m := 1+rng.IntN(7), 1+rng.IntN(7)
		o := randinst.StrictOrder(rng, n, m)
		pi := randinst.Prior(rng, n, 0.01)
		curve, err := SafeCurve(pi, o)
		require.NoError(t, err)
		for h := 1; h <= m; h++ {
			p, err := UtilitySafe(o, h)
			require.NoError(t, err)
			e, err := SafeEpsilon(pi, o, h)
			require.NoError(t, err)
			require.InDelta(t, leakage.PML(pi, p), e, 1e-12)
			require.InDelta(t, e, curve[h-1], 1e-12)

			per := leakage.PMLPerOutput(pi, p)
			post := p.Posterior(pi)
			for j := 0; j < m; j++ {
				s := 0.0
				for i := range o {
					if o[i][j] >= h {
						s += pi[i]
					}
				}
				if s == 0 {
					assert.True(t, math.IsInf(per[j], -1))
					continue
				}
				require.InDelta(t, -math.Log(s), per[j], 1e-12)
				for i := range o {
					if o[i][j] >= h {
						require.InDelta(t, pi[i]/s, post[i][j], 1e-12)
					}
				}
			}
		}
	}
}

// With ties SafeCurve still equals SafeEpsilon, which is a lower bound on the
// PML of M*(h), and the schedule only returns mechanisms within the budget.
func TestTiedOrders(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		n, m := 1+rng.IntN(6), 1+rng.IntN(6)
		o := randinst.Utility(rng, n, m, 3).Order()
		pi := randinst.Prior(rng, n, 0.01)
		curve, err := SafeCurve(pi, o)
		require.NoError(t, err)
		for h := 1; h <= m; h++ {
			e, err := SafeEpsilon(pi, o, h)
			require.NoError(t, err)
			require.InDelta(t, e, curve[h-1], 1e-12)
			p, err := UtilitySafe(o, h)
			require.NoError(t, err)
			_, err = mech.NewMechanism(p)
			require.NoError(t, err)
			require.True(t, o.Pattern(h).Holds(p))
			require.GreaterOrEqual(t, leakage.PML(pi, p), e-1e-12)
		}
		eps := 2 * rng.Float64()
		h, epsS := SafeSchedule(pi, o, eps)
		p, err := UtilitySafe(o, h)
		require.NoError(t, err)
		require.InDelta(t, leakage.PML(pi, p), epsS, 1e-12)
		require.LessOrEqual(t, epsS, eps+1e-12)
		// No larger threshold has a utility-safe mechanism within budget.
		for k := h + 1; k <= m; k++ {
			pk, err := UtilitySafe(o, k)
			require.NoError(t, err)
			require.Greater(t, leakage.PML(pi, pk), eps)
		}
	}
}

// A tie order with unequal row counts: x_1 is indifferent between all
// outputs, x_2 ranks them 1 2 3. ε_S(h) = −log 0.9 for h = 2, 3, but M*(2)
// and M*(3) leak log(10/7) and log 2.5, and the schedule accounts for it.
func TestTiesUnequalCounts(t *testing.T) {
	o := mech.Order{{3, 3, 3}, {1, 2, 3}}
	pi := mech.Prior{0.9, 0.1}
	curve, err := SafeCurve(pi, o)
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float64{0, -math.Log(0.9), -math.Log(0.9)}, curve, 1e-15)
	p2, err := UtilitySafe(o, 2)
	require.NoError(t, err)
	assert.Equal(t, mech.Mechanism{{1.0 / 3, 1.0 / 3, 1.0 / 3}, {0, 0.5, 0.5}}, p2)
	assert.InDelta(t, math.Log(10.0/7), leakage.PML(pi, p2), 1e-15)
	p3, err := UtilitySafe(o, 3)
	require.NoError(t, err)
	assert.InDelta(t, math.Log(2.5), leakage.PML(pi, p3), 1e-15)

	for _, c := range []struct {
		eps  float64
		h    int
		epsS float64
	}{
		{0.2, 1, 0},
		{0.4, 2, math.Log(10.0 / 7)},
		{1, 3, math.Log(2.5)},
	} {
		h, epsS := SafeSchedule(pi, o, c.eps)
		assert.Equal(t, c.h, h, "eps=%g", c.eps)
		assert.InDelta(t, c.epsS, epsS, 1e-15, "eps=%g", c.eps)
	}
}

// ε_S(h) is not monotone in h: M*(2) gives y_2 to x_2 alone, M*(3) sends
// everything to y_1.
func TestSafeCurveNotMonotone(t *testing.T) {
	o := mech.Order{{3, 1, 2}, {3, 2, 1}}
	pi := mech.Prior{0.9, 0.1}
	curve, err := SafeCurve(pi, o)
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float64{0, math.Log(10), 0}, curve, 1e-15)
	for h := 1; h <= 3; h++ {
		p, err := UtilitySafe(o, h)
		require.NoError(t, err)
		assert.InDelta(t, curve[h-1], leakage.PML(pi, p), 1e-15)
	}
	h, epsS := SafeSchedule(pi, o, 0)
	assert.Equal(t, 3, h)
	assert.Zero(t, epsS)
}

func TestSafeInvalid(t *testing.T) {
	pi := mech.Uniform(2)
	for _, o := range []mech.Order{
		nil,
		{{}},
		{{1, 2}, {1}},
		{{1, 1, 3}, {1, 2, 3}},
		{{1, 2}, {0, 2}},
		{{1, 3}, {1, 2}},
	} {
		_, err := SafeCurve(pi, o)
		require.Error(t, err, "%v", o)
		_, err = UtilitySafe(o, 1)
		require.Error(t, err, "%v", o)
		_, err = SafeEpsilon(pi, o, 1)
		require.Error(t, err, "%v", o)
		h, e := SafeSchedule(pi, o, 1)
		assert.Zero(t, h)
		assert.True(t, math.IsNaN(e))
	}
	o := mech.Order{{1, 2}, {2, 1}}
	for _, bad := range []mech.Prior{{1}, {0.5, 0.6}, {1, 0}, {0.5, math.NaN()}} {
		_, err := SafeCurve(bad, o)
		require.Error(t, err, "%v", bad)
		_, err = SafeEpsilon(bad, o, 1)
		require.Error(t, err, "%v", bad)
	}
	for _, eps := range []float64{-0.1, math.NaN()} {
		h, e := SafeSchedule(pi, o, eps)
		assert.Zero(t, h)
		assert.True(t, math.IsNaN(e))
	}
	h, e := SafeSchedule(pi, o, math.Inf(1))
	assert.Equal(t, 2, h)
	assert.InDelta(t, math.Log(2), e, 1e-15)
}

// checkOrder accepts exactly the rows mech.NewOrder accepts: every row of
// length 4 with entries in 0..5.
func TestCheckOrderMatchesNewOrder(t *testing.T) {
	row := make([]int, 4)
	var rec func(k int)
	accepted := 0
	rec = func(k int) {
		if k == len(row) {
			o := mech.Order{append([]int(nil), row...)}
			_, errMine, errMech := 0, error(nil), error(nil)
			_, _, errMine = checkOrder(o)
			_, errMech = mech.NewOrder(o)
			require.Equal(t, errMech == nil, errMine == nil, "%v", row)
			if errMine == nil {
				accepted++
			}
			return
		}
		for v := 0; v <= 5; v++ {
			row[k] = v
			rec(k + 1)
		}
	}
	rec(0)
	// Rankings of 4 items with ties = ordered set partitions = Fubini
	// number 75.
	assert.Equal(t, 75, accepted)
}

func BenchmarkSafeCurve1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	o := randinst.StrictOrder(rng, 1000, 1000)
	pi := randinst.Prior(rng, 1000, 0.01)
	b.ResetTimer()
	for b.Loop() {
		if _, err := SafeCurve(pi, o); err != nil {
			b.Fatal(err)
		}
	}
}

// A wide problem (M ≫ N) exercises the heap path of SafeCurve.
func BenchmarkSafeCurveWide(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	o := randinst.StrictOrder(rng, 10, 100000)
	pi := randinst.Prior(rng, 10, 0.01)
	b.ResetTimer()
	for b.Loop() {
		if _, err := SafeCurve(pi, o); err != nil {
			b.Fatal(err)
		}
	}
}

// The heap and scan paths of SafeCurve agree with SafeEpsilon on wide and
// tall random problems.
func TestSafeCurveShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, dims := range [][2]int{{3, 200}, {200, 3}, {40, 40}} {
		for _, o := range []mech.Order{randinst.StrictOrder(rng, dims[0], dims[1]), randinst.Utility(rng, dims[0], dims[1], 3).Order()} {
			pi := randinst.Prior(rng, dims[0], 0.01)
			curve, err := SafeCurve(pi, o)
			require.NoError(t, err)
			for h := 1; h <= dims[1]; h++ {
				e, err := SafeEpsilon(pi, o, h)
				require.NoError(t, err)
				require.InDelta(t, e, curve[h-1], 1e-12, "dims %v h=%d", dims, h)
			}
		}
	}
}

func TestUniformOnAllowed(t *testing.T) {
	pat := mech.Pattern{{true, false, true}, {false, true, false}, {false, false, false}}
	p := UniformOnAllowed(pat)
	assert.Equal(t, mech.Mechanism{{0.5, 0, 0.5}, {0, 1, 0}, {0, 0, 0}}, p)
	// For an order threshold it is M*(h).
	o := mech.Order{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}}
	for h := 1; h <= 3; h++ {
		ms, err := UtilitySafe(o, h)
		require.NoError(t, err)
		assert.Equal(t, UniformOnAllowed(o.Pattern(h)), ms)
		for i := range ms {
			assert.InDelta(t, 1, ms[i][0]+ms[i][1]+ms[i][2], 1e-15)
		}
	}
}

// TestSafeEpsilonOverMatchesTheSetsMinimalMasses checks SafeEpsilonOver
// against the least mass of each output's allowed inputs written out for
// each kind of set: over a box, the allowed inputs at their lower bounds
// unless the others at their upper bounds leave more, max(Σ_A l, 1 − Σ_Ā u);
// over the L1 ball of radius r, half of r moved off them, π̂(A) − r/2 (at
// least 0), where some input is not allowed to take it (1 otherwise).
func TestSafeEpsilonOverMatchesTheSetsMinimalMasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	for trial := range 200 {
		n, m := 2+rng.IntN(6), 2+rng.IntN(5)
		pi := make(mech.Prior, n)
		for i := range pi {
			pi[i] = 0.05 + rng.Float64()
		}
		mech.Normalise(pi)
		pat := make(mech.Pattern, n)
		for i := range pat {
			pat[i] = make([]bool, m)
			for j := range m {
				pat[i][j] = rng.IntN(3) > 0
			}
			pat[i][rng.IntN(m)] = true
		}
		lo, up := make([]float64, n), make([]float64, n)
		for i := range pi {
			lo[i], up[i] = pi[i]*(0.5+0.5*rng.Float64()), math.Min(1, pi[i]*(1+rng.Float64()))
		}
		box, err := mech.NewBoxSet(pi, lo, up)
		if err != nil {
			t.Fatal(err)
		}
		r := 0.3 * rng.Float64()
		ball, err := mech.NewL1Set(pi, r)
		if err != nil {
			t.Fatal(err)
		}
		wantBox, wantBall := 0.0, 0.0
		for j := range m {
			inA, outU, ball0 := 0.0, 0.0, 0.0
			used, all := false, true
			for i := range n {
				if pat[i][j] {
					inA += lo[i]
					ball0 += pi[i]
					used = true
				} else {
					outU += up[i]
					all = false
				}
			}
			if !used {
				continue
			}
			least := math.Max(0, ball0-r/2)
			if all {
				least = 1
			}
			wantBox = math.Max(wantBox, -math.Log(math.Max(inA, 1-outU)))
			wantBall = math.Max(wantBall, -math.Log(least))
		}
		if got := SafeEpsilonOver(box, pat); !(got == wantBox || math.Abs(got-wantBox) <= 1e-12*math.Max(1, wantBox)) {
			t.Fatalf("trial %d box: SafeEpsilonOver %.15g, least masses give %.15g", trial, got, wantBox)
		}
		if got := SafeEpsilonOver(ball, pat); !(got == wantBall || math.Abs(got-wantBall) <= 1e-12*math.Max(1, wantBall)) {
			t.Fatalf("trial %d ball r=%g: SafeEpsilonOver %.15g, least masses give %.15g", trial, r, got, wantBall)
		}
	}
}
