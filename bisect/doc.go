// Package bisect finds the least PML ε at which a worst-case utility is
// reachable, the best worst case for a budget, and the trade-off curves
// between the two (problems (1) and (2) of Song & Oechtering (2026)).
//
// # Least ε for a zero pattern
//
// LeastEpsilon takes a zero pattern (from an order threshold h, mech.Order
// Pattern, or a value threshold v, mech.Utility Pattern) and brackets
//
//	ε* = min { PML(P) : P row-stochastic, p_ij = 0 on every forbidden pair },
//
// which is attained (the feasible sets are closed) and is the least ε at
// which the feasibility LP of Song & Oechtering (2026), eq. (10), built by
// polytope.Build, is
// feasible. The search uses free bounds before any LP:
//
//   - ε* = 0 exactly when some output is allowed for every input (send
//     everything there); no LP is solved.
//   - Pruning bound: the PML of an output y_j is at least c_j = −log Σ_{k
//     allowed for j} π_k (Song & Oechtering (2026), Lemmas 2-3), and every row must use an
//     allowed output, so ε* ≥ max_i min_{j allowed for i} c_j.
//   - Utility-safe bound: the mechanism uniform over each row's allowed
//     outputs respects the pattern; its audited PML bounds ε* above (it is
//     ε_S(h) of Cor 1 for strict orders).
//   - On a curve, Lemma 1 (ε* non-decreasing as the pattern shrinks) passes
//     a lower bound up and a mechanism down.
//
// Then the bracket [lo, hi] is narrowed by feasibility LPs. An infeasible
// LP at t comes with a dual point (the engine's Farkas ray, or the duals of
// the infeasibility LP), and certify.DualBound turns its multipliers α of
// the rows Σ_j p_ij = 1 into a proven bound, re-optimising the other
// multipliers exactly: the bound is often well above t, sometimes ε*
// itself. Near ε* the map t ↦ bound(t) is close to affine with ε* as its
// fixed point, so after each proof the search probes just above the secant
// prediction from the last two proofs (with one proof: at the proof), and
// otherwise at the lower end plus Tol/2, which closes the bracket when the
// proof was exact; bisection takes over when five probes in a row fail to
// halve the bracket. After each proof the multipliers are also extrapolated
// from the last two proofs towards the prediction (within one piece of the
// parametric LP they move almost linearly in t) and DualBound tried on them,
// at no LP cost: that often proves ε* to within 1e-10. A feasible LP yields a
// mechanism whose audited PML (leakage.PML) becomes hi when lower. The
// first probe is at lo itself (the pruning bound is sometimes tight),
// except with the column generation (below), which places its probes its
// own way.
//
// Where ε* has a value the search can name, it probes that value itself:
// output j can be used only from its opening −log π(A_j) (A_j: the inputs
// allowed for j), and ε* is often an opening, or, under a uniform prior,
// the log of a rational such as log 3. Just above such a point the
// feasible set is a sliver whose points audit 1e-9 above their ε, at the
// point itself they audit within rounding; so once the lower end is within
// Tol of a candidate and a mechanism has been found, the candidate is
// probed.
//
// Outputs are pruned at the upper end of the bracket: an output pruned
// there can not be used at any smaller ε, so one model serves the whole
// search (the proofs cover the whole pattern, pruned outputs included). With a
// solver.WarmSolver the model is loaded once into a Session and ε is moved
// by polytope.Model.SetBudget; other solvers rebuild the model each time.
//
// # What the bracket certifies
//
// EpsUpper is the audited PML of Result.Mechanism, which respects the
// pattern: ε* ≤ EpsUpper holds exactly. EpsLower is, as Result.Lower says,
// 0, the pruning bound, or a bound proven by a dual point — the solver's
// Farkas certificate of the feasibility LP, or the duals of the
// infeasibility LP (polytope's Infeasibility objective) — that
// certify.DualBound checks in floating point, for this pattern or,
// on a curve, for a weaker one. No solver status is trusted: an
// "infeasible" without a proof only steers the search (engines can be wrong
// at degenerate points), so no mechanism with the pattern has PML below
// EpsLower whatever the engine's tolerances. The search stops when
// EpsUpper − EpsLower ≤ Tol (default 1e-9). Because DualBound re-optimises
// the multipliers of a dual point, a proof from an engine's ray is not
// limited by the engine's 1e-9 row tolerance. Should an engine give no
// usable proof near ε* (gonum gives no certificates and, at degenerate
// optima, no duals; Clp's rays near ε* at N ≥ 128 with a prior of masses
// near 1e-4 can stop short), the bracket returned is still certified, only
// wider than Tol, and EpsUpper − EpsLower says so; the CLI warns.
//
// # Probes answered in Go
//
// Before any LP, a probe asks a pure-Go method (Options.Probes): below
// ipmLetters (512) letters the column generation of package colgen, from
// there ipm.Probe. Either gives a mechanism with the pattern, audited like an
// LP's point, and multipliers that go through certify.DualBound like an
// engine's ray; a probe they settle costs no LP. Within a few 1e-10 of
// ε* a point can audit a hair above the probed ε and its proof fall a hair
// below: such evidence stands without an LP when together they close the
// bracket, and up to three times in a row when the point audits within
// 1e-6 of the probed ε (the search then probes below it); otherwise the LP settles
// what they leave open, with their evidence added. (At a few hundred
// letters one such LP costs more than the rest of the search.)
//
// The column generation (colgen.Master, one per pattern, kept across the
// search's probes and seeded on a curve with the neighbouring threshold's
// final columns) solves an N-row master LP over the extreme columns of the
// per-output cones, so a probe near the last one takes a few pivots. Below
// ε* it also polishes its final basis: Newton's method on the basis's
// slacks gives an estimate of ε* that converges quadratically near ε*,
// which the search probes next (a hair below), and often a mechanism at ε*
// itself, which lowers the upper end at once (the search then tries a
// proof just below it). Its proofs creep far from ε* and a probe far below
// ε* costs many pricing rounds, so the search starts in the middle of the
// bracket and bisects when it has no fresh estimate (docs/performance.md
// compares the oracles on the bench's curves).
//
// A master that fails (its simplex stalled twice), or that stops at its
// round limit without settling the probe, hands the probe to ipm.Probe;
// after two such calls in a row that settle nothing, a search stops
// asking the interior point (ipmBlind).
// A failed probe still open is moved, up to four times per search, to
// other points of the bracket (a master stalls on the degenerate bases
// within a few 1e-7 of a breakpoint, which a point a third of the bracket
// away does not share); an unsettled probe still open stands, up to
// twice per search, as an infeasibility that steers the search above it
// (such probes usually lie below ε*), and beyond that the master goes on
// from where it stopped, up to four more times, before the LP. A probe that stood open can steer
// the search the wrong way: a search whose bracket is still open after
// its probes and the proofs below its upper end runs once more over the
// whole certified bracket, where no verdict may stand open.
//
// ipm.Probe runs the interior-point method of package ipm on the
// expected-utility problem over every pair with utility −1/π_i on the
// forbidden pairs (every letter's forbidden mass weighs alike, so that
// letters of mass 1e-100 still count), whose optimum is 0 exactly when an
// ε-PML mechanism with the pattern exists. Near ε* (within a few 1e-9)
// its point audits slightly above the probed ε and its proof slightly
// below. An
// interior-point solve costs O(N²M + N³) per iteration whatever the
// pattern or the distance to ε*, while the column generation's cost grows
// with the distance to ε*.
//
// # Numerics
//
// Backends accept points within an absolute tolerance (about 1e-9) of the
// rows, and a row violated by τ moves the PML of an output of mass q by
// about τ/q. The search therefore hands solvers the model with every row
// multiplied by 2^10 (the same feasible set), audits every point, drops
// outputs of noise-level mass that break the budget, and calls a claimed
// feasible point that still audits above t inconclusive: it steers the
// bisection but certifies nothing. A claim without a proof, either way, is
// checked by the infeasibility LP, whose optimum G(e^{−t}) vanishes exactly
// when a t-PML mechanism exists: its point is audited and its duals are a
// candidate proof. Just before returning, the search tries to close a
// bracket still wider than Tol with proofs at EpsUpper − Tol/2 and
// EpsUpper − 0.9·Tol. A backend error at a point is retried at two other
// points; if errors keep the bracket wider than Tol, the sound bracket is
// returned with the error.
//
// # Best worst case and curves
//
// BestOrder and BestValue binary-search the largest threshold with ε* ≤ ε
// (free yes when the utility-safe mechanism fits the budget, free no when
// the pruning bound exceeds it, else one probe at ε; a probe without
// evidence either way, such as a point that audits a rounding error above
// ε, is decided by the least-ε search of that threshold), then run
// LeastEpsilon on it, so the mechanism returned has the least PML among the
// optimal ones.
// OrderCurve and ValueCurve resolve every threshold by divide and conquer
// with bracket passing; a plateau whose ends agree within Tol costs no LP
// inside it. They run up to Options.Workers searches at once, report
// progress, and stop on context cancellation with what is done.
// LeastEpsilon, BestOrder and BestValue run one search at a time, and
// spread its column generation's O(N²) vector work and its interior
// point's Newton updates over Options.Workers goroutines instead; the work
// is split by entries, never inside a sum, so the result is the same for
// any Workers. BestOrder and BestValue start each decision's master from
// the basic columns of the previous one (the neighbouring threshold's).
// BestValue asks each open decision's fractional cover first
// (colgen.SolveCover, folded by the utility's reflections whatever the
// prior): its packing's proof above ε is a no, a flow of the prior along
// it (colgen.Flow) that audits within ε a yes, and the final search
// starts from both; on location grids near half the side they meet at ε*
// and no master is asked. BestOrder does the same with the order's ranks
// read as a utility, and ValueCurve starts every threshold's search from
// its cover. Where the prior leaves out only some outputs of an orbit,
// the cover of exactly the outputs kept is generated unfolded
// (colgen.SolveCoverGen). The searches never build an LP of more than
// 2^20 variables: they end with an error saying so.
//
// # Symmetry
//
// BestValue and ValueCurve fold the column generation by a group of
// symmetries of the prior and the utility (Options.Symmetry, or the
// reflections of a location grid, which they look for themselves:
// GridSymmetry): the master's rows are the orbits of the inputs
// (colgen.NewSymmetric), about N/8 on a square grid with a uniform prior,
// so that a pivot costs about 64 times less, and the column generation
// answers the probes at every size, before the interior point or an LP.
// The mechanisms are still assembled over every pair and audited, and the
// proofs checked by certify.DualBound on the whole pattern.
//
// # Shards
//
// Options.Shard splits a curve's thresholds into N disjoint sets solved by
// independent runs (machines of a cluster): shard K holds the K-th of N
// contiguous blocks of thresholds, and runs the divide and conquer over
// them alone, passing brackets from its own ends inwards (Lemma 1). Each
// threshold's bracket is certified
// as on the whole curve; it can differ from the unsharded curve's within
// Tol, since the neighbours it starts from differ. A value curve's shard
// reports its thresholds one by one: the steps are formed from the
// brackets of all of them once the shards are merged.
package bisect
