package certify

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// Report is what Audit measured of a mechanism.
type Report struct {
	// Level is the level of the budget's measure the mechanism reaches
	// (ε_u for ALIP), ALIPLower its ε_l for ALIP (0 otherwise).
	Level, ALIPLower float64
	// Excess is how far the mechanism exceeds the budget (negative below
	// it; for ALIP the larger of the two excesses).
	Excess float64
}

// Audit measures the mechanism m over the prior pi with the budget's
// measure (leakage.PML, LIP, LDP or ALIP), and fails if it exceeds the
// budget by more than AuditTol, or if the level or the budget is NaN (a
// mechanism with a NaN entry measures NaN, which no budget admits).
func Audit(pi mech.Prior, m mech.Mechanism, b mech.Budget) (Report, error) {
	if err := sameShape(pi, m); err != nil {
		return Report{}, err
	}
	var r Report
	var limit float64
	excess := math.Inf(-1)
	switch b.Measure {
	case mech.PML:
		r.Level, limit = leakage.PML(pi, m), b.Epsilon
	case mech.LIP:
		r.Level, limit = leakage.LIP(pi, m), b.Epsilon
	case mech.LDP:
		r.Level, limit = leakage.LDP(pi, m), b.Epsilon
	case mech.ALIP:
		r.ALIPLower, r.Level = leakage.ALIP(pi, m)
		if excess = r.ALIPLower - b.EpsilonLower; !(excess <= AuditTol) {
			return Report{}, fmt.Errorf("audit: the solver's mechanism has ALIP ε_l = %g above the budget %g", r.ALIPLower, b.EpsilonLower)
		}
		limit = b.EpsilonUpper
	default:
		return Report{}, fmt.Errorf("privacy.measure: unknown %q", b.Measure)
	}
	if !(r.Level <= limit+AuditTol) {
		return Report{}, fmt.Errorf("audit: the solver's mechanism has %s %g above the budget %g", b.Measure, r.Level, limit)
	}
	r.Excess = math.Max(excess, r.Level-limit)
	return r, nil
}

// Within returns the audited PML of m over pi and whether it shows eps
// feasible: at most eps + ProbeSlack (+Inf and false for a mechanism that
// is not one row per letter of pi, all of one width).
func Within(pi mech.Prior, m mech.Mechanism, eps float64) (float64, bool) {
	if sameShape(pi, m) != nil {
		return math.Inf(1), false
	}
	a := leakage.PML(pi, m)
	return a, a <= eps+ProbeSlack
}

// RowsSumToOne reports that every row of p sums to 1 within RowSumTol.
func RowsSumToOne(p mech.Mechanism) bool {
	for _, row := range p {
		s := 0.0
		for _, v := range row {
			s += v
		}
		if math.Abs(s-1) > RowSumTol {
			return false
		}
	}
	return true
}

// sameShape checks that m has one row per letter of pi, all of one
// positive width.
func sameShape(pi mech.Prior, m mech.Mechanism) error {
	if len(m) != len(pi) || len(m) == 0 {
		return fmt.Errorf("audit: the mechanism has %d rows for %d letters", len(m), len(pi))
	}
	for i, row := range m {
		if len(row) != len(m[0]) || len(row) == 0 {
			return fmt.Errorf("audit: row %d of the mechanism has %d entries, row 1 has %d", i+1, len(row), len(m[0]))
		}
	}
	return nil
}
