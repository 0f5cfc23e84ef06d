// Package certify is pmlopt's trust kernel: what makes an answer certified
// whatever the solver that produced it.
//
// A lower bound on the least ε of a zero pattern is only what DualBound
// proves from multipliers α of the rows Σ_j p_ij = 1 (the Lagrangian
// bound behind the feasibility LP (10) of Song & Oechtering (2026)); an
// upper bound on an expected utility only what UpperBound proves from such
// multipliers; an upper end only a mechanism that Audit (or, for a probe,
// Within) measures with package leakage. Both proofs carry rounding
// margins, so they hold in exact arithmetic for any α, from an engine's
// duals, its Farkas ray, or anywhere else.
//
// Solvers' points are cleaned before they are audited (package
// internal/clean, heuristics that prove nothing: the audit after them
// decides). The tolerances are in one block (AuditTol, ProbeSlack,
// RowSumTol, and the noise levels of vertices and interior points that
// the cleaning uses).
//
// Evidence is what a probe found either way: an audited mechanism, a
// proven bound, or both.
package certify
