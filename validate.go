package pmlopt

import "github.com/pmlopt/pmlopt/problem"

// check refuses a problem that a problem file could not hold: nil, a prior
// that is not a distribution, a mechanism with a negative entry or a row
// that does not sum to 1, shapes that disagree (problem.Validate). Every
// entry point calls it first, so that bad input is an error, never a panic
// or a number computed from it.
func check(p *problem.Problem) error { return p.Validate() }
