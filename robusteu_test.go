package pmlopt_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/stopcount"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/verify"
)

// The expected utility over a box or an L1 ball under PML, LIP and ALIP
// goes to the interior point over the set: its value is the optimum of
// the plain LP with the set's constraints dualised (polytope.BuildRobust,
// solved by the gonum backend, an independent engine), under PML its
// certified bound is that optimum too, verify accepts its certificate,
// and its mechanism keeps the budget at priors drawn from the set.
func TestExpectedOverSetByInteriorPoint(t *testing.T) {
	ctx := context.Background()
	gonum, err := solver.Get("gonum")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(37, 3))
	trials := 10
	if testlong.Short() {
		trials = 4
	}
	byIPM, total := 0, 0
	defer func() {
		// The interior point answers every ε-PML solve of these
		// instances and most LIP and ALIP ones; where its iterations
		// stall short of the gap, the LP does.
		t.Logf("the interior point answered %d of %d solves", byIPM, total)
		if 3*byIPM < 2*total {
			t.Errorf("the interior point answered %d of %d solves", byIPM, total)
		}
	}()
	for trial := range trials {
		n, m := 2+r.IntN(3), 2+r.IntN(3)
		pi := make(mech.Prior, n)
		for i := range pi {
			pi[i] = 0.1 + r.Float64()
		}
		mech.Normalise(pi)
		u := make(mech.Utility, n)
		for i := range u {
			u[i] = make([]float64, m)
			for j := range u[i] {
				u[i][j] = r.Float64()
			}
		}
		set := randomBox(r, pi)
		if trial%2 == 1 {
			set, _ = mech.NewL1Set(pi, 0.05+0.25*r.Float64())
		}
		e := 0.3 + 1.5*r.Float64()
		for _, b := range []mech.Budget{{Measure: mech.PML, Epsilon: e}, {Measure: mech.LIP, Epsilon: e},
			{Measure: mech.ALIP, EpsilonLower: e, EpsilonUpper: 0.3 + r.Float64()}} {
			what := func() string { return string(b.Measure) + map[bool]string{true: " box", false: " ball"}[set.IsBox()] }
			mod, err := polytope.BuildRobust(polytope.Spec{Prior: pi, Budget: b, Objective: polytope.ExpectedUtility, Utility: u}, set)
			if err != nil {
				t.Fatal(err)
			}
			want, err := gonum.Solve(mod.LP)
			if err != nil || want.Status != solver.Optimal {
				t.Fatalf("trial %d %s: dualised LP %v %v", trial, what(), err, want)
			}
			p := &problem.Problem{Prior: pi, Utility: u, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
			sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
			if err != nil {
				t.Fatalf("trial %d %s: %v", trial, what(), err)
			}
			switch {
			case sol.Solver == "ipm":
				byIPM++
			case b.Measure == mech.PML:
				t.Fatalf("trial %d %s: solved by %q, not the interior point over the set", trial, what(), sol.Solver)
			}
			total++
			tol := 1e-7 * math.Max(1, math.Abs(want.Objective))
			if math.Abs(sol.ExpectedUtility-want.Objective) > tol || sol.ExpectedUtilityBound < want.Objective-tol {
				t.Fatalf("trial %d %s: [%.12g, %.12g], dualised LP %.12g", trial, what(), sol.ExpectedUtility, sol.ExpectedUtilityBound, want.Objective)
			}
			if b.Measure == mech.PML && sol.ExpectedUtilityBound > want.Objective+tol {
				t.Fatalf("trial %d %s: bound %.12g above the optimum %.12g", trial, what(), sol.ExpectedUtilityBound, want.Objective)
			}
			// Under LIP and ALIP the interior point's bound has a prior
			// for each output's upper caps and another for its lower caps
			// where one prior for both stays above the optimum.
			if sol.Solver == "ipm" && sol.ExpectedUtilityBound > want.Objective+1e-8*math.Max(1, math.Abs(want.Objective)) {
				t.Fatalf("trial %d %s: bound %.12g above the optimum %.12g", trial, what(), sol.ExpectedUtilityBound, want.Objective)
			}
			mustVerifySolution(t, what(), p, sol)
			withinAtSetPriors(t, fmt.Sprintf("trial %d %s", trial, what()), r, set, sol.Mechanism, b)
		}
	}
}

