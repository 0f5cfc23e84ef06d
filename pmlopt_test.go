package pmlopt_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// level is the audited level of b's measure reached by m (ε_u for ALIP),
// and whether m meets b within tol.
func level(pi mech.Prior, m mech.Mechanism, b mech.Budget, tol float64) (float64, bool) {
	switch b.Measure {
	case mech.PML:
		v := leakage.PML(pi, m)
		return v, v <= b.Epsilon+tol
	case mech.LIP:
		v := leakage.LIP(pi, m)
		return v, v <= b.Epsilon+tol
	case mech.LDP:
		v := leakage.LDP(pi, m)
		return v, v <= b.Epsilon+tol
	case mech.ALIP:
		lo, up := leakage.ALIP(pi, m)
		return up, lo <= b.EpsilonLower+tol && up <= b.EpsilonUpper+tol
	}
	panic("unknown measure")
}

// checkMechanism is the audit every returned mechanism must pass.
func checkMechanism(t *testing.T, p *problem.Problem, sol *pmlopt.Solution) {
	t.Helper()
	_, err := mech.NewMechanism(sol.Mechanism)
	require.NoError(t, err, "rows sum to 1 and are non-negative")
	lvl, ok := level(p.Prior, sol.Mechanism, *p.Privacy, 1e-9)
	assert.True(t, ok, "audited %s level %g exceeds the budget %+v", p.Privacy.Measure, lvl, *p.Privacy)
	assert.InDelta(t, lvl, sol.Epsilon, 1e-12, "the reported ε is the audited one")
	assert.LessOrEqual(t, sol.OptimalEpsilonLower, sol.Epsilon)
	if p.Order != nil {
		h := sol.WorstCaseOrder
		assert.True(t, p.Order.Pattern(h).Holds(sol.Mechanism), "zero pattern of h = %d", h)
	}
}

// closedForms lists the closed-form mechanisms of docs/theory.md §4 for p over a grid
// of parameters.
func closedForms(t *testing.T, p *problem.Problem) map[string]mech.Mechanism {
	out := map[string]mech.Mechanism{}
	n, m := p.N(), p.M()
	for h := 1; h <= m; h++ {
		ms, err := closedform.UtilitySafe(p.Order, h)
		require.NoError(t, err)
		out[fmt.Sprintf("M*(%d)", h)] = ms
	}
	for k := 0; k <= 40; k++ {
		e := float64(k) * 0.1
		if n == m {
			rr, err := closedform.RandomizedResponse(n, e)
			require.NoError(t, err)
			out[fmt.Sprintf("RR(%.1f)", e)] = rr
			if e <= closedform.ExtremalLimit(p.Prior) {
				ex, err := closedform.Extremal(p.Prior, e)
				require.NoError(t, err)
				out[fmt.Sprintf("extremal(%.1f)", e)] = ex
			}
		}
		em, err := closedform.Exponential(p.Utility, e, closedform.Sensitivity(p.Utility))
		require.NoError(t, err)
		out[fmt.Sprintf("exponential(%.1f)", e)] = em
	}
	return out
}

// method is one way to run Solve.
type method struct {
	name string
	opt  pmlopt.Options
}

// methods lists the ways Solve can be run on an expected-utility problem:
// the default (package ipm for ε-PML), and every LP backend both finishing
// ipm's solve and on the full LP.
func methods() []method {
	out := []method{{"default", pmlopt.Options{}}}
	for _, name := range solver.Names() {
		s, _ := solver.Get(name)
		out = append(out, method{name, pmlopt.Options{Solver: s}}, method{name + " full LP", pmlopt.Options{Solver: s, FullLP: true}})
	}
	return out
}

