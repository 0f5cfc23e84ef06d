package simplex

// The tolerances the strategy shares. The engines' own (feasibility,
// optimality, pivot) are parameters of the calls: they are tuned to each
// engine's arithmetic and scaling.
const (
	// DegenerateStep is the longest step that counts as degenerate: a
	// step that moves the point by no more than this (in the units of the
	// entering variable) leaves the objective where it was up to rounding,
	// and a run of such steps is how cycling shows.
	DegenerateStep = 1e-12
	// PerturbLeast and PerturbSpread size a bound perturbation in units of
	// the feasibility tolerance: between 100 and 1000 times it, large
	// enough to break the ties of a degenerate vertex beyond rounding,
	// small enough that cleaning up on the true bounds takes few pivots.
	PerturbLeast, PerturbSpread = 100, 900
)
