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
// budget by more than AuditTol, if the level or the budget is NaN, or if m
// is not one row per letter of pi of finite non-negative entries, or pi
// has a negative or non-finite mass.
func Audit(pi mech.Prior, m mech.Mechanism, b mech.Budget) (Report, error) {
	if err := CheckShape(pi, m); err != nil {
		return Report{}, err
	}
	var limit float64
	switch b.Measure {
	case mech.PML, mech.LIP, mech.LDP:
		limit = b.Epsilon
	case mech.ALIP:
		limit = b.EpsilonUpper
	default:
		return Report{}, fmt.Errorf("privacy.measure: unknown %q", b.Measure)
	}
	var r Report
	r.Level, r.ALIPLower, r.Excess = leakage.Level(pi, m, b)
	if b.Measure == mech.ALIP && !(r.ALIPLower-b.EpsilonLower <= AuditTol) {
		return Report{}, fmt.Errorf("audit: the solver's mechanism has ALIP ε_l = %g above the budget %g", r.ALIPLower, b.EpsilonLower)
	}
	if !(r.Level <= limit+AuditTol) {
		return Report{}, fmt.Errorf("audit: the solver's mechanism has %s %g above the budget %g", b.Measure, r.Level, limit)
	}
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

// CheckShape checks what Audit and the cleaning of solvers' points index
// by and divide by: one row of m per letter of pi, all of one positive
// width, of finite non-negative entries, and prior masses finite and
// non-negative (masses).
func CheckShape(pi mech.Prior, m mech.Mechanism) error {
	if err := sameShape(pi, m); err != nil {
		return err
	}
	return masses(pi)
}

// sameShape checks that m has one row per letter of pi, all of one
// positive width, of finite non-negative entries.
func sameShape(pi mech.Prior, m mech.Mechanism) error {
	if len(m) != len(pi) || len(m) == 0 {
		return &mech.FieldError{Field: "mechanism", Row: -1, Col: -1,
			Msg: fmt.Sprintf("has %d rows for a prior of %d letters", len(m), len(pi))}
	}
	return CheckRectangular(m)
}

// CheckRectangular checks that m has rows, all of one positive width, of
// finite non-negative entries.
func CheckRectangular(m mech.Mechanism) error {
	if len(m) == 0 {
		return &mech.FieldError{Field: "mechanism", Row: -1, Col: -1, Msg: "has no rows"}
	}
	for i, row := range m {
		if len(row) != len(m[0]) || len(row) == 0 {
			return &mech.FieldError{Field: "mechanism", Row: i, Col: -1,
				Msg: fmt.Sprintf("has %d entries, row 1 has %d", len(row), len(m[0]))}
		}
		for j, v := range row {
			if !(v >= 0) || math.IsInf(v, 1) {
				return &mech.FieldError{Field: "mechanism", Row: i, Col: j, Msg: fmt.Sprintf("is %g; an entry is finite and non-negative", v)}
			}
		}
	}
	return nil
}

// masses checks that the prior's masses are finite and non-negative; the
// sum is not checked, as the callers' priors may differ from 1 by rounding.
func masses(pi mech.Prior) error {
	for i, v := range pi {
		if !(v >= 0) || math.IsInf(v, 1) {
			return &mech.FieldError{Field: "prior", Row: -1, Col: i, Msg: fmt.Sprintf("is %g; a mass is finite and non-negative", v)}
		}
	}
	return nil
}
