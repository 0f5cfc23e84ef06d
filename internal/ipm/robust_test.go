package ipm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

// robustLP solves the robust expected-utility LP with the constraints
// over the set dualised (polytope.BuildRobust, an independent
// formulation) by the revised simplex.
func robustLP(t *testing.T, p RobustProblem) float64 {
	t.Helper()
	mod, err := polytope.BuildRobust(polytope.Spec{Prior: p.Set.Center, Utility: p.Utility, Objective: polytope.ExpectedUtility, Budget: p.Budget}, p.Set)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := solver.Revised().Solve(mod.LP)
	if err != nil || sol.Status != solver.Optimal {
		t.Fatalf("revised: %v %v", sol, err)
	}
	return sol.Objective
}

// randomSet returns a box of factors around pi, or an L1 ball.
func randomSet(t *testing.T, rng *rand.Rand, pi mech.Prior, box bool) *mech.PriorSet {
	t.Helper()
	if !box {
		s, err := mech.NewL1Set(pi, 0.3*rng.Float64())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	f := 1 + rng.Float64()
	lo, up := make([]float64, len(pi)), make([]float64, len(pi))
	for k, v := range pi {
		lo[k], up[k] = v/f, math.Min(1, v*f)
	}
	s, err := mech.NewBoxSet(pi, lo, up)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSolveRobustMatchesTheDualisedLP compares SolveRobust with the
// dualised robust LP on random instances, boxes and balls, under PML,
// LIP and ALIP: the same optimum to 1e-7, a bound that brackets the LP's
// optimum, a mechanism within the budget over the set and at sampled
// priors of the set.
func TestSolveRobustMatchesTheDualisedLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 73))
	draws := rand.New(rand.NewPCG(73, 37)) // the priors the audits sample
	trials := 90
	if testlong.Short() {
		trials = 30
	}
	stalled := 0
	defer func() {
		// Most trials are answered; the others are the LP's (ties, and
		// LIP's and ALIP's iterations stalling short of the gap).
		t.Logf("%d of %d trials left to the LP", stalled, trials)
		if stalled > trials/4 {
			t.Errorf("%d of %d trials stalled short of the gap", stalled, trials)
		}
	}()
	for trial := range trials {
		p := randomRobustProblem(t, rng, trial, 7, false)
		r, err := SolveRobust(p, Options{})
		if errors.Is(err, ErrRobustNotConverged) {
			// the caller's LP decides; counted below
			t.Logf("trial %d (%+v, box %v): %v", trial, p.Budget, p.Set.IsBox(), err)
			stalled++
			continue
		}
		if err != nil {
			t.Fatalf("trial %d (%+v, box %v): %v", trial, p.Budget, p.Set.IsBox(), err)
		}
		checkRobustAnswer(t, trial, p, r, draws, 20)
	}
}

// randomRobustProblem draws a problem of at most nMax+1 letters and
// outputs over a box (three trials in five) or an L1 ball, under PML, LIP
// or ALIP (by trial) at ε 0.3, 1, 2 or 4; with fixLetter, every seventh
// box fixes one letter's mass (no b for it in the dualised rows).
func randomRobustProblem(t *testing.T, rng *rand.Rand, trial, nMax int, fixLetter bool) RobustProblem {
	t.Helper()
	n, m := 2+rng.IntN(nMax), 2+rng.IntN(nMax)
	pi := randinst.Prior(rng, n, 0.02)
	u := randinst.Utility(rng, n, m, []int{0, 3}[trial%2])
	eps := []float64{0.3, 1, 2, 4}[trial%4]
	b := []mech.Budget{{Measure: mech.PML, Epsilon: eps}, {Measure: mech.LIP, Epsilon: eps},
		{Measure: mech.ALIP, EpsilonLower: eps, EpsilonUpper: 0.5 * eps}}[trial%3]
	set := randomSet(t, rng, pi, trial%5 < 3)
	if fixLetter && set.IsBox() && trial%7 == 0 {
		k := rng.IntN(n)
		lo, up := append([]float64(nil), set.Lower...), append([]float64(nil), set.Upper...)
		lo[k], up[k] = pi[k], pi[k]
		var err error
		if set, err = mech.NewBoxSet(pi, lo, up); err != nil {
			t.Fatal(err)
		}
	}
	return RobustProblem{Utility: u, Budget: b, Set: set}
}

