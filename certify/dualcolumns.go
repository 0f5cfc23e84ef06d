package certify

import (
	"math"

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
	return boundOver(pat, a, func(j int) []float64 {
		if len(priors) > 1 {
			return priors[j]
		}
		return priors[0]
	})
}
