package ipm

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// TestLowRankMatchesDense solves random instances, square and with far
// fewer outputs than inputs, under every budget with the dense and the
// low-rank Newton systems: both certified (to AcceptedGap), their brackets
// on the optimum overlapping; for ε-PML the vertices of both points have
// the same value to 1e-9.
func TestLowRankMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 2))
	failed := 0
	for trial := range 80 {
		n := 2 + rng.IntN(30)
		m := 1 + rng.IntN(8)
		if trial%4 == 0 {
			m = n
		}
		pi := randinst.Prior(rng, n, []float64{0, 0.001, 0.05}[trial%3])
		u := randinst.Utility(rng, n, m, []int{0, 3}[trial%2])
		eps := []float64{0.01, 0.5, 1, 2, 5}[trial%5]
		var dense, low *Result
		var derr, lerr error
		switch trial % 4 {
		case 0:
			p := Problem{Prior: pi, Utility: u, Epsilon: eps}
			dense, derr = SolveVertex(p, Options{})
			low, lerr = SolveVertex(p, Options{LowRank: true})
		default:
			b := []mech.Budget{{}, {Measure: mech.LIP, Epsilon: eps}, {Measure: mech.ALIP, EpsilonLower: eps, EpsilonUpper: eps / 2},
				{Measure: mech.LDP, Epsilon: eps}}[trial%4]
			p := RatioProblem{Prior: pi, Utility: u, Budget: b}
			dense, derr = SolveRatio(p, Options{})
			low, lerr = SolveRatio(p, Options{LowRank: true})
		}
		if derr != nil {
			continue // the dense solve's own limits are tested elsewhere
		}
		if lerr != nil {
			failed++
			t.Logf("trial %d (%d×%d, ε %g): low rank: %v", trial, n, m, eps, lerr)
			continue
		}
		scale := math.Max(1, math.Abs(dense.Value))
		if trial%4 == 0 && math.Abs(dense.Value-low.Value) > 1e-9*scale {
			t.Errorf("trial %d: dense vertex %.15g, low-rank vertex %.15g", trial, dense.Value, low.Value)
		}
		if low.Bound-low.Value > AcceptedGap*scale {
			t.Errorf("trial %d: low-rank gap %g", trial, low.Bound-low.Value)
		}
		if !(low.Bound >= dense.Value-1e-12*scale) || !(dense.Bound >= low.Value-1e-12*scale) {
			t.Errorf("trial %d: brackets [%.15g, %.15g] (dense) and [%.15g, %.15g] (low rank) disjoint",
				trial, dense.Value, dense.Bound, low.Value, low.Bound)
		}
	}
	if failed > 0 {
		t.Errorf("%d of 80 low-rank solves not certified where the dense one was", failed)
	}
}

// TestGramIsTheProduct: gram's blocked upper triangle, mirrored, equals
// the product wᵀw computed whole by gonum, for widths below, at and across
// several blocks (odd ones leave a row without a pair, and a block
// without a whole quad) and lengths across several pieces, with and
// without a tail of fewer than four entries; with its pairs of rows split
// among three workers it gives the same matrix bit for bit.
func TestGramIsTheProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 5))
	for _, c := range []int{1, 3, 2 * gramRows, 2*gramRows + 1, 5*gramRows + 17} {
		for _, n := range []int{37, 2*gramChunk + 6} {
			w := mat.NewDense(n, c, nil)
			wt := make([]float64, c*n)
			for r := range n {
				for k := range c {
					v := rng.NormFloat64()
					w.Set(r, k, v)
					wt[k*n+r] = v
				}
			}
			var want mat.Dense
			want.Mul(w.T(), w)
			one, many := make([]float64, c*c), make([]float64, c*c)
			(&workspace{}).gram(one, wt, c, n)
			(&workspace{workers: 3, minWork: 1}).gram(many, wt, c, n)
			if !mat.EqualApprox(mat.NewDense(c, c, one), &want, 1e-12) {
				t.Fatalf("width %d, length %d: gram differs from wᵀw", c, n)
			}
			for r := range c {
				for k := range c {
					if one[r*c+k] != one[k*c+r] {
						t.Fatalf("width %d, length %d: gram not symmetric at (%d, %d)", c, n, r, k)
					}
					if one[r*c+k] != many[r*c+k] {
						t.Fatalf("width %d, length %d: three workers give %v at (%d, %d), one %v", c, n, many[r*c+k], r, k, one[r*c+k])
					}
				}
			}
		}
	}
}