// checkStructured checks what each method reports for expected utility:
// by default package ipm's answer (ε-PML: the vertex of its point's face;
// LIP, ALIP, LDP: SolveRatio's point), with a backend that backend's
// vertex (ε-PML: on ipm's support; the others: of the whole LP), each with
// ipm's certified bound at most 1e-9 from the value; the full LP asked for
// reports the bound of its duals for ε-PML, and none for the other
// measures.
func checkStructured(t *testing.T, p *problem.Problem, opt pmlopt.Options, sol *pmlopt.Solution) {
	t.Helper()
	if opt.FullLP {
		assert.True(t, sol.FullLP)
		if p.Privacy.Measure != mech.PML {
			assert.True(t, math.IsNaN(sol.ExpectedUtilityBound), "a %s LP reported a bound %g", p.Privacy.Measure, sol.ExpectedUtilityBound)
			return
		}
		// gonum gives duals only when its basis proves them.
		if opt.Solver.Name() != "gonum" {
			require.False(t, math.IsNaN(sol.ExpectedUtilityBound), "the %s LP's duals proved no bound", opt.Solver.Name())
		}
		if !math.IsNaN(sol.ExpectedUtilityBound) {
			scale := math.Max(1, math.Abs(sol.ExpectedUtility))
			assert.GreaterOrEqual(t, sol.ExpectedUtilityBound, sol.ExpectedUtility)
			assert.LessOrEqual(t, sol.ExpectedUtilityBound-sol.ExpectedUtility, 1e-9*scale, "the duals' bound")
		}
		return
	}
	// A backend named solves the whole LIP, ALIP or LDP LP, and for
	// ε-PML the LP on the interior point's support.
	assert.Equal(t, opt.Solver != nil && p.Privacy.Measure != mech.PML, sol.FullLP)
	if opt.Solver == nil {
		assert.Equal(t, "ipm", sol.Solver)
		assert.Zero(t, sol.LPSolves)
	} else {
		assert.Equal(t, opt.Solver.Name(), sol.Solver)
		assert.Positive(t, sol.LPSolves)
	}
	slack := 1e-9 * math.Max(1, math.Abs(sol.ExpectedUtility))
	assert.GreaterOrEqual(t, sol.ExpectedUtilityBound, sol.ExpectedUtility-slack)
	assert.LessOrEqual(t, sol.ExpectedUtilityBound-sol.ExpectedUtility, slack)
}

func TestExpectedUtilityBeatsClosedForms(t *testing.T) {
	files, err := filepath.Glob("testdata/expected-utility*.yaml")
	require.NoError(t, err)
	require.Len(t, files, 4)
	for _, f := range files {
		p, err := pmlopt.LoadProblem(f)
		require.NoError(t, err)
		for _, me := range methods() {
			name := me.name
			sol, err := pmlopt.Solve(context.Background(), p, me.opt)
			require.NoError(t, err, "%s on %s", f, name)
			checkMechanism(t, p, sol)
			checkStructured(t, p, me.opt, sol)
			assert.InDelta(t, p.Utility.ExpectedUtility(p.Prior, sol.Mechanism), sol.ExpectedUtility, 1e-12)
			beaten := 0
			for cf, m := range closedForms(t, p) {
				if _, ok := level(p.Prior, m, *p.Privacy, 0); !ok {
					continue
				}
				beaten++
				assert.GreaterOrEqual(t, sol.ExpectedUtility, p.Utility.ExpectedUtility(p.Prior, m)-1e-9,
					"%s (%s): the optimum is worse than the feasible closed form %s", f, name, cf)
			}
			assert.Positive(t, beaten, "%s: no closed form was feasible, the comparison is empty", f)
		}
	}
}

// TestExpectedUtilityRandomAcrossBackends: every backend, on the support
// and on the full LP, finds the same optimum of random instances under the
// four measures (-short: the first 4 instances of 12).
func TestExpectedUtilityRandomAcrossBackends(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	trials := 12
	if testlong.Short() {
		trials = 4
	}
	for range trials {
		n := 2 + rng.IntN(5)
		pi := make([]float64, n)
		sum := 0.0
		for i := range pi {
			pi[i] = 0.1 + rng.Float64()
			sum += pi[i]
		}
		for i := range pi {
			pi[i] /= sum
		}
		u := make(mech.Utility, n)
		for i := range u {
			u[i] = make([]float64, n)
			for j := range u[i] {
				u[i][j] = math.Round(rng.Float64()*20) - 10
			}
		}
		measures := []mech.Budget{
			{Measure: mech.PML, Epsilon: 0.1 + rng.Float64()},
			{Measure: mech.LDP, Epsilon: 0.1 + 2*rng.Float64()},
			{Measure: mech.LIP, Epsilon: 0.1 + rng.Float64()},
			{Measure: mech.ALIP, EpsilonLower: 0.1 + rng.Float64(), EpsilonUpper: 0.1 + rng.Float64()},
		}
		for _, b := range measures {
			b := b
			p := &problem.Problem{Prior: pi, Utility: u, Order: u.Order(), Privacy: &b, Objective: problem.ExpectedUtility}
			require.NoError(t, p.Validate())
			var first *pmlopt.Solution
			for _, me := range methods() {
				name := me.name
				sol, err := pmlopt.Solve(context.Background(), p, me.opt)
				require.NoError(t, err)
				checkMechanism(t, p, sol)
				checkStructured(t, p, me.opt, sol)
				if first == nil {
					first = sol
					continue
				}
				assert.InDelta(t, first.ExpectedUtility, sol.ExpectedUtility, 1e-7, "%s vs %s on %+v", first.Solver, name, b)
			}
		}
	}
}

