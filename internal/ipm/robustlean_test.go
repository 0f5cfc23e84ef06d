package ipm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// TestLeanBoxMatchesTheLP solves ε-PML over boxes of several widths and
// budgets on every family at 8 letters by the lean route alone, and
// checks its answer against the dualised LP (robustLP, the simplex on
// polytope.BuildRobust): the value within 1e-9 of the LP's optimum, the
// bound proven by its own multipliers and priors and not below the LP's,
// the priors in the set and the mechanism within the budget over the
// set.
func TestLeanBoxMatchesTheLP(t *testing.T) {
	for _, f := range instance.Families() {
		in := familyInstance(t, f.Name, 8)
		for _, w := range [][2]float64{{0.8, 1.25}, {0.5, 2}} {
			set, err := randinst.FactorBox(in.Prior, w[0], w[1])
			if err != nil {
				t.Fatal(err)
			}
			for _, eps := range []float64{0.3, 1, 3} {
				name := fmt.Sprintf("%s box %v ε %g", f.Name, w, eps)
				b := mech.Budget{Measure: mech.PML, Epsilon: eps}
				p := RobustProblem{Utility: in.Utility, Budget: b, Set: set}
				mu, kap, lip, _ := robustRates(b)
				r, err := solveRobustLean(context.Background(), p, normalised(set.Center), mu, kap, lip, 200, robustGap, AcceptedGap)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				checkOneRunAgainstLP(t, name, p, r)
			}
		}
	}
}

// TestLeanBoxDirectionsSolveTheNewtonSystem runs the lean iterations on
// every family at 12 letters close to the optimum, where the blocks are
// nearly singular and the deflation carries the outputs' columns and the
// soft pairs, and checks each corrector direction in the unreduced
// equations it must satisfy (the row sums' and the dual ones; the rows'
// own and the complementarity hold by construction): their residuals,
// recomputed from the rows' definitions, below 1e-9 of the direction's
// multipliers.
func TestLeanBoxDirectionsSolveTheNewtonSystem(t *testing.T) {
	for _, f := range instance.Families() {
		in := familyInstance(t, f.Name, 12)
		set, err := randinst.FactorBox(in.Prior, 0.8, 1.25)
		if err != nil {
			t.Fatal(err)
		}
		x := newLeanBox(normalised(set.Center), in.Utility, set, math.Exp(-1))
		worst, deflated := 0.0, 0
		for it := 0; it < 40; it++ {
			x.residuals()
			if x.comp < 1e-12 {
				break
			}
			if err := x.step(); err != nil {
				t.Fatalf("%s: iteration %d: %v", f.Name, it, err)
			}
			res := x.dirResiduals(&x.cor)
			worst = math.Max(worst, res/x.dirSize(&x.cor))
			deflated = max(deflated, len(x.dj))
		}
		if !(worst < 1e-9) {
			t.Errorf("%s: a direction's residual %.3g of its multipliers", f.Name, worst)
		}
		if !(x.comp < 1e-12) {
			t.Errorf("%s: complementarity %.3g after 40 iterations", f.Name, x.comp)
		}
		if deflated == 0 {
			t.Errorf("%s: no output deflated", f.Name)
		}
	}
}

