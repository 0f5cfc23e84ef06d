// Package worstcase finds the least PML ε at which a worst-case utility is
// reachable, the best worst case for a budget, and the trade-off curves
// between the two (problems (1) and (2) of Song & Oechtering (2026)).
//
// # What it computes
//
// LeastEpsilon takes a zero pattern (from an order threshold h, mech.Order
// Pattern, or a value threshold v, mech.Utility Pattern) and brackets
//
//	ε* = min { PML(P) : P row-stochastic, p_ij = 0 on every forbidden pair },
//
// which is attained (the feasible sets are closed) and is the least ε at
// which the feasibility LP of Song & Oechtering (2026), eq. (10), built by
// polytope.Build, is feasible. ε* = 0, with OptimalEpsilonLower = OptimalEpsilon = 0, exactly
// when some output is allowed for every input; Mechanism then sends every
// input there.
//
// BestOrder and BestValue return the largest threshold whose ε* is within
// a budget ε (compared with a relative slack of 1e-12, so that a budget
// typed as a breakpoint such as log 2 selects it), with the least-ε bracket
// of that threshold: the mechanism returned reaches the best worst case
// and has the least PML among those that do, to within Tol. OrderCurve and
// ValueCurve return ε* for every threshold (Point), each bracketed as
// LeastEpsilon brackets it; ε* never decreases along a curve (Song &
// Oechtering (2026), Lemma 1), and a point whose bracket was inherited
// from its neighbours shares their mechanism.
//
// # What the bracket certifies
//
// OptimalEpsilon is the audited PML (leakage.PML) of Result.Mechanism, which
// respects the pattern: ε* ≤ OptimalEpsilon holds exactly. OptimalEpsilonLower is, as
// Result.Lower says, 0, the pruning bound max_i min_{j allowed for i}
// −log Σ_{k allowed for j} π_k (Song & Oechtering (2026), Lemmas 2-3), or a
// bound that certify.DualBound proves from the multipliers in Result.Proof,
// checked in floating point with its rounding margins, for this pattern or
// for a weaker one whose bound holds for it too. No solver status or
// tolerance moves either end: no mechanism with the pattern has PML below
// OptimalEpsilonLower, whatever the engines' tolerances, and anyone can check Proof
// without an LP solver.
//
// A search stops when OptimalEpsilon − OptimalEpsilonLower ≤ Tol (default 1e-9). Where the
// engines give no usable proof that close to ε* (gonum gives no
// certificates; an engine's error that other routes did not get past) the
// bracket returned is still certified, only wider than Tol, and
// OptimalEpsilon − OptimalEpsilonLower says so; on a curve Point.Failure carries the engine
// error. The mechanisms returned have no entry below certify.DustEntry
// when a copy without them audits within the bracket's tolerance.
//
// # Options
//
// Options.Probes chooses who answers the searches' questions "is there an
// ε-PML mechanism with the pattern at ε = t?": by default pure-Go methods
// (the column generation of package colgen, ipm.Probe from 512 letters)
// and an LP engine (Options.Solver) only for what they leave open; the
// certificates are the same whoever answers. Symmetry folds the column
// generation by a group of symmetries of the prior and the utility (by
// default the reflections of a location grid, GridSymmetry); the
// mechanisms are still assembled over every pair and audited, and the
// proofs checked on the whole pattern.
//
// The curves solve up to Options.Workers thresholds at once, report
// progress (Progress) and each settled point (Settled). LeastEpsilon,
// BestOrder and BestValue run one search at a time and spread its vector
// work over Workers goroutines instead; the work is split by entries,
// never inside a sum, so their results are the same for any Workers.
// Options.Shard splits a curve's thresholds into N contiguous blocks
// solved by independent runs (pmlopt merge joins them); each threshold's
// bracket is certified as on the whole curve and can differ from the
// unsharded curve's within Tol. A value curve's shard reports every one of
// its thresholds; the steps are formed once the shards are merged.
//
// A cancelled context stops a search before its next LP: it returns the
// certified bracket reached so far, wider than Tol, with ctx.Err(), and a
// curve returns its settled points. The searches never build an LP of more
// than 2^20 variables (allowed pairs): a pattern that large which the
// pure-Go probes left open ends the search with an error saying so.
//
// How the searches place their probes (the free bounds, the proofs'
// prediction of ε*, the exact candidates, the pure-Go probes and when
// their verdicts stand without an LP, the numerics of the LPs) is told in
// docs/theory.md, §5 "How the search places its probes"; the constants of
// that policy, each with its reason, are in policy.go. None of them moves
// a certified end.
package worstcase
