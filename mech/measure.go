package mech

import (
	"fmt"
	"math"
)

// Measure names a privacy notion a budget is stated in.
type Measure string

// The privacy measures a mechanism can be constrained by.
const (
	PML  Measure = "pml"  // ε-PML: ℓ(X→y) ≤ ε for every used output
	ALIP Measure = "alip" // (ε_l, ε_u)-ALIP: −ε_l ≤ i(x;y) ≤ ε_u
	LIP  Measure = "lip"  // ε-LIP: |i(x;y)| ≤ ε
	LDP  Measure = "ldp"  // ε-LDP
	// ε-PMC: Λ(X→y) ≤ ε for every used output. PMC is a guarantee the others
	// imply (package guarantee), not a budget a problem is solved under, so
	// ParseMeasure and Budget.Check refuse it.
	PMC Measure = "pmc"
)

// ParseMeasure returns the Measure named s.
func ParseMeasure(s string) (Measure, error) {
	switch m := Measure(s); m {
	case PML, ALIP, LIP, LDP:
		return m, nil
	}
	return "", fmt.Errorf("unknown privacy measure %q (want pml, alip, lip or ldp)", s)
}

// Budget is a privacy constraint or guarantee: a measure and its level. ALIP
// uses EpsilonLower and EpsilonUpper; the other measures use Epsilon.
type Budget struct {
	Measure      Measure
	Epsilon      float64
	EpsilonLower float64
	EpsilonUpper float64
}

// String formats b as, e.g., "0.5-pml" or "(0.3, 0.5)-alip".
func (b Budget) String() string {
	if b.Measure == ALIP {
		return fmt.Sprintf("(%g, %g)-alip", b.EpsilonLower, b.EpsilonUpper)
	}
	return fmt.Sprintf("%g-%s", b.Epsilon, b.Measure)
}

// Check validates the levels the measure uses: finite and non-negative.
// Errors are *FieldError values naming budget.measure, budget.epsilon,
// budget.epsilon_lower or budget.epsilon_upper.
func (b Budget) Check() error {
	check := func(field string, v float64) error {
		switch {
		case math.IsNaN(v):
			return &FieldError{Field: field, Row: -1, Col: -1, Msg: "is NaN"}
		case math.IsInf(v, 0):
			return &FieldError{Field: field, Row: -1, Col: -1, Msg: "is infinite; a finite budget is needed"}
		case v < 0:
			return &FieldError{Field: field, Row: -1, Col: -1, Msg: fmt.Sprintf("is negative (%g)", v)}
		}
		return nil
	}
	switch b.Measure {
	case PML, LIP, LDP:
		return check("budget.epsilon", b.Epsilon)
	case ALIP:
		if err := check("budget.epsilon_lower", b.EpsilonLower); err != nil {
			return err
		}
		return check("budget.epsilon_upper", b.EpsilonUpper)
	}
	return &FieldError{Field: "budget.measure", Row: -1, Col: -1,
		Msg: fmt.Sprintf("unknown privacy measure %q (want pml, alip, lip or ldp)", b.Measure)}
}
