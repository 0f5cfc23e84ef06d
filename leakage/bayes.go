package leakage

import (
	"math"

	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// Lift returns max over p_ij > 0 (and q_j > 0) of p_ij / q_j, the largest
// ratio of posterior to prior belief (Fernandes et al. (2022), Defn 2). It equals exp(PML).
//
// The input is assumed valid (mech.NewPrior and mech.NewMechanism) with
// matching dimensions.
func Lift(pi mech.Prior, p mech.Mechanism) float64 {
	if p.CheckPrior(pi) != nil {
		return math.NaN()
	}
	q := p.Marginal(pi)
	best := 1.0
	for j, qj := range q {
		if qj <= 0 {
			continue
		}
		for i := range p {
			best = max(best, p[i][j]/qj)
		}
	}
	return best
}

// BayesCapacity returns Σ_j max_i p_ij, the multiplicative Bayes leakage of
// the mechanism maximised over all priors and gain functions (Fernandes et al. (2022), eqs.
// 11-13; the maximum is reached at the uniform prior). It does not depend
// on the prior: pi, which must have full support, is taken for symmetry with
// the other measures.
//
// The input is assumed valid, as for Lift.
func BayesCapacity(pi mech.Prior, p mech.Mechanism) float64 {
	if p.CheckPrior(pi) != nil {
		return math.NaN()
	}
	return sumColumnMax(nil, p)
}

// MaximalLeakage returns log Σ_j max_i p_ij, the maximal leakage of Issa et
// al.: the log of the Bayes capacity, and the α → ∞ limit of maximal
// α-leakage (Gilani et al. (2022), §III). Like the Bayes capacity it does not depend on a
// prior with full support.
//
// The input is assumed valid, as for Lift.
func MaximalLeakage(pi mech.Prior, p mech.Mechanism) float64 {
	// Σ_j max_i p_ij ≥ Σ_j p_1j = 1; clamp rounding so the leakage is ≥ 0.
	return max(0, mathx.Log(BayesCapacity(pi, p)))
}

// PosteriorBayesVulnerability returns Σ_j max_i π_i p_ij, the probability
// that an adversary guessing X in one try after seeing Y is right (Fernandes et al.
// (2022), eq. 7 with the identity gain function).
//
// The input is assumed valid, as for Lift.
func PosteriorBayesVulnerability(pi mech.Prior, p mech.Mechanism) float64 {
	if p.CheckPrior(pi) != nil {
		return math.NaN()
	}
	return sumColumnMax(pi, p)
}

// BayesLeakage returns the multiplicative Bayes leakage: the posterior Bayes
// vulnerability divided by the prior one, max_i π_i (Fernandes et al. (2022), eq. 10). It
// lies in [1, BayesCapacity].
//
// The input is assumed valid, as for Lift.
func BayesLeakage(pi mech.Prior, p mech.Mechanism) float64 {
	return max(1, PosteriorBayesVulnerability(pi, p)/pi.Max())
}

// sumColumnMax returns Σ_j max_i w_i p_ij, with w_i = 1 when w is nil.
func sumColumnMax(w []float64, p mech.Mechanism) float64 {
	_, m := p.Dims()
	s := 0.0
	for j := 0; j < m; j++ {
		mx := 0.0
		for i := range p {
			v := p[i][j]
			if w != nil {
				v *= w[i]
			}
			mx = max(mx, v)
		}
		s += mx
	}
	return s
}
