package pmlopt_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

func setProblem(r *rand.Rand, n, m int) *problem.Problem {
	pi := make(mech.Prior, n)
	for i := range pi {
		pi[i] = 0.1 + r.Float64()
	}
	mech.Normalise(pi)
	u := make(mech.Utility, n)
	for i := range u {
		u[i] = make([]float64, m)
		for j := range u[i] {
			u[i][j] = math.Round(10 * r.Float64()) // ties on purpose
		}
	}
	return &problem.Problem{Prior: pi, Utility: u, Order: u.Order()}
}

// Expected utility over a set: the point set gives the nominal optimum,
// the simplex the LDP optimum, and random boxes a mechanism within budget
// for every prior of the box with a value below the nominal bound.
func TestSolveOverPriorSetExpected(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(37, 7))
	for trial := range 8 {
		p := setProblem(r, 3+r.IntN(3), 3+r.IntN(3))
		eps := 0.2 + r.Float64()
		p.Objective = problem.ExpectedUtility
		p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: eps}
		nominal, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		q := *p
		q.PriorSet, _ = mech.NewBoxSet(p.Prior, p.Prior, p.Prior)
		got, err := pmlopt.Solve(ctx, &q, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.ExpectedUtility-nominal.ExpectedUtility) > 1e-9 {
			t.Fatalf("trial %d: over {π̂} %.12g, nominal %.12g", trial, got.ExpectedUtility, nominal.ExpectedUtility)
		}
		q.PriorSet = mech.Simplex(p.Prior)
		got, err = pmlopt.Solve(ctx, &q, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		l := *p
		l.Privacy = &mech.Budget{Measure: mech.LDP, Epsilon: eps}
		ldp, err := pmlopt.Solve(ctx, &l, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.ExpectedUtility-ldp.ExpectedUtility) > 1e-9 {
			t.Fatalf("trial %d: over the simplex %.12g, LDP optimum %.12g", trial, got.ExpectedUtility, ldp.ExpectedUtility)
		}
		n := len(p.Prior)
		lo, up := make([]float64, n), make([]float64, n)
		for k := range n {
			lo[k], up[k] = p.Prior[k]*r.Float64(), math.Min(1, p.Prior[k]*(1+r.Float64()))
		}
		q.PriorSet, err = mech.NewBoxSet(p.Prior, lo, up)
		if err != nil {
			t.Fatal(err)
		}
		got, err = pmlopt.Solve(ctx, &q, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if v := leakage.PMLOver(q.PriorSet, got.Mechanism); v > eps+1e-7 || math.Abs(v-got.Epsilon) > 1e-12 {
			t.Fatalf("trial %d: PML over the box %g, reported %g, budget %g", trial, v, got.Epsilon, eps)
		}
		if got.ExpectedUtility > got.ExpectedUtilityBound+1e-9 || got.ExpectedUtility > nominal.ExpectedUtility+1e-9 {
			t.Fatalf("trial %d: robust %g above the nominal optimum %g or bound %g", trial, got.ExpectedUtility, nominal.ExpectedUtility, got.ExpectedUtilityBound)
		}
	}
}

// The worst-case order over a set: the point set gives the nominal answer;
// over a box the mechanism keeps the budget for every prior of the box,
// its order is no better than the nominal one, and the certified lower end
// is below the audited upper end.
func TestSolveOverPriorSetWorstCase(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(37, 8))
	for trial := range 6 {
		p := setProblem(r, 3, 4)
		eps := 0.3 + r.Float64()
		p.Objective = problem.WorstCaseOrder
		p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: eps}
		nominal, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		q := *p
		q.PriorSet, _ = mech.NewL1Set(p.Prior, 0)
		got, err := pmlopt.Solve(ctx, &q, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got.WorstCaseOrder != nominal.WorstCaseOrder || math.Abs(got.Epsilon-nominal.Epsilon) > 1e-6 {
			t.Fatalf("trial %d: over {π̂} h %d at %g, nominal h %d at %g", trial, got.WorstCaseOrder, got.Epsilon, nominal.WorstCaseOrder, nominal.Epsilon)
		}
		q.PriorSet, _ = mech.NewL1Set(p.Prior, 0.3)
		got, err = pmlopt.Solve(ctx, &q, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if v := leakage.PMLOver(q.PriorSet, got.Mechanism); v > eps+1e-7 {
			t.Fatalf("trial %d: PML over the ball %g > %g", trial, v, eps)
		}
		if got.WorstCaseOrder > nominal.WorstCaseOrder || got.EpsilonLower > got.Epsilon+1e-12 {
			t.Fatalf("trial %d: over the ball h %d in [%g, %g], nominal h %d", trial, got.WorstCaseOrder, got.EpsilonLower, got.Epsilon, nominal.WorstCaseOrder)
		}
		if h := p.Order.WorstCaseOrder(got.Mechanism); h != got.WorstCaseOrder {
			t.Fatalf("trial %d: reported h %d, mechanism's %d", trial, got.WorstCaseOrder, h)
		}
	}
}
