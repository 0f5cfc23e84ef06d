package leakage

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/internal/alphaopt"
	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// alphaTol is the certified accuracy, in nats, that MaximalAlphaLeakage and
// MaximalAlphaBetaLeakage aim for; alphaFail is the certified gap beyond
// which they report an error instead of a value.
const (
	alphaTol  = 1e-11
	alphaFail = 1e-7
)

// MaximalAlphaLeakage returns the maximal α-leakage of Liao et al. (2019),
//
//	sup over P̃ on supp π of I_α^S(P̃, P),
//	I_α^S(P̃, P) = α/(α−1) log Σ_j (Σ_i P̃_i p_ij^α)^{1/α}
//
// (Gilani et al. (2022), eq. 2, Sibson's mutual information of order α). α = +Inf gives
// the limit, the maximal leakage log Σ_j max_i p_ij.
//
// For α ∈ (1, ∞) the supremum is a concave maximisation over the simplex:
// P̃ ↦ Σ_i P̃_i p_ij^α is linear, t ↦ t^{1/α} is concave and non-decreasing
// for 1/α ≤ 1, so each (Σ_i P̃_i p_ij^α)^{1/α} is concave in P̃, so is their
// sum, so is its logarithm (log is concave and increasing), and α/(α−1) > 0
// (Gilani et al. (2022), §III: the argument of the log in (6) is concave for β ≤ α; here
// β = 1). A local maximiser is therefore global. It is found by
// multiplicative updates and Newton steps on the optimum's support and
// certified by Hölder's inequality (internal/alphaopt): for the concave
// G = log Σ_j (…)^{1/α} and any P̃, sup G ≤ G(P̃) + (1/α) log(max_i g_i / F),
// the Rényi-radius bound. The returned value is attained by a prior and is
// within 1e-9 of the supremum; see
// MaximalAlphaLeakageBounds for the certified bracket.
//
// It returns an error if the dimensions of pi and p differ, α is NaN or
// α ≤ 1, or the optimiser cannot certify the value to 1e-7.
func MaximalAlphaLeakage(pi mech.Prior, p mech.Mechanism, alpha float64) (float64, error) {
	lo, _, err := MaximalAlphaLeakageBounds(pi, p, alpha)
	return lo, err
}

// MaximalAlphaLeakageBounds returns a certified bracket lower ≤ L ≤ upper on
// the maximal α-leakage L of MaximalAlphaLeakage: lower is I_α^S at the prior
// the optimiser found, upper adds the Hölder gap. For α = +Inf
// the two are equal.
func MaximalAlphaLeakageBounds(pi mech.Prior, p mech.Mechanism, alpha float64) (lower, upper float64, err error) {
	return MaximalAlphaBetaLeakageBounds(pi, p, alpha, 1)
}

// MaximalAlphaBetaLeakage returns the maximal (α,β)-leakage of Gilani et al. (2022)
// (Gilani et al. (2022), Def. 4), for α ∈ (1, ∞] and β ∈ [1, ∞], in its simplified form
// (Gilani et al. (2022), Thm 1, eq. 6):
//
//	max_k sup_P̃ α/((α−1)β) log Σ_j p_kj^{1−β} (Σ_i P̃_i p_ij^α)^{β/α},
//
// with k and P̃ ranging over supp π. Outputs no input in supp π produces are
// ignored. For β > 1 a term with p_kj = 0 < p_ij is +Inf, so the leakage is
// +Inf when a used column mixes zero and non-zero entries.
//
//   - β ≤ α < ∞: the argument of the log is concave in P̃ (t ↦ t^{β/α} is
//     concave for β/α ≤ 1) and the supremum is found and certified as in
//     MaximalAlphaLeakage. β = 1 gives maximal α-leakage.
//   - β ≥ α: the argument is convex in P̃, so the supremum is at a vertex
//     (eq. 11): max_{k,i} α/((α−1)β) log Σ_j p_kj^{1−β} p_ij^β, a scaled LRDP of
//     order β; α = β gives LRDP of order α (eq. 12).
//   - α = ∞, β < ∞: eq. 15, max_k 1/β log Σ_j p_kj^{1−β} max_i p_ij^β; β = 1
//     gives maximal leakage.
//   - α < ∞, β = ∞: the β → ∞ limit of eq. 11, α/(α−1) LDP.
//   - α = β = ∞: LDP (eqs. 13-14).
//
// It returns an error if the dimensions of pi and p differ, α is NaN or
// α ≤ 1, β is NaN or β < 1, or the optimiser cannot certify the value to
// 1e-7.
func MaximalAlphaBetaLeakage(pi mech.Prior, p mech.Mechanism, alpha, beta float64) (float64, error) {
	lo, _, err := MaximalAlphaBetaLeakageBounds(pi, p, alpha, beta)
	return lo, err
}

// MaximalAlphaBetaLeakageBounds returns a certified bracket
// lower ≤ L_{α,β} ≤ upper on the maximal (α,β)-leakage of
// MaximalAlphaBetaLeakage. The two are equal in the closed-form cases
// (β ≥ α, or α or β infinite).
func MaximalAlphaBetaLeakageBounds(pi mech.Prior, p mech.Mechanism, alpha, beta float64) (lower, upper float64, err error) {
	return alphaBetaBounds(context.Background(), pi, p, alpha, beta)
}

// errNotCertified is the failure of an optimisation to certify its value
// within alphaFail; the bracket it returns is still certified.
type errNotCertified struct{ lower, upper float64 }

