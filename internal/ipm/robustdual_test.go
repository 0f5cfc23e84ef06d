package ipm

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/mech"
)

// budgetRates returns μ = e^{−ε_u}, κ = e^{−ε_l} and whether b has lower
// caps, as SolveRobust sets them.
func budgetRates(b mech.Budget) (mu, kap float64, lip bool) {
	switch b.Measure {
	case mech.LIP:
		return math.Exp(-b.Epsilon), math.Exp(-b.Epsilon), true
	case mech.ALIP:
		return math.Exp(-b.EpsilonUpper), math.Exp(-b.EpsilonLower), true
	}
	return math.Exp(-b.Epsilon), 0, false
}

// solveDual runs the dualised route alone.
func solveDual(p RobustProblem) (*RobustResult, error) {
	mu, kap, lip := budgetRates(p.Budget)
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
		n, m := 2+rng.IntN(9), 2+rng.IntN(9)
		pi := randinst.Prior(rng, n, 0.02)
		u := randinst.Utility(rng, n, m, []int{0, 3}[trial%2])
		eps := []float64{0.3, 1, 2, 4}[trial%4]
		b := []mech.Budget{{Measure: mech.PML, Epsilon: eps}, {Measure: mech.LIP, Epsilon: eps},
			{Measure: mech.ALIP, EpsilonLower: eps, EpsilonUpper: 0.5 * eps}}[trial%3]
		set := randomSet(t, rng, pi, trial%5 < 3)
		p := RobustProblem{Utility: u, Budget: b, Set: set}
		r, err := solveDual(p)
		if err != nil {
			t.Logf("trial %d (%d×%d, %+v, box %v): %v", trial, n, m, b, set.IsBox(), err)
			missed++
			continue
		}
		want := robustLP(t, p)
		tol := 1e-9 * math.Max(1, math.Abs(want))
		if math.Abs(r.Value-want) > tol || r.Bound < want-tol {
			t.Fatalf("trial %d (%+v, box %v): [%.12g, %.12g], LP %.12g", trial, b, set.IsBox(), r.Value, r.Bound, want)
		}
		if b.Measure == mech.PML && r.Bound > want+tol {
			t.Fatalf("trial %d: bound %.12g above the LP's optimum %.12g", trial, r.Bound, want)
		}
		if b.Measure != mech.PML && (r.BoundTwo > want+10*tol || r.BoundTwo < want-tol) {
			t.Fatalf("trial %d (%+v): two-prior bound %.12g, LP %.12g", trial, b, r.BoundTwo, want)
		}
		if !certify.RowsSumToOne(r.Mechanism) || !withinBudget(r.Level, r.LevelLower, b, RobustBudgetSlack) {
			t.Fatalf("trial %d: the mechanism fails the audit over the set (level %g, %g)", trial, r.Level, r.LevelLower)
		}
		for range 10 {
			rep, err := certify.Audit(randinst.SetPrior(draws, set, nil), r.Mechanism, b)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Level > upper(b)+1e-8 || (b.Measure == mech.ALIP && rep.ALIPLower > b.EpsilonLower+1e-8) {
				t.Fatalf("trial %d: levels (%g, %g) at a prior of the set, budget %+v", trial, rep.Level, rep.ALIPLower, b)
			}
		}
	}
	if missed > trials/10 {
		t.Errorf("the dualised route left %d of %d trials unanswered", missed, trials)
	}
}

// TestDualRouteAnswersTheFamilies solves every family of package
// instance at 8 letters, over a box and an L1 ball, under PML and LIP,
// by the dualised route alone: each is answered (no round, no LP) with
// the dualised LP's optimum to 1e-9. The families hold the cases that
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
			set, err := mech.NewL1Set(in.Prior, 0.1)
			if box {
				set, err = randinst.FactorBox(in.Prior, 0.8, 1.25)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range []mech.Budget{{Measure: mech.PML, Epsilon: 1}, {Measure: mech.LIP, Epsilon: 1}} {
				p := RobustProblem{Utility: in.Utility, Budget: b, Set: set}
				r, err := solveDual(p)
				if err != nil {
					t.Errorf("%s box %v %v: %v", f.Name, box, b.Measure, err)
					continue
				}
				want := robustLP(t, p)
				if tol := 1e-9 * math.Max(1, math.Abs(want)); math.Abs(r.Value-want) > tol || r.Bound < want-tol {
					t.Errorf("%s box %v %v: [%.12g, %.12g], LP %.12g", f.Name, box, b.Measure, r.Value, r.Bound, want)
				}
			}
		}
	}
}

