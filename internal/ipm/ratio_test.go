package ipm

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

// ratioLP solves the expected-utility LP of p with package polytope's
// formulation and the revised backend.
func ratioLP(t *testing.T, p RatioProblem) float64 {
	t.Helper()
	mod, err := polytope.Build(polytope.Spec{Prior: p.Prior, Utility: p.Utility, Objective: polytope.ExpectedUtility, Budget: p.Budget})
	if err != nil {
		t.Fatal(err)
	}
	sol, err := solver.Revised().Solve(mod.LP)
	if err != nil || sol.Status != solver.Optimal {
		t.Fatalf("revised: %v %v", sol, err)
	}
	return sol.Objective
}

// TestSolveRatioMatchesTheLP compares SolveRatio with the LP of package
// polytope on random instances (ties, prior floors, Dirichlet priors) under
// LIP, ALIP and LDP budgets from 0 to 20 nats: the same optimum to 1e-8, an
// audited mechanism, a bound that brackets the LP's optimum.
func TestSolveRatioMatchesTheLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(55, 66))
	for trial := range 210 {
		n, m := 1+rng.IntN(10), 1+rng.IntN(10)
		pi := randinst.Prior(rng, n, []float64{0, 0.001, 0.05}[trial%3])
		if trial%4 == 3 {
			pi = randinst.Dirichlet(rng, n)
		}
		u := randinst.Utility(rng, n, m, []int{0, 3}[trial%2])
		eps := []float64{0, 0.01, 0.5, 2, 5, 10, 20}[trial%7]
		var b mech.Budget
		switch trial % 3 {
		case 0:
			b = mech.Budget{Measure: mech.LIP, Epsilon: eps}
		case 1:
			b = mech.Budget{Measure: mech.ALIP, EpsilonLower: eps, EpsilonUpper: eps * rng.Float64()}
		case 2:
			b = mech.Budget{Measure: mech.LDP, Epsilon: eps}
		}
		p := RatioProblem{Prior: pi, Utility: u, Budget: b}
		r, err := SolveRatio(p, Options{})
		if err != nil {
			t.Fatalf("trial %d (%d×%d, %+v): %v", trial, n, m, b, err)
		}
		// The LP engine is feasible to 1e-9 per row, which at ε_l = 20
		// (lower caps e^{−20} q_j) lets its optimum exceed the true one
		// by about that much: 1e-8 is the comparison's resolution.
		want := ratioLP(t, p)
		tol := 1e-8 * math.Max(1, math.Abs(want))
		if math.Abs(r.Value-want) > tol || r.Bound < want-tol {
			t.Fatalf("trial %d (%+v): [%.12g, %.12g], LP %.12g", trial, b, r.Value, r.Bound, want)
		}
		if !meetsWithin(normalised(pi), r.Mechanism, b, slackAt(b)) || !certify.RowsSumToOne(r.Mechanism) {
			t.Fatalf("trial %d: the mechanism fails the audit", trial)
		}
		// Any multipliers prove a bound, not only the optimal ones.
		alpha := make([]float64, n)
		for i := range alpha {
			alpha[i] = r.Alpha[i] + 0.1*rng.NormFloat64()*pi[i]
		}
		if bd := certify.RatioUpperBound(normalised(pi), u, b, alpha); bd < r.Value {
			t.Fatalf("trial %d: perturbed multipliers prove %.17g below the value %.17g of a mechanism", trial, bd, r.Value)
		}
	}
}

// TestSolveRatioUnusedOutput: the ALIP optimum here leaves an output
// unused; the interior point keeps it at entries of the order of the
// complementarity, whose ratios are noise. Mixed into the budget as they
// are, they cost 0.02 of the value (2.7405 against the LP's 2.7607).
func TestSolveRatioUnusedOutput(t *testing.T) {
	p := RatioProblem{
		Prior:   mech.Prior{0.24729057877914193, 0.11806746526309214, 0.2709958887034204, 0.3636460672543455},
		Utility: mech.Utility{{-4, 6, -5, -3}, {3, 0, -5, 7}, {2, 4, -4, -3}, {6, -7, 5, 2}},
		Budget:  mech.Budget{Measure: mech.ALIP, EpsilonLower: 1.0652982239015112, EpsilonUpper: 0.30600732543805376},
	}
	r, err := SolveRatio(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := ratioLP(t, p); math.Abs(r.Value-want) > 1e-9 {
		t.Fatalf("value %.17g, the LP's %.17g", r.Value, want)
	}
}

// TestRatioVertexMatchesTheLP runs the face LP of ratioVertex (which
// SolveRatio uses only when the iterations stop short of the gap) on the
// certified points of random instances up to 10 nats: its vertex meets the
// budget, and its value is the LP's optimum.
func TestRatioVertexMatchesTheLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(55, 66))
	for trial := range 150 {
		n, m := 1+rng.IntN(10), 1+rng.IntN(10)
		pi := randinst.Prior(rng, n, []float64{0, 0.001, 0.05}[trial%3])
		u := randinst.Utility(rng, n, m, []int{0, 3}[trial%2])
		eps := []float64{0.01, 0.5, 2, 5, 10}[trial%5]
		var b mech.Budget
		switch trial % 3 {
		case 0:
			b = mech.Budget{Measure: mech.LIP, Epsilon: eps}
		case 1:
			b = mech.Budget{Measure: mech.ALIP, EpsilonLower: eps, EpsilonUpper: eps * (0.1 + rng.Float64())}
		case 2:
			b = mech.Budget{Measure: mech.LDP, Epsilon: eps}
		}
		p := RatioProblem{Prior: normalised(pi), Utility: u, Budget: b}
		r, err := SolveRatio(p, Options{})
		if err != nil {
			t.Fatalf("trial %d (%+v): %v", trial, b, err)
		}
		form, _ := p.form()
		v, err := ratioVertex(context.Background(), p, form, r)
		if err != nil {
			t.Fatalf("trial %d (%+v): %v", trial, b, err)
		}
		if !ratioMeets(p.Prior, v.Mechanism, b) || !certify.RowsSumToOne(v.Mechanism) || !(v.Bound >= v.Value) {
			t.Fatalf("trial %d: the vertex fails the audit or its bound", trial)
		}
		if want := ratioLP(t, p); math.Abs(v.Value-want) > 1e-8*math.Max(1, math.Abs(want)) {
			t.Fatalf("trial %d (%+v): vertex %.12g, LP %.12g", trial, b, v.Value, want)
		}
	}
}

