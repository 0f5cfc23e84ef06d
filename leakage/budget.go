package leakage

import (
	"math"

	"github.com/pmlopt/pmlopt/mech"
)

// Level measures p over pi with the measure of the budget b (PML, LIP, LDP
// or ALIP): level is its ε (ε_u for ALIP), lower the ALIP ε_l (0 for the
// others), and excess how far p exceeds b (negative below it; for ALIP the
// larger of the two excesses). An unknown measure gives NaN for all three.
func Level(pi mech.Prior, p mech.Mechanism, b mech.Budget) (level, lower, excess float64) {
	switch b.Measure {
	case mech.PML:
		level = PML(pi, p)
	case mech.LIP:
		level = LIP(pi, p)
	case mech.LDP:
		level = LDP(pi, p)
	case mech.ALIP:
		lower, level = ALIP(pi, p)
	default:
		nan := math.NaN()
		return nan, nan, nan
	}
	return level, lower, Excess(b, level, lower)
}

// LevelOver is Level with every prior-dependent level taken over the
// priors of the set s (PMLOver, LIPOver, ALIPOver; LDP does not depend on
// the prior).
func LevelOver(s *mech.PriorSet, p mech.Mechanism, b mech.Budget) (level, lower, excess float64) {
	switch b.Measure {
	case mech.PML:
		level = PMLOver(s, p)
	case mech.LIP:
		level = LIPOver(s, p)
	case mech.LDP:
		level = LDP(s.Center, p)
	case mech.ALIP:
		lower, level = ALIPOver(s, p)
	default:
		nan := math.NaN()
		return nan, nan, nan
	}
	return level, lower, Excess(b, level, lower)
}

// Excess is how far the levels of a mechanism exceed the budget b: level
// − ε, or for ALIP (level ε_u, lower ε_l) the larger of ε_l's and ε_u's
// excesses. Negative within the budget.
func Excess(b mech.Budget, level, lower float64) float64 {
	if b.Measure == mech.ALIP {
		return max(lower-b.EpsilonLower, level-b.EpsilonUpper)
	}
	return level - b.Epsilon
}
