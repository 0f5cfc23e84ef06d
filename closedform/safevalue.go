package closedform

import (
	"math"

	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// SafeValueStep is one step of the utility-safe value staircase: from
// Threshold up to the next step's, the utility-safe mechanism of the
// pattern u'_ij ≥ v has PML Epsilon.
type SafeValueStep struct {
	Threshold float64
	Epsilon   float64
}

// SafeValueCurve returns the utility-safe staircase of the utility values
// of u: for every reachable distinct value v (every row has an entry at
// least v), the PML of UniformOnAllowed(u.Pattern(v)), the mechanism
// uniform over each row's entries of utility at least v; one step where
// the PML changes, at the smallest v of the run. Like ε_S(h) it need not
// be monotone (see SafeEpsilon). The cost is O(NM) per distinct value.
func SafeValueCurve(pi mech.Prior, u mech.Utility) ([]SafeValueStep, error) {
	if _, err := mech.NewUtility(u); err != nil {
		return nil, err
	}
	if err := checkPrior(pi, len(u)); err != nil {
		return nil, err
	}
	// The PML of each reachable value's uniform-on-allowed mechanism, one
	// step per change.
	var steps []SafeValueStep
	for _, v := range u.ReachableValues() {
		eps := safeValuePML(pi, u, v)
		// Equal PMLs summed in another order differ by rounding; they
		// are one step.
		if n := len(steps); n == 0 || math.Abs(steps[n-1].Epsilon-eps) > scheduleTol*max(1, eps) {
			steps = append(steps, SafeValueStep{Threshold: v, Epsilon: eps})
		}
	}
	return steps, nil
}

// SafeValueCurveOver is SafeValueCurve over a prior set: each step's
// level is the PML over the set of the same mechanism (leakage.PMLOver:
// the largest over its priors, +Inf where some prior never produces a
// used output), the staircase a curve over the set is compared with.
func SafeValueCurveOver(set *mech.PriorSet, u mech.Utility) ([]SafeValueStep, error) {
	if _, err := mech.NewUtility(u); err != nil {
		return nil, err
	}
	if err := checkPrior(set.Center, len(u)); err != nil {
		return nil, err
	}
	var steps []SafeValueStep
	for _, v := range u.ReachableValues() {
		eps := leakage.PMLOver(set, UniformOnAllowed(u.Pattern(v)))
		n := len(steps)
		if n == 0 || math.IsInf(eps, 1) != math.IsInf(steps[n-1].Epsilon, 1) ||
			(!math.IsInf(eps, 1) && math.Abs(steps[n-1].Epsilon-eps) > scheduleTol*max(1, eps)) {
			steps = append(steps, SafeValueStep{Threshold: v, Epsilon: eps})
		}
	}
	return steps, nil
}

// safeValuePML is the PML of the mechanism uniform over each row's
// entries u'_ij ≥ v: the largest over used outputs j of
// log(max_i p_ij / q_j), q_j = Σ_i π_i p_ij.
func safeValuePML(pi mech.Prior, u mech.Utility, v float64) float64 {
	m := len(u[0])
	q, top := make([]float64, m), make([]float64, m)
	for i, row := range u {
		k := 0
		for _, x := range row {
			if x >= v {
				k++
			}
		}
		p := 1 / float64(k)
		for j, x := range row {
			if x >= v {
				q[j] += pi[i] * p
				top[j] = max(top[j], p)
			}
		}
	}
	eps := 0.0
	for j := range q {
		if q[j] > 0 {
			eps = max(eps, mathx.LogRatio(top[j], q[j]))
		}
	}
	return eps
}
