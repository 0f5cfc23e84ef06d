package simplex

import (
	"math"
	"slices"
)

// A Breakpoint is where, along the entering direction, an infeasible basic
// variable reaches the bound it violates: past it the variable is feasible
// and the slope of the sum of infeasibilities rises by Inc, the rate at
// which the variable moves (|pivot|).
type Breakpoint struct {
	T, Inc float64
	// P is the basis position of the variable, Key the tie rule among
	// breakpoints at the same T (the engine's: its position or its
	// variable).
	P, Key int
	// ToLB: the variable reaches its lower bound (else its upper bound).
	ToLB bool
}

// LongStep is the long step of phase 1 (Maros (2003), the "generalised"
// ratio test of phase 1): from the entering variable's reduced cost dq in
// the sum of infeasibilities, it passes the breakpoints within theta in
// order (ties by Key) while the slope stays negative. Every breakpoint
// passed is a valid place to stop (the sum decreases up to it); it stops at
// the last one whose Inc is at least keep times the largest Inc passed, so
// that a long step does not end on a tiny pivot (keep = 0: at the
// breakpoint where the slope turns). It sorts bps and returns the index of
// the breakpoint to stop at, or −1 when the slope stays negative past every
// breakpoint within theta (the ratio test then goes on to Harris's passes).
func LongStep(bps []Breakpoint, theta, dq, keep float64) int {
	slices.SortFunc(bps, func(a, b Breakpoint) int {
		switch {
		case a.T < b.T:
			return -1
		case a.T > b.T:
			return 1
		}
		return a.Key - b.Key
	})
	slope := -math.Abs(dq)
	last := -1
	incMax := 0.0
	for k, b := range bps {
		if b.T > theta {
			break
		}
		last = k
		incMax = max(incMax, b.Inc)
		slope += b.Inc
		if slope >= 0 {
			break
		}
	}
	if last < 0 || slope < 0 {
		return -1
	}
	for k := last; k >= 0; k-- {
		if bps[k].Inc >= keep*incMax {
			return k
		}
	}
	return -1
}
