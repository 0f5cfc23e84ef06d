package randinst

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

func TestInstancesAreValid(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n, m := 1+rng.IntN(9), 1+rng.IntN(9)
		for _, pi := range []mech.Prior{Prior(rng, n, 0.05), Dirichlet(rng, n)} {
			_, err := mech.NewPrior(pi)
			require.NoError(t, err)
		}
		assert.GreaterOrEqual(t, Prior(rng, n, 1).Min(), 1/(2*float64(n)), "floor 1 keeps every entry ≥ half the mean")
		_, err := mech.NewMechanism(Mechanism(rng, n, m, 0.5))
		require.NoError(t, err)
		_, err = mech.NewOrder(StrictOrder(rng, n, m))
		require.NoError(t, err)
		u := Utility(rng, n, m, 0)
		_, err = mech.NewOrder(u.Order())
		require.NoError(t, err)
		assert.Len(t, u.Values(), n*m, "continuous utilities are distinct")
		for _, row := range Utility(rng, n, m, 3) {
			for _, v := range row {
				assert.True(t, v == 0 || v == 1 || v == 2)
			}
		}
	}
}

func TestDirichletMean(t *testing.T) {
	// Dirichlet(1) on 4 letters has mean 1/4 and variance 3/80 per entry.
	rng := rand.New(rand.NewPCG(3, 4))
	const trials = 20000
	mean, sq := 0.0, 0.0
	for k := 0; k < trials; k++ {
		v := Dirichlet(rng, 4)[0]
		mean += v
		sq += v * v
	}
	mean /= trials
	variance := sq/trials - mean*mean
	assert.InDelta(t, 0.25, mean, 4*math.Sqrt(3.0/80/trials))
	assert.InDelta(t, 3.0/80, variance, 0.002)
}

// The factor box holds exactly the priors within its factors, and every
// prior SetPrior draws from a box or a ball lies in it and differs from
// draw to draw.
func TestSetPriorsLieInTheSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pi := mech.Prior{0.5, 0.3, 0.15, 0.05}
	box, err := FactorBox(pi, 0.8, 1.25)
	require.NoError(t, err)
	for k, v := range pi {
		assert.InDelta(t, 0.8*v, box.Lower[k], 1e-16)
		assert.InDelta(t, 1.25*v, box.Upper[k], 1e-16)
	}
	ball, err := mech.NewL1Set(pi, 0.2)
	require.NoError(t, err)
	for _, set := range []*mech.PriorSet{box, ball} {
		var last mech.Prior
		for _, cost := range []func() float64{nil, rng.NormFloat64} {
			for range 50 {
				q := SetPrior(rng, set, cost)
				require.True(t, set.Contains(q, 1e-12), "%v outside the set", q)
				s := 0.0
				for _, v := range q {
					s += v
				}
				assert.InDelta(t, 1, s, 1e-12)
				assert.NotEqual(t, last, q)
				last = q
			}
		}
	}
	// The box's corners lie outside a tighter box.
	tight, err := FactorBox(pi, 0.9, 1.1)
	require.NoError(t, err)
	assert.False(t, tight.Contains(box.Extreme([]float64{1, 0, 0, 0}, false), 1e-12))
}
