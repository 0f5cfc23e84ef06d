package certify

import (
	"math"

	"github.com/pmlopt/pmlopt/mech"
)

// provable reports whether the proofs' inputs have the shapes and values
// the proofs assume: a prior of positive finite masses, one multiplier per
// input, a utility (nil: none) and a pattern (nil: none) of one row per
// input and one width. A proof on other inputs proves nothing (the
// checkers answer +Inf or not ok) rather than panic on a caller's slip.
func provable(pi mech.Prior, u mech.Utility, pat mech.Pattern, alpha []float64) bool {
	n := len(pi)
	if n == 0 || len(alpha) != n {
		return false
	}
	for _, v := range pi {
		if !(v > 0) || math.IsInf(v, 0) {
			return false
		}
	}
	m := -1
	if u != nil {
		if len(u) != n {
			return false
		}
		m = len(u[0])
		for _, row := range u {
			if len(row) != m {
				return false
			}
		}
	}
	if pat != nil {
		if len(pat) != n {
			return false
		}
		if m < 0 {
			m = len(pat[0])
		}
		for _, row := range pat {
			if len(row) != m {
				return false
			}
		}
	}
	return true
}
