package simplex

// A Verdict is what a pricing pass that found no entering variable
// decides.
type Verdict int8

const (
	// Refresh: recompute the factors (or inverse) and the basic values
	// and price again; the updated ones may be what priced everything out.
	Refresh Verdict = iota
	// Unperturb: restore the true bounds and price again, where the
	// relaxed problem's optimum may not be one.
	Unperturb
	// Infeasible: phase 1 is over with infeasibilities left.
	Infeasible
	// Optimal: phase 2 is over.
	Optimal
)

// NoEntering decides a pass that found no entering variable. Only trusted
// factors (fresh, or checked accurate) and the true bounds declare the end
// of a solve: else the engine refreshes them, or restores the bounds,
// first.
func NoEntering(trusted, perturbed, phase1 bool) Verdict {
	switch {
	case !trusted:
		return Refresh
	case perturbed:
		return Unperturb
	case phase1:
		return Infeasible
	}
	return Optimal
}
