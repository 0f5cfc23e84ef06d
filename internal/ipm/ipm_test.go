package ipm

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/stretchr/testify/require"
)

// checkResult audits r as the tests of every returned mechanism do: rows
// sum to 1, entries are non-negative, the PML is within rounding of the
// budget, the value is that of the mechanism, and the certificate brackets
// it within the gap.
func checkResult(t *testing.T, p Problem, r *Result) {
	t.Helper()
	p.Prior = normalised(p.Prior) // what Solve works with
	n, m := p.Utility.Dims()
	if got, gm := r.Mechanism.Dims(); got != n || gm != m {
		t.Fatalf("mechanism is %d×%d, want %d×%d", got, gm, n, m)
	}
	for i, row := range r.Mechanism {
		s := 0.0
		for j, v := range row {
			if !(v >= 0) {
				t.Fatalf("p[%d][%d] = %g", i, j, v)
			}
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			t.Fatalf("row %d sums to %.17g", i, s)
		}
	}
	if a := leakage.PML(p.Prior, r.Mechanism); a > p.Epsilon+1e-12 {
		t.Fatalf("PML %.17g exceeds the budget %g", a, p.Epsilon)
	}
	checkCertificate(t, p, r)
}

// checkCertificate checks r's value and bound: the value is that of the
// mechanism, the bound is UpperBound's for Alpha, and it brackets the value
// within the accepted gap.
func checkCertificate(t *testing.T, p Problem, r *Result) {
	t.Helper()
	if v := p.Utility.ExpectedUtility(p.Prior, r.Mechanism); v != r.Value {
		t.Fatalf("Value %.17g, the mechanism's expected utility %.17g", r.Value, v)
	}
	if b := certify.UpperBound(p.Prior, p.Utility, nil, p.Epsilon, r.Alpha); b != r.Bound {
		t.Fatalf("Bound %.17g, UpperBound of Alpha %.17g", r.Bound, b)
	}
	if !(r.Bound >= r.Value) || r.Bound-r.Value > AcceptedGap*math.Max(1, math.Abs(r.Value)) {
		t.Fatalf("certificate [%.17g, %.17g] is not within the gap", r.Value, r.Bound)
	}
}

// lpOptimum solves the expected-utility LP with s.
func lpOptimum(t *testing.T, s solver.Solver, p Problem) float64 {
	t.Helper()
	mod, err := polytope.Build(polytope.Spec{Prior: p.Prior, Utility: p.Utility, Objective: polytope.ExpectedUtility,
		Budget: mech.Budget{Measure: mech.PML, Epsilon: p.Epsilon}})
	if err != nil {
		t.Fatal(err)
	}
	sol, err := s.Solve(mod.LP)
	if err != nil || sol.Status != solver.Optimal {
		t.Fatalf("%s: %v %v", s.Name(), sol, err)
	}
	return sol.Objective
}

