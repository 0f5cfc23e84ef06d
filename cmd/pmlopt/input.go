package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// loadProblem reads the problem file at path, or standard input when path
// is "-" (YAML or JSON, told apart by the content).
func loadProblem(e *env, path string) (*problem.Problem, error) {
	return loadProblemLimit(e, path, problem.DefaultMaxBytes)
}

// loadProblemLimit is loadProblem refusing more than limit bytes, from a
// file or from standard input alike.
func loadProblemLimit(e *env, path string, limit int64) (*problem.Problem, error) {
	if path != "-" {
		p, err := problem.LoadLimit(path, limit)
		if errors.Is(err, problem.ErrTooLarge) {
			return nil, fmt.Errorf("%w (--max-bytes)", err)
		}
		return p, err
	}
	data, err := io.ReadAll(io.LimitReader(e.stdin, limit+1))
	if err != nil {
		return nil, fmt.Errorf("standard input: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("standard input: %w: more than %d bytes (--max-bytes)", problem.ErrTooLarge, limit)
	}
	p, err := problem.Parse(data, problem.Auto)
	if err != nil {
		return nil, fmt.Errorf("standard input: %w", err)
	}
	return p, nil
}

// withPath prefixes the problem file's path to an error that names a field
// of it (a *mech.FieldError: field, row, column), so that the one line a
// user reads says which file is meant.
func withPath(path string, err error) error {
	var fe *mech.FieldError
	if errors.As(err, &fe) {
		return fmt.Errorf("%s: %w", path, err)
	}
	return err
}
