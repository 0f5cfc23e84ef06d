package ipm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// solveDual runs the dualised route alone.
func solveDual(p RobustProblem) (*RobustResult, error) {
	mu, kap, lip, err := robustRates(p.Budget)
	if err != nil {
		return nil, err
	}
	return solveRobustDual(context.Background(), p, normalised(p.Set.Center), mu, kap, lip, 200, robustGap, AcceptedGap)
}

// TestDualRouteMatchesTheLP solves random problems over boxes and L1
// balls under PML, LIP and ALIP by the dualised constraints alone and
// compares them with the dualised LP (an independent formulation, solved
// by the simplex): the same optimum to 1e-9, a bound that brackets it
// (within 1e-9 under PML, whose one prior per output proves the optimum;
// the two-prior bound within 1e-8 under LIP and ALIP), and a mechanism
// within the budget over the whole set and at sampled priors of it.
func TestDualRouteMatchesTheLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 14))
	draws := rand.New(rand.NewPCG(14, 41))
	trials := 90
	if testlong.Short() {
		trials = 36
	}
	missed := 0
	for trial := range trials {
		p := randomRobustProblem(t, rng, trial, 9, true)
		r, err := solveDual(p)
		if err != nil {
			t.Logf("trial %d (%+v, box %v): %v", trial, p.Budget, p.Set.IsBox(), err)
			missed++
			continue
		}
		checkRobustAnswer(t, trial, p, r, draws, 10)
	}
	if missed > trials/10 {
		t.Errorf("the dualised route left %d of %d trials unanswered", missed, trials)
	}
}

// TestDualRouteAnswersTheFamilies solves every family of package
// instance at 8 letters, over a box and an L1 ball, under PML, LIP and
// ALIP, by the dualised route alone: each is answered (no round, no LP)
// with the dualised LP's optimum to 1e-9 and a mechanism within the
// budget over the set. The families hold the cases that
// break a plain elimination of the Newton system: columns at their caps
// whose t and ν coincide, soft entries held only by the dense row, and
// sides whose dense row is loose (their b's and ν's held by nothing).
func TestDualRouteAnswersTheFamilies(t *testing.T) {
	n := 8
	for _, f := range instance.Families() {
		in, err := f.New(n, 2026)
		if err != nil {
			t.Fatal(err)
		}
		for _, box := range []bool{true, false} {
			set := studySet(t, in.Prior, box)
			for _, b := range []mech.Budget{{Measure: mech.PML, Epsilon: 1}, {Measure: mech.LIP, Epsilon: 1},
				{Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 0.5}} {
				p := RobustProblem{Utility: in.Utility, Budget: b, Set: set}
				r, err := solveDual(p)
				if err != nil {
					t.Errorf("%s box %v %v: %v", f.Name, box, b.Measure, err)
					continue
				}
				want := robustLP(t, p)
				if tol := 1e-9 * math.Max(1, math.Abs(want)); math.Abs(r.Value-want) > tol {
					t.Errorf("%s box %v %v: value %.12g, LP %.12g", f.Name, box, b.Measure, r.Value, want)
				}
				if !withinBudget(r.Level, r.LevelLower, b, RobustBudgetSlack) {
					t.Errorf("%s box %v %v: the mechanism fails the audit over the set (%g, %g)", f.Name, box, b.Measure, r.Level, r.LevelLower)
				}
			}
		}
	}
}

