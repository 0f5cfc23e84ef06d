package expected

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// audited returns the level of b's measure that m reaches (ε_u and ε_l for
// ALIP) and how far it exceeds the budget (negative below it; for ALIP the
// larger of the two excesses), and fails if it exceeds the budget by more
// than auditTol.
func audited(pi mech.Prior, m mech.Mechanism, b mech.Budget) (level, alipLower, excess float64, err error) {
	var limit float64
	excess = math.Inf(-1)
	switch b.Measure {
	case mech.PML:
		level, limit = leakage.PML(pi, m), b.Epsilon
	case mech.LIP:
		level, limit = leakage.LIP(pi, m), b.Epsilon
	case mech.LDP:
		level, limit = leakage.LDP(pi, m), b.Epsilon
	case mech.ALIP:
		alipLower, level = leakage.ALIP(pi, m)
		if excess = alipLower - b.EpsilonLower; excess > auditTol {
			return 0, 0, 0, fmt.Errorf("audit: the solver's mechanism has ALIP ε_l = %g above the budget %g", alipLower, b.EpsilonLower)
		}
		limit = b.EpsilonUpper
	default:
		return 0, 0, 0, fmt.Errorf("privacy.measure: unknown %q", b.Measure)
	}
	if level > limit+auditTol {
		return 0, 0, 0, fmt.Errorf("audit: the solver's mechanism has %s %g above the budget %g", b.Measure, level, limit)
	}
	return level, alipLower, math.Max(excess, level-limit), nil
}
