package pmlopt_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// Every entry point refuses what a problem file could not hold, with an
// error naming the field, and never panics.
func TestEntryPointsValidate(t *testing.T) {
	ctx := context.Background()
	good := func() *problem.Problem {
		return &problem.Problem{Prior: mech.Prior{0.5, 0.5}, Utility: mech.Utility{{0, -1}, {-1, 0}},
			Mechanism: mech.Mechanism{{0.75, 0.25}, {0.25, 0.75}},
			Privacy:   &mech.Budget{Measure: mech.PML, Epsilon: 1}, Objective: problem.WorstCaseOrder}
	}
	negative := good()
	negative.Mechanism = mech.Mechanism{{1.25, -0.25}, {0.25, 0.75}}
	heavy := good()
	heavy.Mechanism = mech.Mechanism{{0.85, 0.25}, {0.25, 0.75}} // row 0 sums to 1.1
	badPrior := good()
	badPrior.Prior = mech.Prior{0.5, 0.6}
	shape := good()
	shape.Utility = mech.Utility{{0, -1, -2}, {-1, 0, -1}}
	for name, c := range map[string]struct {
		p     *problem.Problem
		field string
	}{
		"nil":            {nil, "problem"},
		"negative entry": {negative, "mechanism"},
		"row sums 1.1":   {heavy, "mechanism"},
		"prior":          {badPrior, "prior"},
		"shapes":         {shape, "columns"},
	} {
		_, err := pmlopt.Audit(c.p, 2, 1)
		assert.ErrorContains(t, err, c.field, "Audit, %s", name)
		_, err = pmlopt.Solve(ctx, c.p, pmlopt.Options{})
		assert.ErrorContains(t, err, c.field, "Solve, %s", name)
		_, err = pmlopt.Curve(ctx, c.p, problem.WorstCaseOrder, pmlopt.Options{})
		assert.ErrorContains(t, err, c.field, "Curve, %s", name)
	}
	_, err := pmlopt.Audit(good(), 2, 1)
	require.NoError(t, err)
}
