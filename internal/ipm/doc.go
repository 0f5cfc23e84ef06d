// Package ipm solves the ε-PML expected-utility problem (the largest
// Σ_ij π_i u_ij p_ij over ε-PML mechanisms) with an interior-point method
// that exploits its structure.
//
// As an LP the problem has N·M cap rows p_ij ≤ t_j, which make a simplex
// basis N·M + N + M wide (docs/performance.md compares the engines). Here the Newton system of Mehrotra's predictor-corrector
// method is reduced output by output (each output adds a 2×2 block and a
// rank-2 update) to one dense N×N system, so an iteration costs
// O(N²M + N³) flops and the whole solve a few dozen iterations.
//
// The answer does not rest on the interior-point method's tolerances: the
// returned mechanism is audited (rows sum to 1, PML at most ε after an exact
// repair), and its expected utility is compared with certify.UpperBound,
// an upper bound on the optimum proven in floating point by the row
// multipliers.
// Solve stops only when the two agree to the requested gap.
//
// The point is interior to the optimal face, not a vertex: its entries off
// the face are about 1e-13, not 0. Vertex (and SolveVertex, the default of
// pmlopt.Solve) reads the face off the point's complementarity (pairs used,
// pairs at their cap), solves the LP of that face — N + M rows and a few
// free pairs — with the pure-Go revised simplex, and returns its optimal
// vertex without dust; the vertex LP's row multipliers give a second bound,
// which certifies the vertex where rounding stopped the iterations short
// of the gap. Given an LP backend, pmlopt.Solve hands it the LP restricted
// to the point's support instead. PurifiedVertex reaches a vertex of the
// same face without an LP, for problems of many inputs and few outputs:
// the point moves inside its face (cycles of free pairs, then the output
// masses' free directions) without losing expected utility until the
// face is a vertex, which its equations then give exactly.
//
// With Options.LowRank the Newton system is instead solved through its
// 2M×2M Sherman–Morrison–Woodbury capacitance matrix, O(NM² + M³) per
// iteration, with iterative refinement and Gondzio's centrality
// correctors: for problems with far fewer outputs than inputs, such as
// the restricted problems of package expected's active set over outputs.
//
// SolveRatio runs the same iterations on the ALIP, LIP and LDP polytopes,
// whose lower caps p_ij ≥ κ t_j take the place of p ≥ 0 (ε-PML is the
// case κ = 0), certified by certify.RatioUpperBound.
//
// Probe runs the same iterations for a question of worstcase's least-ε search:
// is there an ε-PML mechanism with a zero pattern? It returns an audited
// mechanism with the pattern, multipliers for certify.DualBound, or both,
// and the search settles with an LP only what they leave open.
package ipm
