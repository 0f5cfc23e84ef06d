package expected

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/mech"
)

// ValueFloor returns the zero pattern of the mechanisms whose worst-case
// value is at least v: (x, y) allowed where u(x, y) ≥ v, the pattern Joint
// keeps for a worst-case value. It refuses a v that is not finite and one
// that leaves an input no output, naming that input.
func ValueFloor(u mech.Utility, v float64) (mech.Pattern, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, fmt.Errorf("want a finite utility value, got %v", v)
	}
	pat := u.Pattern(v)
	for i, row := range pat {
		if !anyAllowed(row) {
			return nil, fmt.Errorf("input %d has no output of utility ≥ %g", i, v)
		}
	}
	return pat, nil
}

// OrderFloor returns the zero pattern of the mechanisms whose worst-case
// order is at least h: o.Pattern(h), the set Y(h) of Song & Oechtering
// (2026) row by row. It refuses an h outside 1..M.
func OrderFloor(o mech.Order, h int) (mech.Pattern, error) {
	if _, m := o.Dims(); h < 1 || h > m {
		return nil, fmt.Errorf("want 1..%d, got %d", m, h)
	}
	return o.Pattern(h), nil
}

// anyAllowed reports whether a pattern's row allows some output.
func anyAllowed(row []bool) bool {
	for _, a := range row {
		if a {
			return true
		}
	}
	return false
}
