package ipm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/mech"
)

// TestRatioAsPMLMatchesTheLP: LIP problems solved as ε'-PML on random instances from 0.01 to 10 nats returns an
// audited mechanism worth the LIP LP's optimum (package
// polytope's formulation, the revised backend) to 1e-8 of the value,
// the LP's resolution, bracketed by its bound.
func TestRatioAsPMLMatchesTheLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 2))
	for trial := range 60 {
		n, m := 2+rng.IntN(12), 1+rng.IntN(6)
		pi := randinst.Prior(rng, n, []float64{0, 0.05}[trial%2])
		u := randinst.Utility(rng, n, m, []int{0, 3}[trial%2])
		eps := []float64{0.01, 0.5, 1, 2, 5, 10}[trial%6]
		b := mech.Budget{Measure: mech.LIP, Epsilon: eps}
		p := RatioProblem{Prior: pi, Utility: u, Budget: b}
		r, err := solveRatioAsPML(p, Options{LowRank: true})
		if err != nil {
			t.Fatalf("trial %d (%d×%d, %+v): %v", trial, n, m, b, err)
		}
		want := ratioLP(t, p)
		tol := 1e-8 * math.Max(1, math.Abs(want))
		if math.Abs(r.Value-want) > tol || r.Bound < want-tol {
			t.Fatalf("trial %d (%+v): [%.12g, %.12g], LP %.12g", trial, b, r.Value, r.Bound, want)
		}
		auditRatio(t, "trial", normalised(pi), r.Mechanism, b)
	}
}

// TestRatioAsPMLSameDual: the multipliers of the ε'-PML rows, mapped to
// the LIP rows, prove with certify.RatioUpperBound what they
// prove with certify.UpperBound on the ε'-PML problem (the two dual
// functions are one), for arbitrary multipliers.
func TestRatioAsPMLSameDual(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 34))
	for trial := range 40 {
		n, m := 2+rng.IntN(9), 1+rng.IntN(7)
		pi := normalised(randinst.Prior(rng, n, 0))
		u := randinst.Utility(rng, n, m, 0)
		b := mech.Budget{Measure: mech.LIP, Epsilon: 0.2 + 3*rng.Float64()}
		p := RatioProblem{Prior: pi, Utility: u, Budget: b}
		fm, err := p.form()
		if err != nil {
			t.Fatal(err)
		}
		l, lambda, ok := fm.pmlCaps()
		if !ok {
			t.Fatalf("trial %d: %+v has no ε'-PML form", trial, b)
		}
		// l and λ from the budget itself, not from the form.
		lo, hi := math.Exp(-b.Epsilon), math.Exp(b.Epsilon)
		if math.Abs(l-lo) > 1e-15 || math.Abs(lambda-(hi-lo)/(1-lo)) > 1e-12*lambda {
			t.Fatalf("trial %d: l %g λ %g, want %g and %g", trial, l, lambda, lo, (hi-lo)/(1-lo))
		}
		up := make(mech.Utility, n)
		for i := range up {
			up[i] = make([]float64, m)
			for j := range m {
				mean := 0.0
				for k := range n {
					mean += pi[k] * u[k][j]
				}
				up[i][j] = (1-lo)*u[i][j] + lo*mean
			}
		}
		alpha := make([]float64, n)
		for i := range alpha {
			alpha[i] = pi[i] * (rng.NormFloat64() - 1)
		}
		r := fromPML(p, l, &Result{Mechanism: uniformRows(n, m), Alpha: alpha})
		want := certify.UpperBound(pi, up, nil, math.Log(lambda), alpha)
		if math.Abs(r.Bound-want) > 1e-11*math.Max(1, math.Abs(want)) {
			t.Fatalf("trial %d (%+v): ratio bound %.15g, ε'-PML bound %.15g", trial, b, r.Bound, want)
		}
	}
}

// uniformRows is the n×m mechanism whose every row is uniform.
func uniformRows(n, m int) mech.Mechanism {
	P := mech.Zeros(n, m)
	for i := range P {
		for j := range P[i] {
			P[i][j] = 1 / float64(m)
		}
	}
	return P
}

// TestRatioAsPMLGrid: on location grids of both priors whose outputs are
// every other cell (the shape of the active set's restricted problems),
// the LIP problems solved as ε'-PML certify the optimum to 1e-9
// of the LP's, with an audited mechanism and no ErrNotConverged.
func TestRatioAsPMLGrid(t *testing.T) {
	for _, prior := range []string{"uniform", "clustered"} {
		for _, b := range ratioBudgets[:1] {
			p := gridRatioProblem(t, 8, 2, prior, b)
			name := prior + " " + string(b.Measure)
			r, err := solveRatioAsPML(p, Options{LowRank: true})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want := ratioLP(t, p)
			if math.Abs(r.Value-want) > 1e-9 || r.Bound < want-1e-9 || r.Bound-r.Value > 1e-9 {
				t.Fatalf("%s: [%.13g, %.13g], LP %.13g", name, r.Value, r.Bound, want)
			}
			auditRatio(t, name, p.Prior, r.Mechanism, b)
		}
	}
}

// TestRatioAsPMLGridLong: the restricted problem of a 48×48 grid on every
// third cell (2 304 inputs, 256 outputs, the size of a LIP round at
// 64×64 that the ratio form's iterations do not certify), solved as
// ε'-PML, certifies to 1e-9 with an audited mechanism, under LIP for
// both priors; its bound is certify.RatioUpperBound's from the returned
// multipliers.
func TestRatioAsPMLGridLong(t *testing.T) {
	if testlong.Short() {
		t.Skip("a 2 304 × 256 LIP problem per prior")
	}
	for _, prior := range []string{"uniform", "clustered"} {
		b := ratioBudgets[0]
		p := gridRatioProblem(t, 48, 3, prior, b)
		r, err := solveRatioAsPML(p, Options{LowRank: true, Workers: 2})
		if err != nil {
			t.Fatalf("%s: %v", prior, err)
		}
		auditRatio(t, prior, p.Prior, r.Mechanism, b)
		v := p.Utility.ExpectedUtility(p.Prior, r.Mechanism)
		bound := certify.RatioUpperBound(p.Prior, p.Utility, b, r.Alpha)
		if v != r.Value || bound != r.Bound || !(bound >= v-1e-12) || bound-v > 1e-9*math.Max(1, math.Abs(v)) {
			t.Fatalf("%s: value %.15g (reported %.15g), bound %.15g (reported %.15g)", prior, v, r.Value, bound, r.Bound)
		}
	}
}
