package closedform

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// sizes is a Problem of n inputs and m outputs without a utility or an
// order.
type sizes struct{ n, m int }

func (s sizes) N() int { return s.n }
func (s sizes) M() int { return s.m }
func (s sizes) RequireUtilityContext(context.Context) (mech.Utility, error) {
	return nil, errors.New("utility: the problem has none")
}
func (s sizes) RequireOrderContext(context.Context) (mech.Order, error) {
	return nil, errors.New("utility: the problem has no order")
}

// TestCalibrateReachesTheBudget: randomized response's LDP is its ε̄ and
// the extremal mechanism's PML its ε, so each calibrates to the budget
// itself, to the bisection's width, and its mechanism is within it.
func TestCalibrateReachesTheBudget(t *testing.T) {
	pi := mech.Prior{0.1, 0.2, 0.3, 0.4}
	ctx := context.Background()
	ldp := mech.Budget{Measure: mech.LDP, Epsilon: 1.3}
	within := func(b mech.Budget) func(mech.Mechanism) bool {
		return func(q mech.Mechanism) bool { _, _, e := leakage.Level(pi, q, b); return e <= 0 }
	}
	c, err := Calibrate(ctx, FamilyRandomizedResponse, pi, nil, sizes{4, 4}, ldp, within(ldp))
	require.NoError(t, err)
	assert.InDelta(t, 1.3, c.Parameter, 1e-12)
	assert.Equal(t, 1.3, c.Start)
	assert.LessOrEqual(t, leakage.LDP(pi, c.Mechanism), 1.3)
	assert.Equal(t, "ε̄", c.ParameterName)

	pml := mech.Budget{Measure: mech.PML, Epsilon: 0.05}
	require.Less(t, 0.05, ExtremalLimit(pi))
	c, err = Calibrate(ctx, FamilyExtremal, pi, nil, sizes{4, 4}, pml, within(pml))
	require.NoError(t, err)
	assert.InDelta(t, 0.05, c.Parameter, 1e-12)
	assert.LessOrEqual(t, leakage.PML(pi, c.Mechanism), 0.05)
	assert.Equal(t, "ε", c.ParameterName)
}

// TestCalibrateErrors: the families that need a square problem, a utility
// or an order say so, and an unknown family is named.
func TestCalibrateErrors(t *testing.T) {
	pi := mech.Uniform(3)
	b := mech.Budget{Measure: mech.PML, Epsilon: 1}
	all := func(mech.Mechanism) bool { return true }
	ctx := context.Background()
	_, err := Calibrate(ctx, FamilyRandomizedResponse, pi, nil, sizes{3, 4}, b, all)
	assert.ErrorContains(t, err, "randomized response needs as many outputs as inputs, the problem has 3 and 4")
	_, err = Calibrate(ctx, FamilyExponential, pi, nil, sizes{3, 3}, b, all)
	assert.ErrorContains(t, err, "the problem has none")
	_, err = Calibrate(ctx, FamilyUtilitySafe, pi, nil, sizes{3, 3}, b, all)
	assert.ErrorContains(t, err, "no order")
	_, err = Calibrate(ctx, "bogus", pi, nil, sizes{3, 3}, b, all)
	assert.ErrorContains(t, err, `unknown baseline "bogus"`)
	// A budget nothing meets.
	_, err = Calibrate(ctx, FamilyRandomizedResponse, pi, nil, sizes{3, 3}, b, func(mech.Mechanism) bool { return false })
	assert.ErrorContains(t, err, "even the parameter 0 exceeds the budget")
}

// orderProblem is a Problem with an order and no utility.
type orderProblem struct{ o mech.Order }

func (p orderProblem) N() int { n, _ := p.o.Dims(); return n }
func (p orderProblem) M() int { _, m := p.o.Dims(); return m }
func (p orderProblem) RequireUtilityContext(context.Context) (mech.Utility, error) {
	return nil, errors.New("utility: the problem has none")
}
func (p orderProblem) RequireOrderContext(context.Context) (mech.Order, error) { return p.o, nil }

