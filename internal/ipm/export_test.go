package ipm

import (
	"context"

	"github.com/pmlopt/pmlopt/mech"
)

// ProbeOutlet is Probe on the pattern's pairs and the outlet output
// (outlet) whatever the pattern's share of pairs, so that the tests of
// Probe check that form on small instances too.
func ProbeOutlet(pi mech.Prior, pat mech.Pattern, eps float64) (*ProbeResult, error) {
	return probe(context.Background(), pi, pat, eps, 1, 0, formOutlet)
}

// ProbeWhole is Probe on every pair (penalty) whatever the pattern.
func ProbeWhole(pi mech.Prior, pat mech.Pattern, eps float64) (*ProbeResult, error) {
	return probe(context.Background(), pi, pat, eps, 1, 0, formWhole)
}
