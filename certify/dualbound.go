package certify

import (
	"math"
	"slices"

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
// It panics if len(alpha) or the shape of pat does not match pi, or if pat
// is ragged.
func DualBound(pi mech.Prior, pat mech.Pattern, alpha []float64) (eps float64, ok bool) {
	n := len(pi)
	if len(alpha) != n || (pat != nil && len(pat) != n) {
		panic("certify: DualBound: dimension mismatch")
	}
	m := 0
	if pat != nil {
		m = len(pat[0])
		for _, row := range pat {
			if len(row) != m {
				panic("certify: DualBound: ragged pattern")
			}
		}
	}
	var sum, abs float64
	for _, a := range alpha {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return 0, false
		}
		sum += a
		abs += math.Abs(a)
	}
	if abs == 0 {
		return 0, false
	}
	// Shift α so that Σ α_i is a small positive multiple of Σ |α_i|, safely
	// above rounding (checked again below). A larger sum proves less.
	kappa := 32 * float64(n) * unitRoundoff
	shift := 0.0
	if sum > kappa*abs || sum <= 4*float64(n)*unitRoundoff*abs {
		shift = (sum - kappa*abs) / float64(n)
	}
	a := make([]float64, n)
	sum, abs = 0, 0
	for i, v := range alpha {
		a[i] = v - shift
		sum += a[i]
		abs += math.Abs(a[i])
	}
	if !(sum > 4*float64(n)*unitRoundoff*abs) {
		return 0, false
	}
	rows := make([]int, 0, n)
	var bps []breakpoint
	smin := 0.0
	if pat == nil {
		for i := range n {
			rows = append(rows, i)
		}
		smin, bps = columnLevel(pi, a, rows, bps)
	}
	for j := range m {
		rows = rows[:0]
		for i := range n {
			if pat[i][j] {
				rows = append(rows, i)
			}
		}
		var s float64
		s, bps = columnLevel(pi, a, rows, bps)
		smin = math.Max(smin, s)
	}
	if !(smin > 0) || smin >= 1 {
		return 0, false
	}
	// math.Log errs by up to an ulp, which grows with ε (1.4e-14 from
	// ε ≈ 64): the margin grows with it.
	eps = -math.Log(smin * (1 + 1e-14))
	eps -= 8*unitRoundoff*eps + 1e-15
	if !(eps > 0) {
		return 0, false
	}
	return eps, true
}

type breakpoint struct{ nu, a float64 }

// columnLevel returns an upper bound on s_j = min_{ν ≥ 0} Σ_{i∈rows}
// max(0, π_i + ν α_i), or 0 when α_i ≤ 0 for every i in rows (λ_j = 0 then
// satisfies the output's condition at any level).
func columnLevel(pi mech.Prior, a []float64, rows []int, bps []breakpoint) (float64, []breakpoint) {
	slope, pos := 0.0, false
	for _, i := range rows {
		slope += a[i]
		pos = pos || a[i] > 0
	}
	if !pos {
		return 0, bps
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
	// g(ν) at the float ν (any ν ≥ 0 gives a valid proof), rounded up.
	g, mag := 0.0, 0.0
	for _, i := range rows {
		v := pi[i] + nu*a[i]
		mag += pi[i] + nu*math.Abs(a[i])
		if v > 0 {
			g += v
		}
	}
	return g + 4*float64(len(rows)+2)*unitRoundoff*mag, bps
}