// TestSolveRobustHandsTiedColumnsToTheDualRoute: the Hamming utility's
// columns have many tied entries, whose worst priors over a box are as
// many as the ways to break the ties, and the cutting planes alone give
// no answer; past the lean route, SolveRobust (solveRobustRounds) hands
// the problem to the dualised route after robustDualAfter rounds, which
// answers in one interior point with the
// LP's optimum, a bound that brackets it and a mechanism within the
// budget over the set.
func TestSolveRobustHandsTiedColumnsToTheDualRoute(t *testing.T) {
	in := familyInstance(t, "hamming", 8)
	set := studySet(t, in.Prior, true)
	b := mech.Budget{Measure: mech.LIP, Epsilon: 1}
	p := RobustProblem{Utility: in.Utility, Budget: b, Set: set}
	mu, kap, lip, _ := robustRates(b)
	if _, err := solveRobustCuts(context.Background(), p, normalised(set.Center), mu, kap, lip, 200, robustGap, AcceptedGap, nil); err == nil {
		t.Fatal("the cutting planes answered alone: the test no longer exercises the hand-over")
	}
	r, err := solveRobustRounds(context.Background(), p, normalised(set.Center), mu, kap, lip, 200, robustGap, AcceptedGap)
	if err != nil {
		t.Fatal(err)
	}
	if r.Rounds != robustDualAfter+1 || r.Cuts == 0 {
		t.Errorf("%d rounds and %d cuts: want %d rounds of cuts (with their cuts) and the dualised route's one", r.Rounds, r.Cuts, robustDualAfter)
	}
	want := robustLP(t, p)
	tol := 1e-9 * math.Max(1, want)
	if math.Abs(r.Value-want) > tol || r.BoundTwo < want-tol || r.BoundTwo > want+10*tol {
		t.Errorf("value %.12g, two-prior bound %.12g, LP %.12g", r.Value, r.BoundTwo, want)
	}
	if !withinBudget(r.Level, r.LevelLower, b, RobustBudgetSlack) {
		t.Errorf("the mechanism fails the audit over the set (level %g)", r.Level)
	}
}

// TestSolveRobustCountsAcrossTheHandOver: where the cutting planes give
// the problem to the dualised route, at round robustDualAfter (Hamming
// over the L1 ball, grid over a box) or after their last round stalls
// (absolute error over the L1 ball at 16 letters), SolveRobust past the
// lean route (solveRobustRounds) answers with the dualised route's result, bit for bit, Converged with it, and
// with both routes' counts: the rounds, cuts and iterations of the
// cutting planes up to the hand-over (observed with a stand-in for the
// dualised route that answers with no counts of its own) plus the
// dualised route's run alone (one round, no cut).
func TestSolveRobustCountsAcrossTheHandOver(t *testing.T) {
	pml, lip := mech.Budget{Measure: mech.PML, Epsilon: 1}, mech.Budget{Measure: mech.LIP, Epsilon: 1}
	for _, c := range []struct {
		family string
		n      int
		box    bool
		b      mech.Budget
		atDual bool // handed over at round robustDualAfter, not after a stall
	}{
		{"hamming", 8, false, pml, true},
		{"grid", 8, true, lip, true},
		{"abs-uniform", 16, false, pml, false},
	} {
		name := fmt.Sprintf("%s N=%d box %v %v", c.family, c.n, c.box, c.b.Measure)
		in := familyInstance(t, c.family, c.n)
		p := RobustProblem{Utility: in.Utility, Budget: c.b, Set: studySet(t, in.Prior, c.box)}
		mu, kap, lip, _ := robustRates(c.b)
		pi := normalised(p.Set.Center)
		ctx := context.Background()
		asked := 0
		standIn := func() (*RobustResult, error) {
			asked++
			return &RobustResult{}, nil
		}
		cuts, cerr := solveRobustCuts(ctx, p, pi, mu, kap, lip, 200, robustGap, AcceptedGap, standIn)
		switch {
		case c.atDual && (cerr != nil || asked != 1 || cuts.Rounds != robustDualAfter):
			t.Fatalf("%s: the cutting planes asked the dualised route %d times, %+v (%v): want once, at round %d", name, asked, cuts, cerr, robustDualAfter)
		case !c.atDual && (cerr == nil || asked != 0 || cuts == nil):
			t.Fatalf("%s: the cutting planes asked the dualised route %d times, %+v (%v): want a stalled answer that never asks it", name, asked, cuts, cerr)
		}
		dual, err := solveRobustDual(ctx, p, pi, mu, kap, lip, 200, robustGap, AcceptedGap)
		if err != nil {
			t.Fatalf("%s: the dualised route alone: %v", name, err)
		}
		r, err := solveRobustRounds(ctx, p, pi, mu, kap, lip, 200, robustGap, AcceptedGap)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if cuts.Cuts == 0 || cuts.Iterations == 0 || dual.Rounds != 1 || dual.Cuts != 0 || dual.Iterations == 0 {
			t.Errorf("%s: the cutting planes' %d cuts and %d iterations, the dualised route's %d rounds, %d cuts and %d iterations: want cuts and iterations before the hand-over, one round and no cut after it", name, cuts.Cuts, cuts.Iterations, dual.Rounds, dual.Cuts, dual.Iterations)
		}
		if r.Rounds != cuts.Rounds+1 || r.Cuts != cuts.Cuts || r.Iterations != cuts.Iterations+dual.Iterations {
			t.Errorf("%s: %d rounds, %d cuts, %d iterations; the cutting planes (%d, %d, %d) and the dualised route (%d, %d, %d)", name,
				r.Rounds, r.Cuts, r.Iterations, cuts.Rounds, cuts.Cuts, cuts.Iterations, dual.Rounds, dual.Cuts, dual.Iterations)
		}
		if r.Value != dual.Value || r.Bound != dual.Bound || r.Converged != dual.Converged || !slices.EqualFunc(r.Mechanism, dual.Mechanism, slices.Equal) {
			t.Errorf("%s: value %.17g, bound %.17g, converged %v; the dualised route's %.17g, %.17g, %v", name, r.Value, r.Bound, r.Converged, dual.Value, dual.Bound, dual.Converged)
		}
	}
}

