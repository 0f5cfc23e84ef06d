package overset

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/stopcount"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

func cutOptimum(t *testing.T, s polytope.Spec, set *mech.PriorSet) *cutResult {
	t.Helper()
	r, err := solveCuts(context.Background(), s, set, solver.Revised())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// robustInstance draws an estimate (masses 0.05 to 1.05, normalised) and
// a utility of independent uniform entries.
func robustInstance(r *rand.Rand, n, m int) (mech.Prior, mech.Utility) {
	return randinst.Estimate(r, n, m, 0.05, r.Float64)
}

// randomSet draws a box around pi, each letter's mass between U and
// 1 + 2U' times the estimate's (at most 1), or an L1 ball of radius up
// to 0.6.
func randomSet(t *testing.T, r *rand.Rand, pi mech.Prior, box bool) *mech.PriorSet {
	t.Helper()
	n := len(pi)
	var set *mech.PriorSet
	var err error
	if box {
		lo, up := make([]float64, n), make([]float64, n)
		for k := range n {
			lo[k] = pi[k] * r.Float64()
			up[k] = math.Min(1, pi[k]*(1+2*r.Float64()))
		}
		set, err = mech.NewBoxSet(pi, lo, up)
	} else {
		set, err = mech.NewL1Set(pi, 0.6*r.Float64())
	}
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// budgets draws one budget of each measure whose level depends on the
// prior.
func budgets(r *rand.Rand) []mech.Budget {
	e := 0.1 + r.Float64()
	return []mech.Budget{
		{Measure: mech.PML, Epsilon: e},
		{Measure: mech.LIP, Epsilon: e},
		{Measure: mech.ALIP, EpsilonLower: e, EpsilonUpper: 0.1 + r.Float64()},
	}
}

// robustOptimum solves BuildRobust's dualised model, the formulation the
// cutting planes do without, and returns its optimum and mechanism.
func robustOptimum(t *testing.T, s polytope.Spec, set *mech.PriorSet) (float64, mech.Mechanism) {
	t.Helper()
	r, err := solveDualised(context.Background(), s, set, solver.Revised(), &cutResult{})
	if err != nil || r.Status != solver.Optimal {
		t.Fatalf("dualised model: %v %+v", err, r)
	}
	return r.Objective, r.Mechanism
}

// pointOptimum solves the LP at the estimate alone.
func pointOptimum(t *testing.T, s polytope.Spec) float64 {
	t.Helper()
	mod, err := polytope.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := solver.Revised().Solve(mod.LP)
	if err != nil || sol.Status != solver.Optimal {
		t.Fatalf("LP at the estimate: %v %+v", err, sol)
	}
	return sol.Objective
}

// auditOver checks that p's rows sum to 1 and that it keeps b for every
// prior of the set.
func auditOver(t *testing.T, set *mech.PriorSet, p mech.Mechanism, b mech.Budget) {
	t.Helper()
	if !certify.RowsSumToOne(p) {
		t.Fatalf("rows of %v do not sum to 1", p)
	}
	if level, lower, excess := leakage.LevelOver(set, p, b); excess > 1e-6 {
		t.Fatalf("%v over the set: levels %g, %g", b, level, lower)
	}
}

// On random boxes and balls the cutting planes reach the optimum of the
// dualised model (BuildRobust, an independent formulation) for every
// measure, and their mechanism keeps the budget for every prior of the
// set.
func TestRobustCutsAgainstDualised(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 11))
	for trial := range 40 {
		n, m := 2+r.IntN(5), 2+r.IntN(5)
		pi, u := robustInstance(r, n, m)
		set := randomSet(t, r, pi, trial%2 == 0)
		for _, b := range budgets(r) {
			s := polytope.Spec{Prior: pi, Budget: b, Objective: polytope.ExpectedUtility, Utility: u}
			want, _ := robustOptimum(t, s, set)
			got := cutOptimum(t, s, set)
			if got.Status != solver.Optimal || !got.Converged {
				t.Fatalf("trial %d %v: status %v, converged %v", trial, b, got.Status, got.Converged)
			}
			if math.Abs(got.Objective-want) > 1e-7 {
				t.Fatalf("trial %d %v (box %v): cuts %.12g, dualised %.12g", trial, b, set.IsBox(), got.Objective, want)
			}
			auditOver(t, set, got.Mechanism, b)
			if v := utility(pi, u, got.Mechanism); math.Abs(v-want) > 1e-6 {
				t.Fatalf("trial %d %v: the mechanism's utility %.12g, the optimum %.12g", trial, b, v, want)
			}
		}
	}
}

