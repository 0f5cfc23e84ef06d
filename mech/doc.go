// Package mech holds the domain types of pmlopt: a prior on the secret
// letters, a utility matrix and the utility order derived from it, zero
// patterns, and privacy mechanisms (row-stochastic matrices) with their
// output marginal, posterior and information density.
//
// Indices follow docs/theory.md: inputs x_1..x_N are rows, outputs y_1..y_M are
// columns. All logarithms are natural.
//
// The types are plain slices so that research code can build them by hand;
// the New* constructors validate user data and return a *FieldError naming
// the field, row and column of the first problem found. Nothing in this
// package panics on user data.
//
// # Tie rule for utility orders
//
// The papers assume the utilities of a row are distinct, so that each row of
// the order U is a permutation of 1..M. pmlopt also accepts ties: a value's
// rank is the number of entries of its row that are less than or equal to it
// ("max rank"). Tied values therefore share one rank, a threshold h forbids a
// tie group together or not at all, and the largest value of every row always
// has rank M, so every threshold h in 1..M leaves each row at least one
// allowed output. For distinct values this is the usual ranking.
package mech