// A LIP bound over a box proven with two priors per output survives a
// round trip through JSON and verify accepts it; verify refuses it with
// an output's cap weights zero (any R, T ≥ 0 make a proof when they pass:
// the check is not about the solver's values), a lower prior outside the set, the
// bound lowered below the optimum, or the fields under a PML budget.
func TestTwoPriorBoundTampered(t *testing.T) {
	in, set, err := randinst.StudyBox("random", 8)
	if err != nil {
		t.Fatal(err)
	}
	b := mech.Budget{Measure: mech.LIP, Epsilon: 1}
	p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
	sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	u := sol.Certificate.Utility
	if sol.Solver != "ipm" || u == nil || len(u.PriorsLower) == 0 {
		t.Fatalf("solved by %q without a two-prior bound: %+v", sol.Solver, u)
	}
	data, err := json.Marshal(sol.Certificate)
	if err != nil {
		t.Fatal(err)
	}
	var c verify.Certificate
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	mustVerify(t, "read back", p, sol.Mechanism, &c)
	copyUtility := func() verify.Certificate {
		d := c
		v := *c.Utility
		v.Priors, v.PriorsLower, v.CapWeights = clone2(v.Priors), clone2(v.PriorsLower), clone2(v.CapWeights)
		d.Utility = &v
		return d
	}
	// The output whose upper caps' weight is the largest needs it.
	top := 0
	for j, rt := range c.Utility.CapWeights {
		if rt[0] > c.Utility.CapWeights[top][0] {
			top = j
		}
	}
	cases := map[string]func(*verify.Certificate){
		"cap weights zero": func(d *verify.Certificate) { d.Utility.CapWeights[top] = []float64{0, 0} },
		"lower prior outside the set": func(d *verify.Certificate) {
			for i := range d.Utility.PriorsLower[top] {
				d.Utility.PriorsLower[top][i] = 0
			}
			d.Utility.PriorsLower[top][0] = 1
		},
		"bound below the optimum": func(d *verify.Certificate) {
			B := *d.Utility.Bound - 1e-6
			d.Utility.Bound = &B
		},
	}
	for what, tamper := range cases {
		d := copyUtility()
		tamper(&d)
		if hit, bad := failsClaim(p, sol.Mechanism, d, verify.ClaimBound); !hit {
			t.Errorf("%s: accepted (%v)", what, bad)
		}
	}
	d := copyUtility()
	d.Measure = "pml"
	if verify.AllOK(verify.Check(setVerifyProblem(p, sol.Mechanism), d)) {
		t.Error("priors_lower under a pml budget: accepted")
	}
}

func clone2(a [][]float64) [][]float64 {
	out := make([][]float64, len(a))
	for i, v := range a {
		out[i] = append([]float64(nil), v...)
	}
	return out
}

// An ε-PML answer of the interior point over a set whose certified gap
// lies between 1e-9 and the accepted gap of the interior point at one
// prior (1e-8) stands: the random family at 32 letters over the box ends
// at 1.05e-9, where the LP route, 100 times slower, certifies a bound
// 3% above its value. verify checks the bound and the audit over the set.
func TestExpectedOverSetKeepsTheInteriorPointsGap(t *testing.T) {
	in, set, err := randinst.StudyBox("random", 32)
	if err != nil {
		t.Fatal(err)
	}
	b := mech.Budget{Measure: mech.PML, Epsilon: 1}
	p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
	sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustIPMWithinGap(t, "random 32, box", p, sol)
}

// mustIPMWithinGap checks that the interior point answered p with no LP, a
// certified gap within the accepted 1e-8, and a certificate verify
// accepts.
func mustIPMWithinGap(t *testing.T, what string, p *problem.Problem, sol *pmlopt.Solution) {
	t.Helper()
	gap := (sol.ExpectedUtilityBound - sol.ExpectedUtility) / math.Max(1, math.Abs(sol.ExpectedUtility))
	if sol.Solver != "ipm" || sol.LPSolves != 0 || !(gap >= 0 && gap <= 1e-8) {
		t.Fatalf("%s: solved by %q with %d LPs and a certified gap of %.3g", what, sol.Solver, sol.LPSolves, gap)
	}
	mustVerifySolution(t, what, p, sol)
}