func (e *errNotCertified) Error() string {
	return fmt.Sprintf("leakage: maximal (α,β)-leakage not certified: bracket [%g, %g]", e.lower, e.upper)
}

// alphaBetaBounds is MaximalAlphaBetaLeakageBounds, stopping when ctx is
// done with the bracket reached so far and ctx's error.
func alphaBetaBounds(ctx context.Context, pi mech.Prior, p mech.Mechanism, alpha, beta float64) (lower, upper float64, err error) {
	if err := checkAlpha(alpha); err != nil {
		return 0, 0, err
	}
	if err := checkBeta(beta); err != nil {
		return 0, 0, err
	}
	if err := checkDims(pi, p); err != nil {
		return 0, 0, err
	}
	rows := supportRows(pi, p)
	if len(rows) == 0 {
		return 0, 0, &mech.FieldError{Field: "prior", Row: -1, Col: -1, Msg: "has no positive entry"}
	}
	cols := alphaopt.UsedColumns(rows)
	infA, infB := math.IsInf(alpha, 1), math.IsInf(beta, 1)
	switch {
	case infB:
		v := ldp(rows)
		if !infA {
			v *= alpha / (alpha - 1)
		}
		return v, v, nil
	case beta > 1 && mixed(rows, cols):
		inf := math.Inf(1)
		return inf, inf, nil
	case infA:
		v := alphaInf(rows, cols, beta)
		return v, v, nil
	case beta >= alpha:
		v := vertexForm(rows, cols, alpha, beta)
		return v, v, nil
	}
	scale := alpha / ((alpha - 1) * beta)
	lower, upper = alphaopt.Max(ctx, rows, cols, alpha, beta, alphaTol/scale)
	lower, upper = scale*lower, scale*upper
	// The leakage is ≥ 0 (Gilani et al. (2022), Thm 2); clamp rounding.
	lower, upper = max(0, lower), max(0, upper)
	if err := ctx.Err(); err != nil {
		return lower, upper, err
	}
	if upper-lower > alphaFail {
		return lower, upper, &errNotCertified{lower, upper}
	}
	return lower, upper, nil
}

// checkDims reports whether p is a mechanism (mech.NewMechanism) with one
// row per entry of pi, and pi a distribution: finite, non-negative, summing
// to 1 within mech.SumTol. Unlike mech.NewPrior it admits zeros: the
// maximisations range over supp π.
func checkDims(pi mech.Prior, p mech.Mechanism) error {
	if _, err := mech.NewMechanism(p); err != nil {
		return err
	}
	if err := p.CheckPrior(pi); err != nil {
		return err
	}
	sum := 0.0
	for i, v := range pi {
		if !(v >= 0) || math.IsInf(v, 1) {
			return &mech.FieldError{Field: "prior", Row: -1, Col: i, Msg: fmt.Sprintf("is %g; a probability is finite and non-negative", v)}
		}
		sum += v
	}
	if math.Abs(sum-1) > mech.SumTol {
		return &mech.FieldError{Field: "prior", Row: -1, Col: -1, Msg: fmt.Sprintf("sums to %.17g, not 1 (tolerance %g)", sum, mech.SumTol)}
	}
	return nil
}

// supportRows returns the rows of p whose input has positive prior mass.
func supportRows(pi mech.Prior, p mech.Mechanism) mech.Mechanism {
	var rows mech.Mechanism
	for i, row := range p {
		if pi[i] > 0 {
			rows = append(rows, row)
		}
	}
	return rows
}

// mixed reports whether a used column has a zero entry.
func mixed(rows mech.Mechanism, cols []int) bool {
	for _, j := range cols {
		for _, row := range rows {
			if row[j] == 0 {
				return true
			}
		}
	}
	return false
}

// alphaInf evaluates Gilani et al. (2022), eq. 15, max_k 1/β log Σ_j p_kj^{1−β} max_i p_ij^β,
// for a mechanism without mixed columns when β > 1.
func alphaInf(rows mech.Mechanism, cols []int, beta float64) float64 {
	lm := alphaopt.LogColumnMax(rows, cols)
	best := 0.0
	terms := make([]float64, len(cols))
	for _, rk := range rows {
		for c, j := range cols {
			lk := 0.0 // p_kj^0 = 1 for β = 1, even where p_kj = 0
			if beta != 1 {
				lk = (1 - beta) * mathx.Log(rk[j])
			}
			terms[c] = lk + beta*lm[c]
		}
		best = max(best, mathx.LogSumExp(terms)/beta)
	}
	return best
}

// vertexForm evaluates Gilani et al. (2022), eq. 11 for β ≥ α > 1 on a mechanism without
// mixed columns: max_{k,i} α/((α−1)β) log Σ_j p_kj^{1−β} p_ij^β.
func vertexForm(rows mech.Mechanism, cols []int, alpha, beta float64) float64 {
	scale := alpha / ((alpha - 1) * beta)
	best := 0.0
	terms := make([]float64, 0, len(cols))
	for _, rk := range rows {
		for _, ri := range rows {
			terms = terms[:0]
			for _, j := range cols {
				if ri[j] > 0 {
					terms = append(terms, (1-beta)*mathx.Log(rk[j])+beta*mathx.Log(ri[j]))
				}
			}
			best = max(best, scale*mathx.LogSumExp(terms))
		}
	}
	return best
}
