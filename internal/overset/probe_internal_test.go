package overset

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/stopcount"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// The loaded model re-solved at each ε answers as the model built afresh
// at that ε: on random boxes and balls and the patterns of a random order,
// the probes of a search in both directions agree with solveLP away
// from the least ε (found by bisection from scratch), and every mechanism
// keeps the budget over the set.
func TestRobustProberAgreesWithFreshLP(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 31))
	slv := solver.Revised()
	tested := 0
	for trial := range 12 {
		n := 3 + r.IntN(4)
		pi, u, set := randomSetProblem(r, n, trial%2 == 0)
		pat := u.Order().Pattern(2 + r.IntN(n-1))
		failed := false
		fresh := func(e float64) mech.Mechanism {
			m, _, _, err := solveLP(context.Background(), mechSpec(pi, pat, e), set, slv)
			failed = failed || err != nil // a point that fails the audit: no reference
			return m
		}
		lo, hi := 0.0, 8.0
		if fresh(hi) == nil {
			continue // no mechanism with this pattern over the set
		}
		for range 40 {
			if mid := (lo + hi) / 2; fresh(mid) != nil {
				hi = mid
			} else {
				lo = mid
			}
		}
		if failed {
			continue
		}
		tested++
		rp := &prober{ctx: context.Background(), prior: pi, pat: pat, set: set, slv: slv}
		for _, d := range []float64{2, 0.5, -0.5, 0.1, -0.1, 0.01, -0.01, 1, -0.3, 0.002, -0.002, 3} {
			e := hi + d
			if e < 0 {
				continue
			}
			m, _, err := rp.probe(e)
			if err != nil {
				t.Fatal(err)
			}
			if (m != nil) != (d > 0) {
				t.Fatalf("trial %d: least ε %.9g, the loaded model at %.9g says feasible %v", trial, hi, e, m != nil)
			}
			if m != nil && leakage.PMLOver(set, m) > e+1e-7 {
				t.Fatalf("trial %d: PML over the set %g above %g", trial, leakage.PMLOver(set, m), e)
			}
		}
		rp.close()
	}
	if tested < 6 {
		t.Fatalf("only %d of 12 trials had a reference", tested)
	}
}

// randomSetProblem draws a prior of n letters (masses 0.05 to 1.05,
// normalised), a utility of independent uniform entries, and a box around
// the prior (each letter from 0.5–1 to 1–2 times its mass) or an L1 ball
// of radius up to 0.3.
func randomSetProblem(r *rand.Rand, n int, box bool) (mech.Prior, mech.Utility, *mech.PriorSet) {
	pi, u := randinst.Estimate(r, n, n, 0.05, r.Float64)
	if !box {
		set, _ := mech.NewL1Set(pi, 0.3*r.Float64())
		return pi, u, set
	}
	lo, up := make([]float64, n), make([]float64, n)
	for k := range n {
		lo[k], up[k] = pi[k]*(0.5+0.5*r.Float64()), math.Min(1, pi[k]*(1+r.Float64()))
	}
	set, _ := mech.NewBoxSet(pi, lo, up)
	return pi, u, set
}

// The routes solveLPFrom chooses between reach the same robust
// expected utility: the cutting planes (LIP, a ball, a start) and
// BuildRobust's model (dualise), on random boxes and balls under PML and
// LIP, with and without a start.
func TestRobustLPRoutesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 7))
	slv := solver.Revised()
	for trial := range 16 {
		pi, u, set := randomSetProblem(r, 3+r.IntN(4), trial%2 == 0)
		b := mech.Budget{Measure: mech.PML, Epsilon: 0.2 + r.Float64()}
		if trial%4 >= 2 {
			b = mech.Budget{Measure: mech.LIP, Epsilon: 0.2 + r.Float64()}
		}
		s := polytope.Spec{Prior: pi, Budget: b, Objective: polytope.ExpectedUtility, Utility: u}
		dual, _, _, err := solveLPFrom(context.Background(), s, set, slv, true)
		if err != nil || dual == nil {
			t.Fatalf("trial %d, dualised: %v", trial, err)
		}
		want := u.ExpectedUtility(pi, dual)
		s.Start = dual
		for _, dualise := range []bool{false, true} {
			m, _, _, err := solveLPFrom(context.Background(), s, set, slv, dualise)
			if err != nil || m == nil {
				t.Fatalf("trial %d, dualise %v: %v", trial, dualise, err)
			}
			if got := u.ExpectedUtility(pi, m); math.Abs(got-want) > 1e-8*math.Max(1, math.Abs(want)) {
				t.Fatalf("trial %d %v, dualise %v: %.12g against the dualised model's %.12g", trial, b, dualise, got, want)
			}
		}
	}
}

