package overset

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/solver"

	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// decidedValue is the value pattern that 1 nat of PML over the set
// reaches on the family's instance of n letters (seed 2026) over the box
// 0.8–1.25 times its prior, found by BestWorstCase's decisions, and the
// decision's mechanism there.
func decidedValue(t *testing.T, family string, n int) (*mech.PriorSet, mech.Pattern, mech.Mechanism) {
	t.Helper()
	return decidedValueOver(t, family, n, 0.8, 1.25)
}

// decidedValueOver is decidedValue over the box lo–hi times the prior.
func decidedValueOver(t *testing.T, family string, n int, lo, hi float64) (*mech.PriorSet, mech.Pattern, mech.Mechanism) {
	t.Helper()
	in, set, err := randinst.FamilyBox(family, n, 2026, lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, PriorSet: set, Objective: problem.WorstCaseValue}
	pats, _, err := Patterns(p)
	if err != nil {
		t.Fatal(err)
	}
	var pat mech.Pattern
	var start mech.Mechanism
	for lo, hi := 0, len(pats)-1; lo <= hi; {
		mid := (lo + hi) / 2
		m, _, ok := probeByColumns(context.Background(), p, pats[mid], 1, nil)
		if !ok {
			t.Fatalf("%s: decision %d unsettled", family, mid)
		}
		if m != nil {
			pat, start, lo = pats[mid], m, mid+1
		} else {
			hi = mid - 1
		}
	}
	return set, pat, start
}

// On the robust study's value patterns at 32 letters the decision's
// mechanism sends whole runs of inputs through one row, and the merged
// problems close the bracket: within the tolerance, on the least ε that
// the robust master's search finds on the whole pattern, the mechanism
// audited at the upper end, the lower end proven with priors of the set
// (certify). Counting-binomial's first groups miss ε* by 9e-3, so its
// bracket closes only after groups are split by priced columns.
func TestLeastByMergingClosesTheStudysBrackets(t *testing.T) {
	for _, family := range []string{"square-geometric", "abs-zipf", "bands", "counting-binomial"} {
		set, pat, start := decidedValue(t, family, 32)
		if _, k := equalRows(start, nil); !(k > 1 && 2*k <= len(pat)) {
			t.Fatalf("%s: the decision's mechanism has %d distinct rows", family, k)
		}
		r := leastByMerging(context.Background(), set, pat, start, DefaultTol, nil)
		checkMerged(t, family, set, pat, r)
	}
}

// Counting-binomial's value pattern at 64 letters starts from two groups,
// and each split adds one or two: the merged problems reach ε* as their
// upper end by the fourth, but their shared multipliers prove it on the
// whole pattern only past twelve of them (the twelfth proves 0.83 of
// 0.9026). The bracket closes on merged problems alone, certified, and
// agrees with the whole pattern's search.
func TestLeastByMergingGoesOnPastTwelveProblems(t *testing.T) {
	set, pat, start := decidedValue(t, "counting-binomial", 64)
	if _, k := equalRows(start, nil); k != 2 {
		t.Fatalf("the decision's mechanism has %d distinct rows, want the 2 this test is for", k)
	}
	r := leastByMerging(context.Background(), set, pat, start, DefaultTol, nil)
	checkMerged(t, "counting-binomial at 64 letters", set, pat, r)
}

// Counting-binomial's first groups alone: the merged problem's optimum is
// an upper end above ε*, which the split groups then lower.
func TestLeastByMergingSplitsGroups(t *testing.T) {
	set, pat, start := decidedValue(t, "counting-binomial", 32)
	of, k := equalRows(start, nil)
	ms, err := set.Merge(of, k)
	if err != nil {
		t.Fatal(err)
	}
	mp := pat.Merge(of, k)
	first, err := colgen.RobustLeastEpsilon(context.Background(), ms, mp, DefaultTol)
	if err != nil {
		t.Fatal(err)
	}
	r := leastByMerging(context.Background(), set, pat, start, DefaultTol, nil)
	if !(first.Lower > r.Upper+1e-3) {
		t.Fatalf("the first groups' least ε %.12g, the merged bracket's upper end %.12g", first.Lower, r.Upper)
	}
	checkMerged(t, "counting-binomial", set, pat, r)
}

