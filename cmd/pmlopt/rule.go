package main

import (
	"github.com/pmlopt/pmlopt/problem"
)

// denseUtility fills in the dense utility and order of a problem whose file
// gives a utility_rule: the engines and most commands read the matrix. It
// refuses, before any work, a matrix beyond the memory available, with the
// size needed (see problem.Problem.Materialize).
func denseUtility(p *problem.Problem) error {
	return p.Materialize()
}

// ruleLoaderFlag is loaderFlag for a command that reads a rule's utility an
// entry at a time (audit) or not at all (sample, plot of a file's
// mechanism): the dense utility is built only where a solve asks for it
// (problem.Problem.RequireUtility), with the same memory check.
func ruleLoaderFlag(fs *flagSet, e *env) func(path string) (*problem.Problem, error) {
	limit := fs.Int64("max-bytes", problem.DefaultMaxBytes, "refuse a problem file (or standard input) larger than `N` bytes")
	return func(path string) (*problem.Problem, error) {
		if *limit <= 0 {
			return nil, usagef("--max-bytes must be positive, got %d", *limit)
		}
		return loadProblemLimit(e, path, *limit)
	}
}
