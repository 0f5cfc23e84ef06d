package clean_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// TestWithoutNoise: an output of mass 5e-8 whose ratio is 2 (PML log 2)
// is noise above ε = 0.1 and goes; an output that meets ε, or one with an
// entry above VertexColumnNoise, stays.
func TestWithoutNoise(t *testing.T) {
	pi := mech.Prior{0.5, 0.5}
	p := mech.Mechanism{{1 - 1e-7, 1e-7}, {1, 0}}
	require.InDelta(t, math.Log(2), leakage.PMLPerOutput(pi, p)[1], 1e-6)
	c := must(clean.WithoutNoise(pi, p, 0.1))
	require.NotNil(t, c)
	assert.Equal(t, mech.Mechanism{{1, 0}, {1, 0}}, c)
	assert.Equal(t, 1e-7, p[0][1], "p itself is left alone")
	assert.Nil(t, must(clean.WithoutNoise(pi, p, math.Log(2)+1e-9)), "nothing breaks ε")
	big := mech.Mechanism{{0.9, 0.1}, {1, 0}}
	assert.Nil(t, must(clean.WithoutNoise(pi, big, 0.01)), "an output of real mass is not noise")
}

// WithoutDust drops an output whose entries are all small whole, clears
// the other entries below certify.DustEntry, keeps each row's largest, and
// renormalises; a mechanism without dust comes back nil.
func TestWithoutDust(t *testing.T) {
	p := mech.Mechanism{
		{0.5, 0.5 - 3e-10, 3e-10, 0},
		{1 - 2e-10 - 4e-7, 2e-10, 0, 4e-7},
	}
	c := must(clean.WithoutDust(p))
	require.NotNil(t, c)
	// Output 2 (entries 3e-10 and 0) and output 3 (4e-7) are all small:
	// dropped whole. The 2e-10 of row 1 is cleared.
	require.Equal(t, 0.0, c[0][2])
	require.Equal(t, 0.0, c[1][3])
	require.Equal(t, 0.0, c[1][1])
	for i, row := range c {
		sum := 0.0
		for _, v := range row {
			sum += v
		}
		require.InDelta(t, 1, sum, 1e-15, "row %d", i)
	}
	require.InDelta(t, 0.5, c[0][0], 1e-9)
	require.Nil(t, must(clean.WithoutDust(mech.Mechanism{{0.25, 0.75}, {1, 0}})))
}

// must returns p, the result of a call whose inputs are valid.
func must(p mech.Mechanism, err error) mech.Mechanism {
	if err != nil {
		panic(err)
	}
	return p
}

// MixUntil on the identity under the uniform prior with a LIP budget of 1
// nat: the mixture (1−θ)I + θ·½ has ratios 2 − θ and θ to the outputs'
// mass ½, so the lower caps need θ ≥ e^−1, and the least θ is e^−1 (to the
// bisection's 2^-60); the identity given is left as it is.
func TestMixUntilLeastWeight(t *testing.T) {
	pi := mech.Prior{0.5, 0.5}
	p := mech.Mechanism{{1, 0}, {0, 1}}
	b := mech.Budget{Measure: mech.LIP, Epsilon: 1}
	q := clean.MixUntil(pi, p, func(m mech.Mechanism) bool {
		_, _, excess := leakage.Level(pi, m, b)
		return excess <= 0
	})
	if want := math.Exp(-1) / 2; math.Abs(q[0][1]-want) > 1e-15 || math.Abs(q[1][0]-want) > 1e-15 {
		t.Fatalf("mixture %v, want off-diagonal entries %.17g", q, want)
	}
	if p[0][1] != 0 || p[0][0] != 1 {
		t.Fatalf("the mechanism given was changed: %v", p)
	}
}