// slackAt is the audit's slack for SolveRatio's mechanisms: none, but a
// few units of roundoff at budgets that force identical rows (a ratio
// 1/q_j is 1 only up to the rounding of the prior's sum).
// meetsWithin reports whether P meets b with each level allowed a
// relative slack above its ε.
func meetsWithin(pi mech.Prior, P mech.Mechanism, b mech.Budget, slack float64) bool {
	level, lower, _ := leakage.Level(pi, P, b)
	within := func(a, eps float64) bool { return a <= eps+slack*math.Max(1, eps) }
	if b.Measure == mech.ALIP {
		return within(lower, b.EpsilonLower) && within(level, b.EpsilonUpper)
	}
	return within(level, b.Epsilon)
}

func slackAt(b mech.Budget) float64 {
	if b.Epsilon == 0 && (b.Measure != mech.ALIP || b.EpsilonLower == 0 || b.EpsilonUpper == 0) {
		return auditRounding
	}
	return 0
}

// TestSolveRatioBinomialPrior: a 64-letter counting query with a
// binomial(63, 0.3) prior (masses down to 1e-33) under LIP and LDP. The
// multipliers of the tiny rows are tiny too, but α_i/π_i is not: a
// rounding margin scaled by the largest |α_i/π_i| left LIP's bound 0.56
// (relative) above the value. Each must certify and audit.
func TestSolveRatioBinomialPrior(t *testing.T) {
	n := 64
	pi := make(mech.Prior, n)
	for k := range n {
		lg, _ := math.Lgamma(float64(n))
		a, _ := math.Lgamma(float64(k + 1))
		b, _ := math.Lgamma(float64(n - k))
		pi[k] = math.Exp(lg - a - b + float64(k)*math.Log(0.3) + float64(n-1-k)*math.Log(0.7))
	}
	for _, b := range []mech.Budget{{Measure: mech.LIP, Epsilon: 1}, {Measure: mech.LDP, Epsilon: 1}} {
		r, err := SolveRatio(RatioProblem{Prior: pi, Utility: countingQuery(n), Budget: b}, Options{})
		if err != nil {
			t.Fatalf("%s: %v", b.Measure, err)
		}
		if !ratioMeets(normalised(pi), r.Mechanism, b) || !certify.RowsSumToOne(r.Mechanism) {
			t.Fatalf("%s: the mechanism fails the audit", b.Measure)
		}
	}
}

// TestSolveRatioRejectsBadOptions: SolveRatio takes Options as Solve does,
// and refuses a gap that is not a positive number rather than running to
// an answer it could never accept.
func TestSolveRatioRejectsBadOptions(t *testing.T) {
	p := RatioProblem{Prior: mech.Prior{0.5, 0.5}, Utility: mech.Utility{{1, 0}, {0, 1}},
		Budget: mech.Budget{Measure: mech.LDP, Epsilon: 1}}
	for _, opt := range []Options{{Gap: -1}, {Gap: math.NaN()}, {Gap: math.Inf(1)}, {MaxIter: -1}} {
		if r, err := SolveRatio(p, opt); err == nil || errors.Is(err, ErrNotConverged) {
			t.Errorf("%+v: result %v, error %v; want the options refused", opt, r, err)
		}
		if r, err := Solve(Problem{Prior: p.Prior, Utility: p.Utility, Epsilon: 1}, opt); err == nil || errors.Is(err, ErrNotConverged) {
			t.Errorf("Solve %+v: result %v, error %v; want the options refused", opt, r, err)
		}
	}
}