// The same on the instance families at 8 letters, a box of ±20% around
// the prior and an L1 ball of radius 0.1: structured utilities with ties,
// where the worst priors of a column are not unique.
func TestRobustCutsOnFamilies(t *testing.T) {
	if testlong.Short() {
		t.Skip("12 families, 6 robust LPs each: a few seconds")
	}
	for _, f := range instance.Families() {
		in, err := f.New(8, 1)
		if err != nil {
			t.Fatal(err)
		}
		box, err := randinst.FactorBox(in.Prior, 0.8, 1.25)
		if err != nil {
			t.Fatal(err)
		}
		ball, _ := mech.NewL1Set(in.Prior, 0.1)
		for _, set := range []*mech.PriorSet{box, ball} {
			for _, b := range []mech.Budget{{Measure: mech.PML, Epsilon: 1}, {Measure: mech.LIP, Epsilon: 1},
				{Measure: mech.ALIP, EpsilonLower: 0.5, EpsilonUpper: 1}} {
				s := polytope.Spec{Prior: in.Prior, Budget: b, Objective: polytope.ExpectedUtility, Utility: in.Utility}
				want, _ := robustOptimum(t, s, set)
				got := cutOptimum(t, s, set)
				if got.Status != solver.Optimal || math.Abs(got.Objective-want) > 1e-7*math.Max(1, math.Abs(want)) {
					t.Fatalf("%s %v (box %v): cuts %v %.12g, dualised %.12g", f.Name, b, set.IsBox(), got.Status, got.Objective, want)
				}
				auditOver(t, set, got.Mechanism, b)
			}
		}
	}
}

// For a zero pattern the cutting planes find a mechanism exactly when the
// dualised model does, and it keeps the pattern and the budget over the
// set.
func TestRobustCutsFeasibility(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 12))
	for trial := range 40 {
		n, m := 3, 3
		pi, u := robustInstance(r, n, m)
		pat := u.Order().Pattern(2)
		set := randomSet(t, r, pi, trial%2 == 0)
		for _, b := range []mech.Budget{{Measure: mech.PML, Epsilon: 0.3 + 2*r.Float64()}, {Measure: mech.LIP, Epsilon: 0.5 + 2*r.Float64()}} {
			s := polytope.Spec{Prior: pi, Budget: b, Pattern: pat}
			mod, err := polytope.BuildRobust(s, set)
			if err != nil {
				t.Fatal(err)
			}
			want, err := solver.Revised().Solve(mod.LP)
			if err != nil {
				t.Fatal(err)
			}
			got := cutOptimum(t, s, set)
			if got.Status != want.Status {
				t.Fatalf("trial %d %v: cuts %v, dualised %v", trial, b, got.Status, want.Status)
			}
			if got.Status != solver.Optimal {
				continue
			}
			if !pat.Holds(got.Mechanism) {
				t.Fatalf("trial %d: pattern broken: %v", trial, got.Mechanism)
			}
			auditOver(t, set, got.Mechanism, b)
		}
	}
}

// The two limits: a set holding only the estimate gives the nominal
// optimum, the whole simplex the LDP optimum.
func TestRobustCutsLimits(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 13))
	for trial := range 20 {
		n, m := 2+r.IntN(4), 2+r.IntN(4)
		pi, u := robustInstance(r, n, m)
		point, _ := mech.NewBoxSet(pi, pi, pi)
		ball2, _ := mech.NewL1Set(pi, 2)
		for _, b := range budgets(r) {
			s := polytope.Spec{Prior: pi, Budget: b, Objective: polytope.ExpectedUtility, Utility: u}
			if got, want := cutOptimum(t, s, point), pointOptimum(t, s); math.Abs(got.Objective-want) > 1e-9 || got.LPs != 1 {
				t.Fatalf("trial %d %v at {π̂}: cuts %.12g in %d LPs, nominal %.12g", trial, b, got.Objective, got.LPs, want)
			}
			if b.Measure == mech.ALIP {
				continue
			}
			ldp := pointOptimum(t, polytope.Spec{Prior: pi, Budget: mech.Budget{Measure: mech.LDP, Epsilon: b.Epsilon}, Objective: polytope.ExpectedUtility, Utility: u})
			for _, set := range []*mech.PriorSet{mech.Simplex(pi), ball2} {
				if got := cutOptimum(t, s, set); math.Abs(got.Objective-ldp) > 1e-8 {
					t.Fatalf("trial %d %v over the simplex (box %v): cuts %.12g, LDP optimum %.12g", trial, b, set.IsBox(), got.Objective, ldp)
				}
			}
		}
	}
}

func utility(pi mech.Prior, u mech.Utility, p mech.Mechanism) float64 {
	v := 0.0
	for i := range p {
		for j := range p[i] {
			v += pi[i] * u[i][j] * p[i][j]
		}
	}
	return v
}

