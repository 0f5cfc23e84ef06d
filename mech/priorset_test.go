package mech_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// lpMass solves min (or max) c·π over the set as a plain LP: for a box the
// bounds and Σπ = 1; for a ball, π ≥ 0, Σπ = 1 and e_k ≥ |π_k − π̂_k| with
// Σ e ≤ r.
func lpMass(t *testing.T, s *mech.PriorSet, c []float64, max bool) float64 {
	t.Helper()
	n := s.N()
	m := &lp.Model{Maximize: max}
	sum := make([]lp.Nonzero, n)
	for k := range n {
		lo, up := 0.0, 1.0
		if s.IsBox() {
			lo, up = s.Lower[k], s.Upper[k]
		}
		m.AddCol(c[k], lo, up, "")
		sum[k] = lp.Entry(k, 1)
	}
	m.AddRow(1, 1, "", sum...)
	if !s.IsBox() {
		es := make([]lp.Nonzero, n)
		for k := range n {
			e := m.AddCol(0, 0, lp.Inf, "")
			es[k] = lp.Entry(e, 1)
			m.AddRow(-s.Center[k], lp.Inf, "", lp.Entry(e, 1), lp.Entry(k, -1)) // e − π ≥ −π̂
			m.AddRow(s.Center[k], lp.Inf, "", lp.Entry(e, 1), lp.Entry(k, 1))   // e + π ≥ π̂
		}
		m.AddRow(-lp.Inf, s.Radius, "", es...)
	}
	sol, err := solver.Gonum().Solve(m)
	if err != nil || sol.Status != solver.Optimal {
		t.Fatalf("LP: %v %v", err, sol)
	}
	return sol.Objective
}

func randomPrior(r *rand.Rand, n int) mech.Prior {
	p := make(mech.Prior, n)
	for i := range p {
		p[i] = 0.05 + r.Float64()
	}
	mech.Normalise(p)
	return p
}

func TestPriorSetMassAgainstLP(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 1))
	for trial := range 300 {
		n := 2 + r.IntN(6)
		pi := randomPrior(r, n)
		var s *mech.PriorSet
		var err error
		if trial%2 == 0 {
			lo, up := make([]float64, n), make([]float64, n)
			for k := range n {
				lo[k] = pi[k] * r.Float64()
				up[k] = math.Min(1, pi[k]+r.Float64()*0.5)
				if r.IntN(5) == 0 {
					lo[k], up[k] = pi[k], pi[k]
				}
			}
			s, err = mech.NewBoxSet(pi, lo, up)
		} else {
			s, err = mech.NewL1Set(pi, 2*r.Float64())
		}
		if err != nil {
			t.Fatal(err)
		}
		c := make([]float64, n)
		for k := range c {
			c[k] = r.Float64()
			if r.IntN(4) == 0 {
				c[k] = 0
			}
		}
		for _, max := range []bool{false, true} {
			got := s.MinMass(c)
			if max {
				got = s.MaxMass(c)
			}
			want := lpMass(t, s, c, max)
			if math.Abs(got-want) > 1e-9 {
				t.Fatalf("trial %d (box %v, max %v): greedy %.15g, LP %.15g", trial, s.IsBox(), max, got, want)
			}
			if x := s.Extreme(c, max); !s.Contains(x, 1e-12) {
				t.Fatalf("trial %d: extreme prior %v outside the set", trial, x)
			}
		}
	}
}

func TestPriorSetLimits(t *testing.T) {
	pi := mech.Prior{0.5, 0.3, 0.2}
	c := []float64{0.4, 0.1, 0.7}
	point, err := mech.NewBoxSet(pi, pi, pi)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.5*0.4 + 0.3*0.1 + 0.2*0.7
	if got := point.MinMass(c); math.Abs(got-want) > 1e-15 {
		t.Errorf("point box: MinMass %g, want %g", got, want)
	}
	ball, _ := mech.NewL1Set(pi, 0)
	if got := ball.MaxMass(c); math.Abs(got-want) > 1e-15 {
		t.Errorf("radius 0: MaxMass %g, want %g", got, want)
	}
	whole, _ := mech.NewL1Set(pi, 2)
	for _, s := range []*mech.PriorSet{mech.Simplex(pi), whole} {
		if got := s.MinMass(c); got != 0.1 {
			t.Errorf("simplex: MinMass %g, want the least entry 0.1", got)
		}
		if got := s.MaxMass(c); got != 0.7 {
			t.Errorf("simplex: MaxMass %g, want the largest entry 0.7", got)
		}
	}
}

func TestPriorSetErrors(t *testing.T) {
	pi := mech.Prior{0.5, 0.3, 0.2}
	for _, tc := range []struct {
		lo, up []float64
		r      float64
		want   string
	}{
		{lo: []float64{0.1, 0.4, 0}, up: []float64{1, 1, 1}, want: "prior_set.lower entry 2: is 0.4, above the prior's 0.3"},
		{lo: []float64{0, 0, 0}, up: []float64{1, 1, 0.1}, want: "prior_set.upper entry 3: is 0.1, below the prior's 0.2"},
		{lo: []float64{0, 0}, up: []float64{1, 1, 1}, want: "prior_set.lower: has 2 entries, but the prior has 3 letters"},
		{lo: []float64{0, -1, 0}, up: []float64{1, 1, 1}, want: "prior_set.lower entry 2: is negative"},
		{lo: []float64{0, 0, 0}, up: []float64{1, 1.5, 1}, want: "prior_set.upper entry 2: is 1.5, above 1"},
		{lo: []float64{0, math.NaN(), 0}, up: []float64{1, 1, 1}, want: "prior_set.lower entry 2: is NaN"},
		{r: 2.5, want: "prior_set.l1_radius: is 2.5; want 0 ≤ r ≤ 2"},
		{r: -0.1, want: "prior_set.l1_radius: is -0.1"},
		{r: math.NaN(), want: "prior_set.l1_radius: is NaN"},
	} {
		var err error
		if tc.lo != nil {
			_, err = mech.NewBoxSet(pi, tc.lo, tc.up)
		} else {
			_, err = mech.NewL1Set(pi, tc.r)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}

// TestPriorSetMassOfConstantCosts: Σ π_k c over any prior is c exactly.
// The greedy's sums over the 90% Clopper–Pearson box of the README's
// survey (40 answers) round to 1 − 2^−53 for c = 1, and −log of that,
// above a budget of 0, would rule out every output of the robust LP at ε = 0.
func TestPriorSetMassOfConstantCosts(t *testing.T) {
	box, err := mech.NewBoxSet(mech.Prior{0.225, 0.3, 0.275, 0.125, 0.075},
		[]float64{0.09314268034736378, 0.14655218263098432, 0.12812377720312929, 0.0331278586811263, 0.01112106255814475},
		[]float64{0.4136614798415865, 0.4944840046416905, 0.4681269540105777, 0.2957384838738375, 0.22990680284150333})
	if err != nil {
		t.Fatal(err)
	}
	ball, err := mech.NewL1Set(mech.Prior{0.1, 0.2, 0.3, 0.4}, 0.7)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*mech.PriorSet{box, ball} {
		for _, c := range []float64{1, 0.3, 1e-300} {
			cs := make([]float64, s.N())
			for k := range cs {
				cs[k] = c
			}
			if got := s.MinMass(cs); got != c {
				t.Errorf("box %v: MinMass of %g everywhere = %.17g", s.IsBox(), c, got)
			}
			if got := s.MaxMass(cs); got != c {
				t.Errorf("box %v: MaxMass of %g everywhere = %.17g", s.IsBox(), c, got)
			}
		}
	}
}