// Both routes of the LP over a set (the cutting planes, BuildRobust's
// model) hand the caller's context to the engine: a context ended at any
// of the simplex's polls of it, from the first to the last of a whole
// solve, ends solveLPFrom there with the context's error and no
// poll after.
func TestRobustLPStopsWithTheContext(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 1))
	pi, u, set := randomSetProblem(r, 10, true)
	s := polytope.Spec{Prior: pi, Budget: mech.Budget{Measure: mech.LIP, Epsilon: 0.8}, Objective: polytope.ExpectedUtility, Utility: u}
	for _, dualise := range []bool{false, true} {
		slv, ctx := stopcount.New(0)
		m, _, _, err := solveLPFrom(ctx, s, set, slv, dualise)
		if err != nil || m == nil {
			t.Fatalf("dualise %v: %v", dualise, err)
		}
		polls := slv.Polls.Load()
		if polls < 3 {
			t.Fatalf("dualise %v: the engine polled its stop %d times in a whole solve", dualise, polls)
		}
		for _, at := range []int64{1, polls / 2, polls} {
			slv, ctx := stopcount.New(at)
			if _, _, _, err := solveLPFrom(ctx, s, set, slv, dualise); !errors.Is(err, context.Canceled) {
				t.Fatalf("dualise %v, ended at poll %d of %d: %v", dualise, at, polls, err)
			}
			if got := slv.Polls.Load(); got != at {
				t.Errorf("dualise %v: %d polls when the context ended at poll %d", dualise, got, at)
			}
		}
	}
}

// The notice before a worst-case search goes to the LP over the set says
// why at every size: past the master's letters, that it does not serve
// them; below, that its master did not settle.
func TestLPNoteSaysWhy(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{
		{100, "the column generation over the prior set did not settle: deciding the worst case by the 100×101 LP over the set with revised, which can take long"},
		{robustColumnsMaxLetters + 1, "the column generation over the prior set serves up to 512 letters: deciding the worst case by the 513×101 LP over the set with revised, which can take long"},
	} {
		if got := lpNote(c.n, 101, "revised", "deciding the worst case"); got != c.want {
			t.Errorf("%d letters: %q, want %q", c.n, got, c.want)
		}
	}
}

// TestNewMasterFoldsWhereTheGroupKeepsTheSet: the grid family's uniform
// prior over a box of the same factors around every mass, or over an L1
// ball, folds the robust master by the grid's reflections, and buckets
// of a line by the line's reflection; a confidence box from counts
// (bounds the reflections move), a clustered prior, or a counting query
// (whose ties the reflection breaks) does not.
func TestNewMasterFoldsWhereTheGroupKeepsTheSet(t *testing.T) {
	folds := func(pi mech.Prior, u mech.Utility, set *mech.PriorSet) bool {
		t.Helper()
		p := &problem.Problem{Prior: pi, Utility: u, PriorSet: set, Objective: problem.WorstCaseValue}
		pat := u.Pattern(u.ReachableValues()[len(u.ReachableValues())/2])
		g, err := newMaster(p, pat)
		if err != nil {
			t.Fatal(err)
		}
		return g.Rows() < len(pi)
	}
	in, box, err := randinst.FamilyBox("grid", 36, 2026, 0.8, 1.25)
	if err != nil {
		t.Fatal(err)
	}
	if !folds(in.Prior, in.Utility, box) {
		t.Error("the uniform 6×6 grid over a box of factors: not folded")
	}
	ball, err := mech.NewL1Set(in.Prior, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if !folds(in.Prior, in.Utility, ball) {
		t.Error("the uniform 6×6 grid over an L1 ball: not folded")
	}
	pi, u, conf, err := randinst.ConfidenceGrid(6, 72, 3)
	if err != nil {
		t.Fatal(err)
	}
	if folds(pi, u, conf) {
		t.Error("a clustered grid over its confidence box: folded")
	}
	flat := make(mech.Prior, 36)
	for i := range flat {
		flat[i] = 1.0 / 36
	}
	lop := make([]float64, 36)
	for i := range lop {
		lop[i] = 0.8 / 36
	}
	lop[0] = 0.5 / 36 // a corner may take less than the others
	skew, err := mech.NewBoxSet(flat, lop, box.Upper)
	if err != nil {
		t.Fatal(err)
	}
	if folds(flat, u, skew) {
		t.Error("the uniform grid over a box of uneven lower bounds: folded")
	}
	cnt, cset, err := randinst.FamilyBox("counting-uniform", 36, 2026, 0.8, 1.25)
	if err != nil {
		t.Fatal(err)
	}
	if folds(cnt.Prior, cnt.Utility, cset) {
		t.Error("a counting query (its ties broken towards the left): folded")
	}
	// Two opposite corners that may take less than the rest: the grid's
	// reflections move those bounds, its half-turn (the line's reflection
	// of the cells' numbers) keeps them and pairs the cells.
	lop[35] = lop[0]
	turned, err := mech.NewBoxSet(flat, lop, box.Upper)
	if err != nil {
		t.Fatal(err)
	}
	tp := &problem.Problem{Prior: flat, Utility: u, PriorSet: turned, Objective: problem.WorstCaseValue}
	tg, err := newMaster(tp, u.Pattern(u.ReachableValues()[len(u.ReachableValues())/2]))
	if err != nil {
		t.Fatal(err)
	}
	if tg.Rows() != 18 {
		t.Errorf("the uniform grid over a box the half-turn keeps: %d rows, want 18", tg.Rows())
	}
	// Buckets of a line, 36 inputs into 9 outputs: the line's reflection
	// keeps them, and pairs the inputs.
	co, coset, err := randinst.FamilyBox("coarse", 36, 2026, 0.8, 1.25)
	if err != nil {
		t.Fatal(err)
	}
	p := &problem.Problem{Prior: co.Prior, Utility: co.Utility, PriorSet: coset, Objective: problem.WorstCaseValue}
	g, err := newMaster(p, co.Utility.Pattern(co.Utility.ReachableValues()[3]))
	if err != nil {
		t.Fatal(err)
	}
	if g.Rows() != 18 {
		t.Errorf("coarse buckets of a line: %d rows, want 18", g.Rows())
	}
}
