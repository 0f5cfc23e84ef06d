package leakage_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

func randomMechanism(r *rand.Rand, n, m int, zeros bool) mech.Mechanism {
	p := make(mech.Mechanism, n)
	for i := range p {
		p[i] = make([]float64, m)
		for j := range p[i] {
			p[i][j] = 0.01 + r.Float64()
			if zeros && r.IntN(4) == 0 {
				p[i][j] = 0
			}
		}
		p[i][r.IntN(m)] += 0.5
		mech.Normalise(p[i])
	}
	return p
}

func randomPriorR(r *rand.Rand, n int) mech.Prior {
	p := make(mech.Prior, n)
	for i := range p {
		p[i] = 0.05 + r.Float64()
	}
	mech.Normalise(p)
	return p
}

// The two limits: the set {π̂} gives the measures at π̂, the simplex gives
// LDP (Saeidian et al. (2023): the supremum of PML over all priors is LDP).
func TestOverSetLimits(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 2))
	for trial := range 200 {
		n, m := 2+r.IntN(5), 2+r.IntN(5)
		pi := randomPriorR(r, n)
		p := randomMechanism(r, n, m, trial%3 == 0)
		point, err := mech.NewBoxSet(pi, pi, pi)
		if err != nil {
			t.Fatal(err)
		}
		ball, _ := mech.NewL1Set(pi, 0)
		for _, s := range []*mech.PriorSet{point, ball} {
			if got, want := leakage.PMLOver(s, p), leakage.PML(pi, p); math.Abs(got-want) > 1e-12 {
				t.Fatalf("trial %d: PML over {π̂} %.15g, PML %.15g", trial, got, want)
			}
			l, u := leakage.ALIPOver(s, p)
			wl, wu := leakage.ALIP(pi, p)
			if !near(l, wl) || !near(u, wu) {
				t.Fatalf("trial %d: ALIP over {π̂} (%g, %g), ALIP (%g, %g)", trial, l, u, wl, wu)
			}
		}
		whole, _ := mech.NewL1Set(pi, 2)
		for _, s := range []*mech.PriorSet{mech.Simplex(pi), whole} {
			ldp := leakage.LDP(pi, p)
			if got := leakage.PMLOver(s, p); !near(got, ldp) {
				t.Fatalf("trial %d: PML over the simplex %.15g, LDP %.15g", trial, got, ldp)
			}
			if got := leakage.LIPOver(s, p); !near(got, ldp) {
				t.Fatalf("trial %d: LIP over the simplex %.15g, LDP %.15g", trial, got, ldp)
			}
		}
	}
}

func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12
}

// Over a random box or ball, no sampled prior of the set leaks more than
// PMLOver and PMCOver say, and the extreme priors reach them.
func TestOverSetSampled(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 3))
	for trial := range 100 {
		n, m := 2+r.IntN(4), 2+r.IntN(4)
		pi := randomPriorR(r, n)
		p := randomMechanism(r, n, m, false)
		var s *mech.PriorSet
		if trial%2 == 0 {
			lo, up := make([]float64, n), make([]float64, n)
			for k := range n {
				lo[k] = pi[k] * (0.3 + 0.7*r.Float64())
				up[k] = math.Min(1, pi[k]*(1+r.Float64()))
			}
			s, _ = mech.NewBoxSet(pi, lo, up)
		} else {
			s, _ = mech.NewL1Set(pi, 0.5*r.Float64())
		}
		pml, pmc := leakage.PMLOver(s, p), leakage.PMCOver(s, p)
		for range 200 {
			// a random point of the set: a mix of the estimate and an
			// extreme prior for random costs
			c := make([]float64, n)
			for k := range c {
				c[k] = r.Float64()
			}
			x := s.Extreme(c, r.IntN(2) == 0)
			w := r.Float64()
			q := make(mech.Prior, n)
			full := true
			for k := range q {
				q[k] = w*pi[k] + (1-w)*x[k]
				full = full && q[k] > 0
			}
			if !full {
				continue
			}
			if v := leakage.PML(q, p); v > pml+1e-12 {
				t.Fatalf("trial %d: PML %g at a prior of the set, above PMLOver %g", trial, v, pml)
			}
			if v := leakage.PMC(q, p); v > pmc+1e-12 {
				t.Fatalf("trial %d: PMC %g at a prior of the set, above PMCOver %g", trial, v, pmc)
			}
		}
		// the extreme prior for the worst column attains the value
		reached := 0.0
		for j := range m {
			c := make([]float64, n)
			for i := range c {
				c[i] = p[i][j]
			}
			x := s.Extreme(c, false)
			mx := 0.0
			for i := range c {
				mx = math.Max(mx, c[i])
			}
			q := 0.0
			for i := range c {
				q += x[i] * c[i]
			}
			reached = math.Max(reached, math.Log(mx/q))
		}
		if math.Abs(reached-pml) > 1e-12 {
			t.Fatalf("trial %d: extreme priors reach %g, PMLOver %g", trial, reached, pml)
		}
	}
}
