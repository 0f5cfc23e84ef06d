package pmlopt_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// clusteredGrid is a w×w Euclidean grid whose prior is binned from 400
// points drawn around two centres (a city's check-ins), counts smoothed by
// 0.5, with a budget of 1.2 nats.
func clusteredGrid(t *testing.T, w int, seed uint64) *problem.Problem {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	counts := make([]float64, w*w)
	for k := range 400 {
		cx, cy, sd := float64(w)/4, float64(w)/4, float64(w)/10
		if k%2 == 1 {
			cx, cy, sd = 3*float64(w)/4, 2*float64(w)/3, float64(w)/8
		}
		x := int(math.Floor(cx + sd*rng.NormFloat64()))
		y := int(math.Floor(cy + sd*rng.NormFloat64()))
		if x >= 0 && x < w && y >= 0 && y < w {
			counts[y*w+x]++
		}
	}
	pi, err := instance.FromCounts(counts, 0.5)
	require.NoError(t, err)
	u, err := instance.Grid(w, w)
	require.NoError(t, err)
	return &problem.Problem{Prior: pi, Utility: u, Order: u.Order(), Privacy: &mech.Budget{Measure: mech.PML, Epsilon: 1.2}}
}

// checkClean requires a returned mechanism to be one: rows summing to 1,
// the zero pattern pat kept, the measure of b audited at the reported
// level (ε_u for ALIP) and within b, and no entry in (0, certify.DustEntry)
// unless b needs it (a positive entry of a used output bounds its ratio
// from below under LIP, ALIP and LDP: clearing it breaks b).
func checkClean(t *testing.T, what string, pi mech.Prior, m mech.Mechanism, pat mech.Pattern, b mech.Budget, reported float64) {
	t.Helper()
	require.NotNil(t, m, what)
	require.True(t, certify.RowsSumToOne(m), what)
	if pat != nil {
		require.True(t, pat.Holds(m), "%s: the zero pattern", what)
	}
	r, err := certify.Audit(pi, m, b)
	require.NoError(t, err, what)
	assert.InDelta(t, r.Level, reported, 1e-12, "%s: the reported level is the audited one", what)
	dusty := false
	for _, row := range m {
		for _, v := range row {
			dusty = dusty || (v > 0 && v < certify.DustEntry)
		}
	}
	if dusty {
		c, err := clean.WithoutDust(m)
		require.NoError(t, err)
		_, err = certify.Audit(pi, c, b)
		require.Error(t, err, "%s: an entry below %g that the budget does not need", what, certify.DustEntry)
	}
}

// TestEveryObjectiveReturnsNoDust: on 8×8 Euclidean grids with clustered
// priors, the mechanisms of every objective and measure, of the joint
// problem and of both kinds of curve. (The best worst-case value of seed 0
// came with 233 entries below 1e-9 on outputs of mass 2e-10.)
func TestEveryObjectiveReturnsNoDust(t *testing.T) {
	if testlong.Short() {
		t.Skip("8×8 grids, every objective")
	}
	ctx := context.Background()
	for _, seed := range []uint64{0} {
		p := clusteredGrid(t, 8, seed)
		pi, u := p.Prior, p.Utility
		pml := *p.Privacy
		var reach float64 // the best worst-case value at 1.2
		for _, obj := range []problem.Objective{problem.WorstCaseOrder, problem.WorstCaseValue} {
			q := *p
			q.Objective = obj
			sol, err := pmlopt.Solve(ctx, &q, pmlopt.Options{})
			require.NoError(t, err)
			pat := p.Order.Pattern(sol.WorstCaseOrder)
			if obj == problem.WorstCaseValue {
				reach = sol.WorstCaseValue
				pat = u.Pattern(reach)
			}
			checkClean(t, string(obj), pi, sol.Mechanism, pat, pml, sol.Epsilon)
			assert.LessOrEqual(t, sol.OptimalEpsilonLower, sol.Epsilon)
		}
		for _, b := range []mech.Budget{pml, {Measure: mech.LIP, Epsilon: 1.2}, pmlopt.ALIPBudget(1.2, 0.5), {Measure: mech.LDP, Epsilon: 1.2}} {
			q := *p
			q.Objective, q.Privacy = problem.ExpectedUtility, &b
			sol, err := pmlopt.Solve(ctx, &q, pmlopt.Options{})
			require.NoError(t, err)
			checkClean(t, "expected utility, "+string(b.Measure), pi, sol.Mechanism, nil, b, sol.Epsilon)
			assert.InDelta(t, u.ExpectedUtility(pi, sol.Mechanism), sol.ExpectedUtility, 1e-12)
		}
		floor := pmlopt.Floor{Value: reach, ByValue: true}
		q := *p
		q.Objective = problem.ExpectedUtility
		js, err := pmlopt.SolveJoint(ctx, &q, floor, pmlopt.Options{})
		require.NoError(t, err)
		checkClean(t, "joint", pi, js.Mechanism, u.Pattern(reach), pml, js.Epsilon)

		pts, err := pmlopt.Curve(ctx, p, problem.WorstCaseValue, pmlopt.Options{})
		require.NoError(t, err)
		for _, pt := range pts {
			if pt.Mechanism != nil {
				checkClean(t, "value curve", pi, pt.Mechanism, u.Pattern(pt.Threshold), mech.Budget{Measure: mech.PML, Epsilon: pt.OptimalEpsilon}, leakage.PML(pi, pt.Mechanism))
				assert.LessOrEqual(t, pt.OptimalEpsilonLower, pt.OptimalEpsilon)
			}
		}
		budgets := []mech.Budget{{Measure: mech.PML, Epsilon: 0.5}, {Measure: mech.PML, Epsilon: 2}, {Measure: mech.LDP, Epsilon: 3}}
		eps, err := pmlopt.ExpectedCurve(ctx, p, budgets, pmlopt.Options{})
		require.NoError(t, err)
		for k, pt := range eps {
			checkClean(t, "expected curve", pi, pt.Mechanism, nil, budgets[k], pt.Audited)
			assert.InDelta(t, u.ExpectedUtility(pi, pt.Mechanism), pt.ExpectedUtility, 1e-12)
		}
	}
}
