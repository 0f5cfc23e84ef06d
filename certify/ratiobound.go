package certify

import (
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/mech"
)

// RatioUpperBound returns an upper bound on the expected utility of every
// mechanism within the LIP, ALIP or LDP budget b, proven by the multipliers
// alpha of the rows Σ_j p_ij = 1. As in UpperBound, the expected utility is
// Σ_i α_i + Σ_j Σ_i (π_i u_ij − α_i) p_ij, and each column is bounded by its
// mass times K_j, the largest value of a normalised column the budget
// allows:
//
//   - LIP, ALIP: y_i = π_i p_ij / q_j, with e^{−ε_l} π_i ≤ y_i ≤ e^{ε_u} π_i
//     and Σ_i y_i = 1, gains u_ij − α_i/π_i, masses q_j summing to Σ_i π_i;
//     K_j is a fractional knapsack from the lower caps;
//   - LDP: y = p_·j / m_j with m_j = Σ_i p_ij (Σ_j m_j = N), y ≥ 0,
//     Σ_i y_i = 1 and max y ≤ e^ε min y, gains π_i u_ij − α_i; the set's
//     vertices are y ∝ 1 + (e^ε − 1)·1_S, and K_j is the best of the top-k
//     sets S of the gains.
//
// So the optimum is at most Σ_i α_i + (total mass) max_j K_j, the total
// mass Σ_i π_i (N for LDP). The caps are widened by a few units of
// roundoff and the sums carry a rounding margin, so the bound holds in exact arithmetic for any finite alpha; +Inf is
// returned for a non-finite one, for a budget of another measure or with a
// NaN level, and for inputs of mismatched shapes.
func RatioUpperBound(pi mech.Prior, u mech.Utility, b mech.Budget, alpha []float64) float64 {
	if !provable(pi, u, nil, alpha) {
		return math.Inf(1)
	}
	return ratioUpperBound(pi, u, b, alpha)
}

// RatioUpperBoundColumns is RatioUpperBound for a utility read a column at
// a time (a mech.UtilityRule): O(N) memory besides it, the same bound from
// the same numbers.
func RatioUpperBoundColumns(pi mech.Prior, u mech.Columns, b mech.Budget, alpha []float64) float64 {
	if !provable(pi, nil, nil, alpha) || !columnsFit(pi, u) {
		return math.Inf(1)
	}
	return ratioUpperBound(pi, u, b, alpha)
}

// ratioUpperBound is RatioUpperBound on inputs provable has checked.
func ratioUpperBound(pi mech.Prior, u mech.Columns, b mech.Budget, alpha []float64) float64 {
	switch b.Measure {
	case mech.LIP, mech.LDP:
		if math.IsNaN(b.Epsilon) {
			return math.Inf(1)
		}
	case mech.ALIP:
		if math.IsNaN(b.EpsilonLower) || math.IsNaN(b.EpsilonUpper) {
			return math.Inf(1)
		}
	default:
		// The box of LIP and ALIP at ε = 0 would bound only the
		// mechanisms with identical rows.
		return math.Inf(1)
	}
	n, m := u.Dims()
	sum, mag := 0.0, 0.0
	for _, a := range alpha {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return math.Inf(1)
		}
		sum += a
		mag += math.Abs(a)
	}
	worst := math.Inf(-1)
	g, size, col := make([]float64, n), make([]float64, n), make([]float64, n)
	for j := range m {
		u.Column(j, col)
		for i := range n {
			if b.Measure == mech.LDP {
				g[i] = pi[i]*col[i] - alpha[i]
				size[i] = math.Abs(pi[i]*col[i]) + math.Abs(alpha[i])
			} else {
				g[i] = col[i] - alpha[i]/pi[i]
				size[i] = math.Abs(col[i]) + math.Abs(alpha[i]/pi[i])
			}
		}
		k, err := ratioColumnMax(pi, g, size, b)
		// Rounding: g_i is good to a few units of roundoff of size_i, and
		// the sums to n units of their terms; err weighs both by the
		// column's weights y_i (at most e^{ε_u} π_i for LIP and ALIP, so a
		// large α_i/π_i of a tiny π_i costs no more than α_i).
		worst = max(worst, k+8*float64(n+2)*UnitRoundoff*err)
	}
	// The columns' masses sum to Σ_i π_i (LIP, ALIP), which the prior's
	// validation allows to differ from 1 by 1e-9, or to N (LDP, whose
	// weights are the columns' sums); the margin below covers the
	// rounding of that sum.
	mass := 0.0
	for _, v := range pi {
		mass += v
	}
	if b.Measure == mech.LDP {
		mass = float64(n)
	}
	bound := sum + mass*worst
	return bound + 8*float64(n+2)*UnitRoundoff*(mag+mass*math.Abs(worst))
}

// ratioColumnMax returns K_j for one column with gains g (see
// RatioUpperBound), and err = Σ_i y_i (size_i + |g_i|) over the maximising
// weights y, the scale of its rounding error.
func ratioColumnMax(pi mech.Prior, g, size []float64, b mech.Budget) (k, err float64) {
	n := len(g)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	SortByGain(order, g)
	if b.Measure == mech.LDP {
		lam := math.Exp(b.Epsilon) * (1 + 8*UnitRoundoff) // a wider set only raises K_j
		best, bestK := LDPTopK(g, order, lam)
		den := float64(n) + (lam-1)*float64(bestK)
		for c, i := range order {
			y := 1 / den
			if c < bestK {
				y = lam / den
			}
			err += y * (size[i] + math.Abs(g[i]))
		}
		return best, err
	}
	lo, up := math.Exp(-b.EpsilonLower), math.Exp(b.EpsilonUpper)
	if b.Measure == mech.LIP {
		lo, up = math.Exp(-b.Epsilon), math.Exp(b.Epsilon)
	}
	lo, up = lo*(1-8*UnitRoundoff), up*(1+8*UnitRoundoff) // a wider box only raises K_j
	// Lower caps first, then the rest of the unit mass to the best gains.
	left := 1.0
	for i := range n {
		y := lo * pi[i]
		k += y * g[i]
		err += y * (size[i] + math.Abs(g[i]))
		left -= y
	}
	for _, i := range order {
		if left <= 0 {
			break
		}
		y := min((up-lo)*pi[i], left)
		k += y * g[i]
		err += y * (size[i] + math.Abs(g[i]))
		left -= y
	}
	if left > 0 {
		i := order[0]
		k += left * g[i]
		err += left * (size[i] + math.Abs(g[i]))
	}
	return k, err
}

// LDPTopK returns the largest Σ_i y_i g_i over the weights y ∝ 1 + (λ−1)
// 1_S, S the k inputs of largest gain (k = 0 … N: the vertices of the
// ε-LDP column's face, λ = e^ε), and that k; order lists the inputs by
// decreasing gain (SortByGain).
func LDPTopK(g []float64, order []int, lam float64) (best float64, k int) {
	n := len(g)
	total := 0.0
	for _, v := range g {
		total += v
	}
	best = total / float64(n)
	top := 0.0
	for c, i := range order {
		top += g[i]
		if v := (total + (lam-1)*top) / (float64(n) + (lam-1)*float64(c+1)); v > best {
			best, k = v, c+1
		}
	}
	return best, k
}

// SortByGain sorts the indices by decreasing gain.
func SortByGain(order []int, g []float64) {
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case g[a] > g[b]:
			return -1
		case g[a] < g[b]:
			return 1
		}
		return 0
	})
}
