package leakage

import (
	"math"

	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// PMLPerOutput returns ℓ(X→y_j) = log max_i p_ij / q_j for every output j.
// Unused outputs (q_j = 0) are outside S_Y and get -Inf, so they never
// raise a maximum.
func PMLPerOutput(pi mech.Prior, p mech.Mechanism) []float64 {
	mx := p.ColumnMax()
	return perUsedOutput(pi, p, func(j int, qj float64) float64 {
		return mathx.LogRatio(mx[j], qj)
	})
}

// PML returns the pointwise maximal leakage of the mechanism,
// max over y ∈ S_Y of ℓ(X→y). It is ≥ 0, and 0 exactly when every used
// column of p is constant (Y independent of X).
func PML(pi mech.Prior, p mech.Mechanism) float64 { return largest(pi, p, PMLPerOutput) }

// perUsedOutput returns level(j, q_j) for every output j of positive
// marginal q_j and −Inf for the others (outside S_Y, so that they never
// raise a maximum); nil when pi does not fit p.
func perUsedOutput(pi mech.Prior, p mech.Mechanism, level func(j int, qj float64) float64) []float64 {
	if p.CheckPrior(pi) != nil {
		return nil
	}
	q := p.Marginal(pi)
	out := make([]float64, len(q))
	for j, qj := range q {
		if qj <= 0 {
			out[j] = math.Inf(-1)
			continue
		}
		out[j] = level(j, qj)
	}
	return out
}

// largest is the mechanism's level of a pointwise measure: the largest of
// its levels per output, at least 0; NaN when pi does not fit p.
func largest(pi mech.Prior, p mech.Mechanism, perOutput func(mech.Prior, mech.Mechanism) []float64) float64 {
	if p.CheckPrior(pi) != nil {
		return math.NaN()
	}
	best := 0.0
	for _, v := range perOutput(pi, p) {
		best = max(best, v)
	}
	return best
}
