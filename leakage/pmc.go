package leakage

import (
	"math"

	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// PMCPerOutput returns the pointwise maximal cost of every output,
// Λ(X→y_j) = log max_i q_j / p_ij = −min_i i(x_i; y_j) (Saeidian et al. (2024), Thm 1 and
// Cor 5). A used output (q_j > 0) that some input never produces
// (p_ij = 0) has Λ = +Inf. Unused outputs (q_j = 0) are outside S_Y and get
// −Inf, so they never raise a maximum.
//
// The input is assumed valid (mech.NewPrior and mech.NewMechanism) with
// matching dimensions.
func PMCPerOutput(pi mech.Prior, p mech.Mechanism) []float64 {
	return perUsedOutput(pi, p, func(j int, qj float64) float64 {
		mn := math.Inf(1)
		for i := range p {
			mn = min(mn, p[i][j])
		}
		if mn <= 0 {
			return math.Inf(1)
		}
		// q_j ≥ min_i p_ij mathematically; clamp rounding so Λ ≥ 0.
		return max(0, mathx.LogRatio(qj, mn))
	})
}

// PMC returns the pointwise maximal cost of the mechanism, max over y ∈ S_Y
// of Λ(X→y): the least ε for which P satisfies ε-PMC. It is ≥ 0, 0 exactly
// when every used column is constant, and +Inf when a used output has a
// zero entry.
//
// The input is assumed valid, as for PMCPerOutput.
func PMC(pi mech.Prior, p mech.Mechanism) float64 { return largest(pi, p, PMCPerOutput) }

// ALIP returns the tightest asymmetric local information privacy pair:
// lower = max_y Λ(X→y) (the PMC) and upper = max_y ℓ(X→y) (the PML), so that
// −lower ≤ i(x; y) ≤ upper for every x and every y ∈ S_Y, and the mechanism
// is (ε_l, ε_u)-ALIP exactly when ε_l ≥ lower and ε_u ≥ upper
// (Grosse et al. (2024), §II, Saeidian et al. (2024), Def. 5). lower is +Inf when a used output has a
// zero entry.
//
// The input is assumed valid, as for PMCPerOutput.
func ALIP(pi mech.Prior, p mech.Mechanism) (lower, upper float64) {
	return PMC(pi, p), PML(pi, p)
}

// LIP returns the local information privacy level max(ε_l, ε_u) of the ALIP
// pair: the least ε with |i(x; y)| ≤ ε for every x and y ∈ S_Y.
//
// The input is assumed valid, as for PMCPerOutput.
func LIP(pi mech.Prior, p mech.Mechanism) float64 {
	l, u := ALIP(pi, p)
	return max(l, u)
}
