package main

import (
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// writeSolved writes p with the mechanism m as a problem file at path:
// the keys of p as they are (labels, prior, utility or order, and the
// budget and objective m was computed for) plus mechanism, so that audit,
// sample and solve read it back. The format follows the extension (JSON
// for .json, YAML otherwise). The file is replaced only once complete.
func writeSolved(path string, p *problem.Problem, m mech.Mechanism) error {
	data, _, err := marshalSolved(path, p, m)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, data)
}

// marshalSolved is p with the mechanism m in the format path's extension
// names (YAML unless it is .json), and that format.
func marshalSolved(path string, p *problem.Problem, m mech.Mechanism) ([]byte, problem.Format, error) {
	q := *p
	q.Mechanism = m
	format := problem.FormatOf(path)
	if format == problem.Auto {
		format = problem.YAML
	}
	data, err := problem.Marshal(&q, format)
	return data, format, err
}