// At a zero budget (ε = 0 under PML and LIP, either end 0 under ALIP) a
// mechanism within the budget over the set has all its rows equal, so the
// robust optimum sends every letter to the output of largest mean utility
// under the estimate; at a budget of 1e-12 (or the least positive float)
// that is the optimum to within the accepted gap. Solve answers both with
// that value, no LP, equal rows and a certificate verify accepts, over
// boxes and L1 balls; the LP over the set, every cap tight at once, is
// not needed there.
func TestExpectedOverSetAtZeroBudget(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(41, 7))
	for trial := range 6 {
		n, m := 2+r.IntN(5), 2+r.IntN(5)
		pi, u := randinst.Estimate(r, n, m, 0.02, func() float64 { return math.Round(20*r.Float64()) - 10 })
		want := math.Inf(-1)
		for j := range m {
			mean := 0.0
			for i := range n {
				mean += pi[i] * u[i][j]
			}
			want = math.Max(want, mean)
		}
		set := randomBox(r, pi)
		if trial%2 == 1 {
			set, _ = mech.NewL1Set(pi, 0.05+0.25*r.Float64())
		}
		tiny := []float64{1e-12, 5e-324}[trial%2]
		for _, b := range []mech.Budget{{Measure: mech.PML}, {Measure: mech.LIP},
			{Measure: mech.ALIP, EpsilonUpper: 0.7}, {Measure: mech.ALIP, EpsilonLower: 0.7},
			{Measure: mech.PML, Epsilon: tiny}, {Measure: mech.LIP, Epsilon: tiny},
			{Measure: mech.ALIP, EpsilonLower: tiny, EpsilonUpper: tiny}} {
			what := fmt.Sprintf("trial %d %s %g (%g, %g)", trial, b.Measure, b.Epsilon, b.EpsilonLower, b.EpsilonUpper)
			p := &problem.Problem{Prior: pi, Utility: u, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
			sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			tol := 1e-9 * math.Max(1, math.Abs(want))
			// The bound is proven at the estimate, by an interior point
			// that stops within its accepted gap.
			if math.Abs(sol.ExpectedUtility-want) > tol || sol.ExpectedUtilityBound < want-tol || sol.ExpectedUtilityBound > want+10*tol {
				t.Fatalf("%s: [%.15g, %.15g], want the best column mean %.15g", what, sol.ExpectedUtility, sol.ExpectedUtilityBound, want)
			}
			if sol.LPSolves != 0 {
				t.Errorf("%s: %d LPs, want none", what, sol.LPSolves)
			}
			for i := range n {
				for j := range m {
					if math.Abs(sol.Mechanism[i][j]-sol.Mechanism[0][j]) > 1e-12 {
						t.Fatalf("%s: rows 0 and %d differ at output %d: %v", what, i, j, sol.Mechanism)
					}
				}
			}
			mustVerifySolution(t, what, p, sol)
		}
	}
}

// At budgets of 40 and 699 nats the optimum over a set, even over the
// whole simplex, is within e^−40 of sending every letter to its best
// output, Σ_i π̂_i max_j u_ij; LIP and ALIP ask every used column for
// entries down to e^−ε of its mass, which an LP engine's tolerances round
// to 0. Solve answers each with that value to 1e-9, a mechanism within the
// budget over the set and a certificate verify accepts: the LP's vertex
// over the simplex, with such entries at 0, is mixed into the budget.
func TestExpectedOverSetAtLargeBudgets(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(59, 3))
	for trial := range 3 {
		n, m := 3+r.IntN(3), 3+r.IntN(3)
		pi, u := randinst.Estimate(r, n, m, 0.05, func() float64 { return math.Round(10*r.Float64()) - 10 })
		want := 0.0
		for i := range u {
			want += pi[i] * slices.Max(u[i])
		}
		lo, up := make([]float64, n), make([]float64, n)
		for i := range up {
			up[i] = 1
		}
		simplex, err := mech.NewBoxSet(pi, lo, up)
		if err != nil {
			t.Fatal(err)
		}
		ball, _ := mech.NewL1Set(pi, 2)
		for _, set := range []*mech.PriorSet{simplex, ball, randomBox(r, pi)} {
			for _, b := range []mech.Budget{{Measure: mech.LIP, Epsilon: 40}, {Measure: mech.LIP, Epsilon: 699},
				{Measure: mech.ALIP, EpsilonLower: 699, EpsilonUpper: 699}, {Measure: mech.PML, Epsilon: 699}} {
				what := fmt.Sprintf("trial %d %v over %v", trial, b, set.IsBox())
				p := &problem.Problem{Prior: pi, Utility: u, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
				sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if math.Abs(sol.ExpectedUtility-want) > 1e-9*math.Max(1, math.Abs(want)) {
					t.Fatalf("%s: expected utility %.15g, want %.15g", what, sol.ExpectedUtility, want)
				}
				if level, lower, excess := leakage.LevelOver(set, sol.Mechanism, b); excess > certify.AuditTol {
					t.Fatalf("%s: levels (%g, %g) over the set", what, level, lower)
				}
				mustVerifySolution(t, what, p, sol)
			}
		}
	}
}

