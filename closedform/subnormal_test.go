package closedform

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// A prior mass of 1e-310, below the smallest normal float64: with
// U = [[2, 1], [1, 2]] and π = (1 − s, s), M*(2) is the identity, whose
// output 2 has only x_2's mass s, so ε_S(2) = −log s = 310·log 10 =
// 713.80137882815… (Song & Oechtering (2026), Cor 1). math.Log(1e-310) on
// amd64 gives 709.085, with which a budget of 710 would take h = 2.
func TestSafeSubnormalPriorMass(t *testing.T) {
	const s = 1e-310
	want := 310 * 2.302585092994045684017991454684364
	o := mech.Order{{2, 1}, {1, 2}}
	pi := mech.Prior{1 - s, s}
	curve, err := SafeCurve(pi, o)
	require.NoError(t, err)
	require.Len(t, curve, 2)
	assert.Zero(t, curve[0])
	assert.InDelta(t, want, curve[1], 1e-11)
	e, err := SafeEpsilon(pi, o, 2)
	require.NoError(t, err)
	assert.InDelta(t, want, e, 1e-11)
	p, err := UtilitySafe(o, 2)
	require.NoError(t, err)
	assert.InDelta(t, want, leakage.PML(pi, p), 1e-11)
	assert.InDelta(t, want, safePML(pi, o, 2), 1e-11)

	h, epsS := SafeSchedule(pi, o, 710)
	assert.Equal(t, 1, h)
	assert.Zero(t, epsS)
	h, epsS = SafeSchedule(pi, o, 714)
	assert.Equal(t, 2, h)
	assert.InDelta(t, want, epsS, 1e-11)

	steps, err := SafeValueCurve(pi, mech.Utility{{2, 1}, {1, 2}})
	require.NoError(t, err)
	require.Len(t, steps, 2)
	assert.Equal(t, 2.0, steps[1].Threshold)
	assert.InDelta(t, want, steps[1].Epsilon, 1e-11)
}