// TestLDLTKeepsSmallPivots adds terms 10¹⁶ apart to a 2×2 factorisation
// in several orders and compares its inverse with the exact one (big
// rationals): a sum formed entry by entry would lose the small terms.
func TestLDLTKeepsSmallPivots(t *testing.T) {
	type term struct {
		a float64
		z []float64
	}
	terms := []term{{1e-8, []float64{1, 0}}, {2e8, []float64{-1, 1}}, {3e-8, []float64{0, 1}}, {5e7, []float64{1, -1}}, {2e-9, []float64{1, 1}}}
	M := [4]*big.Rat{new(big.Rat), new(big.Rat), new(big.Rat), new(big.Rat)}
	for _, tm := range terms {
		for a := range 2 {
			for b := range 2 {
				v := new(big.Rat).SetFloat64(tm.a)
				v.Mul(v, new(big.Rat).SetFloat64(tm.z[a]*tm.z[b]))
				M[a*2+b].Add(M[a*2+b], v)
			}
		}
	}
	det := new(big.Rat).Sub(new(big.Rat).Mul(M[0], M[3]), new(big.Rat).Mul(M[1], M[2]))
	exact := []*big.Rat{new(big.Rat).Quo(M[3], det), new(big.Rat).Neg(new(big.Rat).Quo(M[1], det)),
		new(big.Rat).Neg(new(big.Rat).Quo(M[2], det)), new(big.Rat).Quo(M[0], det)}
	for _, order := range [][]int{{0, 1, 2, 3, 4}, {1, 3, 0, 2, 4}, {4, 3, 2, 1, 0}} {
		var f ldlt
		f.reset(2)
		for _, i := range order {
			f.update(terms[i].a, terms[i].z)
		}
		inv := make([]float64, 4)
		f.inverse(inv)
		for i, e := range exact {
			want, _ := e.Float64()
			if math.Abs(inv[i]-want) > 1e-12*math.Abs(want) {
				t.Errorf("order %v: inverse entry %d is %.17g, exact %.17g", order, i, inv[i], want)
			}
		}
	}
}