// checkRobustAnswer checks r against the dualised LP of p (an independent
// formulation, solved by the simplex): the same optimum to 1e-9; a bound
// that brackets it, within 1e-9 under PML, whose one prior per output
// proves the optimum, and under LIP and ALIP the two-prior bound within
// 1e-8 (the relaxation's residuals, up to 1e-9, enter the multipliers it
// is read from); every prior the bounds rest on in the set; and a
// mechanism within the budget over the set and at samples priors drawn
// from it.
func checkRobustAnswer(t *testing.T, trial int, p RobustProblem, r *RobustResult, draws *rand.Rand, samples int) {
	t.Helper()
	b, set := p.Budget, p.Set
	want := robustLP(t, p)
	tol := 1e-9 * math.Max(1, math.Abs(want))
	if math.Abs(r.Value-want) > tol || r.Bound < want-tol {
		t.Fatalf("trial %d (%+v, box %v): [%.12g, %.12g], LP %.12g (rounds %d)", trial, b, set.IsBox(), r.Value, r.Bound, want, r.Rounds)
	}
	if b.Measure == mech.PML && r.Bound > want+tol {
		t.Fatalf("trial %d (%+v, box %v): bound %.12g above the LP's optimum %.12g", trial, b, set.IsBox(), r.Bound, want)
	}
	if b.Measure != mech.PML && (r.BoundTwo > want+10*tol || r.BoundTwo < want-tol) {
		t.Fatalf("trial %d (%+v, box %v): two-prior bound %.12g, LP's optimum %.12g", trial, b, set.IsBox(), r.BoundTwo, want)
	}
	if !certify.RowsSumToOne(r.Mechanism) || !withinBudget(r.Level, r.LevelLower, b, RobustBudgetSlack) {
		t.Fatalf("trial %d: the mechanism fails the audit over the set (level %g, %g)", trial, r.Level, r.LevelLower)
	}
	// The levels reported are the audit's, which callers read in its place.
	if level, lower, _ := leakage.LevelOver(set, r.Mechanism, b); level != r.Level || lower != r.LevelLower {
		t.Fatalf("trial %d: levels (%g, %g) reported, (%g, %g) audited over the set", trial, r.Level, r.LevelLower, level, lower)
	}
	for _, list := range [][][]float64{r.Priors, r.PriorsUpper, r.PriorsLower} {
		for j, pr := range list {
			if pr != nil && !set.Contains(pr, 1e-9) {
				t.Fatalf("trial %d: output %d's prior %v is not in the set", trial, j, pr)
			}
		}
	}
	for range samples {
		rep, err := certify.Audit(randinst.SetPrior(draws, set, nil), r.Mechanism, b)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Level > upper(b)+1e-8 || (b.Measure == mech.ALIP && rep.ALIPLower > b.EpsilonLower+1e-8) {
			t.Fatalf("trial %d: levels (%g, %g) at a prior of the set, budget %+v", trial, rep.Level, rep.ALIPLower, b)
		}
	}
}

func upper(b mech.Budget) float64 {
	if b.Measure == mech.ALIP {
		return b.EpsilonUpper
	}
	return b.Epsilon
}

