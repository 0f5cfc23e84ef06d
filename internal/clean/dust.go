package clean

import (
	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/mech"
)

// DustFree is the last step of every mechanism pmlopt's Solve, SolveJoint,
// Curve and ExpectedCurve return: a mechanism with entries below
// certify.DustEntry (a solver's rounding on an output of little mass, which
// deployed would release that output all the same) is replaced by its
// copy without them (WithoutDust: those entries cleared, each row
// keeping its largest, rows renormalised, so every zero stays a zero and
// every worst case is kept), provided the copy audits within b
// (certify.Audit). It returns the mechanism to report, its audit against
// b, and whether it is the cleaned copy; m itself, already audited by its
// solver, when it has no dust or its copy would leave b (the mass the
// copy moves raises ratios by about as much: within a budget that m meets
// with less room to spare than that, m stays).
func DustFree(pi mech.Prior, m mech.Mechanism, b mech.Budget) (mech.Mechanism, certify.Report, bool) {
	c, err := WithoutDust(m)
	if err != nil || c == nil {
		return m, certify.Report{}, false
	}
	r, err := certify.Audit(pi, c, b)
	if err != nil {
		return m, certify.Report{}, false
	}
	return c, r, true
}
