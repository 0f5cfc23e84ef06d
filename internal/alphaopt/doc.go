// Package alphaopt is the optimiser behind leakage's maximal α-leakage and
// maximal (α,β)-leakage where they have no closed form (1 < β ≤ α < ∞): the
// maximisation over priors of Gilani et al. (2022), eq. 6,
//
//	max_k sup_w log Σ_j p_kj^{1−β} (Σ_i w_i p_ij^α)^{β/α},
//
// a concave function of w on the simplex for each row k, returned as a
// certified bracket (Max). The files are the methods:
//
//   - concave.go: the problem G of one row, its gradient and Hessian, with
//     the column maxima factored out so that nothing overflows;
//   - multiplicative.go: multiplicative updates (Blahut–Arimoto for β = 1)
//     certified by Hölder's inequality and polished by Newton's method;
//   - columngeneration.go: Newton's method on a working set of inputs,
//     extended by the inputs that violate the optimality conditions (column
//     generation), and the bounds and steps of many rows at once;
//   - conjugategradient.go: the Newton steps of the working set by
//     preconditioned conjugate gradients, with a factorisation shared
//     between steps and rows;
//   - newton.go: the active-set Newton method on the whole simplex;
//   - rowbatch.go: multiplicative updates of many rows in matrix products;
//   - alphaopt.go: Max, which visits the rows by decreasing bound and
//     settles most of them by their bounds alone.
//
// Every bracket is certified at the point reached, whichever method reached
// it; a method only decides how fast the bracket closes.
package alphaopt