// Solve over a set, on a named backend, ends with the context's error
// wherever the context ends among the engines' polls of it, from the
// first to the last of a whole solve, with no poll after: in the optimum
// at the estimate, the LP over the set (TestRobustLPStopsWithTheContext
// ends that one at every point) or the bounds at the set's priors, whose
// solves give no answer then rather than a bound short of its proof.
func TestExpectedOverSetLPStopsWithTheContext(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 1))
	pi, u := randinst.Estimate(r, 14, 14, 0.01, r.Float64)
	set := randomBox(r, pi)
	b := mech.Budget{Measure: mech.LIP, Epsilon: 0.8}
	p := &problem.Problem{Prior: pi, Utility: u, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
	stopsWithTheContext(t, "Solve", func(ctx context.Context, slv *stopcount.Backend) (int, error) {
		// A backend named: the LP route.
		sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{Solver: slv})
		if err != nil {
			return 0, err
		}
		return sol.LPSolves, nil
	})
}

// stopsWithTheContext runs solve on a backend that counts the engines'
// polls of their stop: to the end first, which must take LPs and polls,
// then with the context ended at the first, the middle and the last of
// those polls, where solve must return the context's error with no poll
// after.
func stopsWithTheContext(t *testing.T, what string, solve func(context.Context, *stopcount.Backend) (lps int, err error)) {
	t.Helper()
	run := func(at int64) (int, int64, error) {
		slv, ctx := stopcount.New(at)
		defer slv.Cancel()
		lps, err := solve(ctx, slv)
		return lps, slv.Polls.Load(), err
	}
	lps, polls, err := run(0)
	if err != nil {
		t.Fatal(err)
	}
	if lps == 0 || polls < 3 {
		t.Fatalf("%s: %d LPs polled their stop %d times: the engine does not watch the context", what, lps, polls)
	}
	for _, at := range []int64{1, polls / 2, polls} {
		_, got, err := run(at)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s ended at poll %d of %d returned %v", what, at, polls, err)
		}
		if got != at {
			t.Errorf("%s: the engine polled %d times when the context ended at poll %d", what, got, at)
		}
	}
}

// SolveJoint over a set ends with the context's error wherever the
// context ends among the engines' polls, as Solve does: in the bracket of
// the least ε, the LP over the set or the bounds at the set's priors.
func TestJointOverSetStopsWithTheContext(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 2))
	pi, u := randinst.Estimate(r, 8, 8, 0.01, r.Float64)
	b := mech.Budget{Measure: mech.PML, Epsilon: 2}
	p := &problem.Problem{Prior: pi, Utility: u, Order: u.Order(), PriorSet: randomBox(r, pi), Objective: problem.ExpectedUtility, Privacy: &b}
	stopsWithTheContext(t, "SolveJoint", func(ctx context.Context, slv *stopcount.Backend) (int, error) {
		sol, err := pmlopt.SolveJoint(ctx, p, pmlopt.Floor{Order: 2}, pmlopt.Options{Solver: slv})
		if err != nil {
			return 0, err
		}
		return sol.LPSolves, nil
	})
}