// TestEliminatePairMatchesTheDenseBlock checks each pair's closed forms
// (the inverse of its block D, D⁻¹F, its share of the border's Schur
// complement) against the dense matrices formed from its rows, at random
// row weights, for boxes and balls with and without lower caps, and for
// a pair whose p is pinned.
func TestEliminatePairMatchesTheDenseBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 70))
	for trial := range 8 {
		x, n := randomDualPoint(t, rng, 3+rng.IntN(4), trial)
		nq, no, mr := x.nq, x.no, x.mr
		for k := range n {
			for _, pinned := range []bool{false, true} {
				sz := nq + no
				H, D := densePairBlock(t, x, k, pinned, false)
				if pinned {
					D[0] = 0
					for q := 1; q < nq; q++ {
						D[q], D[q*nq] = 0, 0
					}
				}
				x.freeReg[0], x.pinP[k] = 0, pinned
				x.pairStar(0, k, &x.stars[k])
				inv, df := make([]float64, nq*nq), make([]float64, nq*mr)
				x.eliminatePair(0, k, inv, df)
				close := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }
				for i := range nq * nq {
					if !close(inv[i], D[i]) {
						t.Fatalf("trial %d pair %d pinned %v: D⁻¹ %v, dense %v", trial, k, pinned, inv, D)
					}
				}
				for a := range nq {
					for o := range no {
						v := 0.0
						for b := range nq {
							v += D[a*nq+b] * H[b*sz+nq+o]
						}
						if !close(df[a*mr+o], v) {
							t.Fatalf("trial %d pair %d pinned %v: D⁻¹F(%d,%d) %g, dense %g", trial, k, pinned, a, o, df[a*mr+o], v)
						}
					}
				}
				var f ldlt
				f.reset(no)
				x.gatherPairBorder(0, k)
				x.flushPairBorder(&f, 0)
				dense := denseBorder(t, x, k, pinned, false)
				for a := range no {
					for b := range no {
						want := dense[a*no+b]
						got := 0.0
						for c := range no {
							got += f.l[a*no+c] * f.d[c] * f.l[b*no+c]
						}
						if !close(got, want) {
							t.Fatalf("trial %d pair %d pinned %v: border (%d,%d) %g, dense %g", trial, k, pinned, a, b, got, want)
						}
					}
				}
				x.pinP[k] = false
			}
		}
	}
}

