package main

import (
	"fmt"
	"io"

	"github.com/pmlopt/pmlopt/problem"
)

// loadProblem reads the problem file at path, or standard input when path
// is "-" (YAML or JSON, told apart by the content).
func loadProblem(e *env, path string) (*problem.Problem, error) {
	if path != "-" {
		return problem.Load(path)
	}
	data, err := io.ReadAll(e.stdin)
	if err != nil {
		return nil, fmt.Errorf("standard input: %w", err)
	}
	p, err := problem.Parse(data, problem.Auto)
	if err != nil {
		return nil, fmt.Errorf("standard input: %w", err)
	}
	return p, nil
}