// nominalLP solves the expected-utility LP of u at the prior pi under b
// (polytope.Build) by the revised simplex.
func nominalLP(t *testing.T, pi mech.Prior, u mech.Utility, b mech.Budget) float64 {
	t.Helper()
	mod, err := polytope.Build(polytope.Spec{Prior: pi, Utility: u, Objective: polytope.ExpectedUtility, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	sol, err := solver.Revised().Solve(mod.LP)
	if err != nil || sol.Status != solver.Optimal {
		t.Fatalf("revised: %v %v", sol, err)
	}
	return sol.Objective
}

// TestSolveRobustLimits checks the two ends of the prior sets: a set of
// one prior gives the optimum at that prior, and the whole simplex gives
// the LDP optimum (the largest PML over every prior is the LDP level, and
// LIP's and ALIP's over every prior are too, Saeidian et al.).
func TestSolveRobustLimits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 37))
	stalled := 0
	defer func() {
		if stalled > 6 {
			t.Errorf("%d of 36 solves stalled short of the gap", stalled)
		}
	}()
	for trial := range 12 {
		n, m := 2+rng.IntN(5), 2+rng.IntN(5)
		pi := randinst.Prior(rng, n, 0.05)
		u := randinst.Utility(rng, n, m, []int{0, 3}[trial%2])
		eps := []float64{0.5, 1, 2}[trial%3]
		var b mech.Budget
		switch trial % 3 {
		case 0:
			b = mech.Budget{Measure: mech.PML, Epsilon: eps}
		case 1:
			b = mech.Budget{Measure: mech.LIP, Epsilon: eps}
		case 2:
			b = mech.Budget{Measure: mech.ALIP, EpsilonLower: eps, EpsilonUpper: 0.5 * eps}
		}
		point, err := mech.NewL1Set(pi, 0)
		if err != nil {
			t.Fatal(err)
		}
		zero, one := make([]float64, n), make([]float64, n)
		for k := range one {
			one[k] = 1
		}
		simplex, err := mech.NewBoxSet(pi, zero, one)
		if err != nil {
			t.Fatal(err)
		}
		ball, err := mech.NewL1Set(pi, 2)
		if err != nil {
			t.Fatal(err)
		}
		ldp := eps
		if b.Measure == mech.ALIP {
			// an ε-LDP mechanism keeps (ε_l, ε_u) = (ε, ε) over every
			// prior; over the simplex ALIP's levels are LDP's
			ldp = math.Min(b.EpsilonLower, b.EpsilonUpper)
		}
		for _, c := range []struct {
			name string
			set  *mech.PriorSet
			want float64
		}{
			{"point", point, nominalLP(t, pi, u, b)},
			{"simplex", simplex, nominalLP(t, pi, u, mech.Budget{Measure: mech.LDP, Epsilon: ldp})},
			{"ball of radius 2", ball, nominalLP(t, pi, u, mech.Budget{Measure: mech.LDP, Epsilon: ldp})},
		} {
			r, err := SolveRobust(RobustProblem{Utility: u, Budget: b, Set: c.set}, Options{})
			if errors.Is(err, ErrRobustNotConverged) {
				t.Logf("trial %d %s (%+v): %v", trial, c.name, b, err)
				stalled++
				continue
			}
			if err != nil {
				t.Fatalf("trial %d %s (%+v): %v", trial, c.name, b, err)
			}
			tol := 1e-9 * math.Max(1, math.Abs(c.want))
			if math.Abs(r.Value-c.want) > tol || r.Bound < c.want-tol {
				t.Fatalf("trial %d %s (%+v): [%.12g, %.12g], want %.12g", trial, c.name, b, r.Value, r.Bound, c.want)
			}
		}
	}
}

