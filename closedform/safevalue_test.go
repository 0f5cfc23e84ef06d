package closedform_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// The staircase agrees with the audit of each value's mechanism at every
// reachable value, and has a step only where that PML changes.
func TestSafeValueCurveMatchesAudit(t *testing.T) {
	u, _ := instance.Counting(9)
	pi, _ := instance.Binomial(8, 0.3)
	steps, err := closedform.SafeValueCurve(pi, u)
	require.NoError(t, err)
	require.Equal(t, u.Values()[0], steps[0].Threshold)
	for k := 1; k < len(steps); k++ {
		assert.Less(t, steps[k-1].Threshold, steps[k].Threshold)
		assert.NotEqual(t, steps[k-1].Epsilon, steps[k].Epsilon)
	}
	for _, v := range u.Values() {
		if v > 0 { // every row's best value is 0
			break
		}
		k := 0
		for k+1 < len(steps) && steps[k+1].Threshold <= v {
			k++
		}
		want := leakage.PML(pi, closedform.UniformOnAllowed(u.Pattern(v)))
		assert.InDelta(t, want, steps[k].Epsilon, 1e-12, "value %g", v)
	}
	_, err = closedform.SafeValueCurve(pi[:3], u)
	assert.Error(t, err)
}

// Over a prior set the staircase is that of the same mechanisms audited
// over the set: at every reachable value, the PML over the set of the
// mechanism uniform on the allowed entries; over the set {π̂} the one at
// π̂; and +Inf from the value whose pattern needs an output that a prior
// of the set never produces.
func TestSafeValueCurveOverMatchesAudit(t *testing.T) {
	u, _ := instance.Counting(6)
	pi, _ := instance.Binomial(5, 0.4)
	point, err := mech.NewBoxSet(pi, pi, pi)
	require.NoError(t, err)
	nominal, err := closedform.SafeValueCurve(pi, u)
	require.NoError(t, err)
	got, err := closedform.SafeValueCurveOver(point, u)
	require.NoError(t, err)
	require.Equal(t, len(nominal), len(got))
	for k := range got {
		assert.Equal(t, nominal[k].Threshold, got[k].Threshold)
		assert.InDelta(t, nominal[k].Epsilon, got[k].Epsilon, 1e-12)
	}
	lo, up := make([]float64, len(pi)), make([]float64, len(pi))
	for k := range pi {
		lo[k], up[k] = 0.5*pi[k], math.Min(1, 2*pi[k])
	}
	lo[len(pi)-1] = 0 // the last letter may have no mass
	// The ball's radius is below twice every mass, as SetVertices needs.
	for _, set := range []*mech.PriorSet{mustBox(t, pi, lo, up), mustBall(t, pi, 0.01)} {
		steps, err := closedform.SafeValueCurveOver(set, u)
		require.NoError(t, err)
		infinite := false
		for _, v := range u.ReachableValues() {
			k := 0
			for k+1 < len(steps) && steps[k+1].Threshold <= v {
				k++
			}
			want := randinst.PMLOverVertices(set, closedform.UniformOnAllowed(u.Pattern(v)))
			if math.IsInf(want, 1) {
				infinite = true
				assert.True(t, math.IsInf(steps[k].Epsilon, 1), "value %g: %g", v, steps[k].Epsilon)
				continue
			}
			assert.InDelta(t, want, steps[k].Epsilon, 1e-12, "value %g", v)
		}
		assert.True(t, infinite == set.IsBox(), "the box reaches a prior with no mass on the last letter, the ball does not")
	}
}

func mustBox(t *testing.T, pi mech.Prior, lo, up []float64) *mech.PriorSet {
	s, err := mech.NewBoxSet(pi, lo, up)
	require.NoError(t, err)
	return s
}

func mustBall(t *testing.T, pi mech.Prior, r float64) *mech.PriorSet {
	s, err := mech.NewL1Set(pi, r)
	require.NoError(t, err)
	return s
}
