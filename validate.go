package pmlopt

import (
	"context"
	"errors"

	"github.com/pmlopt/pmlopt/problem"
)

// check refuses a problem that a problem file could not hold: nil, a prior
// that is not a distribution, a mechanism with a negative entry or a row
// that does not sum to 1, shapes that disagree (problem.Validate). Every
// entry point calls it first, so that bad input is an error, never a panic
// or a number computed from it.
func check(p *problem.Problem) error { return p.Validate() }

// ready is the first step of every entry point that takes a context:
// check(p), then checkContext(ctx). The check stops with ctx, which ends
// it mid-way (on a large problem its order checks rank every row,
// problem.ValidateContext); a context already done at the call stops
// nothing, so that bad input still gets its field's error.
func ready(ctx context.Context, p *problem.Problem) error {
	if ctx == nil || ctx.Err() != nil {
		if err := check(p); err != nil {
			return err
		}
		return checkContext(ctx)
	}
	if err := p.ValidateContext(ctx); err != nil {
		return err
	}
	return ctx.Err()
}

// errNilContext is the error of an entry point given a nil context.
var errNilContext = errors.New("pmlopt: nil context (pass context.Background())")

// checkContext refuses a nil context, which would crash the workers that
// watch it, and a context already done, before any work starts.
func checkContext(ctx context.Context) error {
	if ctx == nil {
		return errNilContext
	}
	return ctx.Err()
}
