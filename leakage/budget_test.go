package leakage

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pmlopt/pmlopt/mech"
)

// TestLevelAgainstBudgets checks Level on the eye-colour example of
// Fernandes et al. (2022), Example 1, whose levels are closed forms: PML
// log(19/11), LIP and ALIP ε_l log 9, LDP log 15.
func TestLevelAgainstBudgets(t *testing.T) {
	for _, c := range []struct {
		b                    mech.Budget
		level, lower, excess float64
	}{
		{mech.Budget{Measure: mech.PML, Epsilon: 1}, math.Log(19. / 11), 0, math.Log(19./11) - 1},
		{mech.Budget{Measure: mech.LIP, Epsilon: 2}, math.Log(9), 0, math.Log(9) - 2},
		{mech.Budget{Measure: mech.LDP, Epsilon: 3}, math.Log(15), 0, math.Log(15) - 3},
		// ε_l exceeds its budget by log 9 − 2 > 0, ε_u is within by 1 − log(19/11).
		{mech.Budget{Measure: mech.ALIP, EpsilonLower: 2, EpsilonUpper: 1}, math.Log(19. / 11), math.Log(9), math.Log(9) - 2},
		{mech.Budget{Measure: mech.ALIP, EpsilonLower: 3, EpsilonUpper: 0.1}, math.Log(19. / 11), math.Log(9), math.Log(19./11) - 0.1},
	} {
		level, lower, excess := Level(eyePi, eyeP, c.b)
		assert.InDelta(t, c.level, level, tol, "%v", c.b)
		assert.InDelta(t, c.lower, lower, tol, "%v", c.b)
		assert.InDelta(t, c.excess, excess, tol, "%v", c.b)
	}
	level, lower, excess := Level(eyePi, eyeP, mech.Budget{Measure: "bogus", Epsilon: 1})
	assert.True(t, math.IsNaN(level) && math.IsNaN(lower) && math.IsNaN(excess))
}

// TestLevelOverLimits checks LevelOver at the two limits of a prior set on
// the eye-colour example: the set {π̂} gives Level's levels and excesses,
// and the whole simplex turns PML and LIP into LDP, log 15 (Saeidian et al.
// (2023): the supremum of PML over all priors is LDP), leaving LDP itself
// unchanged.
func TestLevelOverLimits(t *testing.T) {
	point, err := mech.NewBoxSet(eyePi, eyePi, eyePi)
	if err != nil {
		t.Fatal(err)
	}
	budgets := []mech.Budget{{Measure: mech.PML, Epsilon: 1}, {Measure: mech.LIP, Epsilon: 2}, {Measure: mech.LDP, Epsilon: 3},
		{Measure: mech.ALIP, EpsilonLower: 2, EpsilonUpper: 1}, {Measure: mech.ALIP, EpsilonLower: 3, EpsilonUpper: 0.1}}
	for _, b := range budgets {
		level, lower, excess := Level(eyePi, eyeP, b)
		l, lo, ex := LevelOver(point, eyeP, b)
		assert.InDelta(t, level, l, tol, "%v", b)
		assert.InDelta(t, lower, lo, tol, "%v", b)
		assert.InDelta(t, excess, ex, tol, "%v", b)
	}
	whole := mech.Simplex(eyePi)
	for _, b := range budgets[:3] {
		level, lower, excess := LevelOver(whole, eyeP, b)
		assert.InDelta(t, math.Log(15), level, tol, "%v", b)
		assert.Zero(t, lower, "%v", b)
		assert.InDelta(t, math.Log(15)-b.Epsilon, excess, tol, "%v", b)
	}
	level, lower, excess := LevelOver(point, eyeP, mech.Budget{Measure: "bogus", Epsilon: 1})
	assert.True(t, math.IsNaN(level) && math.IsNaN(lower) && math.IsNaN(excess))
}
