// Package sample draws outputs of a privacy mechanism: a Sampler holds one
// Walker/Vose alias table per input letter, so that after O(NM) set-up every
// draw costs O(1), and PrivatizeCSV replaces a column of a CSV file by
// outputs drawn through the mechanism.
//
// Draws come from a math/rand/v2 PCG generator seeded by the caller, so a
// given seed reproduces the same outputs on every platform and Go release
// that keeps PCG's definition.
package sample
