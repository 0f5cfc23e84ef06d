// Package leakage computes the privacy measures of a (prior, mechanism) pair
// listed in docs/theory.md §2: pointwise maximal leakage (PML) and cost (PMC), the
// ALIP pair, LIP, LDP, lift, Bayes capacity and maximal leakage, posterior
// Bayes vulnerability and multiplicative Bayes leakage, LRDP, maximal
// α-leakage and maximal (α,β)-leakage.
//
// All logarithms are natural. Zero probabilities are handled exactly:
// unused outputs (q_j = 0) are outside the support S_Y and ignored, and a
// measure that the definitions make infinite is +Inf, never NaN.
//
// The measures without an error result assume a valid input
// (mech.NewPrior, mech.NewMechanism); when the shapes do not agree
// (mech.Mechanism.CheckPrior: a row per letter, rows of one width) they
// return NaN, or nil for a per-output measure, instead of indexing out of
// range.
package leakage
