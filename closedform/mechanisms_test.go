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

// pmc computes the pointwise maximal cost max_{j ∈ S_Y} log max_i q_j/p_ij
// inline from its definition (+Inf when a used column has a zero).
func pmc(pi mech.Prior, p mech.Mechanism) float64 {
	q := p.Marginal(pi)
	best := 0.0
	for j, qj := range q {
		if qj <= 0 {
			continue
		}
		for i := range p {
			if p[i][j] == 0 {
				return math.Inf(1)
			}
			best = math.Max(best, math.Log(qj/p[i][j]))
		}
	}
	return best
}

// ldp computes max_{j,i,k} log p_ij/p_kj inline.
func ldp(p mech.Mechanism) float64 {
	best := 0.0
	_, m := p.Dims()
	for j := 0; j < m; j++ {
		for i := range p {
			for k := range p {
				switch {
				case p[i][j] == 0:
				case p[k][j] == 0:
					return math.Inf(1)
				default:
					best = math.Max(best, math.Log(p[i][j]/p[k][j]))
				}
			}
		}
	}
	return best
}

func TestExtremal(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 200; trial++ {
		n := 2 + rng.IntN(6)
		pi := randinst.Prior(rng, n, 0.01)
		limit := ExtremalLimit(pi)
		require.InDelta(t, math.Log(1/(1-pi.Min())), limit, 1e-12)
		eps := limit * rng.Float64()
		if trial%10 == 0 {
			eps = 0
		}
		p, err := Extremal(pi, eps)
		require.NoError(t, err)
		_, err = mech.NewMechanism(p)
		require.NoError(t, err)
		require.InDeltaSlice(t, []float64(pi), p.Marginal(pi), 1e-12)
		require.InDelta(t, eps, leakage.PML(pi, p), 1e-12)
		// ε_l*(ε) of docs/theory.md §3.
		want := math.Log(pi.Min() / (1 - math.Exp(eps)*(1-pi.Min())))
		require.InDelta(t, want, pmc(pi, p), 1e-9)
	}

	// At the upper limit the least likely letter's diagonal is 0, the PML is
	// the limit and the PMC is infinite.
	pi := mech.Prior{0.5, 0.3, 0.2}
	limit := ExtremalLimit(pi)
	p, err := Extremal(pi, limit)
	require.NoError(t, err)
	assert.InDelta(t, 0, p[2][2], 1e-15)
	assert.InDelta(t, 0.5/0.8, p[2][0], 1e-15)
	assert.InDelta(t, math.Log(1.25), leakage.PML(pi, p), 1e-12)
	assert.GreaterOrEqual(t, p[2][2], 0.0)

	for _, eps := range []float64{-1e-9, math.NaN(), limit * (1 + 1e-9), math.Inf(1)} {
		_, err := Extremal(pi, eps)
		require.Error(t, err, "eps=%g", eps)
	}
	_, err = Extremal(mech.Prior{0.5, 0.6}, 0.1)
	require.Error(t, err)

	// One letter: the only mechanism.
	p, err = Extremal(mech.Prior{1}, 3)
	require.NoError(t, err)
	assert.Equal(t, mech.Mechanism{{1}}, p)
}

func TestRandomizedResponse(t *testing.T) {
	p, err := RandomizedResponse(3, math.Log(4))
	require.NoError(t, err)
	for i := range p {
		for j := range p[i] {
			want := 1.0 / 6
			if i == j {
				want = 4.0 / 6
			}
			assert.InDelta(t, want, p[i][j], 1e-15)
		}
	}
	assert.InDelta(t, math.Log(4), ldp(p), 1e-12)

	p, err = RandomizedResponse(2, math.Inf(1))
	require.NoError(t, err)
	assert.Equal(t, mech.Mechanism{{1, 0}, {0, 1}}, p)
	p, err = RandomizedResponse(4, 2000)
	require.NoError(t, err)
	assert.Equal(t, 1.0, p[0][0])
	p, err = RandomizedResponse(1, 0.5)
	require.NoError(t, err)
	assert.Equal(t, mech.Mechanism{{1}}, p)

	for _, c := range []struct {
		k   int
		eps float64
	}{{0, 1}, {-2, 1}, {3, -0.5}, {3, math.NaN()}} {
		_, err := RandomizedResponse(c.k, c.eps)
		require.Error(t, err, "%v", c)
	}
}

// Saeidian et al. (2024), Ex 3: the PMC of randomized response is
// log(1 + max_j π_j (e^ε̄ − 1)).
func TestRandomizedResponsePMC(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 200; trial++ {
		k := 2 + rng.IntN(6)
		pi := randinst.Prior(rng, k, 0.01)
		epsBar := 4 * rng.Float64()
		p, err := RandomizedResponse(k, epsBar)
		require.NoError(t, err)
		require.InDelta(t, pmc(pi, p), RandomizedResponsePMC(pi, epsBar), 1e-12)
	}
	assert.True(t, math.IsInf(RandomizedResponsePMC(mech.Uniform(3), math.Inf(1)), 1))
}