// TestStaleFactorRescue counts every low-rank solve and its conjugate
// gradients preconditioned by the identity as failed, so that each
// iteration is solved by conjugate gradients preconditioned by an
// earlier iteration's dense factor, or by a new dense factor where they
// do not converge: the values, bounds and certificates must agree with
// the dense interior point's on random instances of every measure, and
// the rescue must have been taken.
func TestStaleFactorRescue(t *testing.T) {
	testLowRankFails, testWoodburyFails = true, true
	defer func() { testLowRankFails, testWoodburyFails = false, false }()
	rng := rand.New(rand.NewPCG(34, 9))
	rescued := 0
	for trial := range 24 {
		n := 8 + rng.IntN(30)
		m := 1 + rng.IntN(6)
		pi := randinst.Prior(rng, n, []float64{0, 0.001, 0.05}[trial%3])
		u := randinst.Utility(rng, n, m, []int{0, 3}[trial%2])
		eps := []float64{0.5, 1, 2}[trial%3]
		var dense, low *Result
		var derr, lerr error
		switch trial % 4 {
		case 0:
			p := Problem{Prior: pi, Utility: u, Epsilon: eps}
			dense, derr = Solve(p, Options{})
			low, lerr = Solve(p, Options{LowRank: true})
		default:
			b := []mech.Budget{{}, {Measure: mech.LIP, Epsilon: eps}, {Measure: mech.ALIP, EpsilonLower: eps, EpsilonUpper: eps / 2},
				{Measure: mech.LDP, Epsilon: eps}}[trial%4]
			p := RatioProblem{Prior: pi, Utility: u, Budget: b}
			dense, derr = SolveRatio(p, Options{})
			low, lerr = SolveRatio(p, Options{LowRank: true})
		}
		if derr != nil {
			continue
		}
		if lerr != nil {
			t.Errorf("trial %d (%d×%d, ε %g): %v", trial, n, m, eps, lerr)
			continue
		}
		if low.DenseFactors == 0 {
			t.Errorf("trial %d: no dense factor although every low-rank solve failed", trial)
		}
		rescued += low.Rescued
		t.Logf("trial %d: %d iterations, %d dense factors, %d rescued", trial, low.Iterations, low.DenseFactors, low.Rescued)
		scale := math.Max(1, math.Abs(dense.Value))
		if low.Bound-low.Value > AcceptedGap*scale {
			t.Errorf("trial %d: gap %g", trial, low.Bound-low.Value)
		}
		if math.Abs(low.Value-dense.Value) > 1e-7*scale {
			t.Errorf("trial %d: value %.15g, dense %.15g", trial, low.Value, dense.Value)
		}
	}
	if rescued == 0 {
		t.Error("no solve rescued by the stale factor")
	}
}

