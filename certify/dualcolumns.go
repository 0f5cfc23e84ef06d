package certify

import (
	"math"

	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// DualCertificateColumns is DualCertificate with a prior of its own on
// each output: priors[j] replaces π on output j (one entry: the same
// vector on every output). It proves that no mechanism P with the pattern
// pat and p_ij ≤ e^ε Σ_k priors[j]_k p_kj for every pair exists for ε below
// the returned bound, for the same reason as DualBound: the argument never
// uses that the outputs share their prior. Over a set of priors Π, a
// mechanism that is ε-PML for every prior of Π satisfies these
// constraints for any priors[j] lying above some prior of Π entrywise,
// which makes this the proof of a lower end over Π (docs/certificates.md,
// "Over a set of priors").
//
// The priors' entries must be finite and non-negative (zeros are allowed:
// a set's priors may vanish on a letter); pat must not be nil. α is
// shifted as in DualCertificate, and every sum carries the same rounding
// margins. ok is false when α proves nothing or the shapes do not match.
func DualCertificateColumns(priors [][]float64, pat mech.Pattern, alpha []float64) (c LowerCertificate, ok bool) {
	n := len(alpha)
	if n == 0 || len(pat) != n || len(pat[0]) == 0 {
		return c, false
	}
	m := len(pat[0])
	for _, row := range pat {
		if len(row) != m {
			return c, false
		}
	}
	if len(priors) != 1 && len(priors) != m {
		return c, false
	}
	for _, pr := range priors {
		if len(pr) != n {
			return c, false
		}
		for _, v := range pr {
			if !(v >= 0) || math.IsInf(v, 0) {
				return c, false
			}
		}
	}
	a, _, ok := shiftedAlpha(alpha)
	if !ok {
		return c, false
	}
	return columnsLevelBound(priors, pat, a)
}

// columnsLevelBound is levelBound with a prior per output.
func columnsLevelBound(priors [][]float64, pat mech.Pattern, a []float64) (c LowerCertificate, ok bool) {
	n, m := len(a), len(pat[0])
	var sum, abs float64
	for _, v := range a {
		sum += v
		abs += math.Abs(v)
	}
	if !(sum > 4*float64(n)*UnitRoundoff*abs) {
		return c, false
	}
	rows := make([]int, 0, n)
	var bps []breakpoint
	smin := 0.0
	c.Nu = make([]float64, m)
	for j := range m {
		rows = rows[:0]
		for i := range n {
			if pat[i][j] {
				rows = append(rows, i)
			}
		}
		pr := priors[0]
		if len(priors) > 1 {
			pr = priors[j]
		}
		var s float64
		s, c.Nu[j], bps = columnLevel(pr, a, rows, bps)
		smin = math.Max(smin, s)
	}
	if !(smin > 0) || smin >= 1 {
		return c, false
	}
	eps := -mathx.Log(smin * (1 + 1e-14))
	eps -= 8*UnitRoundoff*eps + 1e-15
	if !(eps > 0) {
		return c, false
	}
	c.Epsilon, c.Alpha = eps, a
	return c, true
}