// keepBetterEnds takes each end from the bracket that has the better one,
// with its mechanism or proof, an empty bracket taking the other's whole,
// and keeps the lower end at most the upper.
func TestKeepBetterEnds(t *testing.T) {
	m1, m2 := mech.Mechanism{{1}}, mech.Mechanism{{1}}
	p1 := []certificate.Hint{{Alpha: []float64{1}}}
	p2 := []certificate.Hint{{Alpha: []float64{2}}}
	var r Bracket
	keepBetterEnds(&r, Bracket{})
	if r.Mechanism != nil {
		t.Fatal("two empty brackets made a mechanism")
	}
	keepBetterEnds(&r, Bracket{Lower: 0.4, Upper: 0.7, Mechanism: m2, Proofs: p2})
	if r.Lower != 0.4 || r.Upper != 0.7 || &r.Mechanism[0] != &m2[0] || &r.Proofs[0] != &p2[0] {
		t.Fatalf("an empty bracket did not take the other: %+v", r)
	}
	r = Bracket{Lower: 0.5, Upper: 0.6, Mechanism: m1, Proofs: p1}
	keepBetterEnds(&r, Bracket{Lower: 0.3, Upper: 0.55, Mechanism: m2, Proofs: p2})
	if r.Lower != 0.5 || r.Upper != 0.55 || &r.Mechanism[0] != &m2[0] || &r.Proofs[0] != &p1[0] {
		t.Fatalf("the upper end alone: %+v", r)
	}
	keepBetterEnds(&r, Bracket{Lower: 0.52, Upper: 0.9, Mechanism: m1, Proofs: p2})
	if r.Lower != 0.52 || r.Upper != 0.55 || &r.Mechanism[0] != &m2[0] || &r.Proofs[0] != &p2[0] {
		t.Fatalf("the lower end alone: %+v", r)
	}
	keepBetterEnds(&r, Bracket{Lower: 0, Upper: 0.51, Mechanism: m1})
	if r.Lower != 0.51 || r.Upper != 0.51 {
		t.Fatalf("a lower end above the upper: [%g, %g]", r.Lower, r.Upper)
	}
}

// A start whose rows are all distinct (random's decision: no two inputs
// share a row) is not merged: nothing is returned and nothing is solved.
func TestLeastByMergingLeavesDistinctRows(t *testing.T) {
	set, pat, start := decidedValue(t, "random", 32)
	if _, k := equalRows(start, nil); k != len(pat) {
		t.Fatalf("random's decision has %d distinct rows of %d", k, len(pat))
	}
	r := leastByMerging(context.Background(), set, pat, start, DefaultTol, nil)
	if r.Mechanism != nil || r.Lower != 0 || !math.IsInf(r.Upper, 1) {
		t.Fatalf("merged a start with distinct rows: [%g, %g]", r.Lower, r.Upper)
	}
}

// equalRows groups equal rows to the quantum, and splits groups by one
// row's entries.
func TestEqualRows(t *testing.T) {
	p := mech.Mechanism{{0.5, 0.5}, {1, 0}, {0.5, 0.5 + mergeQuantum/4}, {1, 0}}
	of, k := equalRows(p, nil)
	if k != 2 || of[0] != of[2] || of[1] != of[3] || of[0] == of[1] {
		t.Fatalf("groups %v (%d)", of, k)
	}
	split, kk := equalRows(mech.Mechanism{{0.2, 0.3, 0.2, 0.7}}, of)
	if kk != 3 || split[0] != split[2] || split[1] == split[3] || split[0] == split[1] {
		t.Fatalf("split %v (%d)", split, kk)
	}
}

// Over the box 0.5–2 at 32 letters the decision's mechanism on
// square-geometric has a row of its own for most inputs (on coarse too
// where its master is not folded by the line's reflection), but the
// estimate routed along the pattern's cover (the search's first upper
// end) sends runs of inputs through one row, and merging them closes
// the bracket on the least ε of the whole pattern's search.
func TestLeastByMergingFromTheCoverFlow(t *testing.T) {
	for _, family := range []string{"square-geometric", "coarse"} {
		set, pat, start := decidedValueOver(t, family, 32, 0.5, 2)
		if family == "square-geometric" && mergeable(start) {
			t.Fatalf("%s: the decision's mechanism merges", family)
		}
		g, err := colgen.NewRobust(set, pat)
		if err != nil {
			t.Fatal(err)
		}
		flow := g.CoverFlow()
		if !mergeable(flow) {
			t.Fatalf("%s: the cover's flow does not merge", family)
		}
		r := leastByMerging(context.Background(), set, pat, flow, DefaultTol, nil)
		checkMerged(t, family, set, pat, r)
	}
}

