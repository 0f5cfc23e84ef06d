package closedform_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/leakage"
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
