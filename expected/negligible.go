package expected

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/mech"
)

// withoutNegligible answers an ε-PML problem whose interior point failed
// by setting aside the letters that can not move the optimum: letters of
// prior mass far below the optimality tolerance (binomial priors reach
// 1e-255 at 256 letters) make the interior point's Newton systems
// singular long before the gap closes, yet their whole share of the
// expected utility, π_i (max_j u_ij − min_j u_ij), is below rounding.
//
//  1. The negligible letters are those of least share whose shares add
//     up to at most negligibleShare·max(1, |Σ_i π_i max_j u_ij|) and whose
//     masses add up to δ ≤ negligibleMass.
//  2. The kept letters, with their prior divided by K = Σ_kept π_l, are
//     solved by ipm.SolveVertex at ε' = ε + log K. Their rows then satisfy
//     p_lj ≤ e^ε' Σ_kept π_l p_lj / K ≤ e^ε q_j of the whole problem: the
//     letters set aside only add to q_j.
//  3. Each letter set aside gets a copy of the kept row of best expected
//     utility for it. Any kept row is within the budget there
//     (p_lj ≤ e^ε q_j for its own caps), and the copy adds no output.
//  4. The bound: certify.UpperBound with the kept letters' multipliers
//     multiplied by K (their knapsack items are then those of the reduced
//     problem: gains u_lj − α_l/π_l and caps e^ε π_l) and π_i max_j u_ij
//     for a letter set aside (its gains are at most 0). The mechanism is
//     audited, and accepted only if the bound is within ipm.AcceptedGap of
//     its value.
//
// It returns errUncertified when no letter is negligible or the result is
// not certified.
func withoutNegligible(ctx context.Context, pi mech.Prior, u mech.Utility, b mech.Budget) (Result, error) {
	// 1. The letters set aside.
	aside, kept, mass := negligibleLetters(pi, u, negligibleMass)
	if kept == nil {
		return Result{}, errUncertified
	}
	// 2. The reduced problem.
	rpi, ru := reduced(pi, u, kept, mass)
	rp := ipm.Problem{Prior: rpi, Utility: ru, Epsilon: b.Epsilon + math.Log(mass)}
	if !(rp.Epsilon >= 0) {
		return Result{}, errUncertified
	}
	r, err := ipm.SolveVertex(rp, ipm.Options{Context: ctx})
	if err != nil {
		if errors.Is(err, ipm.ErrNotConverged) {
			return Result{}, errUncertified
		}
		return Result{}, err
	}
	// 3. The whole mechanism.
	P, alpha := widen(pi, u, aside, kept, mass, r)
	// 4. The certificate and the audit.
	return certified(pi, u, b, P, alpha, ipm.AcceptedGap)
}

// negligibleLetters returns the letters step 1 of withoutNegligible sets
// aside, with total mass at most maxMass, and the kept letters with their
// mass K; kept is nil when no letter is set aside.
func negligibleLetters(pi mech.Prior, u mech.Utility, maxMass float64) (aside []bool, kept []int, mass float64) {
	n, _ := u.Dims()
	share := make([]float64, n)
	top := 0.0
	for i, row := range u {
		hi, lo := slices.Max(row), slices.Min(row)
		share[i] = pi[i] * (hi - lo)
		top += pi[i] * hi
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(share[a], share[b]) })
	aside = make([]bool, n)
	sum, delta, count := 0.0, 0.0, 0
	for _, i := range order[:n-1] { // one letter at least is kept
		if sum+share[i] > negligibleShare*max(1, math.Abs(top)) || delta+pi[i] > maxMass {
			break
		}
		sum, delta = sum+share[i], delta+pi[i]
		aside[i] = true
		count++
	}
	if count == 0 {
		return nil, nil, 0
	}
	kept = make([]int, 0, n-count)
	for i := range n {
		if !aside[i] {
			kept = append(kept, i)
			mass += pi[i]
		}
	}
	return aside, kept, mass
}

// reduced returns the prior of the kept letters divided by their mass,
// and their rows of u.
func reduced(pi mech.Prior, u mech.Utility, kept []int, mass float64) (mech.Prior, mech.Utility) {
	rpi, ru := make(mech.Prior, len(kept)), make(mech.Utility, len(kept))
	for k, i := range kept {
		rpi[k], ru[k] = pi[i]/mass, u[i]
	}
	return rpi, ru
}

// widen returns the whole mechanism of step 3 of withoutNegligible from
// the reduced problem's result r, and the multipliers of step 4: the
// kept letters' multiplied by their mass K, π_i max_j u_ij for a letter
// set aside.
func widen(pi mech.Prior, u mech.Utility, aside []bool, kept []int, mass float64, r *ipm.Result) (mech.Mechanism, []float64) {
	n := len(pi)
	P := make(mech.Mechanism, n)
	alpha := make([]float64, n)
	for k, i := range kept {
		P[i] = slices.Clone(r.Mechanism[k])
		alpha[i] = mass * r.Alpha[k]
	}
	for i := range n {
		if !aside[i] {
			continue
		}
		best, bestValue := 0, math.Inf(-1)
		for k := range kept {
			v := 0.0
			for j, x := range r.Mechanism[k] {
				v += x * u[i][j]
			}
			if v > bestValue {
				best, bestValue = k, v
			}
		}
		P[i] = slices.Clone(r.Mechanism[best])
		alpha[i] = pi[i] * slices.Max(u[i])
	}
	return P, alpha
}