// checkMerged checks a merged bracket: closed within the tolerance, its
// mechanism audited at the upper end and its proof certified
// (checkFinished), and overlapping the bracket that the robust master's
// search finds on the whole pattern.
func checkMerged(t *testing.T, family string, set *mech.PriorSet, pat mech.Pattern, r Bracket) {
	t.Helper()
	if r.Mechanism == nil || !(r.Upper-r.Lower <= DefaultTol) {
		t.Fatalf("%s: bracket [%.12g, %.12g], mechanism %v", family, r.Lower, r.Upper, r.Mechanism != nil)
	}
	checkFinished(t, family, set, pat, r)
	whole, err := colgen.RobustLeastEpsilon(context.Background(), set, pat, DefaultTol)
	if err != nil {
		t.Fatal(err)
	}
	if r.Lower > whole.Upper+1e-12 || whole.Lower > r.Upper+1e-12 {
		t.Errorf("%s: merged [%.12g, %.12g], whole pattern's search [%.12g, %.12g]", family, r.Lower, r.Upper, whole.Lower, whole.Upper)
	}
}

// Decisions on merged problems (decideOnMergedProblems) agree with the
// dualised LP over the set: a mechanism comes with the pattern, audited
// within ε over the set, where the LP finds one; a refutation only where
// the LP finds none. The patterns are the value patterns around the one
// that 1 nat reaches, decided at 1 nat and just above and below their
// least ε over the set, on clustered location grids over their 95%
// Clopper–Pearson box (randinst.ConfidenceGrid, whose whole master stalls
// at a few hundred letters) and on counting-binomial and random over the
// box 0.8–1.25 times their prior; both answers come up, and on each grid.
func TestDecideOnMergedProblemsAgreesWithTheLP(t *testing.T) {
	ctx := context.Background()
	type inst struct {
		name string
		pi   mech.Prior
		u    mech.Utility
		set  *mech.PriorSet
	}
	var insts []inst
	for _, seed := range []uint64{1, 2} {
		pi, u, set, err := randinst.ConfidenceGrid(6, 12*36, seed)
		if err != nil {
			t.Fatal(err)
		}
		insts = append(insts, inst{fmt.Sprintf("6×6 grid, seed %d", seed), pi, u, set})
	}
	for _, f := range []string{"counting-binomial", "random"} {
		in, set, err := randinst.FamilyBox(f, 24, 2026, 0.8, 1.25)
		if err != nil {
			t.Fatal(err)
		}
		insts = append(insts, inst{f, in.Prior, in.Utility, set})
	}
	o := Options{Solver: solver.Revised(), PointSolver: solver.Revised()}
	found, refuted := 0, 0
	for _, c := range insts {
		answered := found + refuted
		p := &problem.Problem{Prior: c.pi, Utility: c.u, PriorSet: c.set, Objective: problem.WorstCaseValue}
		pats, _, err := Patterns(p)
		if err != nil {
			t.Fatal(err)
		}
		best, err := BestWorstCase(ctx, p, 1, o)
		if err != nil {
			t.Fatal(c.name, err)
		}
		k := strongestHeld(pats, best.Mechanism)
		for d := max(k-1, 0); d <= min(k+1, len(pats)-1); d++ {
			least, err := LeastEpsilon(ctx, p, pats[d], nil, o)
			if err != nil {
				t.Fatal(c.name, err)
			}
			for _, eps := range []float64{1, least.Upper + 1e-6, least.Lower - 1e-3} {
				if eps <= 0 {
					continue
				}
				g, err := newMaster(p, pats[d])
				if err != nil {
					t.Fatal(c.name, err)
				}
				m, no := decideOnMergedProblems(ctx, p, pats[d], g, eps)
				_, status, _, err := solveLP(ctx, mechSpec(c.pi, pats[d], eps), c.set, solver.Revised())
				if err != nil {
					t.Fatal(c.name, err)
				}
				what := fmt.Sprintf("%s, pattern %d at %.9g nats", c.name, d, eps)
				switch {
				case m != nil:
					found++
					if !pats[d].Holds(m) || leakage.PMLOver(c.set, m) > eps+certify.AuditTol {
						t.Errorf("%s: a mechanism off the pattern or above the budget over the set", what)
					}
					if status != solver.Optimal {
						t.Errorf("%s: a mechanism where the dualised LP ends %v", what, status)
					}
				case no:
					refuted++
					if status != solver.Infeasible {
						t.Errorf("%s: refuted where the dualised LP ends %v", what, status)
					}
				}
			}
		}
		if strings.Contains(c.name, "grid") && found+refuted == answered {
			t.Errorf("%s: no decision answered by merged problems", c.name)
		}
	}
	t.Logf("%d mechanisms, %d refutations", found, refuted)
	if found == 0 || refuted == 0 {
		t.Errorf("%d mechanisms and %d refutations: the instances no longer take both paths", found, refuted)
	}
}