// Priors with masses near 1e-3 give outputs of little mass, whose PML rows an
// engine's absolute row tolerance of 1e-9 lets slip: Clp's optimum of this
// 32×32 instance audits 1.6e-8 above the budget (4.5e-6 at 40). Whatever
// the backend, Solve must return a mechanism within 1e-9 of the budget.
func TestExpectedUtilityMeetsBudgetWithTinyMasses(t *testing.T) {
	for _, me := range methods() {
		n := 32
		if me.name != "clp" && me.name != "clp full LP" && me.name != "default" {
			n = 10 // the pure-Go LP backends are slow at 32
		}
		p := tinyMassProblem(n)
		sol, err := pmlopt.Solve(context.Background(), p, me.opt)
		require.NoError(t, err, me.name)
		checkMechanism(t, p, sol)
		checkStructured(t, p, me.opt, sol)
	}
}

func tinyMassProblem(n int) *problem.Problem {
	r := rand.New(rand.NewPCG(2026, uint64(n)))
	pi := randinst.Dirichlet(r, n)
	u := randinst.Utility(r, n, n, 0)
	b := mech.Budget{Measure: mech.PML, Epsilon: 0.5}
	return &problem.Problem{Prior: pi, Utility: u, Order: u.Order(), Privacy: &b, Objective: problem.ExpectedUtility}
}

// sloppy is a backend whose first optimum is the revised backend's with
// every LP value moved by a relative noise (as an engine's row tolerance
// would), and which can fail its first or second solve.
type sloppy struct {
	noise                 float64
	failFirst, failSecond bool
	calls                 int
}

func (s *sloppy) Name() string { return "sloppy" }

func (s *sloppy) Solve(m *lp.Model) (*solver.Solution, error) {
	s.calls++
	if (s.calls == 1 && s.failFirst) || (s.calls == 2 && s.failSecond) {
		return nil, errors.New("engine failure")
	}
	sol, err := solver.Revised().Solve(m)
	if err == nil && s.calls == 1 {
		for c := range sol.X {
			sol.X[c] *= 1 + s.noise*float64((c*7919)%13)/13
		}
	}
	return sol, err
}

// TestExpectedUtilityPolish drives the polish of Solve with a backend whose
// first optimum breaks the budget.
func TestExpectedUtilityPolish(t *testing.T) {
	p := tinyMassProblem(8)
	clean, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{Solver: solver.Revised(), FullLP: true})
	require.NoError(t, err)
	require.Equal(t, 1, clean.LPSolves)
	solve := func(s *sloppy) (*pmlopt.Solution, error) {
		return pmlopt.Solve(context.Background(), p, pmlopt.Options{Solver: s, FullLP: true})
	}

	// Noise of 1e-8: the first optimum passes the audit (1e-7) but not
	// the polish threshold (1e-9); the polished one wins.
	s := &sloppy{noise: 1e-8}
	sol, err := solve(s)
	require.NoError(t, err)
	assert.Equal(t, 2, s.calls)
	assert.Equal(t, 2, sol.LPSolves)
	checkMechanism(t, p, sol)
	assert.InDelta(t, clean.ExpectedUtility, sol.ExpectedUtility, 1e-12)

	// The polish fails: the first optimum stands, with its audited ε.
	s = &sloppy{noise: 1e-8, failSecond: true}
	sol, err = solve(s)
	require.NoError(t, err)
	assert.Equal(t, 2, s.calls)
	assert.Greater(t, sol.Epsilon, p.Privacy.Epsilon+1e-9)
	assert.LessOrEqual(t, sol.Epsilon, p.Privacy.Epsilon+1e-7)
	assert.InDelta(t, leakage.PML(p.Prior, sol.Mechanism), sol.Epsilon, 1e-15)

	// Noise of 1e-5 fails the audit: the polish rescues it, or, when it
	// fails too, the audit's error is returned.
	s = &sloppy{noise: 1e-5}
	sol, err = solve(s)
	require.NoError(t, err)
	checkMechanism(t, p, sol)
	s = &sloppy{noise: 1e-5, failSecond: true}
	_, err = solve(s)
	assert.ErrorContains(t, err, "audit")

	// An engine failure on the first solve is returned as it is.
	s = &sloppy{failFirst: true}
	_, err = solve(s)
	assert.ErrorContains(t, err, "engine failure")
	assert.Equal(t, 1, s.calls)
}

