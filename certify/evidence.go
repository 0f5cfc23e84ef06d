package certify

import "github.com/pmlopt/pmlopt/mech"

// Evidence is what a probe found about the least ε at which an ε-PML
// mechanism with a zero pattern exists, ε*: an upper end, a mechanism with
// the pattern and its audited PML, and a lower end, multipliers α with the
// bound DualBound proves from them. Either may be missing.
type Evidence struct {
	// Mechanism respects the pattern (nil if none was found) and PML is
	// its audited PML (+Inf when Mechanism is nil): ε* ≤ PML.
	Mechanism mech.Mechanism
	PML       float64
	// Lower is DualBound(pi, pat, Alpha) (0 with a nil Alpha when nothing
	// was proven): ε* ≥ Lower.
	Lower float64
	Alpha []float64
}