// familyInstance returns the n-letter instance of the named family of
// package instance (seed 2026, the bench's).
func familyInstance(t *testing.T, name string, n int) instance.Instance {
	t.Helper()
	f, err := instance.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.New(n, 2026)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// studySet returns the robust study's set around pi (package bench): every
// mass between 0.8 and 1.25 times pi's (box) or the L1 ball of radius 0.1.
func studySet(t *testing.T, pi mech.Prior, box bool) *mech.PriorSet {
	t.Helper()
	set, err := mech.NewL1Set(pi, 0.1)
	if box {
		set, err = randinst.FactorBox(pi, 0.8, 1.25)
	}
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// randomDualPoint returns a dualised interior point of a random n-letter
// problem with 3 outputs (a box on even trials, a ball on odd ones; LIP
// when trial%4 ≥ 2), its pair rows' slacks and multipliers drawn over
// e^±2, and n.
func randomDualPoint(t *testing.T, rng *rand.Rand, n, trial int) (*dualIPM, int) {
	pi := randinst.Prior(rng, n, 0.05)
	u := randinst.Utility(rng, n, 3, 0)
	set := randomSet(t, rng, pi, trial%2 == 0)
	x := newDualIPM(normalised(set.Center), u, set, math.Exp(-0.5), math.Exp(-0.5), trial%4 >= 2)
	for r := range x.ps {
		for i := range x.ps[r] {
			x.ps[r][i] = math.Exp(4 * (rng.Float64() - 0.5))
			x.pz[r][i] = math.Exp(4 * (rng.Float64() - 0.5))
		}
	}
	x.rowWeights()
	return x, n
}

// densePairBlock returns pair (0, k)'s Hessian H = Σ_r (z/s) a aᵀ over
// its unknowns and its output's (nq + no square, an identity entry on an
// unknown no row holds) and the inverse D of its pair block, formed
// densely: with pinned, p is held (its coefficients dropped); with defl,
// the coefficients on t are dropped.
func densePairBlock(t *testing.T, x *dualIPM, k int, pinned, defl bool) (H, D []float64) {
	nq, no := x.nq, x.no
	sz := nq + no
	H = make([]float64, sz*sz)
	for r := range x.prow {
		row := &x.prow[r]
		if !row.at(k) {
			continue
		}
		w := x.pz[r][k] / x.ps[r][k]
		a := append(append([]float64{}, row.pair...), row.out...)
		if pinned {
			a[0] = 0
		}
		if defl {
			a[nq+x.oT] = 0
		}
		for i := range sz {
			for l := range sz {
				H[i*sz+l] += w * a[i] * a[l]
			}
		}
	}
	for q := range nq {
		if H[q*sz+q] == 0 {
			H[q*sz+q] = 1
		}
	}
	D = make([]float64, nq*nq)
	for i := range nq {
		for l := range nq {
			D[i*nq+l] = H[i*sz+l]
		}
	}
	var scratch []float64
	if err := invertScaled(D, nq, &scratch); err != nil {
		t.Fatal(err)
	}
	return H, D
}

// denseBorder returns pair (0, k)'s part of output 0's border Schur
// complement, H_oo − H_oq D H_qo (densePairBlock).
func denseBorder(t *testing.T, x *dualIPM, k int, pinned, defl bool) []float64 {
	nq, no := x.nq, x.no
	sz := nq + no
	H, D := densePairBlock(t, x, k, pinned, defl)
	out := make([]float64, no*no)
	for a := range no {
		for b := range no {
			v := H[(nq+a)*sz+nq+b]
			for i := range nq {
				for l := range nq {
					v -= H[(nq+a)*sz+i] * D[i*nq+l] * H[l*sz+nq+b]
				}
			}
			out[a*no+b] = v
		}
	}
	return out
}

// TestPairBordersSumOverTheLetters checks the border's terms summed over
// all of an output's pairs (gatherPairBorder for every letter, one
// flushPairBorder) against the sum of the pairs' dense blocks, with held
// and free p mixed in the output and its column deflated or not.
func TestPairBordersSumOverTheLetters(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 110))
	for trial := range 16 {
		x, n := randomDualPoint(t, rng, 3+rng.IntN(5), trial)
		lip, no := x.lip, x.no
		defl := trial%8 >= 4
		x.freeReg[0], x.defl[0] = 0, defl
		want := make([]float64, no*no)
		for k := range n {
			x.pinP[k] = rng.IntN(3) == 0
			x.pairStar(0, k, &x.stars[k])
			for i, v := range denseBorder(t, x, k, x.pinP[k], defl) {
				want[i] += v
			}
			x.gatherPairBorder(0, k)
		}
		var f ldlt
		f.reset(no)
		x.flushPairBorder(&f, 0)
		scale := 0.0
		for _, v := range want {
			scale = math.Max(scale, math.Abs(v))
		}
		for a := range no {
			for b := range no {
				got := 0.0
				for c := range no {
					got += f.l[a*no+c] * f.d[c] * f.l[b*no+c]
				}
				if math.Abs(got-want[a*no+b]) > 1e-9*math.Max(1, scale) {
					t.Fatalf("trial %d (lip %v, deflated %v): border (%d,%d) %g, summed dense blocks %g", trial, lip, defl, a, b, got, want[a*no+b])
				}
			}
		}
		for i, v := range x.bedge {
			if v != 0 {
				t.Fatalf("trial %d: the summed weight %d (%g) was not cleared", trial, i, v)
			}
		}
	}
}

