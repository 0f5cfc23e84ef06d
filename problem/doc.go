// Package problem reads, validates and writes pmlopt problem files: the
// YAML or JSON documents (the format of docs/problem-files.md) that describe a prior, a utility (or
// utility order), optionally a mechanism, a privacy budget and an objective.
//
// A file is loaded into the domain types of package mech:
//
//	p, err := problem.Load("counting-query.yaml")
//	u, err := p.RequireUtility()
//
// The schema is closed: every key of the format is known and any other key is
// refused. Numbers in prior, utility, mechanism and the privacy block may be
// written as numbers, as decimal strings ("0.25") or as fractions ("1/7");
// order entries are integers. NaN and infinite values are refused however
// they are spelt. The shapes must agree: the prior has N letters, every
// matrix has N rows and the same M columns, the labels count N and M, and an
// order given together with a utility must equal the utility's order under
// the tie rule of package mech.
//
// Every error is one line that names the field and, for matrices, the row
// and column counted from 1, for example
//
//	utility row 3, column 2: "abc" is not a number
//
// The errors are *mech.FieldError values (wrapped with the file name by
// Load), and YAML and JSON files with the same content give the same
// messages. YAML aliases are refused, so a small file cannot expand into a
// large problem.
//
// The prior, the labels and the matrices are read straight into Go values,
// a few bytes more than their own size, when they are JSON or YAML lists as
// programs write them (flow lists, or one "- " item a line, with comments
// anywhere); other YAML goes through yaml.v3's tree, some hundred bytes a
// value, and is refused beyond 262 144 values before that tree is built.
package problem
