package certify

import (
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// DualBound turns a vector α, one entry per input, into a proof that no
// ε-PML mechanism with the zero pattern pat (nil: every pair allowed) exists
// for ε < the returned value; ok is false when α proves nothing (a bound of
// 0 or less).
//
// The proof is the Lagrangian one behind the LP duals: for any α and any
// λ_j ≥ 0, every mechanism P with the pattern satisfies
//
//	Σ_i α_i = Σ_j Σ_{i∈A_j} α_i p_ij ≤ Σ_j (C_j t_j − λ_j q_j),  C_j = Σ_{i∈A_j} max(0, α_i + π_i λ_j),
//
// with t_j = max_i p_ij, and an ε-PML mechanism has e^{−ε} t_j ≤ q_j. So if
// Σ_i α_i > 0 and C_j ≤ e^{−ε} λ_j for every output j, no ε-PML mechanism
// exists. Only α is taken from the caller: for each output the best λ_j is
// found exactly (s_j = min over ν = 1/λ_j of the convex piecewise-linear
// Σ_{i∈A_j} max(0, π_i + ν α_i), or 0 when α ≤ 0 on A_j, where λ_j = 0
// works), and α is first shifted uniformly so that Σ_i α_i is a small
// positive fraction (32 N 2^−53) of Σ_i |α_i| (shifting down lowers every
// s_j; a vector with Σ_i α_i ≤ 0 is shifted up, and proves less). The bound
// is −log max_j s_j. Every sum is taken with an explicit rounding margin, so
// the proof holds in exact arithmetic whatever α is: α can come from an
// engine's optimal duals, its Farkas ray, or anywhere else.
//
// It proves nothing (ok false) when len(alpha) or the shape of pat does
// not match pi, pat is ragged, or a mass of pi is not positive and finite.
func DualBound(pi mech.Prior, pat mech.Pattern, alpha []float64) (eps float64, ok bool) {
	c, ok := DualCertificate(pi, pat, alpha)
	return c.Epsilon, ok
}

// LowerCertificate is DualBound's proof written out for a checker: the
// shifted multipliers Alpha (Σ_i Alpha_i > 0) and, for each output j,
// Nu[j] ≥ 0 at which Σ_{i∈A_j} max(0, π_i + Nu[j]·Alpha_i) ≤ e^{−Epsilon}
// holds in exact arithmetic (Nu[j] is 0 and means nothing for an output
// whose allowed inputs all have Alpha_i ≤ 0). A nil pattern has one output
// on which every input is allowed, the proof for any pattern.
type LowerCertificate struct {
	Epsilon float64
	Alpha   []float64
	Nu      []float64
}

// DualCertificate is DualBound returning its proof: the bound and the
// multipliers and per-output ν that make it, which docs/certificates.md
// describes and package verify re-checks exactly.
func DualCertificate(pi mech.Prior, pat mech.Pattern, alpha []float64) (c LowerCertificate, ok bool) {
	if !provable(pi, nil, pat, alpha) {
		return c, false
	}
	a, shift, ok := shiftedAlpha(alpha)
	if !ok {
		return c, false
	}
	c, ok = levelBound(pi, pat, a)
	if shift < 0 {
		// Raising every α_i by |shift| ≈ 1e-14 Σ|α| raises every term
		// π_i + ν α_i by ν |shift|, which swamps the terms a proof at
		// tens of nats rests on (e^{−50} ≈ 2e-22). Raising only the
		// largest α_i instead touches only the outputs of one letter; both
		// are proofs, the better one stands.
		k := 0
		for i, v := range alpha {
			if v > alpha[k] {
				k = i
			}
		}
		a2 := slices.Clone(alpha)
		a2[k] -= float64(len(alpha)) * shift
		if c2, ok2 := levelBound(pi, pat, a2); ok2 && (!ok || c2.Epsilon > c.Epsilon) {
			c, ok = c2, true
		}
	}
	if !ok {
		return LowerCertificate{}, false
	}
	return c, true
}

// levelBound is DualBound for an α already shifted: it checks that Σ α_i is
// safely positive and returns −log max_j s_j with its margins.
func levelBound(pi mech.Prior, pat mech.Pattern, a []float64) (c LowerCertificate, ok bool) {
	return boundOver(pat, a, func(int) []float64 { return pi })
}

// boundOver is levelBound with the prior of output j given by prior(j);
// a nil pattern is one output on which every input is allowed, with the
// prior prior(0).
func boundOver(pat mech.Pattern, a []float64, prior func(j int) []float64) (c LowerCertificate, ok bool) {
	n, m := len(a), 0
	if pat != nil {
		m = len(pat[0])
	}
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
	if pat == nil {
		for i := range n {
			rows = append(rows, i)
		}
		var nu float64
		smin, nu, bps = columnLevel(prior(0), a, rows, bps)
		c.Nu = []float64{nu}
	} else {
		c.Nu = make([]float64, m)
	}
	for j := range m {
		rows = rows[:0]
		for i := range n {
			if pat[i][j] {
				rows = append(rows, i)
			}
		}
		var s float64
		s, c.Nu[j], bps = columnLevel(prior(j), a, rows, bps)
		smin = max(smin, s)
	}
	if !(smin > 0) || smin >= 1 {
		return c, false
	}
	// mathx.Log errs by up to an ulp, which grows with ε (1.4e-14 from
	// ε ≈ 64): the margin grows with it. (math.Log is wrong for a
	// subnormal s_min, the level of an output of subnormal mass.)
	eps := -mathx.Log(smin * (1 + 1e-14))
	eps -= 8*UnitRoundoff*eps + 1e-15
	if !(eps > 0) {
		return c, false
	}
	c.Epsilon, c.Alpha = eps, a
	return c, true
}

type breakpoint struct{ nu, a float64 }

// columnLevel returns an upper bound on s_j = min_{ν ≥ 0} Σ_{i∈rows}
// max(0, π_i + ν α_i) and the ν it holds at, or 0 and ν = 0 when α_i ≤ 0
// for every i in rows (λ_j = 0 then satisfies the output's condition at any
// level).
func columnLevel(pi mech.Prior, a []float64, rows []int, bps []breakpoint) (float64, float64, []breakpoint) {
	slope, pos := 0.0, false
	for _, i := range rows {
		slope += a[i]
		pos = pos || a[i] > 0
	}
	if !pos {
		return 0, 0, bps
	}
	nu := 0.0
	if slope < 0 {
		// g decreases from ν = 0 while the terms with α_i < 0 are
		// active; each switches off at ν_i = π_i / (−α_i). The minimum is
		// at the first breakpoint where the slope turns non-negative; the
		// last slope, Σ_{α_i > 0} α_i, is positive.
		bps = bps[:0]
		for _, i := range rows {
			if a[i] < 0 {
				bps = append(bps, breakpoint{nu: pi[i] / -a[i], a: a[i]})
			}
		}
		slices.SortFunc(bps, func(x, y breakpoint) int {
			switch {
			case x.nu < y.nu:
				return -1
			case x.nu > y.nu:
				return 1
			}
			return 0
		})
		for _, b := range bps {
			slope -= b.a
			nu = b.nu
			if slope >= 0 {
				break
			}
		}
	}
	// g at the float ν and a little above it (any ν ≥ 0 gives a valid
	// proof): at the minimiser ν = π_k/(−α_k) term k is zero up to
	// rounding, an error of about 1e-16 π_k that would bound s_j by 1e-16
	// when π_k ≈ 1 (a proof of at most 37 nats); a step of 2^−40 ν makes
	// the term plainly negative, at a cost of slope·ν·2^−40.
	g, at := gUpper(pi, a, rows, nu), nu
	if nu > 0 {
		for _, step := range []float64{0x1p-40, 0x1p-20} {
			if g2 := gUpper(pi, a, rows, nu*(1+step)); g2 < g {
				g, at = g2, nu*(1+step)
			}
		}
	}
	return g, at, bps
}

// gUpper returns an upper bound on Σ_{i∈rows} max(0, π_i + ν α_i) in exact
// arithmetic. Each term is computed with an error below 2.01u(π_i + ν|α_i|)
// (u = 2^−53), so a term whose computed value lies below −4u(π_i + ν|α_i|)
// contributes nothing; the others contribute their value plus that, and the
// sum of at most n+2 non-negative terms is rounded up by a relative
// 2(n+2)u. Margins thus scale with the terms that count, not with the
// column's heavy letters whose terms are negative. A product ν α_i below
// 2^-1022 is rounded by up to 2^-1075 absolutely, not relatively: its term's
// margin has 2^-1074 more (a sum whose result is subnormal is exact).
func gUpper(pi mech.Prior, a []float64, rows []int, nu float64) float64 {
	g := 0.0
	for _, i := range rows {
		prod := nu * a[i]
		v := pi[i] + prod
		err := 4 * UnitRoundoff * (pi[i] + nu*math.Abs(a[i]))
		if nu != 0 && a[i] != 0 && math.Abs(prod) < mathx.SmallestNormal {
			err += 0x1p-1074
		}
		if v+err > 0 {
			g += v + err
		}
	}
	return g * (1 + 2*float64(len(rows)+2)*UnitRoundoff)
}

// shiftedAlpha returns α shifted so that Σ α_i is a small positive multiple
// of Σ |α_i|, safely above rounding (each proof checks it again); a larger
// sum proves less. It is false for an α with a non-finite or only zero
// entries.
func shiftedAlpha(alpha []float64) (a []float64, shift float64, ok bool) {
	n := len(alpha)
	var sum, abs float64
	for _, v := range alpha {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, false
		}
		sum += v
		abs += math.Abs(v)
	}
	if abs == 0 {
		return nil, 0, false
	}
	kappa := 32 * float64(n) * UnitRoundoff
	if sum > kappa*abs || sum <= 4*float64(n)*UnitRoundoff*abs {
		shift = (sum - kappa*abs) / float64(n)
	}
	a = make([]float64, n)
	for i, v := range alpha {
		a[i] = v - shift
	}
	return a, shift, true
}