// TestCoreSolvesTheNewtonSystem checks the structured solve of the
// Newton system (core, with the outputs' columns and the soft pairs
// deflated) against the whole system applied by kktApply, for box and
// ball problems under PML and LIP, along the route's own iterations.
// Near the optimum the system is so ill-conditioned that directions
// differing by a tenth of their size both solve it to rounding (a dense
// Gauss–Jordan solve included), so the test holds the directions to
// their residuals: below a hundredth of the point's gap measure, relative
// to the right-hand side, for the structured solve alone at the first
// iterate within dualCheckBelow (above which it is trusted unchecked: a
// direction need not be more exact than the point), below 1e-5 for the
// checked direction (GMRES finishing it, within its steps) at the first
// iterate within 1e-8, where the structured solve alone can be off by
// more than the right-hand side.
func TestCoreSolvesTheNewtonSystem(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 30))
	deflated := 0
	for trial := range 8 {
		n, m := 3+rng.IntN(3), 2+rng.IntN(3)
		pi := randinst.Prior(rng, n, 0.05)
		u := randinst.Utility(rng, n, m, 0)
		set := randomSet(t, rng, pi, trial%2 == 0)
		b := []mech.Budget{{Measure: mech.PML, Epsilon: 1}, {Measure: mech.LIP, Epsilon: 1}}[trial/2%2]
		mu, kap, lip, _ := robustRates(b)
		x := newDualIPM(normalised(set.Center), u, set, mu, kap, lip)
		checkedMid, reached := false, false
		for range 40 {
			x.residuals()
			g := x.measureRel()
			last := g < 1e-8
			if (g < dualCheckBelow && !checkedMid) || last {
				if err := x.factor(); err != nil {
					t.Fatal(err)
				}
				deflated += len(x.dirs)
				d := x.aff
				x.setAffineRHS()
				x.solve(d, last)
				rhs := make([]float64, len(x.x)+len(x.xo)+x.n)
				x.newtonRHS(rhs)
				got := make([]float64, len(rhs))
				x.pack(d, got)
				r := make([]float64, len(rhs))
				x.kktApply(got, r)
				res := 0.0
				for i := range r {
					res = math.Max(res, math.Abs(r[i]-rhs[i]))
				}
				if limit := map[bool]float64{false: 1e-2 * g, true: 1e-5}[last]; res > limit*maxAbs(rhs) {
					t.Errorf("trial %d (%d×%d, %v, box %v, gap %.1g, checked %v): residual %.3g of the right-hand side's", trial, n, m, b.Measure, set.IsBox(), g, last, res/maxAbs(rhs))
				}
				if last {
					reached = true
					break
				}
				checkedMid = true
			}
			if err := x.step(); err != nil {
				t.Fatal(err)
			}
		}
		if !reached {
			t.Errorf("trial %d: the iterations never came within 1e-8", trial)
		}
	}
	if deflated == 0 {
		t.Error("no direction was deflated: the test does not reach the nearly singular blocks")
	}
}

// TestIntoSetLandsInTheSet moves priors near a box or a ball (every
// letter off by up to 1e-7, as the multipliers' rounding leaves them)
// into it, to rounding, and refuses those further than dualPriorNear.
func TestIntoSetLandsInTheSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 50))
	for trial := range 200 {
		n := 2 + rng.IntN(8)
		pi := randinst.Prior(rng, n, 0.02)
		set := randomSet(t, rng, pi, trial%2 == 0)
		q0 := randinst.SetPrior(rng, set, nil)
		near, far := make([]float64, n), make([]float64, n)
		for k := range n {
			near[k] = q0[k] + 1e-7*(2*rng.Float64()-1)
			far[k] = q0[k]
		}
		far[rng.IntN(n)] += 1e-3
		q := intoSet(set, near)
		if q == nil || !set.Contains(q, 1e-12) {
			t.Fatalf("trial %d (box %v): %v moved to %v, not in the set", trial, set.IsBox(), near, q)
		}
		if intoSet(set, far) != nil {
			t.Fatalf("trial %d: a prior 1e-3 off the set was moved into it", trial)
		}
	}
}

