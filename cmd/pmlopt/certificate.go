package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
)

// keepCertificate drops pt's certificate unless --certificates asked for it.
func keepCertificate(pt pmlopt.Point, want bool) pmlopt.Point {
	if !want {
		pt.Certificate = nil
	}
	return pt
}

// writeSolvedCertificate is writeSolved with the answer's certificate as
// one more top-level key, certificate, which 'pmlopt verify' re-checks
// and the problem loader ignores.
func writeSolvedCertificate(path string, p *problem.Problem, m mech.Mechanism, c *verify.Certificate) error {
	if c == nil {
		return writeSolved(path, p, m)
	}
	data, format, err := marshalSolved(path, p, m)
	if err != nil {
		return err
	}
	if format == problem.JSON {
		cj, err := json.MarshalIndent(c, "  ", "  ")
		if err != nil {
			return err
		}
		body := bytes.TrimRight(data, " \t\r\n")
		if len(body) == 0 || body[len(body)-1] != '}' {
			return fmt.Errorf("--out: the problem's JSON does not end its object")
		}
		body = body[:len(body)-1]
		body = bytes.TrimRight(body, " \t\r\n")
		data = append(append(append(body, []byte(",\n  \"certificate\": ")...), cj...), []byte("\n}\n")...)
	} else {
		var cy bytes.Buffer
		enc := yaml.NewEncoder(&cy)
		enc.SetIndent(2)
		if err := enc.Encode(struct {
			Certificate *verify.Certificate `yaml:"certificate"`
		}{c}); err != nil {
			return err
		}
		if err := enc.Close(); err != nil {
			return err
		}
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		data = append(data, cy.Bytes()...)
	}
	return writeFileAtomic(path, data)
}
