// Package expected maximises the expected utility Σ_x π(x) Σ_y P(y|x) u(x,y)
// of a mechanism P over the mechanisms within a privacy budget (ε-PML,
// (ε_l, ε_u)-ALIP, ε-LIP or ε-LDP), and audits the optimum before it is
// returned.
//
// Every budget's feasible set is a polytope with O(NM) constraints (package
// polytope), so the problem is a linear program. Maximize solves it in up
// to four steps, after a step 0 for large problems:
//
//  0. Active set over outputs (problems of 512×512 letters and more, with
//     no Options.Solver, Pattern, FullLP or WholeProblem). The optimum of
//     a large problem uses few of its outputs (a 32×32 location grid's
//     ε-PML optimum at ε = 1 uses 60 of its 1 024): the problem restricted
//     to a set of outputs is solved by package internal/ipm (with its
//     low-rank Newton systems while the set is small), every output left
//     out is priced by its reduced gain under the restricted multipliers,
//     the violated ones join the set, and so on (activeSet in
//     activeset.go). An ε-PML optimum's vertex is ipm.PurifiedVertex's
//     (the interior point moved within its face to a vertex, no LP).
//     The final optimum, zero-padded, is audited on the
//     whole problem, and its bound is proven over every output by
//     certify.UpperBound (ε-PML) or certify.RatioUpperBound (LIP, ALIP,
//     LDP). Should the active set fail, steps 1 to 4 run on the whole
//     problem; Options.Notify is told each round and the failure.
//  1. Interior point (unless Options.FullLP). Package internal/ipm's
//     structured interior-point method (ipm.SolveVertex for ε-PML,
//     ipm.SolveRatio for the others) finds an optimal vertex and a proven
//     upper bound on the optimum from row multipliers: the optimum lies in
//     [value, bound]. Without a backend (Options.Solver nil) its audited
//     vertex is the answer. If an
//     ε-PML point is not certified there, the letters whose whole share of the
//     expected utility is below 1e-12 (prior masses far below the
//     optimality tolerance, such as a binomial prior's tails) are set
//     aside, the rest solved alone at a budget that keeps their rows
//     within ε of the whole problem, and each letter set aside copies a
//     kept row; the answer is certified by certify.UpperBound on the
//     whole problem. A LIP, ALIP or LDP point that is not certified, or
//     only to more than 1e-9, is retried the same way (the kept letters'
//     lower budget lowered by a margin that makes room for the copies,
//     certified by certify.RatioUpperBound), and the narrower bracket is
//     kept.
//  2. The named backend (Options.Solver). For ε-PML the pairs (x, y) the
//     interior point uses (entries above 1e-9: its optimal face, about a
//     tenth of the pairs) define a zero pattern, and the backend solves
//     the LP restricted to it; for LIP, ALIP and LDP, whose polytopes tie
//     every entry of an output's column together, it solves the whole LP.
//     Its optimum is accepted when its value lies within step 1's bracket
//     (up to a relative 1e-9): it is then optimal to within that bracket.
//     An engine's tolerances can leave it short (Clp's by up to 5e-9 on
//     letters of mass 1e-19), and an engine can fail: then, for ε-PML,
//     its full LP is solved and checked the same way, and failing that
//     the pure-Go vertex of step 1 is returned; Options.Notify is told.
//     Where that vertex does not certify either (a budget on a breakpoint
//     such as log 2 can do that), the full LP goes to the pure-Go backends
//     other than the rejected one, checked against the same bracket, and
//     Maximize fails rather than return an optimum outside it.
//  3. Full LP. When step 1 finds no certified point (or Options.FullLP
//     asks for it) the backend (solver.Auto() without one) solves the
//     whole LP. For ε-PML its duals of the rows Σ_j p_ij = 1 prove an
//     upper bound on the optimum through certify.UpperBound, whatever
//     the engine's tolerances: the answer keeps a bracket of its own.
//  4. Polish. An engine keeps each row feasible to an absolute tolerance,
//     which lets an output of little mass exceed the budget by far more.
//     If the optimum of step 2 or 3 exceeds the budget by more than 1e-9 or
//     fails the audit, the same LP is solved again with every row scaled by
//     polytope.RowScale (exact; a tighter tolerance), starting from the
//     first solve's basis where the backend keeps one, and the optimum
//     nearer the budget is kept. An ε-PML optimum that still fails the
//     audit is solved again (up to three times) with the marg rows of its
//     outputs of mass below 2^−10 also multiplied by about their inverse
//     mass, so that an output only letters of tiny mass use keeps its
//     pairs within their caps.
//
// With Options.Pattern (a worst case to keep: the zero pattern of an order
// or utility threshold) the LP restricted to the pattern is solved whole
// (steps 3 and 4; the interior point knows no pattern), and for ε-PML the
// LP's row duals prove an upper bound through certify.UpperBound. Such a
// problem can be infeasible: Maximize then returns ErrInfeasible.
//
// The audit recomputes the returned mechanism's level of the budget's
// measure (package leakage) and fails rather than return a mechanism above
// the budget by more than 1e-7. Maximize checks its context between steps.
package expected
