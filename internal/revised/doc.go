// Package revised is a pure-Go bounded-variable revised simplex engine for
// lp.Model, built for the many small, closely related LPs of the privacy
// problems (an ε-PML feasibility LP of a 32×32 problem has about 1100 rows,
// 1050 columns and 3000 non-zeros, and a bisection solves it dozens of times
// with only ε changed).
//
// # Formulation
//
// Every row i gets a logical variable r_i, the row activity, with the row's
// bounds, so the constraints become [A −I](x, r) = 0 with every variable
// boxed (bounds may be infinite: free, one-sided, fixed and ranged rows and
// columns are all handled alike). The slack basis −I is the initial basis.
// A maximisation is solved as the minimisation of the negated costs; results
// are reported in the sense of the model.
//
// # Algorithm
//
// The primal simplex method runs from the current basis. Nonbasic variables
// sit at a finite bound (a free one at 0). While some basic variable is
// outside its bounds by more than FeasTol, the costs are those of phase 1,
// the sum of infeasibilities (−1 for a basic variable below its lower bound,
// +1 above its upper bound); otherwise they are the model's costs (a
// composite, one-loop phase 1 / phase 2). Pricing is Dantzig's rule on the
// reduced costs d_j = c_j − a_jᵀy, y = B⁻ᵀc_B, read partially: each pass
// starts where the last one stopped and ends, once a candidate is found,
// after max(2000, (n+m)/8) columns; optimality is declared only when a pass
// over every column finds none. (On the 128×128 expected-utility LP this
// halves the time against full pricing.)
//
// The ratio test is Harris's two-pass test with bounds relaxed by FeasTol,
// choosing the largest pivot among the blocking variables, and it can end
// on a bound flip of the entering variable. In phase 1 an infeasible basic
// variable reaching its violated bound is a breakpoint of the piecewise
// linear objective: the step passes breakpoints while the slope stays
// negative (the "long step" of a composite phase 1), so a single iteration
// can repair several infeasibilities. The long step stops at the last
// breakpoint passed whose pivot is at least 0.1 of the largest one passed,
// and pivots below 1e-9 of the largest entry of the column are ignored, so
// that the basis stays well conditioned. After 50 consecutive degenerate
// steps the engine relaxes every finite bound by a pseudo-random 100 to 1000
// times its feasibility tolerance (deterministic, so solves are
// reproducible), solves the relaxed problem, restores the true bounds and
// continues from that basis: the ε-PML LPs are massively degenerate, and
// without this phase 1 could stall for 100 000 iterations. If the steps
// stall again on the true bounds, the engine switches to Bland's
// smallest-index rule with an exact ratio test until a step makes progress
// (Beale's example is in the tests). It does the same in phase 1 once 50
// steps that moved the point have left the sum of infeasibilities above
// the least sum seen: the Harris ratio test lets basics cross their bounds
// by up to the tolerance, and a point a few tolerances from feasibility
// can otherwise cycle through nondegenerate steps. Should Bland's rule go
// round for 50 more such steps on reduced costs within ten times the
// optimality tolerance, or for 20·(rows + columns) steps of any kind while
// the point is within 1e-6 of feasibility, the solve ends infeasible with
// the phase 1 duals as its certificate (which FarkasGap may then not
// verify).
//
// The iteration itself (simplex.Run) and the choices of that strategy
// (partial pricing and Bland's rule, Harris's passes and the nearest stop,
// the long step, the run of degenerate steps, the size of a perturbation)
// are package internal/simplex's, shared with internal/colgen's master
// engine; this package writes the iteration's steps for its LU basis, its
// bounds and their scaling (solveRun, a simplex.Engine), and the
// arithmetic of a step to a bound.
//
// # Scaling
//
// Each row of A (and its bounds) is multiplied inside the engine by the
// power of 2 that brings its largest entry into [1, 2), which is exact in
// floating point. The feasibility tolerance of a row activity is scaled with
// it, so FeasTol stays absolute in the units of the model: a model whose
// rows were multiplied by 1024 (as package worstcase does) is solved on the same
// numbers as the unscaled one, with a 1024 times tighter tolerance on the
// unscaled rows.
//
// The basis is factorised by sparse Gaussian elimination with Markowitz
// pivot selection (row and column singletons first, then the columns of
// least count, then, if none of their entries passes the threshold, the
// rows of least count; counts are kept in buckets) and threshold pivoting (a
// pivot must be ≥ 0.1 times the largest entry of its active row, and
// > 1e-11). L and U are also stored transposed, so that ftran and btran
// skip the zero entries of the vector they solve for. A numerically singular
// basis is repaired by replacing the columns left without a pivot with the
// logicals of the rows left without one. Basis changes are product-form eta
// updates; the basis is refactorised every RefactorEvery (100) updates, at
// the start of every Solve, and before optimality or infeasibility is
// declared, so the final answer always comes from fresh factors and a fresh
// x_B = B⁻¹(−N x_N).
//
// # Tolerances
//
// FeasTol (primal, default 1e-9) is absolute: a returned optimal point has
// every variable and row activity within 1e-9 of its bounds (plus rounding of
// the order of 1e-15 times the data). OptTol (dual, 1e-9) bounds the wrong
// sign of reduced costs. PivotTol (1e-9) is the smallest pivot accepted in
// the ratio test. Infeasible is reported only when phase 1 ends with every
// reduced cost of the right sign and an infeasibility above FeasTol; the
// phase 1 duals y are then returned as a Farkas certificate
// (max over the column box of (Aᵀy)·x < min over the row box of y·r, the
// convention of solver.FarkasGap), cleaned of rounding noise: a wrong-sign
// entry of y, or of Aᵀy, within OptTol against an infinite bound (which
// would make that side infinite) is zeroed, for Aᵀy by moving one y_i of
// the column, and y is normalised to max |y_i| = 1.
// Near the feasibility boundary the answer is therefore the exact one for a
// model whose bounds are relaxed by at most FeasTol: a bisection on a
// parameter of the model converges to the threshold within the parameter
// change that moves the constraints by about 1e-9.
//
// # Warm starts
//
// A Simplex keeps its model and basis. SetCoef, SetColBounds, SetRowBounds
// and SetColCost change the model in place; the next Solve refactorises the
// old basis and continues from it, which after a small change of ε usually
// takes a few dozen iterations instead of about a thousand.
package revised
