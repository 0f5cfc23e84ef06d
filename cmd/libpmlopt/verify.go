package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/jsonout"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
)

// certFile is the part of a document holding one certificate at its top
// level: a problem file written by solve --out (it has a prior), or solve
// --json's output (certificate and mechanism, no prior).
type certFile struct {
	Prior       any                 `json:"prior" yaml:"prior"`
	Mechanism   mech.JSONMatrix     `json:"mechanism" yaml:"mechanism"`
	Certificate *verify.Certificate `json:"certificate" yaml:"certificate"`
	jsonout.Reported
}

type claimOut struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

type verifyOut struct {
	Verified bool       `json:"verified"`
	Claims   []claimOut `json:"claims"`
}

// opVerify re-checks a certificate with package verify, as pmlopt verify
// does. The certificate is a.Certificate (JSON), or the one at the top of
// the file a.Path. The problem is, in this order: the file a.Path when it
// is a problem file, the file a.Problem, or the matrices of the call. The
// mechanism is the certificate's own, else the matrix given, else the
// document's.
func opVerify(ctx context.Context, a args, in input) (any, [][][]float64, error) {
	var c verify.Certificate
	var docMech [][]float64
	var rep *verify.Reported // what solve --json reports beside its certificate
	problemPath := a.Problem
	switch {
	case a.Path != "" && len(a.Certificate) > 0:
		return nil, nil, errors.New("give a certificate or the path of a file holding one, not both")
	case a.Path != "":
		data, err := os.ReadFile(a.Path)
		if err != nil {
			return nil, nil, err
		}
		var doc certFile
		if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
			err = json.Unmarshal(data, &doc)
		} else {
			err = yaml.Unmarshal(data, &doc)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %s", a.Path, jsonout.DecodeMessage(err))
		}
		if doc.Certificate == nil {
			return nil, nil, fmt.Errorf("%s: no certificate at its top level (solve --out and solve --json write one; pass a curve point's certificate itself)", a.Path)
		}
		c, docMech = *doc.Certificate, [][]float64(doc.Mechanism)
		if doc.Prior == nil {
			rep = doc.Of(&c)
		} else {
			if problemPath != "" || in.Prior != nil {
				return nil, nil, fmt.Errorf("%s is a problem file itself: the problem does not apply", a.Path)
			}
			problemPath = a.Path
		}
	case len(a.Certificate) > 0:
		if err := json.Unmarshal(a.Certificate, &c); err != nil {
			return nil, nil, fmt.Errorf("certificate: %v", err)
		}
	default:
		return nil, nil, errors.New("certificate: give a certificate or the path of a file holding one")
	}
	var vp verify.Problem
	switch {
	case problemPath != "" && in.Prior != nil:
		return nil, nil, errors.New("give the problem as a file or as matrices, not both")
	case problemPath != "" && a.PriorSet != nil:
		return nil, nil, errors.New("prior_set: the problem file gives its own prior set (or none); give prior_set with matrices only")
	case problemPath != "":
		p, err := problem.Load(problemPath)
		if err != nil {
			return nil, nil, err
		}
		if err := p.Materialize(); err != nil {
			return nil, nil, err
		}
		vp = verify.Problem{Prior: p.Prior, Utility: p.Utility, Order: p.Order, Mechanism: p.Mechanism,
			PriorSet: pmlopt.VerifyPriorSet(p.PriorSet)}
		if problemPath == a.Path {
			// The certificate is the problem file's own.
			vp.Stated = certificate.Stated(p)
		}
	case in.Prior != nil:
		vp = verify.Problem{Prior: append([]float64(nil), in.Prior...), Utility: rows(in.Utility, in.N, in.M),
			Mechanism: rows(in.Mechanism, in.N, in.M)}
		if in.Order != nil {
			vp.Order = make([][]int, in.N)
			for i := range vp.Order {
				vp.Order[i] = make([]int, in.M)
				for j := range vp.Order[i] {
					v := in.Order[i*in.M+j]
					if v != math.Trunc(v) || math.Abs(v) > 1<<31 {
						return nil, nil, &mech.FieldError{Field: "order", Row: i, Col: j, Msg: fmt.Sprintf("is %v, not an integer", v)}
					}
					vp.Order[i][j] = int(v)
				}
			}
		} else if vp.Utility != nil {
			// As a problem file with only a utility: its order is derived.
			vp.Order = mech.Utility(vp.Utility).Order()
		}
		if a.PriorSet != nil {
			set, err := a.PriorSet.set(vp.Prior)
			if err != nil {
				return nil, nil, err
			}
			vp.PriorSet = pmlopt.VerifyPriorSet(set)
		}
	default:
		return nil, nil, errors.New("prior: give the problem the certificate was computed for (prior with utility or order, or problem=)")
	}
	// The certificate's mechanism goes first (Check's rule); a mechanism
	// given with the call replaces the problem file's, and the document's
	// (solve --json) fills in where there is none.
	if in.Mechanism != nil && problemPath != "" {
		vp.Mechanism = rows(in.Mechanism, in.N, in.M)
	}
	if c.Mechanism != nil {
		vp.Mechanism = nil
	} else if vp.Mechanism == nil {
		vp.Mechanism = docMech
	}
	if c.Mechanism == nil && vp.Mechanism == nil {
		return nil, nil, errors.New("mechanism: the certificate has none of its own: give the mechanism it certifies")
	}
	vp.Reported = rep
	claims := verify.Check(vp, c)
	if err := ctx.Err(); err != nil {
		return nil, nil, errInterrupted
	}
	out := verifyOut{Verified: verify.AllOK(claims), Claims: make([]claimOut, len(claims))}
	for k, cl := range claims {
		out.Claims[k] = claimOut{Name: cl.Name, OK: cl.OK, Detail: cl.Detail}
	}
	return out, nil, nil
}