// SolveJoint keeping the weakest worst case (order 1: every pair allowed)
// at 40 nats over the whole simplex: its LP's vertex rounds the entries
// of e^−40 to 0, and the mixture that mends it keeps that pattern, so the
// answer comes within 1e-9 of sending each letter to itself, verified.
func TestJointOverSetAtLargeBudget(t *testing.T) {
	pi := mech.Prior{0.5814269032777774, 0.41857309672222265}
	ball, err := mech.NewL1Set(pi, 2)
	if err != nil {
		t.Fatal(err)
	}
	u := mech.Utility{{0, -1}, {-1, 0}}
	b := mech.Budget{Measure: mech.PML, Epsilon: 40}
	p := &problem.Problem{Prior: pi, Utility: u, Order: u.Order(), PriorSet: ball, Objective: problem.ExpectedUtility, Privacy: &b}
	sol, err := pmlopt.SolveJoint(context.Background(), p, pmlopt.Floor{Order: 1}, pmlopt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(sol.ExpectedUtility) > 1e-9 {
		t.Errorf("expected utility %g, want 0 to 1e-9", sol.ExpectedUtility)
	}
	mustVerifySolution(t, "joint at 40 nats over the simplex", p, &sol.Solution)
}

// Where the interior points' value falls short of the bound their
// multipliers prove (counting query, binomial(7, 0.2) prior, LIP and ALIP
// at 14 nats over the L1 ball of radius 0.5), the LP decides the
// mechanism, and the bound those
// multipliers prove with two priors per output stays in its certificate:
// the bracket closes to the accepted gap around the dualised LP's
// optimum (the LP route's bound at the set's priors alone lies well
// above it), and verify accepts it.
func TestExpectedOverSetLPKeepsTheTwoPriorBound(t *testing.T) {
	pi, u, ball, err := randinst.CountingBinomialBall(8, 0.2, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []mech.Budget{{Measure: mech.LIP, Epsilon: 14}, {Measure: mech.ALIP, EpsilonLower: 14, EpsilonUpper: 14}} {
		mod, err := polytope.BuildRobust(polytope.Spec{Prior: pi, Budget: b, Objective: polytope.ExpectedUtility, Utility: u}, ball)
		if err != nil {
			t.Fatal(err)
		}
		want, err := solver.Revised().Solve(mod.LP)
		if err != nil || want.Status != solver.Optimal {
			t.Fatalf("%v: dualised LP %v %v", b, err, want)
		}
		p := &problem.Problem{Prior: pi, Utility: u, PriorSet: ball, Objective: problem.ExpectedUtility, Privacy: &b}
		sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sol.Solver == "ipm" {
			t.Fatalf("%v: the interior point answered: the test proves nothing", b)
		}
		tol := 1e-8 * math.Max(1, math.Abs(want.Objective))
		if math.Abs(sol.ExpectedUtility-want.Objective) > tol {
			t.Errorf("%v: expected utility %.15g, the dualised LP's %.15g", b, sol.ExpectedUtility, want.Objective)
		}
		if sol.ExpectedUtilityBound < want.Objective-tol || sol.ExpectedUtilityBound > want.Objective+tol {
			t.Errorf("%v: bound %.15g, the dualised LP's optimum %.15g", b, sol.ExpectedUtilityBound, want.Objective)
		}
		if u := sol.Certificate.Utility; u == nil || len(u.PriorsLower) == 0 {
			t.Errorf("%v: no two-prior bound in the certificate", b)
		}
		mustVerifySolution(t, fmt.Sprint(b), p, sol)
	}
}

// The binomial prior's end letters have masses down to 6e-17 at 32 letters and
// 4e-21 at 40, where the interior point's multipliers of their caps are
// read to no digit, and the point's own totals of each output's caps make
// a two-prior bound far above the optimum. With each such output's totals
// chosen again (ipm.TightenBoundTwo), Solve answers LIP over the L1 ball by
// the interior point with no LP and a certified gap within the accepted
// 1e-8, and verify accepts the certificate.
func TestExpectedOverSetBinomialTails(t *testing.T) {
	for _, n := range []int{32, 40} {
		pi, u, set, err := randinst.CountingBinomialBall(n, 0.3, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		b := mech.Budget{Measure: mech.LIP, Epsilon: 1}
		p := &problem.Problem{Prior: pi, Utility: u, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
		sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d letters: value %.12g, bound %.12g, %d LPs", n, sol.ExpectedUtility, sol.ExpectedUtilityBound, sol.LPSolves)
		mustIPMWithinGap(t, fmt.Sprintf("counting-binomial %d, ball", n), p, sol)
	}
}

// Over a box that lets the binomial's tail letters fall to 0, the optimum
// at 7–12 nats puts a few parts in 10⁵ on outputs whose least mass over the
// set is e^−ε times that: an LP holding its rows to 1e-9 absolute could
// break those caps by e^ε·1e-9, and Solve then refused valid input. Solve
// answers each with the optimum of the plain dualised LP, a mechanism
// within the budget over the set and a certificate verify accepts.
func TestExpectedOverSetBinomialTailsAtLargeBudgets(t *testing.T) {
	ctx := context.Background()
	in := familyInstance(t, "counting-binomial", 16, 1)
	set, err := randinst.FactorBox(in.Prior, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []mech.Budget{{Measure: mech.LIP, Epsilon: 8}, {Measure: mech.ALIP, EpsilonLower: 8, EpsilonUpper: 8}, {Measure: mech.PML, Epsilon: 12}} {
		what := fmt.Sprintf("counting-binomial 16, %v", b)
		p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
		sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		mod, err := polytope.BuildRobust(polytope.Spec{Prior: in.Prior, Budget: b, Objective: polytope.ExpectedUtility, Utility: in.Utility}, set)
		if err != nil {
			t.Fatal(err)
		}
		want, err := solver.Revised().Solve(mod.LP)
		if err != nil || want.Status != solver.Optimal {
			t.Fatalf("%s: dualised LP %v %v", what, err, want)
		}
		if math.Abs(sol.ExpectedUtility-want.Objective) > 1e-7 {
			t.Fatalf("%s: Solve %.12g, dualised LP %.12g", what, sol.ExpectedUtility, want.Objective)
		}
		if level, lower, excess := leakage.LevelOver(set, sol.Mechanism, b); excess > certify.AuditTol {
			t.Fatalf("%s: levels (%g, %g) over the set", what, level, lower)
		}
		mustVerifySolution(t, what, p, sol)
		t.Logf("%s: value %.12g, bound %.12g, %d LPs", what, sol.ExpectedUtility, sol.ExpectedUtilityBound, sol.LPSolves)
		// Under LIP and ALIP the LP's own duals, with a prior for the caps
		// and one for the floors of each output, close the bracket. Under
		// PML at 12 nats e^ε magnifies their rounding: they leave it
		// 5e-7 wide, against 1e-4 from the optima at the set's priors.
		width := 1e-9
		if b.Measure == mech.PML {
			width = 1e-5
		}
		if gap := sol.ExpectedUtilityBound - sol.ExpectedUtility; !(gap <= width*math.Max(1, math.Abs(sol.ExpectedUtility))) {
			t.Fatalf("%s: bracket [%.12g, %.12g] open", what, sol.ExpectedUtility, sol.ExpectedUtilityBound)
		}
	}
}

// Where the LP's point can not be mended within 1e-9 of its value (LIP's
// floors of e^−40 of a mass, rounded to 0) or the engine stalls beyond 20
// nats (PML at 25), Solve answers with the mixture or the answer at 20
// nats: within the budget over the set, verified, its bound above its
// value and at most the bracket those cost (counting-binomial, 16 letters,
// box [0, 1.5π̂]; the optimum is the identity's 0 up to 1e-6).
func TestExpectedOverSetBeyondTheEnginesReach(t *testing.T) {
	ctx := context.Background()
	in := familyInstance(t, "counting-binomial", 16, 1)
	set, err := randinst.FactorBox(in.Prior, 0, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []mech.Budget{{Measure: mech.LIP, Epsilon: 40}, {Measure: mech.PML, Epsilon: 25}} {
		what := fmt.Sprintf("counting-binomial 16, %v", b)
		p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
		sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if level, lower, excess := leakage.LevelOver(set, sol.Mechanism, b); excess > certify.AuditTol {
			t.Fatalf("%s: levels (%g, %g) over the set", what, level, lower)
		}
		mustVerifySolution(t, what, p, sol)
		if v, B := sol.ExpectedUtility, sol.ExpectedUtilityBound; !(B >= v) || v < -1e-6 || B > 1e-12 {
			t.Fatalf("%s: value %g, bound %g", what, v, B)
		}
	}
}

func familyInstance(t *testing.T, name string, n int, seed uint64) instance.Instance {
	t.Helper()
	f, err := instance.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.New(n, seed)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// A PML answer over a set that the interior point leaves between 1e-9 and
// its accepted gap above the value (abs-zipf, 12 letters, box [0, 1.5π̂],
// 12 nats) is closed by the LP for one prior per output: the bracket is
// within 1e-9 of max(1, |value|), its ends hold the optimum of the plain
// LP with the set's constraints dualised (polytope.BuildRobust, solved at
// its cost scale), verify accepts the certificate, and the mechanism
// keeps the budget over the set.
func TestExpectedOverSetClosesAnInteriorPointsGap(t *testing.T) {
	in, set, err := randinst.FamilyBox("abs-zipf", 12, 2026, 0, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	b := mech.Budget{Measure: mech.PML, Epsilon: 12}
	p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
	sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mod, err := polytope.BuildRobust(polytope.Spec{Prior: in.Prior, Budget: b, Objective: polytope.ExpectedUtility, Utility: in.Utility}, set)
	if err != nil {
		t.Fatal(err)
	}
	lp, _, err := solver.SolveContext(context.Background(), solver.Revised(), mod.LP, solver.Start{CostScale: mod.CostScale()})
	if err != nil || lp.Status != solver.Optimal {
		t.Fatalf("the dualised LP: %v %+v", err, lp)
	}
	v, B := sol.ExpectedUtility, sol.ExpectedUtilityBound
	if sol.Solver != "ipm" || B-v > 1e-9*math.Max(1, math.Abs(v)) || v > lp.Objective+1e-12 || B < lp.Objective-1e-12 {
		t.Errorf("%s: [%.15g, %.15g], the dualised LP's optimum %.15g", sol.Solver, v, B, lp.Objective)
	}
	if _, _, excess := leakage.LevelOver(set, sol.Mechanism, b); excess > certify.AuditTol {
		t.Errorf("the mechanism breaks the budget over the set by %g", excess)
	}
	if !verify.AllOK(verify.Check(setVerifyProblem(p, sol.Mechanism), *sol.Certificate)) {
		t.Error("verify refuses the certificate")
	}
}

// Under ALIP (0.5, 2) over the study's box, abs-zipf's optimal face at 48
// letters leaves about 8.4(N + M) entries strictly inside their caps,
// which the interior point over the set needs as many directions for:
// Solve answers by it, with no LP, and verify accepts its certificate.
// Where Clp is built in (-tags clp), the optimum of the LP with the set's
// constraints dualised lies within the accepted gap of its value and
// below its bound (the pure-Go engines take minutes on its 6 912
// columns).
func TestExpectedOverSetOnWideFaces(t *testing.T) {
	in, set, err := randinst.StudyBox("abs-zipf", 48)
	if err != nil {
		t.Fatal(err)
	}
	b := mech.Budget{Measure: mech.ALIP, EpsilonLower: 0.5, EpsilonUpper: 2}
	p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
	sol := solveByInteriorPoint(t, "abs-zipf", p)
	scale := math.Max(1, math.Abs(sol.ExpectedUtility))
	clp, err := solver.Get("clp")
	if err != nil {
		t.Logf("no LP to compare with: %v", err)
		return
	}
	mod, err := polytope.BuildRobust(polytope.Spec{Prior: in.Prior, Budget: b, Objective: polytope.ExpectedUtility, Utility: in.Utility}, set)
	if err != nil {
		t.Fatal(err)
	}
	want, err := clp.Solve(mod.LP)
	if err != nil || want.Status != solver.Optimal {
		t.Fatalf("dualised LP: %v %v", err, want.Status)
	}
	if d := want.Objective - sol.ExpectedUtility; d > 1e-8*scale || d < -1e-9*scale || want.Objective > sol.ExpectedUtilityBound+1e-9*scale {
		t.Errorf("the dualised LP's optimum %.15g against the interior point's [%.15g, %.15g]", want.Objective, sol.ExpectedUtility, sol.ExpectedUtilityBound)
	}
}

// On fine at 48 letters (192 outputs) over the box of masses between 0.5
// and 2 times the prior's, under LIP at 1 nat, the lean route's first two
// runs stall short of their tolerance (and so do the cutting planes and
// the dualised route past them): Solve answers with the third lean run,
// no LP, its bracket within 1e-8 of the value, its mechanism within the
// budget at priors drawn from the set, and verify accepts its
// certificate. (The LP over the set takes the pure-Go engines minutes.)
func TestExpectedOverSetAnswersAfterTwoStalledRuns(t *testing.T) {
	if testlong.Short() {
		t.Skip("a few seconds: with the long suites")
	}
	in, set, err := randinst.FamilyBox("fine", 48, 1, 0.5, 2)
	if err != nil {
		t.Fatal(err)
	}
	b := mech.Budget{Measure: mech.LIP, Epsilon: 1}
	p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
	sol := solveByInteriorPoint(t, "fine", p)
	withinAtSetPriors(t, "fine", rand.New(rand.NewPCG(48, 1)), set, sol.Mechanism, b)
}

// On a 14×14 location grid over the 95% Clopper–Pearson box of 12
// clustered check-ins a cell (randinst.ConfidenceGrid), under LIP at 1
// nat, the lean interior point runs past 40 iterations: Solve answers by
// it, no LP, its bracket within 1e-8 of the value, verify's exact check
// accepts its certificate, and the mechanism keeps the budget at priors
// drawn from the box.
func TestExpectedOverSetOnAConfidenceGrid(t *testing.T) {
	if testlong.Short() {
		t.Skip("a few seconds: with the long suites")
	}
	pi, u, set, err := randinst.ConfidenceGrid(14, 12*14*14, 7)
	if err != nil {
		t.Fatal(err)
	}
	b := mech.Budget{Measure: mech.LIP, Epsilon: 1}
	p := &problem.Problem{Prior: pi, Utility: u, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
	sol := solveByInteriorPoint(t, "grid 14×14", p)
	withinAtSetPriors(t, "grid 14×14", rand.New(rand.NewPCG(14, 7)), set, sol.Mechanism, b)
}

// solveByInteriorPoint solves p (an expected utility over a prior set)
// and checks that the interior point over the set answered, with no LP,
// a bracket within the accepted gap of 1e-8 of max(1, |value|), and a
// certificate that verify accepts.
func solveByInteriorPoint(t *testing.T, what string, p *problem.Problem) *pmlopt.Solution {
	t.Helper()
	sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if sol.Solver != "ipm" || sol.LPSolves != 0 {
		t.Errorf("%s: solved by %q with %d LPs, not by the interior point over the set", what, sol.Solver, sol.LPSolves)
	}
	scale := math.Max(1, math.Abs(sol.ExpectedUtility))
	if gap := sol.ExpectedUtilityBound - sol.ExpectedUtility; !(gap >= 0 && gap <= 1e-8*scale) {
		t.Errorf("%s: bracket [%.15g, %.15g]", what, sol.ExpectedUtility, sol.ExpectedUtilityBound)
	}
	mustVerifySolution(t, what, p, sol)
	return sol
}

// withinAtSetPriors audits m at 20 priors drawn from the set with r
// (certify.Audit: its level within b there, and under ALIP its lower
// level within b's lower end).
func withinAtSetPriors(t *testing.T, what string, r *rand.Rand, set *mech.PriorSet, m mech.Mechanism, b mech.Budget) {
	t.Helper()
	for range 20 {
		q := randinst.SetPrior(r, set, nil)
		rep, err := certify.Audit(q, m, b)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		up := b.Epsilon
		if b.Measure == mech.ALIP {
			up = b.EpsilonUpper
			if rep.ALIPLower > b.EpsilonLower+certify.AuditTol {
				t.Fatalf("%s: ALIP lower level %g at a prior of the set", what, rep.ALIPLower)
			}
		}
		if rep.Level > up+certify.AuditTol {
			t.Fatalf("%s: level %g at a prior of the set, budget %+v", what, rep.Level, b)
		}
	}
}
