package leakage

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// LDP returns the local differential privacy level of the mechanism,
// max over j, i, k of log p_ij / p_kj (Gilani et al. (2022), eq. 3, Fernandes et al. (2022), Defn 1).
// An all-zero column is never released and is ignored; a column mixing zero
// and non-zero entries makes the level +Inf. The value does not depend on
// the prior: pi, which must have full support, is taken for symmetry with the
// other measures.
//
// The input is assumed valid (mech.NewPrior and mech.NewMechanism) with
// matching dimensions.
func LDP(pi mech.Prior, p mech.Mechanism) float64 {
	if p.CheckPrior(pi) != nil {
		return math.NaN()
	}
	return ldp(p)
}

func ldp(p mech.Mechanism) float64 {
	_, m := p.Dims()
	best := 0.0
	for j := 0; j < m; j++ {
		mn, mx := math.Inf(1), 0.0
		for i := range p {
			mn = min(mn, p[i][j])
			mx = max(mx, p[i][j])
		}
		switch {
		case mx <= 0:
			// unused column
		case mn <= 0:
			return math.Inf(1)
		default:
			best = max(best, mathx.LogRatio(mx, mn))
		}
	}
	return best
}

// LRDP returns the local Rényi differential privacy level of order α,
//
//	max_{i,k} 1/(α−1) log Σ_j p_ij^α p_kj^{1−α}
//
// (Gilani et al. (2022), Def. 3), the largest Rényi divergence of order α between two
// rows. Terms with p_ij = 0 vanish; a term with p_kj = 0 < p_ij makes the
// level +Inf. α = +Inf gives the limit, LDP. LRDP is ≥ 0 and non-decreasing
// in α.
//
// It returns an error if α is NaN or α ≤ 1, or if p is not a mechanism
// (mech.NewMechanism).
func LRDP(p mech.Mechanism, alpha float64) (float64, error) {
	if err := checkAlpha(alpha); err != nil {
		return 0, err
	}
	if _, err := mech.NewMechanism(p); err != nil {
		return 0, err
	}
	if math.IsInf(alpha, 1) {
		return ldp(p), nil
	}
	if v, ok := lrdpProduct(p, alpha); ok {
		return v, nil
	}
	best := 0.0
	for i := range p {
		for k := range p {
			if i == k {
				continue
			}
			v := renyiRows(p[i], p[k], alpha)
			if math.IsInf(v, 1) {
				return v, nil
			}
			best = max(best, v)
		}
	}
	return best, nil
}

// renyiRows returns D_α(a‖b) = 1/(α−1) log Σ_j a_j^α b_j^{1−α}, computed in
// the log domain so that large α neither overflows nor underflows.
func renyiRows(a, b []float64, alpha float64) float64 {
	terms := make([]float64, 0, len(a))
	for j, aj := range a {
		if aj <= 0 {
			continue
		}
		if b[j] <= 0 {
			return math.Inf(1)
		}
		la, lb := mathx.Log(aj), mathx.Log(b[j])
		terms = append(terms, alpha*la+(1-alpha)*lb)
	}
	// Σ_j a_j^α b_j^{1−α} ≥ 1 by Hölder; clamp rounding so D ≥ 0.
	return max(0, mathx.LogSumExp(terms)/(alpha-1))
}

// checkAlpha validates an order α ∈ (1, ∞].
func checkAlpha(alpha float64) error {
	if math.IsNaN(alpha) || alpha <= 1 {
		return &mech.FieldError{Field: "alpha", Row: -1, Col: -1, Msg: "must be a number > 1 (or +Inf)"}
	}
	return nil
}

// checkBeta validates an order β ∈ [1, ∞].
func checkBeta(beta float64) error {
	if math.IsNaN(beta) || beta < 1 {
		return &mech.FieldError{Field: "beta", Row: -1, Col: -1, Msg: "must be a number ≥ 1 (or +Inf)"}
	}
	return nil
}

// lrdpMinWork is the size N²M from which LRDP forms all the sums
// Σ_j p_ij^α p_kj^{1−α} as one matrix product; lrdpMaxExp bounds the
// exponents of the scaled powers so that none overflows or underflows.
const (
	lrdpMinWork = 1 << 20
	lrdpMaxExp  = 600
)

// lrdpProduct computes LRDP as one matrix product when p is large: with
// m_j = max_i p_ij, Σ_j p_ij^α p_kj^{1−α} = Σ_j (p_ij/m_j)^α m_j (p_kj/m_j)^{1−α},
// the (i, k) entry of A Bᵀ. A used column with a zero entry makes LRDP +Inf
// (the pair of a zero and a positive entry), as in the pairwise loop. It
// reports false, leaving the work to the loop, for small p or when a scaled
// power would leave the range of float64.
func lrdpProduct(p mech.Mechanism, alpha float64) (float64, bool) {
	n, m := p.Dims()
	if n*n*m < lrdpMinWork {
		return 0, false
	}
	// 1. Used columns; a mixed one settles the answer.
	var cols []int
	var lm []float64
	for j := 0; j < m; j++ {
		mn, mx := math.Inf(1), 0.0
		for i := range p {
			mn, mx = min(mn, p[i][j]), max(mx, p[i][j])
		}
		switch {
		case mx <= 0:
		case mn <= 0:
			return math.Inf(1), true
		default:
			if math.Abs((alpha-1)*mathx.LogRatio(mn, mx)) > lrdpMaxExp || math.Abs(alpha*mathx.LogRatio(mn, mx)) > lrdpMaxExp {
				return 0, false
			}
			cols = append(cols, j)
			lm = append(lm, mathx.Log(mx))
		}
	}
	// 2. A = (p/m)^α, B = m (p/m)^{1−α}, S = A Bᵀ.
	a, b := mat.NewDense(n, len(cols), nil), mat.NewDense(n, len(cols), nil)
	for i, row := range p {
		for c, j := range cols {
			l := mathx.Log(row[j]) - lm[c]
			a.Set(i, c, math.Exp(alpha*l))
			b.Set(i, c, math.Exp((1-alpha)*l+lm[c]))
		}
	}
	var s mat.Dense
	s.Mul(a, b.T())
	// 3. The largest divergence over pairs; Σ ≥ 1 by Hölder, so rounding
	// below it is clamped as in renyiRows.
	best := 0.0
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			if i != k {
				best = max(best, mathx.Log(s.At(i, k))/(alpha-1))
			}
		}
	}
	return best, true
}
