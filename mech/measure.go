package mech

import "fmt"

// Measure names a privacy notion a budget is stated in.
type Measure string

// The privacy measures a mechanism can be constrained by.
const (
	PML  Measure = "pml"  // ε-PML: ℓ(X→y) ≤ ε for every used output
	ALIP Measure = "alip" // (ε_l, ε_u)-ALIP: −ε_l ≤ i(x;y) ≤ ε_u
	LIP  Measure = "lip"  // ε-LIP: |i(x;y)| ≤ ε
	LDP  Measure = "ldp"  // ε-LDP
)

// ParseMeasure returns the Measure named s.
func ParseMeasure(s string) (Measure, error) {
	switch m := Measure(s); m {
	case PML, ALIP, LIP, LDP:
		return m, nil
	}
	return "", fmt.Errorf("unknown privacy measure %q (want pml, alip, lip or ldp)", s)
}

// Budget is a privacy constraint: a measure and its level. ALIP uses
// EpsilonLower and EpsilonUpper; the other measures use Epsilon.
type Budget struct {
	Measure      Measure
	Epsilon      float64
	EpsilonLower float64
	EpsilonUpper float64
}