// TestSolveRobustFamiliesMatchTheLP solves PML, LIP and ALIP expected
// utility over a box and an L1 ball on instances of package instance
// whose interior point stalls short of the gap without two of its
// safeguards: the output blocks' −Σ e f d entries formed as such, not as
// differences of sums (the huge e² d and e of the pairs at a cap cancel;
// grid and fine at 16 letters), and the regularised runs after a
// breakdown or a stall (several tight priors in one output's list;
// random and abs-zipf at 8 letters). Every one is answered, with the
// dualised LP's optimum to 1e-9. Bands over a box at 8 letters ends its
// last round within robustHeldGap short of the gap aimed at: the point is
// kept, in at most maxIters iterations in all (six rounds of about ten),
// where regularised reruns from scratch would add three runs of up to
// 200 iterations for no digit the answer is held to.
func TestSolveRobustFamiliesMatchTheLP(t *testing.T) {
	type robustCase struct {
		family string
		n      int
		box    bool
		b      mech.Budget
		// maxIters, where set, bounds the interior-point iterations.
		maxIters int
	}
	lip := mech.Budget{Measure: mech.LIP, Epsilon: 1}
	alip := mech.Budget{Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 1}
	cases := []robustCase{
		{"grid", 16, false, lip, 0},
		{"random", 8, true, lip, 0},
		{"random", 8, false, mech.Budget{Measure: mech.PML, Epsilon: 1}, 0},
		{"abs-zipf", 8, false, alip, 0},
		{"bands", 8, true, lip, 100},
	}
	if !testlong.Short() {
		// each dualised LP takes seconds
		cases = append(cases, robustCase{"grid", 16, false, alip, 0}, robustCase{"fine", 16, true, lip, 0})
	}
	for _, c := range cases {
		in := familyInstance(t, c.family, c.n)
		set := studySet(t, in.Prior, c.box)
		p := RobustProblem{Utility: in.Utility, Budget: c.b, Set: set}
		r, err := SolveRobust(p, Options{})
		if err != nil {
			t.Fatalf("%s N=%d %+v box %v: %v", c.family, c.n, c.b, c.box, err)
		}
		want := robustLP(t, p)
		if math.Abs(r.Value-want) > 1e-9*math.Max(1, math.Abs(want)) || r.Bound < want-1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s N=%d %+v box %v: [%.12g, %.12g], LP %.12g", c.family, c.n, c.b, c.box, r.Value, r.Bound, want)
		}
		if c.maxIters > 0 && r.Iterations > c.maxIters {
			t.Errorf("%s N=%d %+v box %v: %d iterations in %d rounds, want at most %d", c.family, c.n, c.b, c.box, r.Iterations, r.Rounds, c.maxIters)
		}
		if !withinBudget(r.Level, r.LevelLower, c.b, RobustBudgetSlack) {
			t.Errorf("%s: the mechanism fails the audit over the set (level %g, %g)", c.family, r.Level, r.LevelLower)
		}
	}
}

