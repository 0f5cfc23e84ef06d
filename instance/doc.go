// Package instance generates the privacy-mechanism design problems that
// pmlopt is tested and measured on: priors (uniform, binomial, Zipf,
// geometric, Dirichlet), utilities (the counting query of Song and
// Oechtering, line losses, Hamming, grids with Euclidean loss, banded
// integer losses, bucketed releases with N ≠ M, random), the same losses
// between any positions on a line (OnLine, for N ≠ M and numeric labels),
// priors from counts with additive smoothing, and named families that pair
// them for every size.
//
// Priors with tiny masses are computed in the log domain: every mass is
// exact to rounding down to the smallest normal float64 (about 1e-308), and
// a mass below it is refused with an error, never rounded to 0.
package instance
