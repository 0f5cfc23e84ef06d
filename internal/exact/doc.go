// Package exact finds the least ε at which a mechanism with a given zero
// pattern exists, ε* = log t*, in exact rational arithmetic, and proves it
// both ways without trusting the search that found it.
//
// Write μ = 1/t. A mechanism P on the pattern with p_ij ≤ t q_j exists
// exactly when the all-ones vector is a non-negative combination of the
// vertices 1_S + θ e_k of the box slices {u ∈ [0,1]^{A_j} : π·u = μ} (the
// master problem of package internal/colgen, Song & Oechtering (2026),
// eq. (10) rewritten by columns). The steps:
//
//  1. master.go: the master LP at a rational μ in big.Rat, by a primal
//     simplex with Bland's rule and exact pricing (a fractional knapsack
//     per output). It returns a mechanism at μ, or row duals y with
//     Σ_i y_i > 0 and y·u ≤ 0 on every vertex, a proof that μ is too
//     large.
//  2. poly.go: above μ* the optimal basis keeps its columns' shapes (S,
//     k), so its columns are affine in μ and the sum of its basic slacks
//     is a rational function of μ whose numerator Q is a polynomial; μ*
//     is a root of Q or an opening π(A_j), where an output stops being
//     usable. Q is interpolated exactly, its root near the floating-point
//     estimate refined by Newton's method, and recognised as rational by
//     the continued fraction with the rational root theorem's bound on
//     its denominator (conclusive), or as irrational.
//  3. limit.go: the multipliers at a rational candidate are the limit, as
//     μ falls to it, of the (positively rescaled) duals of that basis.
//  4. least.go: the loop that places the solves (starting just above the
//     search's proven lower end) until a candidate is proven, or, for an
//     irrational t*, proves a bracket of relative width 2^-80 by a
//     feasible and an infeasible solve.
//  5. check.go: the proof. CheckUpper confirms a mechanism at t
//     (ε* ≤ log t) and CheckLower multipliers α, ν_j at t (ε* ≥ log t),
//     each inequality in big.Rat. docs/certificates.md ("The exact
//     optimum") states them and proves the second.
//
// The prior is given as rationals: Dyadic reads each float64 as the
// rational it is, Fractions as the simplest rational that rounds to it
// (1/7, 3/5), which reproduces the closed forms of papers. Problems are
// limited to MaxLetters inputs and outputs.
package exact
