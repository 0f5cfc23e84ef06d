package pmlopt_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/pollctx"
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

// The check every entry point runs first stops with the caller's context:
// a 12×12 location grid's order (144 rows) is checked a few rows per look
// (mech.PollRows), and a context that ends at the k-th look ends Solve
// and Curve there, with the context's error, before the check reaches the last row,
// which it would refuse (two of its ranks swapped).
func TestSolveStopsInTheCheck(t *testing.T) {
	pi, u, err := instance.GridProblem(12, 12, "uniform")
	require.NoError(t, err)
	o := u.Order()
	last := o[len(o)-1]
	last[0], last[1] = last[1], last[0]
	require.NotEqual(t, last[0], last[1])
	p := &problem.Problem{Prior: pi, Utility: u, Order: o, Privacy: &mech.Budget{Measure: mech.PML, Epsilon: 1},
		Objective: problem.WorstCaseOrder}
	_, err = pmlopt.Solve(context.Background(), p, pmlopt.Options{})
	var fe *mech.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "order", fe.Field)
	assert.Equal(t, 143, fe.Row)
	for _, at := range []int{1, 3, 20} {
		// The first look asks whether the context was done before the
		// call; the check's looks follow it.
		c := pollctx.New(at + 1)
		sol, err := pmlopt.Solve(c, p, pmlopt.Options{})
		assert.ErrorIs(t, err, context.Canceled, "at %d", at)
		assert.Nil(t, sol, "at %d", at)
		assert.Equal(t, at+1, c.Polls(), "at %d", at)
		c.Cancel()

		c = pollctx.New(at + 1)
		pts, err := pmlopt.Curve(c, p, problem.WorstCaseOrder, pmlopt.Options{})
		assert.ErrorIs(t, err, context.Canceled, "Curve at %d", at)
		assert.Nil(t, pts, "Curve at %d", at)
		assert.Equal(t, at+1, c.Polls(), "Curve at %d", at)
		c.Cancel()
	}
	// A context done before the call stops no check: Curve (which then
	// returns the points that need no LP) and Solve refuse the last row.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = pmlopt.Curve(ctx, p, problem.WorstCaseOrder, pmlopt.Options{})
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, 143, fe.Row)
	_, err = pmlopt.Solve(ctx, p, pmlopt.Options{})
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, 143, fe.Row)
}

// The entry points that build a rule's utility or order after their check
// build it with the caller's context: on a 9×9 grid given by a
// utility_rule (81 rows, one look per mech.PollRows rows), a context that
// ends at an early look ends each of them at that look, with the
// context's error, before the derivation's end and before any engine,
// leaving the caller's problem without a utility or order.
func TestRuleDerivationStops(t *testing.T) {
	load := func(objective string) *problem.Problem {
		doc := "privacy: {measure: pml, epsilon: 1}\nobjective: " + objective + "\nprior: uniform\n" +
			"utility_rule:\n  metric: euclidean\n  grid: {width: 9, height: 9, cell: 1}\n"
		p, err := problem.Parse([]byte(doc), problem.YAML)
		require.NoError(t, err)
		require.Nil(t, p.Utility)
		return p
	}
	budgets := []mech.Budget{{Measure: mech.PML, Epsilon: 1}}
	calls := map[string]struct {
		objective string
		call      func(context.Context, *problem.Problem) error
	}{
		"Curve order": {"worst-case-order", func(ctx context.Context, p *problem.Problem) error {
			_, err := pmlopt.Curve(ctx, p, problem.WorstCaseOrder, pmlopt.Options{})
			return err
		}},
		"Curve value": {"worst-case-value", func(ctx context.Context, p *problem.Problem) error {
			_, err := pmlopt.Curve(ctx, p, problem.WorstCaseValue, pmlopt.Options{})
			return err
		}},
		"SolveJoint": {"expected-utility", func(ctx context.Context, p *problem.Problem) error {
			_, err := pmlopt.SolveJoint(ctx, p, pmlopt.Floor{Order: 3}, pmlopt.Options{})
			return err
		}},
		"SolveBaseline exponential": {"expected-utility", func(ctx context.Context, p *problem.Problem) error {
			_, err := pmlopt.SolveBaseline(ctx, p, pmlopt.Exponential)
			return err
		}},
		"SolveBaseline utility-safe": {"worst-case-order", func(ctx context.Context, p *problem.Problem) error {
			_, err := pmlopt.SolveBaseline(ctx, p, pmlopt.UtilitySafe)
			return err
		}},
		"ExpectedCurve": {"expected-utility", func(ctx context.Context, p *problem.Problem) error {
			_, err := pmlopt.ExpectedCurve(ctx, p, budgets, pmlopt.Options{})
			return err
		}},
	}
	for name, c := range calls {
		for _, at := range []int{3, 5} {
			stop := pollctx.New(at)
			p := load(c.objective)
			err := c.call(stop, p)
			assert.ErrorIs(t, err, context.Canceled, "%s at %d", name, at)
			assert.Equal(t, at, stop.Polls(), "%s at %d", name, at)
			// A stopped derivation leaves the caller's problem as it was.
			assert.Nil(t, p.Utility, "%s at %d", name, at)
			assert.Nil(t, p.Order, "%s at %d", name, at)
			stop.Cancel()
		}
	}
}