// TestCalibrateSafePassesOverUnreachableThresholds: every threshold
// unreachable marks has an audited level above the budget (unbounded
// under LIP, ALIP and LDP), and the calibrated h is the one a scan
// auditing every h finds (random orders with ties, a letter of zero mass,
// where SafeCurve refuses the prior and nothing is marked under PML, and
// the 4×4 grid's distance order, where under LIP, ALIP and LDP only h = 1
// is audited).
func TestCalibrateSafePassesOverUnreachableThresholds(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 1))
	grid := make(mech.Utility, 16) // −distance between the cells of a 4×4 grid
	for i := range grid {
		grid[i] = make([]float64, 16)
		for j := range grid[i] {
			grid[i][j] = -math.Hypot(float64(i%4-j%4), float64(i/4-j/4))
		}
	}
	budgets := []mech.Budget{
		{Measure: mech.LIP, Epsilon: 1}, {Measure: mech.LIP, Epsilon: 6},
		{Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 0.5}, {Measure: mech.ALIP, EpsilonLower: 4, EpsilonUpper: 9},
		{Measure: mech.LDP, Epsilon: 2}, {Measure: mech.LDP, Epsilon: 8},
		{Measure: mech.PML, Epsilon: 0.3}, {Measure: mech.PML, Epsilon: 1}, {Measure: mech.PML, Epsilon: 2.5},
	}
	marked := map[mech.Measure]int{}
	for trial := range 40 {
		o, pi := tiedOrder(rng, 5, 4)
		if trial%4 == 0 {
			pi[0] = 0
			mech.Normalise(pi)
		}
		if trial == 0 {
			o, pi = grid.Order(), mech.Uniform(16)
		}
		for _, b := range budgets {
			within := func(q mech.Mechanism) bool { _, _, e := leakage.Level(pi, q, b); return e <= 0 }
			want, k := scanSafe(t, pi, o, b, within, func(h int, q mech.Mechanism) {
				if _, _, e := leakage.Level(pi, q, b); b.Measure != mech.PML {
					assert.True(t, math.IsInf(e, 1), "trial %d, %v, h = %d: excess %g", trial, b, h, e)
				}
			})
			marked[b.Measure] += k
			c, err := Calibrate(context.Background(), FamilyUtilitySafe, pi, nil, orderProblem{o}, b, within)
			if want == 0 {
				assert.Error(t, err)
				continue
			}
			require.NoError(t, err, "trial %d, %v", trial, b)
			assert.Equal(t, float64(want), c.Parameter, "trial %d, %v", trial, b)
			if trial == 0 && b.Measure != mech.PML {
				assert.Equal(t, 1.0, c.Parameter)
				assert.Equal(t, 1, c.Audits, "the grid: only h = 1 is audited")
			}
		}
	}
	for _, meas := range []mech.Measure{mech.PML, mech.LIP, mech.ALIP, mech.LDP} {
		assert.Greater(t, marked[meas], 30, meas)
	}
}

// TestCalibrateSafeOverPriorSets: audited over a box or an L1 ball around
// the prior, as pmlopt.SolveBaseline audits a problem with a prior set,
// the thresholds unreachable marks are refused by the audit too, and the
// calibrated h is the one a scan auditing every h finds.
func TestCalibrateSafeOverPriorSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 2))
	budgets := []mech.Budget{{Measure: mech.LIP, Epsilon: 2}, {Measure: mech.ALIP, EpsilonLower: 2, EpsilonUpper: 1},
		{Measure: mech.LDP, Epsilon: 3}, {Measure: mech.PML, Epsilon: 0.7}, {Measure: mech.PML, Epsilon: 2}}
	marked, checked := 0, 0
	for trial := range 20 {
		o, pi := tiedOrder(rng, 4, 3)
		n := len(pi)
		lower, upper := make([]float64, n), make([]float64, n)
		for i, v := range pi {
			lower[i], upper[i] = 0.8*v, math.Min(1, 1.25*v)
		}
		box, err := mech.NewBoxSet(pi, lower, upper)
		require.NoError(t, err)
		ball, err := mech.NewL1Set(pi, 0.1)
		require.NoError(t, err)
		for _, set := range []*mech.PriorSet{box, ball} {
			for _, b := range budgets {
				within := func(q mech.Mechanism) bool { _, _, e := leakage.LevelOver(set, q, b); return e <= 0 }
				want, k := scanSafe(t, pi, o, b, within, nil)
				marked += k
				require.NotZero(t, want, "h = 1 is within every budget")
				c, err := Calibrate(context.Background(), FamilyUtilitySafe, pi, nil, orderProblem{o}, b, within)
				require.NoError(t, err)
				assert.Equal(t, float64(want), c.Parameter, "trial %d, %v", trial, b)
				checked++
			}
		}
	}
	assert.Greater(t, marked, 50)
	assert.Equal(t, 200, checked)
}