// TestLeanFitsBoxes: the lean route over a box takes every budget over
// a box with free mass, and no other set.
func TestLeanFitsBoxes(t *testing.T) {
	pi := mech.Prior{0.2, 0.3, 0.5}
	box, err := randinst.FactorBox(pi, 0.8, 1.25)
	if err != nil {
		t.Fatal(err)
	}
	ball, err := mech.NewL1Set(pi, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	point, err := randinst.FactorBox(pi, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		set  *mech.PriorSet
		want bool
	}{{box, true}, {ball, false}, {point, false}} {
		if got := leanFits(c.set); got != c.want {
			t.Errorf("box %v: leanFits %v, want %v", c.set.IsBox(), got, c.want)
		}
	}
}

// TestSolveRobustGoesOnWhereTheLeanRouteStalls: on random at 8 letters
// (seed 3) over the box of masses 0.9 to 1.1 times the prior's under
// ALIP (ε_l = 3, ε_u = 0.3) every lean run stalls short of the accepted
// gap, and SolveRobust answers by its other routes, the optimum of the
// dualised LP.
func TestSolveRobustGoesOnWhereTheLeanRouteStalls(t *testing.T) {
	in, set, err := randinst.FamilyBox("random", 8, 3, 0.9, 1.1)
	if err != nil {
		t.Fatal(err)
	}
	p := RobustProblem{Utility: in.Utility, Budget: mech.Budget{Measure: mech.ALIP, EpsilonLower: 3, EpsilonUpper: 0.3}, Set: set}
	mu, kap, lip, _ := robustRates(p.Budget)
	if _, err := solveRobustLean(context.Background(), p, normalised(set.Center), mu, kap, lip, 200, robustGap, AcceptedGap); !errors.Is(err, ErrRobustNotConverged) {
		t.Fatalf("the lean route answers (%v): the instance no longer tests going on", err)
	}
	r, err := SolveRobust(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := robustLP(t, p)
	if tol := 1e-9 * math.Max(1, math.Abs(want)); math.Abs(r.Value-want) > tol || r.Bound < want-tol {
		t.Errorf("value %.15g, bound %.15g, LP %.15g", r.Value, r.Bound, want)
	}
}

// overDrawnBox is the problem of family name at n letters (the seed
// given) under budget b over the box SetAround draws around its prior
// (the first draw of that seed's stream).
func overDrawnBox(t *testing.T, name string, n int, seed uint64, b mech.Budget) RobustProblem {
	t.Helper()
	f, err := instance.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.New(n, seed)
	if err != nil {
		t.Fatal(err)
	}
	set, err := randinst.SetAround(rand.New(rand.NewPCG(seed, 7)), in.Prior, true)
	if err != nil {
		t.Fatal(err)
	}
	return RobustProblem{Utility: in.Utility, Budget: b, Set: set}
}

// TestSolveLeanRetriesAStalledRun: on coarse at 7 letters (seed 29) over
// a box drawn around the prior (SetAround) under ε-PML at 0.5 nats, the
// lean run whose steps go leanEta of the way to the boundary stalls, and
// the second run, at leanRetryEta, answers: two rounds, the iterations of
// both, and the optimum of the dualised LP, certified and within the
// budget over the box.
func TestSolveLeanRetriesAStalledRun(t *testing.T) {
	p := overDrawnBox(t, "coarse", 7, 29, mech.Budget{Measure: mech.PML, Epsilon: 0.5})
	set := p.Set
	mu, kap, lip, _ := robustRates(p.Budget)
	pi := normalised(set.Center)
	ctx := context.Background()
	_, first, err := solveOnceCounting(ctx, newLeanBox(pi, p.Utility, set, mu), p, pi, leanMaxIter(len(pi)), robustGap, AcceptedGap, false)
	if err == nil {
		t.Fatal("the first lean run answers: the instance no longer tests the second")
	}
	again := newLeanBox(pi, p.Utility, set, mu)
	again.eta = leanRetryEta
	_, second, err := solveOnceCounting(ctx, again, p, pi, leanMaxIter(len(pi)), robustGap, AcceptedGap, false)
	if err != nil {
		t.Fatalf("the second run alone: %v", err)
	}
	r, err := solveRobustLean(ctx, p, pi, mu, kap, lip, 200, robustGap, AcceptedGap)
	if err != nil {
		t.Fatal(err)
	}
	if r.Iterations != first+second {
		t.Errorf("%d iterations; want the first run's %d and the second's %d", r.Iterations, first, second)
	}
	checkRunsAgainstLP(t, "coarse 7", p, r, 2)
}

// TestSolveLeanTriesAThirdRun: on coarse at 7 letters (seed 2026) over
// the L1 ball of radius 0.1 under LIP at 3 nats, the lean runs stepping
// leanEta and leanRetryEta of the way to the boundary both stall, and the
// third, at leanLastEta, answers: three rounds, the iterations of all
// three, and the dualised LP's optimum, certified and within the budget
// over the ball, with no cutting plane.
func TestSolveLeanTriesAThirdRun(t *testing.T) {
	p, pi, mu, kap, lip := leanBallTwoProblem(t, "coarse", 7, 3, 0.1)
	ctx := context.Background()
	total := 0
	for k, eta := range leanEtas {
		x := newLeanBallTwo(pi, p.Utility, p.Set, mu, kap)
		x.eta = eta
		_, n, err := solveOnceCounting(ctx, x, p, pi, leanMaxIter(len(pi)), robustGap, AcceptedGap, false)
		if (err == nil) != (k == 2) {
			t.Fatalf("the run stepping %g of the way: %v; want the first two to fail and the third to answer", eta, err)
		}
		total += n
	}
	r, err := solveRobustLeanBallTwo(ctx, p, pi, mu, kap, lip, 200, robustGap, AcceptedGap)
	if err != nil {
		t.Fatal(err)
	}
	if r.Iterations != total {
		t.Errorf("%d iterations; want the three runs' %d", r.Iterations, total)
	}
	checkRunsAgainstLP(t, "coarse 7 over the ball", p, r, 3)
}

// TestLeanRunsLongerOnGrids: on a 14×14 location grid over the 95%
// Clopper–Pearson box of 12 clustered check-ins a cell
// (randinst.ConfidenceGrid), under LIP at 1 nat, the lean
// route's first run takes more iterations than dualMaxIter, its steps
// short while the box's wide intervals keep the iterates off centre, and
// still answers, with no cutting plane (which take minutes here): its cap
// grows with the root of the letters (leanMaxIter). The answer is certified within the
// accepted gap and keeps the budget over the box.
func TestLeanRunsLongerOnGrids(t *testing.T) {
	_, u, set, err := randinst.ConfidenceGrid(14, 12*14*14, 7)
	if err != nil {
		t.Fatal(err)
	}
	b := mech.Budget{Measure: mech.LIP, Epsilon: 1}
	p := RobustProblem{Utility: u, Budget: b, Set: set}
	r, err := SolveRobust(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Rounds != 1 || r.Cuts != 0 || r.Iterations <= dualMaxIter || r.Iterations > leanMaxIter(len(set.Center)) {
		t.Errorf("%d rounds, %d iterations, %d cuts: want one lean run past %d iterations", r.Rounds, r.Iterations, r.Cuts, dualMaxIter)
	}
	scale := math.Max(1, math.Abs(r.Value))
	if least := math.Min(r.Bound, r.BoundTwo); !(least >= r.Value-RobustBudgetSlack*scale) || least-r.Value > AcceptedGap*scale {
		t.Errorf("value %.15g, bounds %.15g and %.15g", r.Value, r.Bound, r.BoundTwo)
	}
	if level, lower, excess := leakage.LevelOver(set, r.Mechanism, b); !(excess <= certify.AuditTol) {
		t.Errorf("levels (%g, %g) over the box break the budget", level, lower)
	}
}

// stallingLeanTwo is counting-dirichlet at 32 letters (seed 2026) over the
// box of masses 0.8 to 1.25 times the prior's under LIP at 1 nat, whose
// lean run stepping leanEta of the way to the boundary stalls with a
// two-prior bound more than the accepted gap above its value; with the
// estimate normalised and the budget's rates.
func stallingLeanTwo(t *testing.T) (p RobustProblem, pi mech.Prior, mu, kap float64) {
	t.Helper()
	in, set, err := randinst.FamilyBox("counting-dirichlet", 32, 2026, 0.8, 1.25)
	if err != nil {
		t.Fatal(err)
	}
	p = RobustProblem{Utility: in.Utility, Budget: mech.Budget{Measure: mech.LIP, Epsilon: 1}, Set: set}
	mu, kap, _, _ = robustRates(p.Budget)
	return p, normalised(set.Center), mu, kap
}

// TestStalledRunCheckedLater: on counting-dirichlet at 32 letters over
// the box of masses 0.8 to 1.25 times the prior's under LIP at 1 nat, the
// first lean run stalls with a two-prior bound more than the accepted gap
// above its value. Left pending (settleLater), its check runs only when
// resolve asks for it, and then gives the verdict and the bounds that
// settle gives at once on the same reading: TightenBoundTwo's totals and
// bound, and the refusal.
func TestStalledRunCheckedLater(t *testing.T) {
	p, pi, mu, kap := stallingLeanTwo(t)
	set := p.Set
	x := newLeanTwo(pi, p.Utility, set, mu, kap)
	x.eta = leanEta
	if _, _, err := x.runTo(context.Background(), leanMaxIter(len(pi)), robustGap); err != nil {
		t.Fatal(err)
	}
	held := x.heldGap()
	if held <= robustAcceptGap {
		t.Fatalf("the run ends at a gap of %.3g: it no longer stalls, and the instance no longer tests the deferral", held)
	}
	now, later := x.reading().result(p, pi), x.reading().result(p, pi)
	if len(now.CapWeights) == 0 || &now.CapWeights[0][0] == &later.CapWeights[0][0] {
		t.Fatal("the two readings share their caps' totals: settle's would move the pending run's")
	}
	if later.BoundTwo-later.Value <= AcceptedGap*math.Max(1, math.Abs(later.Value)) {
		t.Fatalf("the two-prior bound %.12g is within the gap of the value %.12g already: nothing to tighten", later.BoundTwo, later.Value)
	}
	errNow := settle(now, p, held, robustGap, AcceptedGap)
	errLater := settleLater(later, p, held, robustGap, AcceptedGap)
	if !errors.Is(errLater, errStalledPending) || later.pending == nil {
		t.Fatalf("left for later: %v; want the check pending", errLater)
	}
	if later.BoundTwo == now.BoundTwo {
		t.Fatalf("the pending run's bound %.15g is settle's already: the check ran", later.BoundTwo)
	}
	errLater = resolve(later, errLater)
	if errNow == nil || errLater == nil || errLater.Error() != errNow.Error() || later.pending != nil {
		t.Fatalf("resolved: %v; want the verdict settle gave, %v", errLater, errNow)
	}
	if later.BoundTwo != now.BoundTwo || later.Bound != now.Bound || later.Value != now.Value || !slices.EqualFunc(later.CapWeights, now.CapWeights, slices.Equal) {
		t.Errorf("resolved bounds %.15g, %.15g and value %.15g; settle gave %.15g, %.15g and %.15g",
			later.BoundTwo, later.Bound, later.Value, now.BoundTwo, now.Bound, now.Value)
	}
	if again := resolve(later, errLater); again != errLater {
		t.Errorf("a second resolve returned %v; want the verdict as it was", again)
	}
}

// TestSolveLeanResolvesAStalledFirstRun: where the retries stall as well
// (here every run steps leanEta of the way, on the case of
// TestStalledRunCheckedLater), solveLean returns the runs' checks as
// settle gives them, never a pending one: its error gives every run's
// verdict in settle's words, and no result comes back with a check left.
func TestSolveLeanResolvesAStalledFirstRun(t *testing.T) {
	p, pi, mu, kap := stallingLeanTwo(t)
	set := p.Set
	ctx := context.Background()
	start := func(float64) robustOnce {
		x := newLeanTwo(pi, p.Utility, set, mu, kap)
		x.eta = leanEta
		return x
	}
	_, _, firstNow := solveOnceCounting(ctx, start(leanEta), p, pi, leanMaxIter(len(pi)), robustGap, AcceptedGap, false)
	if firstNow == nil {
		t.Fatal("the first run answers: the instance no longer tests a stalled one")
	}
	r, err := solveLean(ctx, start, p, pi, leanMaxIter(len(pi)), robustGap, AcceptedGap)
	if err == nil || errors.Is(err, errStalledPending) {
		t.Fatalf("every run stalled: error %v, want settle's verdict", err)
	}
	// The runs are the same run: each verdict appears, in settle's words
	// (the error wraps the last run's and names each).
	if strings.Count(err.Error(), firstNow.Error()) != 4 || strings.Contains(err.Error(), errStalledPending.Error()) {
		t.Errorf("error %q does not give every run's verdict %q", err, firstNow)
	}
	if r != nil && (r.pending != nil || !errors.Is(err, errStalledWithinGap)) {
		t.Errorf("a result with its check pending (%v) or refused (%v)", r.pending != nil, err)
	}
}

// TestLeanTwoMatchesTheLP solves LIP and ALIP (ε_l ≠ ε_u too) over two
// boxes on every family at 8 letters by the lean route alone, and checks
// its answer against the dualised LP (robustLP): the value within 1e-9
// of the LP's optimum, the bounds proven by its own multipliers, priors
// (two per output) and cap weights and not below the LP's, the priors in
// the set and the mechanism within the budget over the set.
func TestLeanTwoMatchesTheLP(t *testing.T) {
	budgets := []mech.Budget{{Measure: mech.LIP, Epsilon: 0.5}, {Measure: mech.LIP, Epsilon: 2},
		{Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 1}, {Measure: mech.ALIP, EpsilonLower: 0.4, EpsilonUpper: 1.5}}
	for _, f := range instance.Families() {
		in := familyInstance(t, f.Name, 8)
		for _, w := range [][2]float64{{0.8, 1.25}, {0.5, 2}} {
			set, err := randinst.FactorBox(in.Prior, w[0], w[1])
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range budgets {
				name := fmt.Sprintf("%s box %v %v", f.Name, w, b)
				p := RobustProblem{Utility: in.Utility, Budget: b, Set: set}
				mu, kap, lip, _ := robustRates(b)
				r, err := solveRobustLean(context.Background(), p, normalised(set.Center), mu, kap, lip, 200, robustGap, AcceptedGap)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				checkOneRunAgainstLP(t, name, p, r)
			}
		}
	}
}

// checkOneRunAgainstLP checks a one-run route's answer r to p against
// the dualised LP (robustLP): the value within 1e-9 of the LP's optimum;
// the bound proven by r's own multipliers and priors (RobustBound with
// one prior per output under ε-PML, RobustBoundTwo with two and the cap
// weights under LIP and ALIP) and not below the LP's; the priors in the
// set; the mechanism's level over the set as reported and within the
// budget; one round and no cut.
func checkOneRunAgainstLP(t *testing.T, name string, p RobustProblem, r *RobustResult) {
	t.Helper()
	checkRunsAgainstLP(t, name, p, r, 1)
}

// provenBound is the bound on the optimum that r's own multipliers and
// priors prove, by the certificate's rule for p's measure: RobustBound
// with one prior per output under ε-PML, RobustBoundTwo under LIP and
// ALIP.
func provenBound(p RobustProblem, r *RobustResult) float64 {
	if p.Budget.Measure == mech.PML {
		cands := make([][][]float64, len(r.Priors))
		for j, v := range r.Priors {
			cands[j] = [][]float64{v}
		}
		proved, _ := RobustBound(p.Set.Center, p.Utility, p.Budget, r.Alpha, cands)
		return proved
	}
	return RobustBoundTwo(p.Set.Center, p.Utility, p.Budget, r.Alpha, r.PriorsUpper, r.PriorsLower, r.CapWeights)
}

// checkRunsAgainstLP is checkOneRunAgainstLP for an answer of rounds
// runs.
func checkRunsAgainstLP(t *testing.T, name string, p RobustProblem, r *RobustResult, rounds int) {
	t.Helper()
	set, b := p.Set, p.Budget
	want := robustLP(t, p)
	tol := 1e-9 * math.Max(1, math.Abs(want))
	if math.Abs(r.Value-want) > tol || r.Bound < want-tol {
		t.Errorf("%s: value %.15g, bound %.15g, LP %.15g", name, r.Value, r.Bound, want)
	}
	for _, pr := range [][][]float64{r.Priors, r.PriorsUpper, r.PriorsLower} {
		for j, v := range pr {
			if v != nil && !set.Contains(v, 1e-9) {
				t.Errorf("%s: a prior of output %d is not in the set", name, j)
			}
		}
	}
	proved := provenBound(p, r)
	if b.Measure == mech.PML {
		if math.Max(proved, r.Value) != r.Bound {
			t.Errorf("%s: Bound %.15g, its multipliers and priors prove %.15g", name, r.Bound, proved)
		}
	} else if proved != r.BoundTwo || proved < want-tol {
		t.Errorf("%s: BoundTwo %.15g (proven %.15g), LP %.15g", name, r.BoundTwo, proved, want)
	}
	level, lower, _ := leakage.LevelOver(set, r.Mechanism, b)
	if level != r.Level || !withinBudget(level, lower, b, RobustBudgetSlack) {
		t.Errorf("%s: level %g (reported %g) over the set, budget %v", name, level, r.Level, b)
	}
	if r.Rounds != rounds || r.Cuts != 0 || r.Iterations == 0 {
		t.Errorf("%s: %d rounds, %d cuts, %d iterations: want %d rounds, no cut", name, r.Rounds, r.Cuts, r.Iterations, rounds)
	}
}

// TestPinSoftPairsKeepsOnePairPerLetter: every pair of a used output
// whose pivot is below leanSoftRel of its output's largest weight is
// pinned, however many, except each letter's pair of largest pivot; an
// output not deflated has none pinned.
func TestPinSoftPairsKeepsOnePairPerLetter(t *testing.T) {
	const n, m = 3, 4
	piv := make([]float64, n*m)
	wmax := []float64{1, 1, 1, 1}
	for j := range m {
		for k := range n {
			piv[j*n+k] = 1e-11 * float64(1+j+k*m) // all soft; output 3 largest on every letter
		}
	}
	isDefl := []bool{true, true, true, true}
	pinned := make([]bool, n*m)
	pinSoftPairs(n, m, piv, wmax, isDefl, pinned)
	for j := range m {
		for k := range n {
			if want := j != m-1; pinned[j*n+k] != want {
				t.Errorf("output %d letter %d: pinned %v, want %v", j, k, pinned[j*n+k], want)
			}
		}
	}
	isDefl[1] = false
	piv[1*n+0] = 0.5 // a hard pair on output 1 (not deflated) and letter 0
	pinSoftPairs(n, m, piv, wmax, isDefl, pinned)
	for k := range n {
		if pinned[1*n+k] {
			t.Errorf("letter %d of an output not deflated is pinned", k)
		}
	}
	if pinned[(m-1)*n+0] != true || pinned[0*n+0] != true {
		t.Errorf("letter 0: output 1 keeps it, outputs 0 and 3 should be pinned: %v", pinned)
	}
}

// TestLeanDirsReserveGrows: reserve makes room for at least the
// directions asked, at least doubling what was there, and keeps room
// that suffices.
func TestLeanDirsReserveGrows(t *testing.T) {
	const st, n = 7, 3
	var d leanDirs
	d.reserve(2, st, n, func(k int) []float64 { return make([]float64, k) })
	if len(d.gm) != 4 || len(d.dz) != 2*st || len(d.ed) != 2*n || len(d.ra2) != 2 {
		t.Fatalf("first room: gm %d, dz %d, ed %d, ra2 %d", len(d.gm), len(d.dz), len(d.ed), len(d.ra2))
	}
	d.reserve(3, st, n, nil)
	if len(d.ra2) != 4 || len(d.gm) != 16 || len(d.dz) != 4*st || len(d.dkz) != 4*st || len(d.du) != 4*st || len(d.ye) != 4*n {
		t.Errorf("grown to %d directions (gm %d, dz %d), want 4", len(d.ra2), len(d.gm), len(d.dz))
	}
	d.reserve(9, st, n, nil)
	if len(d.ra2) != 9 || len(d.gm) != 81 {
		t.Errorf("grown to %d directions, want 9", len(d.ra2))
	}
	gm := d.gm
	d.reserve(5, st, n, nil)
	if &d.gm[0] != &gm[0] {
		t.Error("room for 9 directions was replaced for 5")
	}
}

// TestLeanDirsCollect: collect lists each used output's column and then
// its pinned pairs, makes room for them, and refuses more than
// leanMaxDirs: every pair of a 40 × 40 problem pinned (1 640 > 16·80),
// and 5 000 directions of a 200 × 200 problem (below 16·400, past the
// room of leanMaxDirsRoom).
func TestLeanDirsCollect(t *testing.T) {
	const n, m, st = 3, 4, 5
	isDefl := []bool{true, false, true, false}
	pinned := make([]bool, n*m)
	pinned[0*n+2], pinned[1*n+0], pinned[2*n+1], pinned[2*n+2] = true, true, true, true
	var d leanDirs
	md, err := d.collect(n, m, st, isDefl, pinned)
	if err != nil || md != 5 {
		t.Fatalf("%d directions (%v), want 5", md, err)
	}
	wantJ, wantK := []int{0, 0, 2, 2, 2}, []int{-1, 2, -1, 1, 2}
	if !slices.Equal(d.dj, wantJ) || !slices.Equal(d.dk, wantK) {
		t.Errorf("owners %v letters %v, want %v %v", d.dj, d.dk, wantJ, wantK)
	}
	if len(d.gm) < md*md || len(d.dz) < md*st || len(d.ed) < md*n {
		t.Errorf("room: gm %d, dz %d, ed %d for %d directions", len(d.gm), len(d.dz), len(d.ed), md)
	}
	for _, c := range []struct{ n, pins int }{{40, 40 * 40}, {200, 4800}} {
		all := make([]bool, c.n*c.n)
		used := make([]bool, c.n)
		for i := range c.pins {
			all[i] = true
		}
		for j := range used {
			used[j] = true
		}
		if md, err := d.collect(c.n, c.n, st, used, all); !errors.Is(err, errBrokeDown) || md != c.n+c.pins {
			t.Errorf("%d directions past the bound %d: error %v", md, leanMaxDirs(c.n, c.n), err)
		}
	}
	// At the bound, room is made.
	var e leanDirs
	const near = 40
	some := make([]bool, near*near)
	used := make([]bool, near)
	for j := range used {
		used[j] = true
	}
	for i := range leanMaxDirs(near, near) - near {
		some[i] = true
	}
	if md, err := e.collect(near, near, st, used, some); err != nil || md != leanMaxDirs(near, near) {
		t.Errorf("%d directions at the bound %d: error %v", md, leanMaxDirs(near, near), err)
	}
}

// Where every lean run fails, the error wraps ErrRobustNotConverged and
// says why each did, by its step length (leanBallTwoStall).
func TestSolveLeanSaysWhyEveryRunFailed(t *testing.T) {
	p, pi, mu, kap, lip := leanBallTwoStall(t)
	_, err := solveRobustLeanBallTwo(context.Background(), p, pi, mu, kap, lip, 200, robustGap, AcceptedGap)
	if !errors.Is(err, ErrRobustNotConverged) {
		t.Fatalf("error %v: want it to wrap ErrRobustNotConverged", err)
	}
	for _, eta := range leanEtas {
		if !strings.Contains(err.Error(), fmt.Sprintf("the run stepping %g of the way: ", eta)) {
			t.Errorf("error %v: want the reason of the run stepping %g of the way", err, eta)
		}
	}
}

// deflationCount is a lean route's run observed: after each step, the
// outputs whose column it deflated (isDefl).
type deflationCount struct {
	iterand
	isDefl []bool
	most   int
}

func (d *deflationCount) step() error {
	err := d.iterand.step()
	n := 0
	for _, v := range d.isDefl {
		if v {
			n++
		}
	}
	d.most = max(d.most, n)
	return err
}

// TestLeanBoxDeflatesNearNullColumnsOnly: on a location grid's uniform
// prior (6×6) and on fine (36 letters) over the box 0.8–1.25 times the
// prior, under ε-PML and LIP at 1 nat, the box routes deflate fewer than
// half the outputs at every iteration (an output the optimum leaves
// unused keeps a column of its own curvature, however much mass it still
// carries), and their answer is proven within 1e-9 by its own multipliers
// and priors (the dualised LP takes minutes at this size) and keeps the
// budget over the box. Deflating every output of mass above
// leanDeflateMass, as far as the gap's first digits, makes the
// directions' system as large as the outputs and more.
func TestLeanBoxDeflatesNearNullColumnsOnly(t *testing.T) {
	for _, name := range []string{"grid", "fine"} {
		in := familyInstance(t, name, 36)
		set, err := randinst.FactorBox(in.Prior, 0.8, 1.25)
		if err != nil {
			t.Fatal(err)
		}
		pi := normalised(set.Center)
		for _, b := range []mech.Budget{{Measure: mech.PML, Epsilon: 1}, {Measure: mech.LIP, Epsilon: 1}} {
			p := RobustProblem{Utility: in.Utility, Budget: b, Set: set}
			mu, kap, lip, _ := robustRates(b)
			var d *deflationCount
			if lip {
				x := newLeanTwo(pi, p.Utility, set, mu, kap)
				d = &deflationCount{iterand: x, isDefl: x.isDefl}
			} else {
				x := newLeanBox(pi, p.Utility, set, mu)
				d = &deflationCount{iterand: x, isDefl: x.isDefl}
			}
			name := fmt.Sprintf("%s %v", name, b.Measure)
			if _, err := iterate(context.Background(), d, leanMaxIter(len(pi)), robustLooseTol, func(int) (bool, bool) { return true, false }); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			m := len(d.isDefl)
			if d.most == 0 || 2*d.most >= m {
				t.Errorf("%s: %d of %d outputs deflated at once; want some, fewer than half", name, d.most, m)
			}
			r, err := solveRobustLean(context.Background(), p, pi, mu, kap, lip, 200, robustGap, AcceptedGap)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if proved := provenBound(p, r); !(math.Abs(proved-r.Value) <= 1e-9*math.Max(1, math.Abs(r.Value))) {
				t.Errorf("%s: value %.15g, proven bound %.15g", name, r.Value, proved)
			}
			level, lower, _ := leakage.LevelOver(set, r.Mechanism, b)
			if !withinBudget(level, lower, b, RobustBudgetSlack) {
				t.Errorf("%s: level %g over the set, budget %v", name, level, b)
			}
		}
	}
}