// The cutting planes started from a point (Spec.Start) reach the dualised
// optimum whatever the point: the optimum itself, a diagonal mechanism,
// every mass on one output, a random sparse one. Started from the optimum
// they need fewer LPs in all than without a start: its worst priors are
// the cuts the rounds would find.
func TestRobustCutsFromStart(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 5))
	lpsFrom, lpsCold := 0, 0
	for trial := range 20 {
		n, m := 3+r.IntN(5), 3+r.IntN(5)
		pi, u := robustInstance(r, n, m)
		set := randomSet(t, r, pi, trial%2 == 1)
		for _, b := range budgets(r) {
			s := polytope.Spec{Prior: pi, Budget: b, Objective: polytope.ExpectedUtility, Utility: u}
			want, opt := robustOptimum(t, s, set)
			lpsCold += cutOptimum(t, s, set).LPs
			diag, first, sparse := mech.Zeros(n, m), mech.Zeros(n, m), mech.Zeros(n, m)
			for i := range n {
				diag[i][i%m], first[i][0] = 1, 1
				sparse[i][r.IntN(m)] = 0.5
				sparse[i][r.IntN(m)] += 0.5
			}
			for name, start := range map[string]mech.Mechanism{"optimum": opt, "diagonal": diag, "first output": first, "random": sparse} {
				s.Start = start
				got := cutOptimum(t, s, set)
				if got.Status != solver.Optimal || math.Abs(got.Objective-want) > 1e-7*math.Max(1, math.Abs(want)) {
					t.Fatalf("trial %d %v, start %s: %v %.12g, dualised %.12g", trial, b, name, got.Status, got.Objective, want)
				}
				auditOver(t, set, got.Mechanism, b)
				if name == "optimum" {
					lpsFrom += got.LPs
				}
			}
		}
	}
	if lpsFrom >= lpsCold {
		t.Fatalf("LPs from the optimum's priors %d, without a start %d", lpsFrom, lpsCold)
	}
	t.Logf("LPs from the optimum's priors %d, without a start %d", lpsFrom, lpsCold)
}

// stallingRevised is the revised backend whose sessions answer Limit to
// every Solve that has an iteration limit: a round after the first
// stalling on degenerate vertices.
type stallingRevised struct{ solver.Solver }

func (stallingRevised) Load(m *lp.Model) (solver.Session, error) {
	s, err := solver.Revised().(solver.WarmSolver).Load(m)
	return &stallingSession{Session: s}, err
}

type stallingSession struct {
	solver.Session
	limited bool
}

func (s *stallingSession) SetIterationLimit(n int) { s.limited = n > 0 }

func (s *stallingSession) Solve() (*solver.Solution, error) {
	if s.limited {
		return &solver.Solution{Status: solver.Limit}, nil
	}
	return s.Session.Solve()
}

// A round after the first that reaches its iteration limit hands the
// problem to the dualised model, which answers with the robust optimum;
// the stalled round and the dualised LP are both counted.
func TestRobustCutsStalledRound(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 9))
	slv := stallingRevised{solver.Revised()}
	tried := 0
	for trial := 0; trial < 200 && tried < 5; trial++ {
		n, m := 3+r.IntN(5), 3+r.IntN(5)
		pi, u := robustInstance(r, n, m)
		set := randomSet(t, r, pi, trial%2 == 0)
		s := polytope.Spec{Prior: pi, Budget: mech.Budget{Measure: mech.LIP, Epsilon: 0.2 + r.Float64()}, Objective: polytope.ExpectedUtility, Utility: u}
		if cutOptimum(t, s, set).LPs < 2 {
			continue // answered in one round: no round with a limit
		}
		tried++
		want, _ := robustOptimum(t, s, set)
		got, err := solveCuts(context.Background(), s, set, slv)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Dualised || got.LPs != 3 || got.Status != solver.Optimal || math.Abs(got.Objective-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Fatalf("trial %d: dualised %v, %d LPs, %v %.12g, want the dualised model's %.12g after 3 LPs", trial, got.Dualised, got.LPs, got.Status, got.Objective, want)
		}
	}
	if tried == 0 {
		t.Fatal("no problem took two rounds")
	}
}

// The cutting planes and the dualised model hand the caller's context to
// the engine: a context ended at any of the simplex's polls of it ends
// solveCuts at that poll, with the context's error.
func TestRobustCutsStopWithTheContext(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 2))
	pi, u := robustInstance(r, 12, 12)
	for _, set := range []*mech.PriorSet{randomSet(t, r, pi, true), randomSet(t, r, pi, false)} {
		for _, b := range []mech.Budget{{Measure: mech.LIP, Epsilon: 0.7}, {Measure: mech.LDP, Epsilon: 0.7}} {
			s := polytope.Spec{Prior: pi, Budget: b, Objective: polytope.ExpectedUtility, Utility: u}
			slv, ctx := stopcount.New(0)
			whole, err := solveCuts(ctx, s, set, slv)
			if err != nil || whole.Status != solver.Optimal {
				t.Fatalf("%v: %v, %v", b, whole, err)
			}
			polls := slv.Polls.Load()
			if polls < 2 {
				t.Fatalf("%v: %d LPs polled their stop %d times: the engine does not watch the context", b, whole.LPs, polls)
			}
			for _, at := range []int64{1, polls / 2, polls} {
				slv, ctx := stopcount.New(at)
				r, err := solveCuts(ctx, s, set, slv)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("%v: ended at poll %d of %d: %v, %v", b, at, polls, r, err)
				}
				if got := slv.Polls.Load(); got != at {
					t.Errorf("%v: the engine polled %d times when the context ended at poll %d", b, got, at)
				}
			}
		}
	}
}