// TestChoosePinsKeepsAnEntryPerLetter makes every pair soft (tiny
// weights on the rows of the pairs, a huge one on the dense rows) and
// checks that each letter keeps an unpinned entry (else the rows'
// system has no pivot for its row sum) and that at most maxPinned pairs
// are pinned.
func TestChoosePinsKeepsAnEntryPerLetter(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 60))
	for trial := range 6 {
		n, m := 3+rng.IntN(6), 2+rng.IntN(6)
		pi := randinst.Prior(rng, n, 0.02)
		set := randomSet(t, rng, pi, trial%2 == 0)
		x := newDualIPM(normalised(set.Center), randinst.Utility(rng, n, m, 0), set, math.Exp(-1), math.Exp(-1), trial%3 == 0)
		for r := range x.ps {
			for i := range x.ps[r] {
				x.ps[r][i], x.pz[r][i] = 1, 1e-12*(1+rng.Float64())
			}
		}
		x.rowWeights()
		for j := range m {
			x.wmax[j], x.freeReg[j] = 1e6, 0
		}
		x.choosePins()
		pinned := 0
		for k := range n {
			kept := false
			for j := range m {
				if x.pinP[j*n+k] {
					pinned++
				} else {
					kept = true
				}
			}
			if !kept {
				t.Fatalf("trial %d: every entry of letter %d is pinned", trial, k)
			}
		}
		if pinned == 0 || pinned > x.maxPinned {
			t.Fatalf("trial %d: %d pairs pinned, want between 1 and %d", trial, pinned, x.maxPinned)
		}
	}
}

// TestBoxOfOnePrior: a box whose upper bounds sum to 1 holds the one
// prior u (as a ball of radius 0 holds its centre), so its dual's ν runs
// off along a free direction: dualApplies refuses it, and SolveRobust's
// answer is the optimum at that prior (the LP at one prior).
func TestBoxOfOnePrior(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 80))
	answered := 0
	defer func() {
		if answered < 3 {
			t.Errorf("%d of 6 trials answered", answered)
		}
	}()
	for trial := range 6 {
		n, m := 3+rng.IntN(4), 2+rng.IntN(4)
		pi := randinst.Prior(rng, n, 0.05)
		u := randinst.Utility(rng, n, m, 0)
		lo := make([]float64, n)
		for k := range lo {
			lo[k] = 0.5 * pi[k]
		}
		set, err := mech.NewBoxSet(pi, lo, pi)
		if err != nil {
			t.Fatal(err)
		}
		if dualApplies(set) {
			t.Fatalf("trial %d: the dualised route takes a box of one prior", trial)
		}
		b := []mech.Budget{{Measure: mech.PML, Epsilon: 1}, {Measure: mech.LIP, Epsilon: 1}}[trial%2]
		r, err := SolveRobust(RobustProblem{Utility: u, Budget: b, Set: set}, Options{})
		if errors.Is(err, ErrRobustNotConverged) {
			continue // the caller's LP decides
		}
		if err != nil {
			t.Fatal(err)
		}
		answered++
		want := nominalLP(t, pi, u, b)
		if math.Abs(r.Value-want) > 1e-9*math.Max(1, want) {
			t.Errorf("trial %d (%v): value %.12g, the optimum at the prior %.12g", trial, b.Measure, r.Value, want)
		}
	}
}

