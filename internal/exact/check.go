package exact

import (
	"fmt"
	"math/big"

	"github.com/pmlopt/pmlopt/mech"
)

// The two checks below are the whole proof of a Result: they take the
// prior, the pattern and the claimed numbers, and nothing from the search
// that found them.

// CheckUpper confirms that p is a mechanism on pat that reaches t = e^ε,
// in exact arithmetic: p_ij ≥ 0, p_ij = 0 off the pattern, Σ_j p_ij = 1
// for every row, and p_ij ≤ t·q_j with q_j = Σ_k π_k p_kj for every pair.
// So ε* ≤ log t. The error names the first inequality that fails.
func CheckUpper(pi []*big.Rat, pat mech.Pattern, p [][]*big.Rat, t *big.Rat) error {
	n := len(pi)
	if len(p) != n || len(pat) != n {
		return fmt.Errorf("exact: the mechanism has %d rows, the pattern %d, the prior %d", len(p), len(pat), n)
	}
	m := len(pat[0])
	one := big.NewRat(1, 1)
	for i, row := range p {
		if len(row) != m || len(pat[i]) != m {
			return fmt.Errorf("exact: row %d of the mechanism has %d entries, want %d", i+1, len(row), m)
		}
		sum := new(big.Rat)
		for j, x := range row {
			switch {
			case x.Sign() < 0:
				return fmt.Errorf("exact: p[%d][%d] = %s < 0", i+1, j+1, x.RatString())
			case x.Sign() > 0 && !pat[i][j]:
				return fmt.Errorf("exact: p[%d][%d] = %s on a forbidden pair", i+1, j+1, x.RatString())
			}
			sum.Add(sum, x)
		}
		if sum.Cmp(one) != 0 {
			return fmt.Errorf("exact: row %d sums to %s, not 1", i+1, sum.RatString())
		}
	}
	for j := 0; j < m; j++ {
		q := new(big.Rat)
		for i := range p {
			q.Add(q, new(big.Rat).Mul(pi[i], p[i][j]))
		}
		cap := new(big.Rat).Mul(t, q)
		for i := range p {
			if p[i][j].Cmp(cap) > 0 {
				return fmt.Errorf("exact: p[%d][%d] = %s exceeds t·q_%d = %s", i+1, j+1, p[i][j].RatString(), j+1, cap.RatString())
			}
		}
	}
	return nil
}

// CheckLower confirms that no mechanism on pat reaches any t' < t: that
// α is not zero, Σ_i α_i ≥ 0, and every output j with allowed inputs A_j
// either has α_i ≤ 0 on all of A_j or a multiplier ν_j ≥ 0 with
//
//	t · Σ_{i∈A_j} max(0, π_i + ν_j α_i) ≤ 1.
//
// It returns the best ν_j for each output (nil where α ≤ 0 on A_j), found
// exactly among the breakpoints 0 and −π_i/α_i of the convex function of
// ν. docs/certificates.md ("Exact optimum") proves the implication.
func CheckLower(pi []*big.Rat, pat mech.Pattern, alpha []*big.Rat, t *big.Rat) ([]*big.Rat, error) {
	n := len(pi)
	if len(alpha) != n || len(pat) != n {
		return nil, fmt.Errorf("exact: α has %d entries, the pattern %d rows, the prior %d", len(alpha), len(pat), n)
	}
	sum, nonzero := new(big.Rat), false
	for _, a := range alpha {
		sum.Add(sum, a)
		nonzero = nonzero || a.Sign() != 0
	}
	if !nonzero {
		return nil, fmt.Errorf("exact: α is zero")
	}
	if sum.Sign() < 0 {
		return nil, fmt.Errorf("exact: Σ α_i = %s < 0", sum.RatString())
	}
	m := len(pat[0])
	nu := make([]*big.Rat, m)
	one := big.NewRat(1, 1)
	for j := 0; j < m; j++ {
		var allowed []int
		positive := false
		for i := range pat {
			if pat[i][j] {
				allowed = append(allowed, i)
				positive = positive || alpha[i].Sign() > 0
			}
		}
		if len(allowed) == 0 || !positive {
			continue
		}
		best, bestNu := (*big.Rat)(nil), (*big.Rat)(nil)
		try := func(v *big.Rat) {
			g := g(pi, alpha, allowed, v)
			if best == nil || g.Cmp(best) < 0 {
				best, bestNu = g, v
			}
		}
		try(new(big.Rat))
		for _, i := range allowed {
			if alpha[i].Sign() < 0 {
				v := new(big.Rat).Quo(pi[i], alpha[i])
				try(v.Neg(v))
			}
		}
		if new(big.Rat).Mul(t, best).Cmp(one) > 0 {
			return nil, fmt.Errorf("exact: output %d: t·min_ν Σ max(0, π_i + ν α_i) = %s > 1",
				j+1, new(big.Rat).Mul(t, best).FloatString(12))
		}
		nu[j] = bestNu
	}
	return nu, nil
}

// g returns Σ_{i∈allowed} max(0, π_i + ν α_i).
func g(pi, alpha []*big.Rat, allowed []int, nu *big.Rat) *big.Rat {
	s, x := new(big.Rat), new(big.Rat)
	for _, i := range allowed {
		x.Mul(nu, alpha[i])
		x.Add(x, pi[i])
		if x.Sign() > 0 {
			s.Add(s, x)
		}
	}
	return s
}
