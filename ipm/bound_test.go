package ipm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// withinBudget mixes p with the independent mechanism of its output
// marginal until its PML is at most eps (the zeros of p stay zeros only in
// columns p does not use, so pat must allow the used columns fully; the
// caller passes a pattern that does).
func withinBudget(pi mech.Prior, p mech.Mechanism, eps float64) mech.Mechanism {
	a := leakage.PML(pi, p)
	if a <= eps {
		return p
	}
	q := p.Marginal(pi)
	th := (math.Exp(a) - math.Exp(eps)) / (math.Exp(a) - 1)
	th = math.Min(1, th*(1+1e-9))
	out := p.Clone()
	for i := range out {
		for j := range out[i] {
			out[i][j] = (1-th)*p[i][j] + th*q[j]
		}
	}
	return out
}

// TestUpperBoundHolds: for random multipliers, every ε-PML mechanism with
// the pattern has expected utility at most the bound.
func TestUpperBoundHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := range 300 {
		n, m := 1+rng.IntN(6), 1+rng.IntN(6)
		pi := randinst.Prior(rng, n, 0.02)
		u := randinst.Utility(rng, n, m, 0)
		eps := rng.ExpFloat64()
		// A pattern that forbids some pairs, and a mechanism on the
		// columns it leaves fully open (so mixing keeps the pattern).
		pat := make(mech.Pattern, n)
		open := make([]bool, m)
		for j := range open {
			open[j] = rng.Float64() < 0.6
		}
		open[rng.IntN(m)] = true
		for i := range pat {
			pat[i] = make([]bool, m)
			for j := range pat[i] {
				pat[i][j] = open[j] || rng.Float64() < 0.5
			}
		}
		p := randinst.Mechanism(rng, n, m, 0.3)
		for i := range p {
			for j := range p[i] {
				if !open[j] {
					p[i][j] = 0
				}
			}
			s := 0.0
			for _, v := range p[i] {
				s += v
			}
			if s == 0 {
				for j := range p[i] {
					if open[j] {
						p[i][j] = 1
						s++
					}
				}
			}
			for j := range p[i] {
				p[i][j] /= s
			}
		}
		p = withinBudget(pi, p, eps)
		alpha := make([]float64, n)
		for i := range alpha {
			alpha[i] = rng.NormFloat64()
		}
		v := u.ExpectedUtility(pi, p)
		for _, pp := range []mech.Pattern{pat, nil} {
			if b := UpperBound(pi, u, pp, eps, alpha); v > b {
				t.Fatalf("trial %d: expected utility %.17g above the bound %.17g", trial, v, b)
			}
		}
	}
}

// TestUpperBoundIsTight: the multipliers of the optimum prove the optimum,
// so a bound weaker than the knapsack (a cap of e^ε instead of e^ε π_i, or
// no cap) fails here, and a stronger one fails TestUpperBoundHolds.
func TestUpperBoundIsTight(t *testing.T) {
	p := Problem{Prior: mech.Prior{0.5, 0.5}, Utility: mech.Utility{{1, 0}, {0, 1}}, Epsilon: math.Log(1.5)}
	r, err := Solve(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b := UpperBound(p.Prior, p.Utility, nil, p.Epsilon, r.Alpha); math.Abs(b-0.75) > 1e-12 {
		t.Fatalf("bound %.17g from the optimal multipliers %v, want 0.75", b, r.Alpha)
	}
	// Hand-made: α = (3/8, 3/8) gives g = 1 − 3/4 = 1/4 and −3/4 per
	// column; the knapsack takes 3/4 of the first and 1/4 of the second:
	// 3/16 − 3/16 = 0, so the bound is Σα = 3/4.
	if b := UpperBound(p.Prior, p.Utility, nil, p.Epsilon, []float64{0.375, 0.375}); math.Abs(b-0.75) > 1e-14 {
		t.Fatalf("bound %.17g, want 0.75", b)
	}
	if b := UpperBound(p.Prior, p.Utility, nil, p.Epsilon, []float64{math.NaN(), 0}); !math.IsInf(b, 1) {
		t.Fatalf("a NaN multiplier proved %g", b)
	}
}
