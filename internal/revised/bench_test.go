package revised

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/lp"
)

// benchInstance is a random 32×32 PML feasibility LP at h = 16 and its
// threshold ε*(h), found by bisection with the engine.
func benchInstance(b *testing.B) (*pmlLP, float64) { return benchInstanceN(b, 32) }

// benchInstanceN is a random n×n PML feasibility LP at h = n/2 and its
// threshold.
func benchInstanceN(b *testing.B, n int) (*pmlLP, float64) {
	b.Helper()
	rng := rand.New(rand.NewPCG(2024, 6))
	prior, order, _ := randomPML(rng, n, n)
	l := newPMLLP(prior, order, n/2, nil, 0)
	s, err := New(l.model, nil)
	if err != nil {
		b.Fatal(err)
	}
	lo, hi := 0.0, 10.0
	for hi-lo > 1e-4 {
		mid := (lo + hi) / 2
		if err := l.setEps(s, mid); err != nil {
			b.Fatal(err)
		}
		r, err := s.Solve()
		if err != nil {
			b.Fatal(err)
		}
		if r.Status == lp.Optimal {
			hi = mid
		} else {
			lo = mid
		}
	}
	return l, hi
}

// BenchmarkPML32Cold solves the 32×32 feasibility LP from the slack basis,
// alternating ε just above and just below the threshold.
func BenchmarkPML32Cold(b *testing.B) {
	l, eps := benchInstance(b)
	b.ResetTimer()
	for k := 0; b.Loop(); k++ {
		e := eps + 1e-4*float64(2*(k%2)-1)
		s, err := New(l.model, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.setEps(s, e); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Solve(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPML32Warm re-solves one session as a bisection would: each solve
// moves ε by a shrinking step around the threshold.
func BenchmarkPML32Warm(b *testing.B) {
	l, eps := benchInstance(b)
	s, err := New(l.model, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for k := 0; b.Loop(); k++ {
		step := math.Ldexp(1, -(k % 30))
		e := eps + step*float64(2*(k%2)-1)
		if e < 0 {
			e = 0
		}
		if err := l.setEps(s, e); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Solve(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchWarm re-solves one session of the n×n instance as a bisection does.
func benchWarm(b *testing.B, n int) {
	l, eps := benchInstanceN(b, n)
	s, err := New(l.model, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for k := 0; b.Loop(); k++ {
		step := math.Ldexp(1, -(k % 30))
		e := math.Max(0, eps+step*float64(2*(k%2)-1))
		if err := l.setEps(s, e); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Solve(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchCold solves the n×n instance from the slack basis near its threshold.
func benchCold(b *testing.B, n int) {
	l, eps := benchInstanceN(b, n)
	b.ResetTimer()
	for k := 0; b.Loop(); k++ {
		s, err := New(l.model, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.setEps(s, eps+1e-3*float64(2*(k%2)-1)); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Solve(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPMLWarm16(b *testing.B)  { benchWarm(b, 16) }
func BenchmarkPMLWarm32(b *testing.B)  { benchWarm(b, 32) }
func BenchmarkPMLWarm64(b *testing.B)  { benchWarm(b, 64) }
func BenchmarkPMLCold16(b *testing.B)  { benchCold(b, 16) }
func BenchmarkPMLCold32(b *testing.B)  { benchCold(b, 32) }
func BenchmarkPMLCold64(b *testing.B)  { benchCold(b, 64) }
func BenchmarkPMLCold128(b *testing.B) { benchCold(b, 128) }