// TestWoodburyRescueWithoutDense counts every refined low-rank solve as
// failed and allows no dense N×N system (as above denseRescueMax), so
// that every Newton system is solved by conjugate gradients
// preconditioned by the identity: on Euclidean grids with few outputs
// (the active set's restricted problems) and on random instances, the
// ε-PML optimum must be the plain LP's to 1e-9 (through the purified
// vertex, as the active set takes it), the same bit for bit with three
// workers, and the LIP, ALIP and LDP ones the dense interior point's, with
// no dense factor taken.
func TestWoodburyRescueWithoutDense(t *testing.T) {
	testLowRankFails = true
	saved := denseRescueMax
	denseRescueMax = 0
	defer func() { testLowRankFails, denseRescueMax = false, saved }()
	rng := rand.New(rand.NewPCG(34, 11))
	var cases []Problem
	for _, k := range []int{5, 7, 9} {
		u := gridEuclid(k)
		narrow := make([][]float64, len(u))
		for i := range u {
			narrow[i] = u[i][:2*k]
		}
		cases = append(cases, Problem{Prior: uniformPrior(k * k), Utility: narrow, Epsilon: 1},
			Problem{Prior: randinst.Prior(rng, k*k, 0.01), Utility: narrow, Epsilon: 0.5})
	}
	for trial := range 12 {
		n, m := 8+rng.IntN(30), 1+rng.IntN(6)
		cases = append(cases, Problem{Prior: randinst.Prior(rng, n, []float64{0, 0.001, 0.05}[trial%3]),
			Utility: randinst.Utility(rng, n, m, []int{0, 3}[trial%2]), Epsilon: []float64{0.5, 1, 2}[trial%3]})
	}
	rescued := 0
	for c, p := range cases {
		r, err := Solve(p, Options{LowRank: true})
		if err != nil {
			t.Fatalf("case %d (%d×%d): %v", c, len(p.Prior), len(p.Utility[0]), err)
		}
		if r.DenseFactors != 0 {
			t.Fatalf("case %d: %d dense factors", c, r.DenseFactors)
		}
		rescued += r.Rescued
		if c < 4 {
			// The rescue's passes split over the workers as the
			// identity's do: the same point bit for bit.
			many, err := Solve(p, Options{LowRank: true, Workers: 3})
			if err != nil {
				t.Fatalf("case %d, 3 workers: %v", c, err)
			}
			if !reflect.DeepEqual(r, many) {
				t.Fatalf("case %d: 3 workers give %.17g, one %.17g", c, many.Value, r.Value)
			}
		}
		v, err := PurifiedVertex(p, r, Options{})
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		checkVertex(t, p, v)
		want := lpOptimum(t, solver.Revised(), p)
		if math.Abs(v.Value-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("case %d: vertex %.15g, LP %.15g", c, v.Value, want)
		}
	}
	for trial := range 12 {
		n, m := 8+rng.IntN(30), 1+rng.IntN(6)
		eps := []float64{0.5, 1, 2}[trial%3]
		b := []mech.Budget{{Measure: mech.LIP, Epsilon: eps}, {Measure: mech.ALIP, EpsilonLower: eps, EpsilonUpper: eps / 2},
			{Measure: mech.LDP, Epsilon: eps}}[trial%3]
		p := RatioProblem{Prior: randinst.Prior(rng, n, []float64{0, 0.001, 0.05}[trial%3]),
			Utility: randinst.Utility(rng, n, m, []int{0, 3}[trial%2]), Budget: b}
		dense, err := SolveRatio(p, Options{})
		if err != nil {
			continue
		}
		low, err := SolveRatio(p, Options{LowRank: true})
		if err != nil {
			t.Errorf("ratio trial %d (%d×%d, %v): %v", trial, n, m, b.Measure, err)
			continue
		}
		if low.DenseFactors != 0 {
			t.Fatalf("ratio trial %d: %d dense factors", trial, low.DenseFactors)
		}
		rescued += low.Rescued
		scale := math.Max(1, math.Abs(dense.Value))
		if low.Bound-low.Value > AcceptedGap*scale {
			t.Errorf("ratio trial %d: gap %g", trial, low.Bound-low.Value)
		}
		if math.Abs(low.Value-dense.Value) > 1e-7*scale {
			t.Errorf("ratio trial %d: value %.15g, dense %.15g", trial, low.Value, dense.Value)
		}
	}
	if rescued == 0 {
		t.Error("no solve rescued by conjugate gradients")
	}
}