// TestSolveRobustHandsTiedColumnsToTheDualRoute: the Hamming utility's
// columns have many tied entries, whose worst priors over a box are as
// many as the ways to break the ties, and the cutting planes keep
// cutting; SolveRobust hands the problem to the dualised route, which
// answers in one interior point with the LP's optimum.
func TestSolveRobustHandsTiedColumnsToTheDualRoute(t *testing.T) {
	f, err := instance.Lookup("hamming")
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.New(8, 2026)
	if err != nil {
		t.Fatal(err)
	}
	set, err := randinst.FactorBox(in.Prior, 0.8, 1.25)
	if err != nil {
		t.Fatal(err)
	}
	p := RobustProblem{Utility: in.Utility, Budget: mech.Budget{Measure: mech.LIP, Epsilon: 1}, Set: set}
	mu, kap, lip := budgetRates(p.Budget)
	if _, err := solveRobustCuts(context.Background(), p, normalised(set.Center), mu, kap, lip, 200, robustGap, AcceptedGap); err == nil {
		t.Fatal("the cutting planes answered alone: the test no longer exercises the hand-over")
	}
	r, err := SolveRobust(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Rounds != 1 || r.Cuts != 0 {
		t.Errorf("%d rounds and %d cuts: want the dualised route's one interior point", r.Rounds, r.Cuts)
	}
	want := robustLP(t, p)
	if math.Abs(r.Value-want) > 1e-9*math.Max(1, want) {
		t.Errorf("value %.12g, LP %.12g", r.Value, want)
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
		n := 3 + rng.IntN(4)
		pi := randinst.Prior(rng, n, 0.05)
		u := randinst.Utility(rng, n, 3, 0)
		set := randomSet(t, rng, pi, trial%2 == 0)
		lip := trial%4 >= 2
		x := newDualIPM(normalised(set.Center), u, set, math.Exp(-0.5), math.Exp(-0.5), lip)
		for r := range x.ps {
			for i := range x.ps[r] {
				x.ps[r][i] = math.Exp(4 * (rng.Float64() - 0.5))
				x.pz[r][i] = math.Exp(4 * (rng.Float64() - 0.5))
			}
		}
		nq, no, mr := x.nq, x.no, x.mr
		for k := range n {
			for _, pinned := range []bool{false, true} {
				sz := nq + no
				H := make([]float64, sz*sz)
				for r := range x.prow {
					row := &x.prow[r]
					if row.has != nil && !row.has[k] {
						continue
					}
					w := x.pz[r][k] / x.ps[r][k]
					a := append(append([]float64{}, row.pair...), row.out...)
					if pinned {
						a[0] = 0
					}
					for i := range sz {
						for l := range sz {
							H[i*sz+l] += w * a[i] * a[l]
						}
					}
				}
				for q := range nq {
					if H[q*sz+q] == 0 {
						H[q*sz+q] = 1 // a held unknown
					}
				}
				D := make([]float64, nq*nq)
				for i := range nq {
					for l := range nq {
						D[i*nq+l] = H[i*sz+l]
					}
				}
				var scratch []float64
				if err := invertScaled(D, nq, &scratch); err != nil {
					t.Fatal(err)
				}
				if pinned {
					D[0] = 0
					for q := 1; q < nq; q++ {
						D[q], D[q*nq] = 0, 0
					}
				}
				// wmax sets the pair soft (its p pinned) or not.
				x.freeReg[0], x.nPinned, x.wmax[0] = 0, 0, 0
				if pinned {
					x.wmax[0] = math.Inf(1)
				}
				inv, df := make([]float64, nq*nq), make([]float64, nq*mr)
				x.eliminatePair(0, k, inv, df)
				if x.pinP[k] != pinned {
					t.Fatalf("pair %d pinned %v, want %v", k, x.pinP[k], pinned)
				}
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
				x.addPairBorder(&f, 0, k)
				for a := range no {
					for b := range no {
						want := H[(nq+a)*sz+nq+b]
						for i := range nq {
							for l := range nq {
								want -= H[(nq+a)*sz+i] * D[i*nq+l] * H[l*sz+nq+b]
							}
						}
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
