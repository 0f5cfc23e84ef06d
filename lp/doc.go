// Package lp holds a linear program in the bounded, sparse form HiGHS and
// Clp take,
//
//	min (or max)  c·x + offset
//	subject to    rowLower ≤ A x ≤ rowUpper,  colLower ≤ x ≤ colUpper,
//
// and the plumbing every part of pmlopt needs around it: validation
// (Model.Validate), evaluation of a point (Model.Eval, Model.MaxViolation —
// the check every test of a formulation uses), a compressed sparse column
// view for backends (Model.CSC), deep copies (Model.Clone), and export to
// and import from free MPS (Model.WriteMPS, ReadMPS) so that any model can
// be handed to an external solver.
//
// A Model is built by appending columns and rows (AddCol, AddRow) or by
// filling its exported slices directly. Indices are 0-based. Nothing in this
// package solves a model; see package solver. Status, the outcome of a solve,
// is here so that the engines and solver's backends share one.
package lp
