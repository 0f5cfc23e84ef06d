// Package polytope writes the privacy constraint sets — ε-PML,
// (ε_l, ε_u)-ALIP, ε-LIP and ε-LDP, each combined with an optional zero
// pattern — as sparse linear programs (package lp), with O(NM) non-zeros,
// no column for any forbidden pair, and as few budget-dependent
// coefficients as possible, so that a bisection on ε re-solves a loaded
// session after changing M (PML, LDP) or 2M (ALIP, LIP) coefficients
// (Model.SetBudget).
//
// Build(spec) returns a Model: the lp.Model, the column of every allowed
// p_ij (Model.P) and of the auxiliary variables (Model.Aux, Model.Aux2).
// Model.Point maps a mechanism to an LP point and Model.Mechanism maps a
// solution back; an exported model is written with Model.LP.WriteMPS.
//
// Notation: π is the prior (π_i > 0 for all i), p_ij = P(y_j | x_i),
// q_j = Σ_k π_k p_kj, A_j = { i : the pair (i, j) is allowed }. Every
// formulation has the rows sum[i]: Σ_{j: (i,j) has a column} p_ij = 1 and
// p ≥ 0; a forbidden pair has no column, which is the same as p_ij = 0.
// Row and column names are 1-based like the papers: p[i,j], t[j], sum[i].
//
// # ε-PML
//
// ε-PML asks p_ij ≤ e^ε q_j for all i and every j with q_j > 0 (the PML
// of Grosse et al. (2024), log max_i p_ij / q_j ≤ ε); for q_j = 0 the
// column is zero and the inequality holds too, so ε-PML ⇔ p_ij ≤ e^ε q_j
// for all i, j. With one auxiliary t_j = e^ε q_j per output the rows are
//
//	marg[j]:  e^{−ε} t_j − Σ_{k∈A_j} π_k p_kj = 0
//	up[i,j]:  p_ij − t_j ≤ 0                      (i ∈ A_j)
//
// The first forces t_j = e^ε q_j, the second is then p_ij ≤ e^ε q_j: the
// feasible set, projected on p, is exactly the ε-PML mechanisms with the
// pattern. Only the M coefficients e^{−ε} depend on ε. With a_j = |A_j|,
// the model has Σ a_j + M columns, N + M + Σ a_j rows and 4 Σ a_j + M
// non-zeros (≤ 4NM + M).
//
// Pruning (Spec.Prune, Song & Oechtering (2026), Sec. III-B). If an output j is used (q_j > 0),
// q_j = Σ_{i∈A_j} π_i p_ij ≤ (max_i p_ij) Σ_{i∈A_j} π_i, so its PML is at
// least −log Σ_{i∈A_j} π_i. When that exceeds ε, no ε-PML mechanism uses j:
// p_ij = 0 for all i on the whole feasible set, and removing the output's
// variables and rows changes neither the feasible set (projected on p) nor
// any optimum. Outputs with A_j empty are always dropped. SetBudget refuses
// an ε that would make a pruned output usable again.
//
// # (ε_l, ε_u)-ALIP and ε-LIP
//
// ALIP asks −ε_l ≤ log(p_ij / q_j) ≤ ε_u for all i and every j with
// q_j > 0, i.e. e^{−ε_l} q_j ≤ p_ij ≤ e^{ε_u} q_j; a column with q_j = 0 is
// all zero and satisfies both sides too, so ALIP is exactly these linear
// inequalities for all i, j. LIP is ALIP with ε_l = ε_u = ε. With
// t_j = e^{ε_u} q_j and s_j = e^{−ε_l} q_j:
//
//	marg[j]:  e^{−ε_u} t_j − Σ_k π_k p_kj = 0
//	link[j]:  e^{ε_l} s_j − Σ_k π_k p_kj = 0
//	up[i,j]:  p_ij − t_j ≤ 0
//	lo[i,j]:  p_ij − s_j ≥ 0
//
// Above ε_u = 5 nats marg[j] becomes e^{−ε_u} t_j − Σ_k π_k p_kj ≤ 0 with
// 0 ≤ t_j ≤ 1 (t_j = min(1, e^{ε_u} q_j) is feasible, so the polytope is
// the same): as an equality t_j = e^{ε_u} q_j reaches 5e8 at ε_u = 20, and
// tying s_j to t_j puts e^{−ε_l−ε_u} (4e-18 at 20) into the matrix, on
// which the engines return optima 10–30 % below the true one. The PML
// expected-utility and feasibility models do the same above 5 nats (the
// infeasibility model's marg rows are inequalities already). Below, the equality stays (gonum's Simplex finds the bases of
// the inequality form singular).
//
// A PML output whose allowed letters have a total mass below 2^−10 has
// its marg row multiplied by a power of 2 that brings that mass into
// [1/2, 1) (exact; see margScale): with letters of mass 1e-30 the row's
// entries would otherwise lie far below the engines' absolute tolerances.
//
// A forbidden pair (i, j) means p_ij = 0 ≥ e^{−ε_l} q_j, so q_j = 0 and,
// as π has full support, the whole column is zero. Such outputs are
// dropped (no variables, Model.Dropped[j]); only outputs without a
// forbidden pair keep columns, and in them every p_ij exists. Pruning is
// then moot: a kept output has Σ_{i∈A_j} π_i = 1 and −log 1 = 0 ≤ ε_u.
// 2M coefficients depend on the budget; there are 7 Σ a_j + 2M non-zeros.
//
// # ε-LDP
//
// ε-LDP asks p_ij ≤ e^ε p_kj for all i, k, j (a column mixing zero and
// non-zero entries violates it). That is: l_j := min_i p_ij satisfies
// max_i p_ij ≤ e^ε l_j. With auxiliaries l_j and u_j = e^ε l_j:
//
//	link[j]:  e^ε l_j − u_j = 0
//	lo[i,j]:  p_ij − l_j ≥ 0
//	up[i,j]:  p_ij − u_j ≤ 0
//
// If p is ε-LDP, l_j = min_i p_ij, u_j = e^ε l_j is feasible; conversely,
// any feasible point has p_ij ≤ u_j = e^ε l_j ≤ e^ε p_kj. A forbidden pair
// forces l_j = 0, hence the whole column to 0, and the output is dropped
// as for ALIP. M coefficients depend on ε; 5 Σ a_j + 2M non-zeros.
//
// # Lower levels above 5 nats: the floored form
//
// ALIP, LIP and LDP bound every entry of a used column from below, by
// e^{−ε_l} q_j or e^{−ε} max_i p_ij. Written as above, that takes e^{ε_l}
// as a coefficient (5e21 at 50 nats: Clp stopped on errors, gonum's phase I
// found its basis singular), and the floors themselves fall below the
// engines' absolute tolerances (about 1e-9), so the optima had zeros where
// the floor forbids them and audited at +Inf. Above 5 nats the models
// change variables, p_ij = r_ij + e^{−ε_l} σ_j with r_ij ≥ 0 (the column of
// p_ij holds r_ij, Aux2[j] holds σ_j), which puts every floor into a
// column bound that no tolerance can violate:
//
//	ALIP, LIP:  floor[j]: (1 − Π e^{−ε_l}) σ_j − Σ_k π_k r_kj = 0   (σ_j = q_j, Π = Σ_k π_k)
//	            marg[j]:  e^{−ε_u} t_j − Σ_k π_k r_kj − Π e^{−ε_l} σ_j ≤ 0, t_j ≤ 1
//	                      (= 0 while ε_u ≤ 5 nats)
//	            up[i,j]:  r_ij + e^{−ε_l} σ_j − t_j ≤ 0
//	LDP:        up[i,j]:  (1 − e^{−ε}) u_j − r_ij ≥ 0                (σ_j = u_j ≥ max_i p_ij)
//
// and sum[i] becomes Σ_j r_ij + e^{−ε_l} Σ_j σ_j = 1. The projection on p is
// the same polytope: from an ALIP mechanism take σ_j = q_j,
// r_ij = p_ij − e^{−ε_l} q_j ≥ 0; from an LDP one u_j = max_i p_ij,
// r_ij = p_ij − e^{−ε} u_j ≥ 0 (as p_ij ≥ e^{−ε} max_k p_kj); conversely the
// rows give back the inequalities of the sections above. No coefficient
// exceeds 1 in magnitude. The expected utility of the floors is the cost
// e^{−ε_l} Σ_i π_i u'_ij of σ_j. Model.Mechanism recomputes σ_j from the
// r_ij so that the floors hold exactly (see addFloors).
//
// # Objectives
//
// Feasibility leaves every cost 0 (minimise 0). ExpectedUtility maximises
// Σ_ij π_i u'_ij p_ij, the cost of column p[i,j] being π_i u'_ij.
// Infeasibility (PML only) relaxes each marg row by a slack r_j ≥ 0 and
// minimises Σ_j r_j: the optimum G vanishes exactly when an ε-PML mechanism
// with the pattern exists.
//
// # Proofs of infeasibility
//
// DualBound turns any vector α (one entry per input: the duals of the rows
// sum[i] of any of these PML models, or an engine's Farkas ray) into a
// lower bound on the least ε of a pattern, by the Lagrangian inequality
// Σ_i α_i ≤ Σ_j (C_j t_j − λ_j q_j) with the best λ_j per output found
// exactly and every sum rounded with a margin: the bound holds in exact
// arithmetic whatever the solver's tolerances. Model.LowerBound applies it
// to a model's row duals.
package polytope