func TestWorstCaseFiles(t *testing.T) {
	for _, c := range []struct {
		file string
		h    int
		eps  float64
	}{
		{"testdata/counting-query.yaml", 6, math.Log(3.5)},            // ε = 1.3: one order above M*(5)
		{"testdata/example1.yaml", 2, math.Log(2)},                    // mechanism (9) of Song & Oechtering (2026)
		{"testdata/example1-large.yaml", 2, -math.Log(0.35 + 0.25)},   // M*(2) is optimal
		{"testdata/circulant-one-low.yaml", 3, -math.Log(0.1 + 0.3)},  // Fig. 2: ε* = ε_S(3) = −log(π_1+π_4)
		{"testdata/circulant-three-low.yaml", 2, 0.40546510810816444}, // Fig. 3 regime: below ε_S(2)
	} {
		p, err := pmlopt.LoadProblem(c.file)
		require.NoError(t, err)
		sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
		require.NoError(t, err, c.file)
		checkMechanism(t, p, sol)
		assert.Equal(t, c.h, sol.WorstCaseOrder, c.file)
		assert.InDelta(t, c.eps, sol.Epsilon, 1e-8, c.file)
		assert.LessOrEqual(t, sol.Epsilon-sol.OptimalEpsilonLower, 2e-9, c.file)
		assert.True(t, math.IsNaN(sol.ExpectedUtilityBound), "%s: a worst-case solve reported an expected-utility bound", c.file)
		// The utility-safe schedule never does better.
		hs, _ := closedform.SafeSchedule(p.Prior, p.Order, p.Privacy.Epsilon)
		assert.GreaterOrEqual(t, sol.WorstCaseOrder, hs, c.file)
	}
}

func TestCurveNeverAboveSafe(t *testing.T) {
	for _, f := range []string{"testdata/counting-query.yaml", "testdata/circulant-one-low.yaml", "testdata/circulant-three-low.yaml"} {
		p, err := pmlopt.LoadProblem(f)
		require.NoError(t, err)
		for _, obj := range []problem.Objective{problem.WorstCaseOrder, problem.WorstCaseValue} {
			if obj == problem.WorstCaseValue && p.Utility == nil {
				continue
			}
			pts, err := pmlopt.Curve(context.Background(), p, obj, pmlopt.Options{})
			require.NoError(t, err)
			require.NotEmpty(t, pts)
			prev := -1.0
			for _, pt := range pts {
				assert.LessOrEqual(t, pt.OptimalEpsilon, pt.SafeEpsilon+1e-9, "%s %s h=%d", f, obj, pt.H)
				assert.GreaterOrEqual(t, pt.OptimalEpsilon, prev-1e-9, "Lemma 1: ε* is non-decreasing")
				prev = pt.OptimalEpsilon
				assert.InDelta(t, leakage.PML(p.Prior, pt.Mechanism), pt.OptimalEpsilon, 1e-9)
			}
		}
	}
}

func TestSolveErrors(t *testing.T) {
	p, err := pmlopt.LoadProblem("testdata/eye-colour.json")
	require.NoError(t, err)
	_, err = pmlopt.Solve(context.Background(), p, pmlopt.Options{})
	assert.ErrorContains(t, err, "privacy")
	q, err := pmlopt.LoadProblem("testdata/expected-utility-ldp.yaml")
	require.NoError(t, err)
	q.Objective = problem.WorstCaseOrder
	_, err = pmlopt.Solve(context.Background(), q, pmlopt.Options{})
	assert.ErrorContains(t, err, "pml")
	q.Objective = ""
	_, err = pmlopt.Solve(context.Background(), q, pmlopt.Options{})
	assert.ErrorIs(t, err, pmlopt.ErrNoObjective)
}

