// Package colgen decides "is there an ε-PML mechanism with this zero
// pattern?" by column generation over an N-row master LP, and proves the
// answer either way: a mechanism with the pattern, audited by
// leakage.PML, or multipliers from which certify.DualBound proves a lower
// bound on the least ε.
//
// # The master problem
//
// With λ = e^ε, a mechanism P is ε-PML exactly when every column p_j lies
// in the cone C_j(λ) = {v ≥ 0 on the inputs allowed for output j :
// v_i ≤ λ π·v}. Cut at π·v = 1, the cone is the box slice
// {0 ≤ v ≤ λ, π·v = 1}, whose vertices are the columns v = λ 1_S + θ e_k
// (a set S of inputs at λ, one more input k at θ ∈ (0, λ]), held scaled
// (below). So an ε-PML
// mechanism with the pattern exists exactly when the all-ones vector is a
// non-negative combination of such columns, that is, when the master LP
//
//	min Σ_i s_i  subject to  Σ_c w_c v_c + s = 1,  w, s ≥ 0
//
// over all of them has optimum 0; the mechanism is then p_ij = Σ_{c of
// output j} w_c v_c(i). The master has N rows, one per input, against the
// N·M + N + M rows of the feasibility LP of Song & Oechtering (2026), eq. (10).
//
// A Master holds the columns generated so far and solves the restricted
// master with a primal simplex of its own, built for this LP: the basis is
// N×N and its columns are dense (about N/λ entries each), so the engine
// keeps the basis inverse explicitly, updates it by rank-one steps and
// prices the columns by dense dot products, O(N²) vector work per pivot
// (a sparse LU spends four times as long on the same dense basis). Its
// row duals y
// price every other column: for output j, the column that maximises y·v
// over the slice is a fractional knapsack, filled greedily by decreasing
// y_i/π_i, at O(N) per output once the inputs are sorted. Columns with
// y·v above the engine's optimality tolerance enter, each vector once
// (outputs with the same allowed inputs price the same one); when none is left,
// y satisfies y·v ≤ 0 on every column of every cone (up to that
// tolerance), which is the condition certify.DualBound checks exactly,
// with the best multiplier per output re-optimised, so the proof does not
// rest on the tolerance.
//
// Pricing is stabilised (Wentges' smoothing): each round prices at the
// mean of the master's duals and the centre, the duals with the best
// Lagrangian bound so far (every point of the master has Σ_c w_c π·v_c +
// π·s = 1, so Σ s ≥ Σ y + min(−max_c y·v_c/π·v_c, min_i (1 − y_i)/π_i)
// for any y), and
// falls back on the master's own duals when the mean prices nothing in.
// Without it the duals oscillate from round to round near λ = 1 and a
// probe can run for a thousand rounds. A RobustMaster of 64 rows and more
// adapts the centre's weight round by round instead of taking the mean
// (automatic smoothing, RobustMaster.smoothing): towards the duals where
// the Lagrangian bound may rise that way, towards the centre otherwise.
//
// # Scaling
//
// The master holds each column divided by its largest entry: 1_S + θ e_k
// with θ = (μ − π(S))/π_k ∈ (0, 1] (μ = 1/λ), or e_k alone when the first
// input of the fill already has π_k ≥ μ. A weight is then the probability
// mass p_ij the column gives the inputs of S, whatever λ and the prior, so
// that the engine's absolute tolerances (1e-9 on a weight, on a reduced
// cost) mean the same thing at every ε. Held unscaled, as λ 1_S + θ e_k, a
// column of the inputs of mass 1e-30 at ε = 30 has entries near 1e13 and
// one that serves a single heavy input entries near 1: the weights then
// span thirteen orders of magnitude, the master's points audit far above
// their ε and its phase 1 stalls. The scaling changes no dual: y·v ≤ 0 is
// the same condition on v and on a positive multiple of it.
//
// # Polishing
//
// Below ε* the master ends with some slacks basic. Keeping that basis and
// the shape (S, k) of every basic column, the columns are affine in μ, and
// Newton's method on the sum of the basic slacks finds the λ where they
// vanish. Its first step is an estimate of ε* (Result.Estimate) that
// converges quadratically as the probe nears ε*; where the basis stays
// valid up to the root, the basis gives a mechanism at that λ, often ε*
// itself to 1e-12, which is audited like any other (Result.Polished).
// Over a set the duals of that basis at its root are the master's at ε*
// when the basis is optimal there, and RobustBound most often proves ε*
// with them (RobustResult.Root): a search then closes on the polished
// mechanism without the probes just below ε*, whose masters are
// degenerate.
//
// # Symmetry
//
// NewSymmetric folds the master by a group of permutations of the inputs
// and outputs that leaves the prior and the pattern unchanged (the
// reflections of a location grid): its rows are the orbits of the inputs
// and it prices one output per orbit, so a square grid of N cells has
// about N/8 rows, and a pivot costs about 64 times less. The least ε is
// reached by a mechanism the group leaves unchanged (the average over the
// group of any optimal one), so nothing is lost; the mechanism is
// assembled over the group and audited, and the duals are spread over
// each orbit into multipliers of the unfolded rows, which
// certify.DualBound checks against the unfolded pattern (symmetry.go).
//
// # Warm starts
//
// A Master keeps its columns and basis from one Probe to the next. A new
// ε moves every column to the new λ along the order its inputs were
// filled in (a column whose inputs can no longer reach π·v = 1 is fixed at
// 0), and the engine continues from the old basis. When the master holds
// more than 2N generated columns, the nonbasic ones are dropped first;
// within a probe, whose pricing rounds can add thousands of columns at a
// few hundred letters, a pool past 4N is trimmed back to 2N between rounds,
// keeping the basic columns and the nonbasic ones with the largest y·v.
//
// # Covers
//
// SolveCover solves the fractional covering LP of a pattern (the inputs
// covered by the outputs' allowed sets), folded by a symmetry of the
// pattern alone: its optimum τ* bounds the least ε from below for every
// prior (λq is such a cover for any ε-PML mechanism), its packing gives
// multipliers that certify.DualBound checks, and Flow routes the prior's
// mass along the cover by a max-flow into a mechanism, audited like any
// other. On location grids near half the side the two meet at ε*, so a
// search needs no master there (cover.go). SolveCoverGen solves the same
// LP unfolded by generating its rows and columns, for outputs left out
// that no symmetry keeps (a prior that breaks the grid's reflections) or
// an LP too large to write out whole.
//
// # Over a set of priors
//
// NewRobust is the master of a pattern over a prior set Π (a box or an
// L1 ball, mech.PriorSet): output j's columns lie in the cone {v ≥ 0 on
// A_j : v_i ≤ λ min_{π∈Π} π·v}, priced exactly over the set (robustprice.go:
// the least mass's LP dual makes the pricing a fractional knapsack for
// each value of one scalar), and its duals prove a lower bound with a prior
// of the set per output (RobustBound, checked by
// certify.DualCertificateColumns). RobustLeastEpsilon brackets the least
// ε over the set with one such master. Near ε* such a master is
// degenerate, and the duals its engine ends on can prove far less than
// the probed ε; the stabilisation centre, the duals with the best
// Lagrangian bound, lies inside the face of optimal duals and most often
// proves ε* itself, so a probe whose own duals fall short tries it too.
// Such a master can also keep its optimum flat for many pricing rounds
// before its pricing ends: a probe ends unsettled past a number of flat
// rounds, and the search doubles that number for its later probes after
// each one that does. NewRobustSymmetric folds it as NewSymmetric folds a
// master at one prior, where the group keeps the set as well as the
// estimate and the pattern: the set of mechanisms that keep ε over it is
// then convex and invariant, and holds one the group leaves unchanged.
package colgen
