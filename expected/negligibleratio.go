package expected

import (
	"context"
	"math"

	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/mech"
)

// ratioWithoutNegligible is withoutNegligible for LIP, ALIP and LDP
// budgets: the letters of tiny mass that stall the interior point of the
// whole problem (its Newton systems turn singular before the gap closes)
// are set aside, the kept letters solved by ipm.SolveRatio, and each
// letter set aside copies its best kept row. A copied row leaves every
// ratio between rows as it was, so only the budgets through q_j move.
//
//  1. The negligible letters are those of withoutNegligible, of total
//     mass δ at most negligibleMass, and for LIP and ALIP at most
//     margin·e^{−ε_u} as well, which keeps the lower budget's margin of
//     step 2, log(K + δ e^{ε_u'}) ≤ margin, small.
//  2. The kept letters, with their prior divided by K = Σ_kept π_l, are
//     solved under
//     - LDP: the same ε (its caps compare rows, not rows with q);
//     - LIP, ALIP: ALIP (ε_l', ε_u') with ε_u' = ε_u + log K and
//     ε_l' = ε_l − log(K + δ e^{ε_u'}). With q' the reduced marginal,
//     the whole marginal is q_j = K q'_j + Σ_aside π_i p_{c(i)j}, between
//     K q'_j and (K + δ e^{ε_u'}) q'_j since a copied entry is at most
//     e^{ε_u'} q'_j; so p_lj ≤ e^{ε_u'} q'_j ≤ e^{ε_u} q_j and
//     p_lj ≥ e^{−ε_l'} q'_j ≥ e^{−ε_l} q_j.
//  3. Each letter set aside copies the kept row of best expected utility
//     for it (widen).
//  4. certify.RatioUpperBound with the kept multipliers times K and
//     π_i max_j u_ij for a letter set aside certifies the mechanism on
//     the whole problem; it is audited, and accepted only if the bound is
//     within ipm.AcceptedGap of its value.
//
// It returns errUncertified when no letter is negligible or the result is
// not certified.
func ratioWithoutNegligible(ctx context.Context, pi mech.Prior, u mech.Utility, b mech.Budget, margin float64) (Result, error) {
	// 1. The letters set aside.
	lower, upper := b.Epsilon, b.Epsilon
	if b.Measure == mech.ALIP {
		lower, upper = b.EpsilonLower, b.EpsilonUpper
	}
	maxMass := negligibleMass
	if b.Measure != mech.LDP {
		maxMass = min(maxMass, margin*math.Exp(-upper))
	}
	aside, kept, mass := negligibleLetters(pi, u, maxMass)
	if kept == nil {
		return Result{}, errUncertified
	}
	// 2. The reduced problem.
	rpi, ru := reduced(pi, u, kept, mass)
	rb := b
	if b.Measure != mech.LDP {
		delta := 0.0
		for i, a := range aside {
			if a {
				delta += pi[i]
			}
		}
		up := upper + math.Log(mass)
		rb = mech.Budget{Measure: mech.ALIP, EpsilonUpper: up, EpsilonLower: lower - math.Log(mass+delta*math.Exp(up))}
		if !(rb.EpsilonLower >= 0 && rb.EpsilonUpper >= 0) {
			return Result{}, errUncertified
		}
	}
	// SolveRatio returns its best point when it is not certified: step 4
	// judges that point on the whole problem.
	r, _ := ipm.SolveRatio(ipm.RatioProblem{Prior: rpi, Utility: ru, Budget: rb}, ipm.Options{Context: ctx})
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if r == nil {
		return Result{}, errUncertified
	}
	// 3. The whole mechanism.
	P, alpha := widen(pi, u, aside, kept, mass, r)
	// 4. The certificate and the audit.
	return certified(pi, u, b, P, alpha, ipm.AcceptedGap)
}