// TestSolveRobustResultsHoldTogether checks what SolveRobust returns
// besides its value on every family at 8 letters, over a box and a ball,
// under PML, LIP and ALIP: its levels are the mechanism's audit over the
// set; its priors (one per output, and a pair under LIP and ALIP) lie in
// the set; its Bound is proven by its own multipliers and priors
// (RobustBound, at least the value), and BoundTwo by them with the cap
// weights (RobustBoundTwo), both at least the LP optimum; and its counts
// are the lean route's where it answers (ε-PML over a box), the cutting
// planes' own where they answer before the hand-over, and three rounds
// and the dualised route's one where they do not.
func TestSolveRobustResultsHoldTogether(t *testing.T) {
	for _, f := range instance.Families() {
		in := familyInstance(t, f.Name, 8)
		for _, box := range []bool{true, false} {
			set := studySet(t, in.Prior, box)
			for _, b := range []mech.Budget{{Measure: mech.PML, Epsilon: 1}, {Measure: mech.LIP, Epsilon: 1},
				{Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 0.5}} {
				name := fmt.Sprintf("%s box %v %v", f.Name, box, b.Measure)
				p := RobustProblem{Utility: in.Utility, Budget: b, Set: set}
				r, err := SolveRobust(p, Options{})
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				level, lower, _ := leakage.LevelOver(set, r.Mechanism, b)
				if level != r.Level || lower != r.LevelLower {
					t.Errorf("%s: levels (%g, %g), the audit over the set (%g, %g)", name, r.Level, r.LevelLower, level, lower)
				}
				inSet := func(what string, pr [][]float64) {
					for j, v := range pr {
						if v != nil && !set.Contains(v, 1e-9) {
							t.Errorf("%s: %s prior of output %d is not in the set", name, what, j)
						}
					}
				}
				inSet("the bound's", r.Priors)
				inSet("an upper caps'", r.PriorsUpper)
				inSet("a lower caps'", r.PriorsLower)
				cands := make([][][]float64, len(r.Priors))
				for j, v := range r.Priors {
					cands[j] = [][]float64{v}
				}
				want := robustLP(t, p)
				tol := 1e-9 * math.Max(1, math.Abs(want))
				if proved, _ := RobustBound(set.Center, in.Utility, b, r.Alpha, cands); math.Max(proved, r.Value) != r.Bound || r.Bound < want-tol {
					t.Errorf("%s: Bound %.15g, its multipliers and priors prove %.15g, LP %.15g", name, r.Bound, proved, want)
				}
				if b.Measure != mech.PML {
					two := RobustBoundTwo(set.Center, in.Utility, b, r.Alpha, r.PriorsUpper, r.PriorsLower, r.CapWeights)
					if two != r.BoundTwo || two < want-tol {
						t.Errorf("%s: BoundTwo %.15g, its multipliers, priors and cap weights prove %.15g, LP %.15g", name, r.BoundTwo, two, want)
					}
				}
				mu, kap, lip, _ := robustRates(b)
				if lean, tried, err := solveRobustLeanRoute(context.Background(), p, normalised(set.Center), mu, kap, lip, 200, robustGap, AcceptedGap); tried && err == nil {
					if r.Rounds != 1 || r.Cuts != 0 || r.Iterations != lean.Iterations || r.Value != lean.Value {
						t.Errorf("%s: %d rounds, %d cuts, %d iterations, value %.17g; the lean route's %+v", name, r.Rounds, r.Cuts, r.Iterations, r.Value, lean)
					}
					continue
				}
				cuts, cerr := solveRobustCuts(context.Background(), p, normalised(set.Center), mu, kap, lip, 200, robustGap, AcceptedGap, nil)
				switch {
				case r.Rounds <= robustDualAfter:
					if cerr != nil || cuts.Rounds != r.Rounds || cuts.Cuts != r.Cuts || cuts.Iterations != r.Iterations {
						t.Errorf("%s: %d rounds, %d cuts, %d iterations; the cutting planes alone %+v (%v)", name, r.Rounds, r.Cuts, r.Iterations, cuts, cerr)
					}
				case r.Rounds != robustDualAfter+1:
					t.Errorf("%s: %d rounds: want the cutting planes' %d and the dualised route's one", name, r.Rounds, robustDualAfter)
				}
			}
		}
	}
}
