package expected_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// failFirst is a backend whose first Solve fails: the LP on the interior
// point's support (step 2), so that Maximize falls back on the full LP.
type failFirst struct {
	solver.Solver
	calls int
}

func (f *failFirst) Name() string { return "fail-first" }

func (f *failFirst) Solve(m *lp.Model) (*solver.Solution, error) {
	if f.calls++; f.calls == 1 {
		return nil, errors.New("refused")
	}
	return f.Solver.Solve(m)
}

// pmlLPSize is the size of the ε-PML expected-utility LP of an N×M
// problem, counted from its formulation: N row sums, M marginal rows and
// N·M caps p_ij ≤ t_j; N·M entries and M variables t_j.
func pmlLPSize(n, m int) (rows, cols int) { return n + m + n*m, n*m + m }

// TestNotifyFullLPFallback: when the named backend fails on the interior
// point's support, Notify is told why and that the full LP is solved, with
// its size and backend, once and before it is solved; the answer is the
// full LP's, within the point's certified bracket, and LPSolves counts the
// failed LP as well.
func TestNotifyFullLPFallback(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 21))
	const n, m = 5, 7
	pi := randinst.Prior(rng, n, 0.01)
	u := randinst.Utility(rng, n, m, 5)
	b := mech.Budget{Measure: mech.PML, Epsilon: 0.7}

	slv := &failFirst{Solver: solver.Revised()}
	var msgs []string
	r, err := expected.Maximize(ctx, pi, u, b, expected.Options{Solver: slv, Notify: func(msg string) {
		msgs = append(msgs, fmt.Sprintf("%s (after %d solves)", msg, slv.calls))
	}})
	require.NoError(t, err)
	rows, cols := pmlLPSize(n, m)
	require.Len(t, msgs, 1)
	assert.Regexp(t, `^fail-first's LP on the interior point's support failed or left its certified bracket \[[0-9.]+, [0-9.]+\]: `+
		regexp.QuoteMeta(fmt.Sprintf("solving the full LP (%d rows × %d columns) with fail-first (after 1 solves)", rows, cols))+`$`, msgs[0])
	assert.Equal(t, "fail-first", r.Solver)
	assert.LessOrEqual(t, r.Bound-r.Value, 1e-9)
	assert.Equal(t, slv.calls, r.LPSolves, "every LP asked of the backend counts, the failed one too")

	full, err := expected.Maximize(ctx, pi, u, b, expected.Options{Solver: solver.Revised(), FullLP: true})
	require.NoError(t, err)
	assert.InDelta(t, full.Value, r.Value, 1e-9)
	assert.LessOrEqual(t, leakage.PML(pi, r.Mechanism), b.Epsilon+1e-9)

	// The full LP asked for (FullLP) is no fallback: nothing is said for
	// an LP this small.
	msgs = nil
	_, err = expected.Maximize(ctx, pi, u, b, expected.Options{Solver: solver.Revised(), FullLP: true, Notify: func(msg string) { msgs = append(msgs, msg) }})
	require.NoError(t, err)
	assert.Empty(t, msgs)
}

// TestNotifyUncertifiedInteriorPoint: on the counting query with a
// binomial prior on 12 letters at ε = 1e-9 the pure-Go interior point does
// not certify its answer; the full LP (12 + 12 + 144 rows, 144 + 12
// columns) decides, and Notify says so.
func TestNotifyUncertifiedInteriorPoint(t *testing.T) {
	fam, err := instance.Lookup("counting-binomial")
	require.NoError(t, err)
	in, err := fam.New(12, 1)
	require.NoError(t, err)
	b := mech.Budget{Measure: mech.PML, Epsilon: 1e-9}
	var msgs []string
	r, err := expected.Maximize(context.Background(), in.Prior, in.Utility, b, expected.Options{Notify: func(msg string) { msgs = append(msgs, msg) }})
	require.NoError(t, err)
	rows, cols := pmlLPSize(12, 12)
	require.Equal(t, []string{fmt.Sprintf(
		"the interior point was not certified: solving the full LP (%d rows × %d columns) with %s", rows, cols, solver.Auto().Name())}, msgs)
	assert.Equal(t, solver.Auto().Name(), r.Solver)
	assert.LessOrEqual(t, leakage.PML(in.Prior, r.Mechanism), b.Epsilon+1e-9)
}

// zeroObjective is a backend that answers every LP with one of its
// feasible points, the optimum of the zero objective: audited, but not
// optimal.
type zeroObjective struct{ solver.Solver }

func (z zeroObjective) Name() string { return "zero-objective" }

func (z zeroObjective) Solve(m *lp.Model) (*solver.Solution, error) {
	c := *m
	c.ColCosts = make([]float64, len(m.ColCosts))
	return z.Solver.Solve(&c)
}

// TestRejectedFullLPNotSolvedAgain: at ε = log 2 on these instances the
// interior point's vertex does not certify, so when the named backend's
// full LP leaves the point's bracket nothing pure-Go is at hand. Maximize
// then asks the pure-Go backend, checked against the same bracket, and
// never returns the rejected backend's answer: the value is the full LP's
// optimum.
func TestRejectedFullLPNotSolvedAgain(t *testing.T) {
	ctx := context.Background()
	b := mech.Budget{Measure: mech.PML, Epsilon: math.Ln2}
	for _, c := range []struct {
		family string
		n      int
	}{{"random", 24}, {"counting-binomial", 48}, {"random", 48}} {
		if testlong.Short() && c.family == "random" && c.n == 48 {
			continue
		}
		what := fmt.Sprintf("%s, N = %d", c.family, c.n)
		fam, err := instance.Lookup(c.family)
		require.NoError(t, err)
		in, err := fam.New(c.n, 1)
		require.NoError(t, err)
		full, err := expected.Maximize(ctx, in.Prior, in.Utility, b, expected.Options{Solver: solver.Revised(), FullLP: true})
		require.NoError(t, err, what)

		var msgs []string
		r, err := expected.Maximize(ctx, in.Prior, in.Utility, b, expected.Options{Solver: zeroObjective{solver.Revised()},
			Notify: func(msg string) { msgs = append(msgs, msg) }})
		require.NoError(t, err, what)
		assert.NotEqual(t, "zero-objective", r.Solver, what)
		assert.InDelta(t, full.Value, r.Value, 1e-9*math.Max(1, math.Abs(full.Value)), what)
		assert.LessOrEqual(t, leakage.PML(in.Prior, r.Mechanism), b.Epsilon+1e-9, what)
		for _, msg := range msgs {
			assert.NotContains(t, msg, "not certified", what)
		}
	}
}