// Fine over the L1 ball at 48 letters under LIP cuts a few outputs'
// constraints a round for more than 12 rounds, and the dualised route
// stalls there: the rounds, run out, answer it, with a mechanism that
// keeps the budget over the ball and a proven bound within the accepted
// gap. (SolveRobust's lean route answers it first, in one run: the
// rounds are called past it.) A long suite: about ten seconds.
func TestSolveRobustRunsOutASlowTail(t *testing.T) {
	if testlong.Short() {
		t.Skip("ten seconds of rounds: a long suite (-tags long)")
	}
	in := familyInstance(t, "fine", 48)
	b := mech.Budget{Measure: mech.LIP, Epsilon: 1}
	set := studySet(t, in.Prior, false)
	mu, kap, lip, _ := robustRates(b)
	r, err := solveRobustRounds(context.Background(), RobustProblem{Utility: in.Utility, Budget: b, Set: set}, normalised(set.Center), mu, kap, lip, 200, robustGap, AcceptedGap)
	if err != nil {
		t.Fatal(err)
	}
	if r.Rounds <= 12 {
		t.Errorf("answered in %d rounds: the instance no longer tests a slow tail", r.Rounds)
	}
	bound := math.Min(r.Bound, r.BoundTwo)
	if gap := bound - r.Value; gap < 0 || gap > 1e-8*math.Max(1, math.Abs(r.Value)) {
		t.Errorf("value %.12g, proven bound %.12g", r.Value, bound)
	}
	if !withinBudget(r.Level, r.LevelLower, b, RobustBudgetSlack) {
		t.Errorf("the mechanism fails the audit over the set (level %g, %g)", r.Level, r.LevelLower)
	}
	// The lean route's answer, whose face keeps several hundred pairs
	// strictly inside their caps (deflation directions past the room
	// it starts with): the same value, within the accepted gap.
	lean, err := SolveRobust(RobustProblem{Utility: in.Utility, Budget: b, Set: set}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if lean.Rounds > 2 || lean.Cuts != 0 {
		t.Errorf("SolveRobust: %d rounds, %d cuts; want the lean route's one or two runs", lean.Rounds, lean.Cuts)
	}
	if tol := 1e-8 * math.Max(1, math.Abs(r.Value)); math.Abs(lean.Value-r.Value) > tol {
		t.Errorf("lean value %.12g, the rounds' %.12g", lean.Value, r.Value)
	}
	if !withinBudget(lean.Level, lean.LevelLower, b, RobustBudgetSlack) {
		t.Errorf("the lean mechanism fails the audit over the set (level %g, %g)", lean.Level, lean.LevelLower)
	}
}

// TestSolveRobustConvergedMeansTheGap: Converged reports that the last
// round's interior point reached the gap aimed at (Options.Gap, at least
// robustGap). Coarse over a box is answered at the default gap, by the
// cutting planes and by the dualised route alone: Converged, with the
// LP's optimum and a proven bound within that gap of it, and so are
// counting queries over the L1 ball under PML (the lean route). Bands
// over the ball under LIP (the dualised route) stall short of it and are
// accepted within AcceptedGap: not Converged, the value within
// AcceptedGap of the LP's; asked for a gap of 1e-9, which those
// iterations reach, they are Converged; asked for 1e-6, looser than
// robustAcceptGap, they stop there and are answered, Converged.
func TestSolveRobustConvergedMeansTheGap(t *testing.T) {
	pml, lip := mech.Budget{Measure: mech.PML, Epsilon: 1}, mech.Budget{Measure: mech.LIP, Epsilon: 1}
	for _, c := range []struct {
		family string
		box    bool
		b      mech.Budget
		dual   bool    // the dualised route alone
		gap    float64 // Options.Gap; 0 for the default
		want   bool
	}{
		{"coarse", true, pml, false, 0, true},
		{"coarse", true, pml, true, 0, true},
		{"counting-uniform", false, pml, false, 0, true},
		{"counting-uniform", false, pml, false, 1e-9, true},
		{"bands", false, lip, true, 0, false},
		{"bands", false, lip, true, 1e-9, true},
		// A gap looser than robustAcceptGap is the caller's to ask for.
		{"counting-uniform", false, pml, false, 1e-6, true},
		{"bands", false, lip, true, 1e-6, true},
	} {
		name := fmt.Sprintf("%s box %v %v dual %v gap %g", c.family, c.box, c.b.Measure, c.dual, c.gap)
		in := familyInstance(t, c.family, 8)
		p := RobustProblem{Utility: in.Utility, Budget: c.b, Set: studySet(t, in.Prior, c.box)}
		opt := Options{Gap: c.gap}
		gap, accept, maxIter, err := opt.settings()
		if err != nil {
			t.Fatal(err)
		}
		target := math.Max(gap, robustGap)
		var r *RobustResult
		if c.dual {
			mu, kap, lip, _ := robustRates(c.b)
			r, err = solveRobustDual(context.Background(), p, normalised(p.Set.Center), mu, kap, lip, maxIter, target, accept)
		} else {
			r, err = SolveRobust(p, opt)
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if r.Converged != c.want {
			t.Errorf("%s: Converged %v, want %v: the instance no longer tests it, or Converged is not the gap's", name, r.Converged, c.want)
		}
		want := robustLP(t, p)
		scale := math.Max(1, math.Abs(want))
		within := accept
		if r.Converged {
			within = target
		}
		bound := r.Bound
		if c.b.Measure != mech.PML {
			bound = r.BoundTwo
		}
		if math.Abs(r.Value-want) > within*scale || bound < want-1e-12*scale || bound-r.Value > within*scale {
			t.Errorf("%s: value %.15g, bound %.15g, LP %.15g: want all three within %g", name, r.Value, bound, want, within)
		}
	}
}

// TestSolveRobustValueWithinItsBound: an answer's value lies within the
// accepted gap of the least bound its multipliers prove, and so of the
// optimum, under every measure. At large LIP and ALIP budgets over a ball
// the relaxation's gap, measured on the objective scaled by its largest
// coefficient (13 times the value's unit here), would let a value 1.5e-7
// below the optimum through, 15 times the accepted gap: SolveRobust gives
// no answer there, and the LP decides.
func TestSolveRobustValueWithinItsBound(t *testing.T) {
	_, u, ball, err := randinst.CountingBinomialBall(10, 0.3, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	answered := 0
	for _, b := range []mech.Budget{
		{Measure: mech.LIP, Epsilon: 10}, {Measure: mech.ALIP, EpsilonLower: 10, EpsilonUpper: 10},
		{Measure: mech.LIP, Epsilon: 1}, {Measure: mech.PML, Epsilon: 10}, {Measure: mech.PML, Epsilon: 1},
	} {
		p := RobustProblem{Utility: u, Budget: b, Set: ball}
		want := robustLP(t, p)
		r, err := SolveRobust(p, Options{})
		if errors.Is(err, ErrRobustNotConverged) {
			continue // the LP decides
		}
		if err != nil {
			t.Fatalf("%+v: %v", b, err)
		}
		answered++
		tol := AcceptedGap * math.Max(1, math.Abs(want))
		if r.Value < want-tol || r.Value > want+tol {
			t.Errorf("%+v: value %.15g, the LP's optimum %.15g", b, r.Value, want)
		}
		if bound := math.Min(r.Bound, r.BoundTwo); bound-r.Value > tol || bound < want-tol {
			t.Errorf("%+v: bound %.15g for the value %.15g, the LP's optimum %.15g", b, bound, r.Value, want)
		}
	}
	if answered < 3 {
		t.Errorf("the interior points answered %d of 5 budgets: the test proves little", answered)
	}
}

// settle holds an answer to the least of its bounds: a two-prior bound
// further than the accepted gap above the value refuses it, and a NaN one
// leaves the one-prior bound to decide. A run that stalled short of
// robustAcceptGap (held) is refused, the stall named; where its value is
// within the accepted gap of its bound, the error marks it so
// (errStalledWithinGap), for SolveRobust to fall back on.
func TestSettleHoldsTheValueToItsBounds(t *testing.T) {
	lip := mech.Budget{Measure: mech.LIP, Epsilon: 1}
	for _, c := range []struct {
		bound, two, held, target float64
		ok, within               bool // answered; refused, but within the gap
	}{
		{-1 + 5e-9, math.Inf(1), 1e-12, robustGap, true, false},
		{-1 + 5e-8, math.Inf(1), 1e-12, robustGap, false, false},
		{-1 + 5e-8, -1 + 5e-9, 1e-12, robustGap, true, false},
		{-1 + 5e-9, -1 + 5e-8, 1e-12, robustGap, true, false},
		{-1 + 5e-8, math.NaN(), 1e-12, robustGap, false, false},
		{-1 + 5e-9, math.NaN(), 1e-12, robustGap, true, false},
		{-1 + 5e-9, math.Inf(1), 1e-6, robustGap, false, true},
		{-1 + 5e-8, -1 + 5e-9, 1e-6, robustGap, false, true},
		{-1 + 5e-9, math.NaN(), 1e-6, robustGap, false, true},
		{-1 + 5e-8, math.NaN(), 1e-6, robustGap, false, false},
		{-1 + 5e-8, math.Inf(1), 1e-6, robustGap, false, false},
		{math.Inf(1), math.Inf(1), 1e-6, robustGap, false, false},
		// A gap looser than robustAcceptGap, asked for: no stall.
		{-1 + 5e-9, math.Inf(1), 1e-6, 1e-6, true, false},
		{-1 + 5e-8, math.Inf(1), 1e-6, 1e-6, false, false},
	} {
		out := &RobustResult{Value: -1, Bound: c.bound, BoundTwo: c.two}
		err := settle(out, RobustProblem{Budget: lip}, c.held, c.target, AcceptedGap)
		if (err == nil) != c.ok || errors.Is(err, errStalledWithinGap) != c.within {
			t.Errorf("bounds (%v, %v), held %g: error %v", c.bound, c.two, c.held, err)
		}
		if err != nil && (!errors.Is(err, ErrRobustNotConverged) || (c.held > math.Max(robustAcceptGap, c.target)) != strings.Contains(err.Error(), "stalled at")) {
			t.Errorf("bounds (%v, %v), held %g: error %v, want ErrRobustNotConverged, naming a stall past robustAcceptGap", c.bound, c.two, c.held, err)
		}
	}
}

// stalledAnswer keeps, of the results marked errStalledWithinGap, the one
// of the largest value, and nothing else: not a result refused otherwise,
// nor a nil one.
func TestStalledAnswerKeepsTheBestValue(t *testing.T) {
	marked := fmt.Errorf("%w (the iterations stalled at a relative gap or residual of 1e-06)", errStalledWithinGap)
	var a stalledAnswer
	a.offer(nil, marked)
	a.offer(&RobustResult{Value: 5}, ErrRobustNotConverged)
	if a.best != nil {
		t.Fatalf("kept %+v", a.best)
	}
	low, high := &RobustResult{Value: -2}, &RobustResult{Value: -1}
	a.offer(low, marked)
	a.offer(high, marked)
	a.offer(&RobustResult{Value: -3}, marked)
	a.offer(&RobustResult{Value: 7}, errors.New("other"))
	if a.best != high {
		t.Errorf("kept %+v, want the value -1", a.best)
	}
	if !errors.Is(marked, ErrRobustNotConverged) {
		t.Error("errStalledWithinGap does not wrap ErrRobustNotConverged")
	}
}

// SolveRobust answers where its iterations stall but the answer is
// certified, and where an optimal face needs many deflation directions:
//
//   - fine at 48 letters (192 outputs) over the box of masses between 0.5
//     and 2 times the prior's, under LIP at 1 nat: the lean runs stepping
//     leanEta and leanRetryEta of the way to the boundary stall short of
//     robustAcceptGap, and the third, at leanLastEta, converges (three
//     rounds, no cut; the cutting planes and the dualised route past it
//     stall too);
//   - abs-zipf at 48 letters over the study's box under ALIP (0.5, 2):
//     the lean route needs about 8.4(N + M) directions.
//
// Each answer's mechanism keeps the budget over the set and its value
// lies within the accepted gap of the least bound its multipliers prove
// (the LP over the set, minutes for either, is the root package's
// TestExpectedOverSetOnWideFaces).
func TestSolveRobustAnswersWideFaces(t *testing.T) {
	alip := mech.Budget{Measure: mech.ALIP, EpsilonLower: 0.5, EpsilonUpper: 2}
	for _, c := range []struct {
		family string
		lo, hi float64
		b      mech.Budget
	}{
		{"fine", 0.5, 2, mech.Budget{Measure: mech.LIP, Epsilon: 1}},
		{"abs-zipf", 0.8, 1.25, alip},
	} {
		in := familyInstance(t, c.family, 48)
		set, err := randinst.FactorBox(in.Prior, c.lo, c.hi)
		if err != nil {
			t.Fatal(err)
		}
		p := RobustProblem{Utility: in.Utility, Budget: c.b, Set: set}
		r, err := SolveRobust(p, Options{})
		if err != nil {
			t.Errorf("%s: %v", c.family, err)
			continue
		}
		level, lower, excess := leakage.LevelOver(set, r.Mechanism, c.b)
		if !(excess <= certify.AuditTol) {
			t.Errorf("%s: levels (%g, %g) over the set break the budget %+v", c.family, level, lower, c.b)
		}
		if v := in.Utility.ExpectedUtility(set.Center, r.Mechanism); v != r.Value {
			t.Errorf("%s: value %.15g, the mechanism's %.15g", c.family, r.Value, v)
		}
		if !r.Converged || r.Cuts != 0 || (c.family == "fine" && r.Rounds != 3) {
			t.Errorf("%s: Converged %v in %d rounds, %d cuts", c.family, r.Converged, r.Rounds, r.Cuts)
		}
		scale := math.Max(1, math.Abs(r.Value))
		least := math.Min(r.Bound, r.BoundTwo)
		if !(least >= r.Value) || least-r.Value > AcceptedGap*scale {
			t.Errorf("%s: value %.15g, bounds %.15g and %.15g", c.family, r.Value, r.Bound, r.BoundTwo)
		}
	}
}
