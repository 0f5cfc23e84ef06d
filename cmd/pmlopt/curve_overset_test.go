package main

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A worst-case curve over a box in which two letters were never seen:
// the identity's value 0 is out of reach of every budget (ε* = +∞ at both
// ends), and the utility-safe staircase is that over the box too, so it
// never reaches a value before the optimal curve does (over the estimate
// it reaches 0 at about 4.5 nats).
func TestCurveOverSetUnreachableValue(t *testing.T) {
	f := surveyFile(t, t.TempDir(), "unseen.yaml", "--labels", "0,1,2,3,4,5,6", "--smoothing", "0.5",
		"--confidence", "0.95", "--objective", "worst-case-value")
	v := runJSON(t, "curve", f, "--json")
	pts := v["points"].([]any)
	top := pts[len(pts)-1].(map[string]any)
	assert.Equal(t, 0.0, top["threshold"])
	assert.Equal(t, "inf", top["optimal_epsilon_lower"])
	assert.Equal(t, "inf", top["optimal_epsilon"])
	reached := func(eps float64) float64 { // the best value the optimal curve reaches within eps
		best := math.Inf(-1)
		for _, x := range pts {
			pt := x.(map[string]any)
			if e, ok := pt["optimal_epsilon"].(float64); ok && e <= eps+1e-9 {
				best = math.Max(best, pt["worst_case_value"].(float64))
			}
		}
		return best
	}
	steps := v["safe_steps"].([]any)
	last := steps[len(steps)-1].(map[string]any)
	assert.Equal(t, "inf", last["safe_epsilon"])
	for _, x := range steps {
		st := x.(map[string]any)
		if eps, ok := st["safe_epsilon"].(float64); ok {
			assert.LessOrEqual(t, st["threshold"].(float64), reached(eps), "utility-safe step at ε = %g", eps)
		}
	}
}
