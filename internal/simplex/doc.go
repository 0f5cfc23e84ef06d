// Package simplex is the primal simplex method that the project's two
// simplex engines share: internal/revised (a bounded revised simplex over a
// sparse LU factorisation) and internal/colgen's master engine (an explicit
// dense basis inverse with rank-one updates). Run is the iteration, its
// steps numbered, over an Engine: the basis representation and bounds,
// which each engine writes. The rules the steps apply are one algorithm a
// file, each written once and parameterised by the run lengths and
// tolerances its caller is tuned with:
//
//   - loop.go: the iteration (Run) and what it asks of an engine (Engine);
//   - pricing.go: rotating partial pricing (Dantzig's rule on a part of the
//     columns) and Bland's rule, the first candidate by index;
//   - longstep.go: the long step of phase 1 over the breakpoints of the sum
//     of infeasibilities;
//   - harris.go: Harris's two-pass ratio test (Harris (1973)) and, under
//     Bland's rule, the nearest stop with ties to the least variable
//     (Bland (1977));
//   - degenerate.go: the run of degenerate steps that perturbs the bounds
//     once and then switches the pricing to Bland's rule;
//   - verdict.go: what a pass that finds no entering variable decides;
//   - perturb.go: the size of a bound perturbation;
//   - tolerances.go: the tolerances these share.
//
// What stays with each engine is what depends on its basis representation
// and its bounds: the factorisation and its updates, the basic values, the
// duals, which bounds a variable has (revised: lower and upper bounds on
// every variable, the rows' activities among them; colgen: a lower bound of
// 0), and the arithmetic of a step to a bound, which the engines write
// differently and which decides the pivots they take. The engines classify
// each basic variable against its bounds and hand this package the stops
// and breakpoints; the choices are made here.
package simplex
