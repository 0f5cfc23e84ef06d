package simplex

// A Stop is a basic variable that blocks the entering direction: it
// reaches a bound it must keep (or, in phase 1, the far bound of the one it
// violates) after a step T, or Relaxed with the bound relaxed by the
// feasibility tolerance.
type Stop struct {
	T, Relaxed float64
	// Pivot is |α_p|, the rate at which the variable moves.
	Pivot float64
	// P is the basis position, Var the variable (Bland's tie rule).
	P, Var int
	// ToLB: the variable stops at its lower bound (else its upper bound).
	ToLB bool
}

// Bound is the first pass of Harris's ratio test (Harris (1973)): the
// longest step, no longer than theta, before a stop passes its relaxed
// bound.
func Bound(stops []Stop, theta float64) float64 {
	for _, s := range stops {
		theta = min(theta, s.Relaxed)
	}
	return theta
}

// Harris is the second pass: among the stops reached within theta, the one
// of largest pivot, for a well-conditioned next basis (the first in order
// among equal pivots). It returns its index in stops, or −1 when none is
// reached within theta.
func Harris(stops []Stop, theta float64) int {
	leave, best := -1, 0.0
	for k, s := range stops {
		if s.T <= theta && s.Pivot > best {
			leave, best = k, s.Pivot
		}
	}
	return leave
}

// Nearest is the ratio test under Bland's rule: the stop of least T, ties to
// the least variable, or −1 when there is none or it lies beyond theta.
func Nearest(stops []Stop, theta float64) int {
	leave := -1
	for k, s := range stops {
		if leave < 0 || s.T < stops[leave].T || (s.T == stops[leave].T && s.Var < stops[leave].Var) {
			leave = k
		}
	}
	if leave >= 0 && stops[leave].T > theta {
		return -1
	}
	return leave
}