// TestSolveMatchesTheLP compares Solve with the LP backends on random
// instances, square and not, across budgets from 0 to beyond −log p_min.
func TestSolveMatchesTheLP(t *testing.T) {
	backends := []solver.Solver{solver.Auto()}
	if s, err := solver.Get("revised"); err == nil && s.Name() != backends[0].Name() {
		backends = append(backends, s)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 40 {
		n, m := 1+rng.IntN(12), 1+rng.IntN(12)
		var pi mech.Prior
		if trial%2 == 0 {
			pi = randinst.Dirichlet(rng, n)
		} else {
			pi = randinst.Prior(rng, n, 0.01)
		}
		levels := 0
		if trial%3 == 0 {
			levels = 3 // ties in the utility
		}
		u := randinst.Utility(rng, n, m, levels)
		eps := []float64{0, 0.01, 0.3, 1, 3, 20}[trial%6]
		p := Problem{Prior: pi, Utility: u, Epsilon: eps}
		r, err := Solve(p, Options{})
		if err != nil {
			t.Fatalf("trial %d (%d×%d, ε = %g): %v", trial, n, m, eps, err)
		}
		checkResult(t, p, r)
		for _, s := range backends {
			if want := lpOptimum(t, s, p); math.Abs(r.Value-want) > 1e-8*math.Max(1, math.Abs(want)) {
				t.Errorf("trial %d (%d×%d, ε = %g): ipm %.15g, %s %.15g", trial, n, m, eps, r.Value, s.Name(), want)
			}
		}
	}
}

// TestSolveBinaryIdentity is a worked example: a uniform binary prior, the
// identity utility and ε = log 1.5. Column 1's PML constraints read
// p11 ≤ 3(1 − p22) and column 2's p22 ≤ 3(1 − p11), so the optimum is
// p11 = p22 = 3/4 with expected utility 3/4.
func TestSolveBinaryIdentity(t *testing.T) {
	p := Problem{Prior: mech.Prior{0.5, 0.5}, Utility: mech.Utility{{1, 0}, {0, 1}}, Epsilon: math.Log(1.5)}
	r, err := Solve(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, p, r)
	want := [][]float64{{0.75, 0.25}, {0.25, 0.75}}
	for i := range want {
		for j := range want[i] {
			if math.Abs(r.Mechanism[i][j]-want[i][j]) > 1e-10 {
				t.Fatalf("mechanism %v, want %v", r.Mechanism, want)
			}
		}
	}
	if math.Abs(r.Value-0.75) > 1e-12 || math.Abs(r.Bound-0.75) > 1e-12 {
		t.Fatalf("value %.17g, bound %.17g, want 0.75", r.Value, r.Bound)
	}
}

// TestSolveLargerInstances checks certificate and audit at sizes where the
// reduced system is ill-conditioned near the end, against Clp or the
// revised backend at 40.
func TestSolveLargerInstances(t *testing.T) {
	for _, n := range []int{40, 96} {
		rng := rand.New(rand.NewPCG(2026, uint64(n)))
		p := Problem{Prior: randinst.Dirichlet(rng, n), Utility: randinst.Utility(rng, n, n, 0), Epsilon: 0.5}
		r, err := Solve(p, Options{})
		if err != nil {
			t.Fatalf("N = %d: %v", n, err)
		}
		checkResult(t, p, r)
		if n == 40 {
			if want := lpOptimum(t, solver.Auto(), p); math.Abs(r.Value-want) > 1e-8 {
				t.Fatalf("N = 40: ipm %.15g, LP %.15g", r.Value, want)
			}
		}
	}
}

// TestSolveZeroBudget: at ε = 0 only independent mechanisms are allowed, and
// the best sends every input to the output of largest mean utility.
func TestSolveZeroBudget(t *testing.T) {
	p := Problem{Prior: mech.Prior{0.2, 0.3, 0.5}, Utility: mech.Utility{{1, 0, 5}, {2, 3, 0}, {0, 1, 1}}, Epsilon: 0}
	r, err := Solve(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, p, r)
	// Column means: 0.8, 1.4, 1.5.
	if math.Abs(r.Value-1.5) > 1e-9 {
		t.Fatalf("value %.17g, want 1.5", r.Value)
	}
}

func TestSolveRejectsBadInput(t *testing.T) {
	good := Problem{Prior: mech.Prior{0.5, 0.5}, Utility: mech.Utility{{1, 0}, {0, 1}}, Epsilon: 1}
	cases := map[string]Problem{
		"negative ε":  {Prior: good.Prior, Utility: good.Utility, Epsilon: -1},
		"NaN ε":       {Prior: good.Prior, Utility: good.Utility, Epsilon: math.NaN()},
		"rows":        {Prior: mech.Prior{1}, Utility: good.Utility, Epsilon: 1},
		"prior":       {Prior: mech.Prior{0.5, 0.6}, Utility: good.Utility, Epsilon: 1},
		"utility NaN": {Prior: good.Prior, Utility: mech.Utility{{1, math.NaN()}, {0, 1}}, Epsilon: 1},
	}
	for name, p := range cases {
		var fe *mech.FieldError
		if _, err := Solve(p, Options{}); !errors.As(err, &fe) {
			t.Errorf("%s: error %v, want a *mech.FieldError", name, err)
		}
	}
	if _, err := Solve(good, Options{Gap: -1}); err == nil {
		t.Error("a negative gap was accepted")
	}
}

// TestSolveCertifies runs Solve on many small instances of every kind the
// other tests draw from (integer utilities with ties, floors on the prior,
// budgets from 0 to 5 nats) and requires a certificate for each: a
// fallback to the LP would be correct but is not expected here.
func TestSolveCertifies(t *testing.T) {
	rng := rand.New(rand.NewPCG(99, 1))
	for trial := range 400 {
		n, m := 1+rng.IntN(9), 1+rng.IntN(9)
		pi := randinst.Prior(rng, n, []float64{0, 0.001, 0.05}[trial%3])
		u := make(mech.Utility, n)
		for i := range u {
			u[i] = make([]float64, m)
			for j := range u[i] {
				u[i][j] = math.Round(rng.Float64()*20) - 10
			}
		}
		p := Problem{Prior: pi, Utility: u, Epsilon: 5 * rng.Float64() * rng.Float64()}
		r, err := Solve(p, Options{})
		if err != nil {
			t.Fatalf("trial %d (%d×%d, ε = %g): %v", trial, n, m, p.Epsilon, err)
		}
		checkResult(t, p, r)
	}
}

// TestSolveZeroBudgetInexactPrior: at ε = 0 with a prior that sums to
// 1 − 1e-16 the optimum is the best column mean, 7.1 here (the first
// version certified 7.0999994833 against a broken bound of 7.0999989351).
func TestSolveZeroBudgetInexactPrior(t *testing.T) {
	p := Problem{Prior: mech.Prior{0.7, 0.2, 0.1}, Utility: mech.Utility{{10, 0, 3}, {0, 10, 2}, {1, 2, 10}}, Epsilon: 0}
	r, err := Solve(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, p, r)
	if math.Abs(r.Value-7.1) > 1e-9 {
		t.Fatalf("value %.17g, want 7.1", r.Value)
	}
}

// TestSolvePriorOffByRounding: NewPrior accepts sums within 1e-9 of 1;
// rows must still sum to 1 and the bound still hold.
func TestSolvePriorOffByRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for trial := range 20 {
		n := 2 + rng.IntN(6)
		pi := randinst.Dirichlet(rng, n)
		for i := range pi {
			pi[i] *= 1 - 9e-10
		}
		p := Problem{Prior: pi, Utility: randinst.Utility(rng, n, n, 0), Epsilon: []float64{0, 0.2, 1}[trial%3]}
		r, err := Solve(p, Options{})
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		checkResult(t, p, r)
	}
}

