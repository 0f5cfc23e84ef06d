// Package pmlopt is the research-facing API of pmlopt: load a problem file,
// solve it for the optimal mechanism, compute the privacy-utility trade-off
// curve, and audit a mechanism against every leakage measure.
//
//	p, err := pmlopt.LoadProblem("testdata/counting-query.yaml")
//	sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
//	fmt.Println(sol.WorstCaseOrder, sol.Epsilon)
//
// Solve, Curve and Audit return this package's own types (Solution, Point)
// and the domain types of package mech. The packages underneath do one job
// each and can be used directly: mech (domain types), problem (files),
// closedform (closed-form mechanisms), leakage and guarantee (measures and
// implied guarantees), lp, polytope and solver (the LPs and their engines),
// expected (the expected-utility optimum), worstcase (the ε and h searches)
// and sample (privatising data). The engines behind expected and worstcase
// (interior point, column generation) are internal.
//
// The objectives (docs/theory.md §5):
//
//   - worst-case-order: the largest h such that some ε-PML mechanism has
//     p_ij = 0 whenever u_ij < h (Song & Oechtering (2026), problem (1)); among those, one with
//     the least PML.
//   - worst-case-value: the same with thresholds on the utility values u'.
//   - expected-utility: maximise Σ π_i p_ij u'_ij over the ε-PML, ALIP, LIP or
//     LDP polytope.
package pmlopt
