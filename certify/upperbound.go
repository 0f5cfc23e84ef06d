package certify

import (
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/mech"
)

// UpperBound returns an upper bound on the expected utility Σ_ij π_i u_ij p_ij
// of every ε-PML mechanism P that is zero where pat forbids a pair (nil:
// every pair allowed), proven by the multipliers alpha of the rows
// Σ_j p_ij = 1.
//
// The proof: for every such P, Σ π_i u_ij p_ij = Σ_i α_i + Σ_ij (π_i u_ij − α_i) p_ij,
// and each column, written as y_i = π_i p_ij / q_j (a distribution on the
// allowed inputs with y_i ≤ e^ε π_i), contributes q_j Σ_i y_i (u_ij − α_i/π_i)
// ≤ q_j K_j with K_j the fractional knapsack max_y Σ_i y_i (u_ij − α_i/π_i).
// So the optimum is at most Σ_i α_i + max(0, max_j K_j) (Σ_j q_j = 1).
// Outputs that no ε-PML mechanism can use (π(allowed) < e^{−ε}) add
// nothing. Sums carry a rounding margin, so the bound holds in exact
// arithmetic for any finite alpha; +Inf is returned for a non-finite one,
// for a NaN eps, and for inputs of mismatched shapes.
func UpperBound(pi mech.Prior, u mech.Utility, pat mech.Pattern, eps float64, alpha []float64) float64 {
	if !provable(pi, u, pat, alpha) {
		return math.Inf(1)
	}
	return upperBound(pi, u, pat, eps, alpha)
}

// UpperBoundColumns is UpperBound with every pair allowed, for a utility
// read a column at a time (a mech.UtilityRule): O(N) memory besides it.
// The bound is the one UpperBound proves from the same numbers.
func UpperBoundColumns(pi mech.Prior, u mech.Columns, eps float64, alpha []float64) float64 {
	if !provable(pi, nil, nil, alpha) || !columnsFit(pi, u) {
		return math.Inf(1)
	}
	return upperBound(pi, u, nil, eps, alpha)
}

// columnsFit reports that u has one row per letter of pi.
func columnsFit(pi mech.Prior, u mech.Columns) bool {
	if u == nil {
		return false
	}
	n, m := u.Dims()
	return n == len(pi) && m >= 0
}

// upperBound is UpperBound on inputs provable has checked.
func upperBound(pi mech.Prior, u mech.Columns, pat mech.Pattern, eps float64, alpha []float64) float64 {
	if math.IsNaN(eps) {
		return math.Inf(1)
	}
	n, m := u.Dims()
	col := make([]float64, n)
	// Caps rounded up: a larger cap can only raise a knapsack's maximum.
	lam := math.Exp(eps) * (1 + 8*UnitRoundoff)
	sum, mag, mass := 0.0, 0.0, 0.0
	for i, a := range alpha {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return math.Inf(1)
		}
		sum += a
		mag += math.Abs(a)
		mass += pi[i]
	}
	type item struct{ g, cap, size float64 }
	items := make([]item, 0, n)
	worst := 0.0
	for j := range m {
		items = items[:0]
		allowed := 0.0
		u.Column(j, col)
		for i := range n {
			if pat != nil && !pat[i][j] {
				continue
			}
			r := alpha[i] / pi[i]
			// size bounds the rounding error of g relative to 2^−53.
			items = append(items, item{g: col[i] - r, cap: lam * pi[i] * (1 + 8*UnitRoundoff), size: math.Abs(col[i]) + math.Abs(r)})
			allowed += pi[i]
		}
		if len(items) == 0 || (pat != nil && lam*allowed < 1-64*float64(n)*UnitRoundoff) {
			continue // no mechanism can use the output
		}
		slices.SortFunc(items, func(a, b item) int {
			switch {
			case a.g > b.g:
				return -1
			case a.g < b.g:
				return 1
			}
			return 0
		})
		left, k, err := 1.0, 0.0, 0.0
		for _, it := range items {
			y := min(it.cap, left)
			k += y * it.g
			err += y * (it.size + math.Abs(it.g))
			if left -= y; left <= 0 {
				break
			}
		}
		if left > 0 {
			// The caps (rounded) fall short of 1: the rest goes to the
			// best item, which only raises the bound.
			k += left * items[0].g
			err += left * (items[0].size + math.Abs(items[0].g))
		}
		k += 8 * float64(len(items)+2) * UnitRoundoff * err
		worst = max(worst, k)
	}
	// Σ_j q_j = Σ_i π_i, which the prior's validation allows to differ
	// from 1 by 1e-9.
	worst *= max(1, mass)
	bound := sum + worst
	return bound + 8*float64(n+2)*UnitRoundoff*(mag+math.Abs(worst))
}