func ExampleSolve() {
	p, err := pmlopt.LoadProblem("testdata/example1.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("worst-case order %d at PML %.6f (log 2 = %.6f)\n", sol.WorstCaseOrder, sol.Epsilon, math.Log(2))
	// Output: worst-case order 2 at PML 0.693147 (log 2 = 0.693147)
}

func ExampleAudit() {
	p, err := pmlopt.LoadProblem("testdata/eye-colour.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := pmlopt.Audit(p, 2, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("LDP %.4f = log 15, lift %.4f = 19/11, Bayes capacity %.2f\n", r.LDP, r.Lift, r.BayesCapacity)
	// Output: LDP 2.7081 = log 15, lift 1.7273 = 19/11, Bayes capacity 1.70
}

// TestExpectedUtilityOnSupport: with a backend, an ε-PML expected-utility
// solve is ipm's point finished by an LP on its support, certified by ipm's
// bound; if that LP fails, the full LP, kept within ipm's bracket; if both
// fail, the pure-Go vertex of ipm's point.
func TestExpectedUtilityOnSupport(t *testing.T) {
	p := tinyMassProblem(8)
	full, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{Solver: solver.Revised(), FullLP: true})
	require.NoError(t, err)

	s := &sloppy{}
	sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{Solver: s})
	require.NoError(t, err)
	assert.Equal(t, 1, s.calls, "one LP, on the support")
	checkMechanism(t, p, sol)
	checkStructured(t, p, pmlopt.Options{Solver: s}, sol)
	assert.InDelta(t, full.ExpectedUtility, sol.ExpectedUtility, 1e-9)

	// The LP on the support fails: the full LP (the second call) is
	// solved, and kept within ipm's certified bracket.
	s = &sloppy{failFirst: true}
	sol, err = pmlopt.Solve(context.Background(), p, pmlopt.Options{Solver: s})
	require.NoError(t, err)
	assert.Equal(t, 2, s.calls)
	assert.Equal(t, "sloppy", sol.Solver)
	assert.InDelta(t, sol.ExpectedUtility, sol.ExpectedUtilityBound, 1e-9)
	assert.InDelta(t, full.ExpectedUtility, sol.ExpectedUtility, 1e-9)

	// Both fail: the pure-Go vertex of ipm's point.
	s = &sloppy{failFirst: true, failSecond: true}
	sol, err = pmlopt.Solve(context.Background(), p, pmlopt.Options{Solver: s})
	require.NoError(t, err)
	assert.Equal(t, 2, s.calls)
	assert.Equal(t, "ipm", sol.Solver)
	checkMechanism(t, p, sol)
	assert.InDelta(t, full.ExpectedUtility, sol.ExpectedUtility, 1e-9)
}

// AuditContext stops on a cancelled context instead of computing the
// maximisations.
func TestAuditContextCancelled(t *testing.T) {
	p, err := pmlopt.LoadProblem("testdata/eye-colour.json")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = pmlopt.AuditContext(ctx, p, 2, 1)
	require.ErrorIs(t, err, context.Canceled)
	_, err = pmlopt.AuditContext(context.Background(), p, 2, 1)
	require.NoError(t, err)
}

// The library scales extreme utilities itself, as the CLI does: the
// issue's ±5e307 LIP problem (the independent mechanism, expected utility
// 0, before) has the closed-form optimum u(1 − 1/e) of the symmetric 2×2
// case, and utilities near 1e-300 are as exact.
func TestSolveScalesExtremeUtilities(t *testing.T) {
	for _, u := range []float64{5e307, 1e26, 1e-300} {
		p := &problem.Problem{Prior: mech.Prior{0.5, 0.5}, Utility: mech.Utility{{u, -u}, {-u, u}},
			Privacy: &mech.Budget{Measure: mech.LIP, Epsilon: 1}, Objective: problem.ExpectedUtility}
		sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
		require.NoError(t, err)
		require.InEpsilon(t, u*(1-math.Exp(-1)), sol.ExpectedUtility, 1e-8, "u = %g", u)
		require.Equal(t, u, p.Utility[0][0], "the caller's problem is not changed")
	}
}