func TestLDPForPML(t *testing.T) {
	assert.Zero(t, LDPForPML(0, 0.2))
	// p_min = 1/2, ε = log(4/3): e^{−ε} = 3/4, ε̄ = −log((3/4−1/2)/(1/2)) = log 2.
	assert.InDelta(t, math.Log(2), LDPForPML(math.Log(4.0/3), 0.5), 1e-15)
	assert.True(t, math.IsInf(LDPForPML(-math.Log(0.2), 0.2), 1))
	assert.True(t, math.IsInf(LDPForPML(5, 0.2), 1))
	assert.True(t, math.IsInf(LDPForPML(0, 1), 1))
	for _, c := range [][2]float64{{-0.1, 0.2}, {math.NaN(), 0.2}, {1, 0}, {1, -0.1}, {1, 1.5}, {1, math.NaN()}} {
		assert.True(t, math.IsNaN(LDPForPML(c[0], c[1])), "%v", c)
	}

	// docs/theory.md §3: ε̄-LDP implies ε_2-PML with ε_2 = −log(p_min + e^{−ε̄}(1−p_min));
	// LDPForPML inverts it.
	for _, pmin := range []float64{0.01, 0.1, 0.3, 0.5} {
		for _, eps := range []float64{0.01, 0.3, 1, -math.Log(pmin) - 0.01} {
			if eps >= -math.Log(pmin) {
				continue
			}
			eb := LDPForPML(eps, pmin)
			assert.InDelta(t, eps, -math.Log(pmin+math.Exp(-eb)*(1-pmin)), 1e-12, "pmin=%g eps=%g", pmin, eps)
		}
	}
}

// Property test of Song & Oechtering (2026), Prop 1: randomized response and the exponential
// mechanism calibrated with LDPForPML are ε-PML on random priors; for
// randomized response the bound is attained.
func TestCalibratedMechanismsArePML(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for trial := 0; trial < 300; trial++ {
		n := 2 + rng.IntN(6)
		pi := randinst.Prior(rng, n, 0.01)
		eps := -math.Log(pi.Min()) * rng.Float64()
		eb := LDPForPML(eps, pi.Min())

		rr, err := RandomizedResponse(n, eb)
		require.NoError(t, err)
		require.InDelta(t, eps, leakage.PML(pi, rr), 1e-9)

		m := 1 + rng.IntN(6)
		u := make(mech.Utility, n)
		for i := range u {
			u[i] = make([]float64, m)
			for j := range u[i] {
				u[i][j] = math.Round(20*rng.Float64() - 10)
			}
		}
		delta := Sensitivity(u)
		if delta == 0 {
			delta = 1
		}
		e, err := Exponential(u, eb, delta)
		require.NoError(t, err)
		require.LessOrEqual(t, ldp(e), eb+1e-12)
		require.LessOrEqual(t, leakage.PML(pi, e), eps+1e-12)
	}
}

// countingUtility is u' of Song & Oechtering (2026), eq. (11).
var countingUtility = mech.Utility{
	{0, -1, -4, -9, -16, -25, -36},
	{-2, 0, -1, -4, -9, -16, -25},
	{-5, -2, 0, -1, -4, -9, -16},
	{-9, -5, -2, 0, -1, -4, -9},
	{-17, -9, -5, -2, 0, -1, -4},
	{-26, -17, -9, -5, -2, 0, -1},
	{-37, -26, -17, -9, -5, -2, 0},
}

func TestExponentialCountingQuery(t *testing.T) {
	assert.Equal(t, 37.0, Sensitivity(countingUtility))
	eps := 1.3
	eb := LDPForPML(eps, 1.0/7)
	p, err := Exponential(countingUtility, eb, Sensitivity(countingUtility))
	require.NoError(t, err)
	// The paper's formula with denominator 74, computed without shifting.
	for i, row := range countingUtility {
		z := 0.0
		for _, v := range row {
			z += math.Exp(v * eb / 74)
		}
		for j, v := range row {
			require.InDelta(t, math.Exp(v*eb/74)/z, p[i][j], 1e-15)
		}
	}
	assert.LessOrEqual(t, leakage.PML(mech.Uniform(7), p), eps)
	// Every output stays possible, so the worst case is the lowest utility.
	assert.Equal(t, -37.0, countingUtility.WorstCaseValue(p))
}

func TestExponentialStableAndLimits(t *testing.T) {
	// Exponents of ±1e7 would overflow without the row shift.
	u := mech.Utility{{1e6, 0, -1e6}, {0, 1e6, 1e6}}
	p, err := Exponential(u, 20, 1)
	require.NoError(t, err)
	assert.Equal(t, mech.Mechanism{{1, 0, 0}, {0, 0.5, 0.5}}, p)

	p, err = Exponential(mech.Utility{{1, 2, 2}, {3, 0, 3}}, math.Inf(1), 2)
	require.NoError(t, err)
	assert.Equal(t, mech.Mechanism{{0, 0.5, 0.5}, {0.5, 0, 0.5}}, p)

	p, err = Exponential(mech.Utility{{1, 2, 3}}, 0, 2)
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, p[0], 1e-15)

	// ε̄ = 2, Δ = 1: weights e^{u}, so p = (1, e, e²)/(1+e+e²).
	p, err = Exponential(mech.Utility{{0, 1, 2}}, 2, 1)
	require.NoError(t, err)
	z := 1 + math.E + math.E*math.E
	assert.InDeltaSlice(t, []float64{1 / z, math.E / z, math.E * math.E / z}, p[0], 1e-15)

	good := mech.Utility{{0, 1}}
	for _, c := range [][2]float64{{-1, 1}, {math.NaN(), 1}, {1, 0}, {1, -1}, {1, math.Inf(1)}, {1, math.NaN()}} {
		_, err := Exponential(good, c[0], c[1])
		require.Error(t, err, "%v", c)
	}
	_, err = Exponential(mech.Utility{{0, math.NaN()}}, 1, 1)
	require.Error(t, err)
	_, err = Exponential(mech.Utility{{0, 1}, {0}}, 1, 1)
	require.Error(t, err)
}