// Where the whole problem's master settles none of BestWorstCase's
// decisions (decideByColumns made to leave them unsettled), they go to
// merged problems, then the interior point's proof, then the LP over the
// set, and the answer is the masters' own: the same strongest pattern, a
// bracket of the same least ε, its mechanism audited over the set at the
// upper end and its proof certified. On the clustered grids the merged
// problems settle some of those decisions (asked alone, as
// BestWorstCase asked them), and BestWorstCase solves an LP for none of
// those: at most as many LPs as the decisions they left.
func TestBestWorstCaseDecidesOnMergedProblems(t *testing.T) {
	ctx := context.Background()
	o := Options{Solver: solver.Revised(), PointSolver: solver.Revised()}
	for _, seed := range []uint64{1, 2} {
		name := fmt.Sprintf("6×6 grid, seed %d", seed)
		pi, u, set, err := randinst.ConfidenceGrid(6, 12*36, seed)
		if err != nil {
			t.Fatal(err)
		}
		p := &problem.Problem{Prior: pi, Utility: u, PriorSet: set, Objective: problem.WorstCaseValue}
		pats, _, err := Patterns(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := BestWorstCase(ctx, p, 1, o)
		if err != nil {
			t.Fatal(name, err)
		}
		type decision struct {
			pat mech.Pattern
			g   *colgen.RobustMaster
			eps float64
		}
		var left []decision
		decideByColumns = func(ctx context.Context, p *problem.Problem, pat mech.Pattern, eps float64, seed *colgen.RobustMaster) (mech.Mechanism, *colgen.RobustMaster, bool) {
			m, g, ok := probeByColumns(ctx, p, pat, eps, seed)
			if g == nil {
				return m, g, ok // settled without a master
			}
			left = append(left, decision{pat, g, eps})
			return nil, g, false
		}
		got, err := BestWorstCase(ctx, p, 1, o)
		decideByColumns = probeByColumns
		if err != nil {
			t.Fatal(name, err)
		}
		merged := 0
		for _, d := range left {
			if m, no := decideOnMergedProblems(ctx, p, d.pat, d.g, d.eps); m != nil || no {
				merged++
			}
		}
		t.Logf("%s: %d decisions left by the master, %d settled by merged problems, %d LPs", name, len(left), merged, got.LPs)
		if len(left) == 0 || merged == 0 {
			t.Fatalf("%s: %d decisions left, %d settled by merged problems: the instance no longer takes the route", name, len(left), merged)
		}
		if got.LPs > len(left)-merged {
			t.Errorf("%s: %d LPs for %d decisions the merged problems left", name, got.LPs, len(left)-merged)
		}
		k := strongestHeld(pats, got.Mechanism)
		if w := strongestHeld(pats, want.Mechanism); k != w {
			t.Fatalf("%s: pattern %d, the masters' %d", name, k, w)
		}
		checkFinished(t, name, set, pats[k], got)
		if got.Upper-got.Lower > DefaultTol || got.Lower > want.Upper+DefaultTol || want.Lower > got.Upper+DefaultTol {
			t.Errorf("%s: [%.12g, %.12g], the masters' [%.12g, %.12g]", name, got.Lower, got.Upper, want.Lower, want.Upper)
		}
	}
}

// strongestHeld is the index of the strongest of the patterns pats (from
// the weakest up) that the mechanism m holds.
func strongestHeld(pats []mech.Pattern, m mech.Mechanism) int {
	k := 0
	for k+1 < len(pats) && pats[k+1].Holds(m) {
		k++
	}
	return k
}