// A solve whose context has ended stops at once with the context's error,
// for both forms.
func TestSolveStopsOnCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	pi := mech.Prior{0.5, 0.3, 0.2}
	u := mech.Utility{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	_, err := Solve(Problem{Prior: pi, Utility: u, Epsilon: 0.5}, Options{Context: ctx})
	require.ErrorIs(t, err, context.Canceled)
	_, err = SolveRatio(RatioProblem{Prior: pi, Utility: u, Budget: mech.Budget{Measure: mech.LDP, Epsilon: 1}}, Options{Context: ctx})
	require.ErrorIs(t, err, context.Canceled)
	r, err := Solve(Problem{Prior: pi, Utility: u, Epsilon: 0.5}, Options{Context: context.Background()})
	require.NoError(t, err)
	require.NotNil(t, r)
}

// countingContext never ends and counts the calls of Err: Solve checks it
// once per iteration and once after them.
type countingContext struct {
	context.Context
	calls int
}

func (c *countingContext) Err() error {
	c.calls++
	return nil
}

// TestSolveStopsAfterTheBest checks the iterations' stopping rule on a
// Zipf prior with the line loss −|x−y| at 128 letters, where rounding
// makes the iterates diverge after the best point: Solve stops once the
// gap measure has grown five iterations in a row instead of running to
// MaxIter.
func TestSolveStopsAfterTheBest(t *testing.T) {
	f, err := instance.Lookup("abs-zipf")
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.New(128, 2026)
	if err != nil {
		t.Fatal(err)
	}
	ctx := &countingContext{Context: context.Background()}
	r, err := Solve(Problem{Prior: in.Prior, Utility: in.Utility, Epsilon: 1}, Options{Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	// Iterations 0..r.Iterations+5 each check the context, and Solve
	// checks it once more.
	if want := r.Iterations + 7; ctx.calls > want {
		t.Errorf("%d context checks after the best point's iteration %d, want at most %d", ctx.calls, r.Iterations, want)
	}
	if !r.valid() || r.Bound-r.Value > AcceptedGap*math.Max(1, math.Abs(r.Value)) {
		t.Errorf("value %g, bound %g: not a certified point", r.Value, r.Bound)
	}
}

// TestSolvePairsTheLowestBound: on a counting query with a Zipf(1) prior
// at ε = 5 the last iteration steps onto the boundary, where its
// multipliers prove the optimum to 1e-12 while its point falls 1.5e-6
// short; the point before has the best value and a bound 5e-8 away. Each
// bound holds for the whole problem, so Solve pairs the best point with
// the lowest bound and certifies; the bracket must hold the LP optimum.
func TestSolvePairsTheLowestBound(t *testing.T) {
	pi, err := instance.Zipf(101, 1)
	require.NoError(t, err)
	u, err := instance.Counting(101)
	require.NoError(t, err)
	p := Problem{Prior: pi, Utility: u, Epsilon: 5}
	r, err := Solve(p, Options{})
	require.NoError(t, err)
	checkResult(t, p, r)
	opt := lpOptimum(t, solver.Revised(), Problem{Prior: normalised(pi), Utility: u, Epsilon: 5})
	slack := 1e-9 * math.Max(1, math.Abs(opt))
	require.LessOrEqual(t, r.Value, opt+slack)
	require.GreaterOrEqual(t, r.Bound, opt-slack)
}