// MixOver's closed-form weight against MixUntil's bisection on the same
// audit: random mechanisms with zeros, over a box and an L1 ball around
// estimates that sum to 1, 1 + 4e-10 and 1 − 4e-10, under PML, LIP, ALIP
// and LDP budgets (those the mechanism breaks, most of the 96). The
// closed form must meet the audit at the first call; its mixture must lie
// within 1e-11 of the bisection's (the least weight to 2^-60) in every
// entry, and within 1e-13 of the bisection's on the audit of the bounds,
// a relative MixMargin tighter, that it solves for. With an audit
// stricter than the budget the closed form is refused, and the bisection
// that follows must end where MixUntil's does. The bisection's mixture is,
// bit for bit, the last one the audit accepted (MixUntil's promise).
// MixAt likewise at one prior, its sum 1 + 3e-10.
func TestMixOverAgreesWithTheBisection(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	budgets := []mech.Budget{
		{Measure: mech.PML, Epsilon: 0.4},
		{Measure: mech.LIP, Epsilon: 0.7},
		{Measure: mech.ALIP, EpsilonLower: 0.3, EpsilonUpper: 0.9},
		{Measure: mech.LDP, Epsilon: 1.2},
	}
	ran, ranAt := 0, 0
	for trial := range 24 {
		n, m := 3+rng.IntN(6), 2+rng.IntN(6)
		pi := make(mech.Prior, n)
		for i := range pi {
			pi[i] = 0.05 + rng.Float64()
		}
		mech.Normalise(pi)
		// An estimate off 1 by rounding, as a problem file's is: the
		// box's priors then total between 1 and its sum.
		off := []float64{0, 4e-10, -4e-10}[trial%3]
		for i := range pi {
			pi[i] *= 1 + off
		}
		p := mech.Zeros(n, m)
		for i := range p {
			for j := range p[i] {
				if rng.IntN(4) > 0 {
					p[i][j] = rng.Float64()
				}
			}
			p[i][rng.IntN(m)] += 0.1
			mech.Normalise(p[i])
		}
		var set *mech.PriorSet
		var err error
		if trial%2 == 0 {
			set, err = randinst.FactorBox(pi, 0.7, 1.4)
		} else {
			set, err = mech.NewL1Set(pi, 0.2)
		}
		require.NoError(t, err)
		for _, b := range budgets {
			var last mech.Mechanism // the last mixture an audit accepted
			meetsOf := func(b mech.Budget, calls *int) func(mech.Mechanism) bool {
				return func(q mech.Mechanism) bool {
					*calls++
					_, _, excess := leakage.LevelOver(set, q, b)
					if excess <= 0 {
						last = q
					}
					return excess <= 0
				}
			}
			if _, _, excess := leakage.LevelOver(set, p, b); excess <= 0 {
				continue // nothing to mix
			}
			ran++
			calls, bisect := 0, 0
			got := clean.MixOver(pi, p, set, b, meetsOf(b, &calls))
			want := clean.MixUntil(pi, p, meetsOf(b, &bisect))
			assert.Equal(t, 1, calls, "trial %d, %v: the closed form refused", trial, b.Measure)
			assertMixturesNear(t, want, got, 1e-11, "trial %d, %v", trial, b.Measure)
			assertMixturesNear(t, last, want, 0, "trial %d, %v: the bisection's mixture is not the last accepted", trial, b.Measure)
			// The closed form is the least weight of the bounds it
			// solves for: the bisection on the audit of those finds it.
			tight := b
			shift := math.Log1p(-clean.MixMargin)
			tight.Epsilon += shift
			tight.EpsilonLower += shift
			tight.EpsilonUpper += shift
			least := clean.MixUntil(pi, p, meetsOf(tight, &bisect))
			assertMixturesNear(t, least, got, 1e-13, "trial %d, %v, the bounds solved for", trial, b.Measure)
			strict := b
			strict.Epsilon *= 0.9
			strict.EpsilonLower *= 0.9
			strict.EpsilonUpper *= 0.9
			calls, bisect = 0, 0
			got = clean.MixOver(pi, p, set, b, meetsOf(strict, &calls))
			want = clean.MixUntil(pi, p, meetsOf(strict, &bisect))
			assert.Greater(t, calls, 1, "trial %d, %v: a stricter audit took the closed form", trial, b.Measure)
			assertMixturesNear(t, want, got, 1e-12, "trial %d, %v, stricter audit", trial, b.Measure)
			assertMixturesNear(t, last, want, 0, "trial %d, %v, stricter audit: the bisection's mixture is not the last accepted", trial, b.Measure)
		}
		// MixAt at a prior whose sum is off 1 by a rounding.
		at := slices.Clone(pi)
		for i := range at {
			at[i] *= 1 + 3e-10
		}
		for _, b := range budgets {
			meets := func(calls *int) func(mech.Mechanism) bool {
				return func(q mech.Mechanism) bool {
					*calls++
					_, _, excess := leakage.Level(at, q, b)
					return excess <= 0
				}
			}
			if _, _, excess := leakage.Level(at, p, b); excess <= 0 {
				continue
			}
			ranAt++
			calls, bisect := 0, 0
			got := clean.MixAt(at, p, b, meets(&calls))
			want := clean.MixUntil(at, p, meets(&bisect))
			assert.Equal(t, 1, calls, "trial %d, %v at the prior: the closed form refused", trial, b.Measure)
			assertMixturesNear(t, want, got, 1e-11, "trial %d, %v at the prior", trial, b.Measure)
		}
	}
	assert.GreaterOrEqual(t, ranAt, 60, "mechanisms that break their budget at the prior, of 96")
	assert.GreaterOrEqual(t, ran, 60, "mechanisms that break their budget, of 96")
}

func assertMixturesNear(t *testing.T, want, got mech.Mechanism, tol float64, msg string, args ...any) {
	t.Helper()
	for i := range want {
		for j := range want[i] {
			if math.Abs(want[i][j]-got[i][j]) > tol {
				t.Errorf(msg+": entry (%d, %d) %.17g, bisection's %.17g", append(args, i, j, got[i][j], want[i][j])...)
				return
			}
		}
	}
}