// tiedOrder returns a random order of 2 to 1+sizes inputs and outputs
// whose utility takes levels values (so with ties), and a prior on it with
// masses between 0.1 and 1.1 before normalising.
func tiedOrder(rng *rand.Rand, sizes, levels int) (mech.Order, mech.Prior) {
	n, m := 2+rng.IntN(sizes), 2+rng.IntN(sizes)
	u := make(mech.Utility, n)
	for i := range u {
		u[i] = make([]float64, m)
		for j := range u[i] {
			u[i][j] = float64(rng.IntN(levels))
		}
	}
	pi := make(mech.Prior, n)
	for i := range pi {
		pi[i] = 0.1 + rng.Float64()
	}
	mech.Normalise(pi)
	return u.Order(), pi
}

// scanSafe audits M*(h) for every h from M down and returns the largest
// within admits (0: none) and how many thresholds unreachable marks, each
// of which within must refuse (more checks in marked, when not nil).
func scanSafe(t *testing.T, pi mech.Prior, o mech.Order, b mech.Budget, within func(mech.Mechanism) bool, marked func(h int, q mech.Mechanism)) (want, count int) {
	t.Helper()
	skip := unreachable(pi, o, b)
	_, m := o.Dims()
	for h := m; h >= 1; h-- {
		q, err := UtilitySafe(o, h)
		require.NoError(t, err)
		if skip[h] {
			count++
			assert.False(t, within(q), "%v, h = %d is marked but within the budget", b, h)
			if marked != nil {
				marked(h, q)
			}
		}
		if want == 0 && within(q) {
			want = h
		}
	}
	return want, count
}

// TestCalibrateSafeRaggedOrder: a ragged order, or a prior of another
// length, is refused with an error under every measure, not a panic in
// the thresholds' marking.
func TestCalibrateSafeRaggedOrder(t *testing.T) {
	ragged := mech.Order{{1, 2}, {1}}
	for _, b := range []mech.Budget{{Measure: mech.LIP, Epsilon: 1}, {Measure: mech.PML, Epsilon: 1},
		{Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 1}, {Measure: mech.LDP, Epsilon: 1}} {
		all := func(mech.Mechanism) bool { return true }
		_, err := Calibrate(context.Background(), FamilyUtilitySafe, mech.Prior{0.5, 0.5}, nil, orderProblem{ragged}, b, all)
		assert.Error(t, err, "%v", b)
		assert.NotContains(t, unreachable(mech.Prior{1}, mech.Order{{1, 2}, {2, 1}}, b), true, "a prior of another length marks nothing")
	}
}

// leastLetterMass, the p_min of the LDP conversions over a set, is the
// closed form of each set's least letter: max(l_k, 1 − Σ_{j≠k} u_j) over
// a box (the other letters at their upper bounds) and max(0, π̂_k − r/2)
// over an L1 ball of radius r (half the radius moved off the letter).
func TestLeastLetterMassIsTheClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 3))
	for trial := range 300 {
		n := 2 + rng.IntN(9)
		pi := randinst.Prior(rng, n, 0.05)
		want := math.Inf(1)
		var set *mech.PriorSet
		var err error
		if trial%2 == 0 {
			lo, up := make([]float64, n), make([]float64, n)
			su := 0.0
			for i, v := range pi {
				lo[i], up[i] = v*rng.Float64(), math.Min(1, v*(1+2*rng.Float64()))
				su += up[i]
			}
			for k := range pi {
				want = math.Min(want, math.Max(lo[k], 1-(su-up[k])))
			}
			set, err = mech.NewBoxSet(pi, lo, up)
		} else {
			r := 0.6 * rng.Float64()
			for k := range pi {
				want = math.Min(want, math.Max(0, pi[k]-r/2))
			}
			set, err = mech.NewL1Set(pi, r)
		}
		require.NoError(t, err)
		assert.InDelta(t, want, leastLetterMass(set), 1e-12, "trial %d", trial)
	}
}
