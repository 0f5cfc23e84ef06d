package simplex

// Perturbation is the amount by which a bound is relaxed against a
// degenerate run: PerturbLeast to PerturbLeast + PerturbSpread times the
// feasibility tolerance tol, placed by u ∈ [0, 1) drawn by the engine from a
// fixed pseudo-random sequence, so that solves are reproducible.
func Perturbation(tol, u float64) float64 {
	return tol * (PerturbLeast + PerturbSpread*u)
}

// Uniform turns 64 pseudo-random bits into a number in [0, 1) (their top 53
// bits, the mantissa of a float64).
func Uniform(bits uint64) float64 {
	return float64(bits>>11) / (1 << 53)
}
