package certify_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
)

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
		p = must(clean.MixToBudget(pi, p, eps)) // the columns it fills are open to every input
		alpha := make([]float64, n)
		for i := range alpha {
			alpha[i] = rng.NormFloat64()
		}
		v := u.ExpectedUtility(pi, p)
		for _, pp := range []mech.Pattern{pat, nil} {
			if b := certify.UpperBound(pi, u, pp, eps, alpha); v > b {
				t.Fatalf("trial %d: expected utility %.17g above the bound %.17g", trial, v, b)
			}
		}
	}
}

// TestUpperBoundIsTight: the multipliers of the optimum prove the optimum,
// so a bound weaker than the knapsack (a cap of e^ε instead of e^ε π_i, or
// no cap) fails here, and a stronger one fails TestUpperBoundHolds.
func TestUpperBoundIsTight(t *testing.T) {
	p := ipm.Problem{Prior: mech.Prior{0.5, 0.5}, Utility: mech.Utility{{1, 0}, {0, 1}}, Epsilon: math.Log(1.5)}
	r, err := ipm.Solve(p, ipm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b := certify.UpperBound(p.Prior, p.Utility, nil, p.Epsilon, r.Alpha); math.Abs(b-0.75) > 1e-12 {
		t.Fatalf("bound %.17g from the optimal multipliers %v, want 0.75", b, r.Alpha)
	}
	// Hand-made: α = (3/8, 3/8) gives g = 1 − 3/4 = 1/4 and −3/4 per
	// column; the knapsack takes 3/4 of the first and 1/4 of the second:
	// 3/16 − 3/16 = 0, so the bound is Σα = 3/4.
	if b := certify.UpperBound(p.Prior, p.Utility, nil, p.Epsilon, []float64{0.375, 0.375}); math.Abs(b-0.75) > 1e-13 {
		t.Fatalf("bound %.17g, want 0.75", b)
	}
	if b := certify.UpperBound(p.Prior, p.Utility, nil, p.Epsilon, []float64{math.NaN(), 0}); !math.IsInf(b, 1) {
		t.Fatalf("a NaN multiplier proved %g", b)
	}
}

// exactBound is UpperBound's formula in exact rational arithmetic on the
// float64 inputs, with caps e^ε π_i taken from above (the float e^ε
// raised by 2 ulps), so that it is itself at least the true bound.
func exactBound(pi mech.Prior, u mech.Utility, eps float64, alpha []float64) *big.Rat {
	n, m := u.Dims()
	lam := new(big.Rat).SetFloat64(math.Exp(eps) * (1 + 0x1p-51))
	sum := new(big.Rat)
	for _, a := range alpha {
		sum.Add(sum, new(big.Rat).SetFloat64(a))
	}
	var worst *big.Rat
	for j := range m {
		type item struct{ g, cap *big.Rat }
		items := make([]item, n)
		for i := range n {
			g := new(big.Rat).Quo(new(big.Rat).SetFloat64(alpha[i]), new(big.Rat).SetFloat64(pi[i]))
			g.Sub(new(big.Rat).SetFloat64(u[i][j]), g)
			items[i] = item{g, new(big.Rat).Mul(lam, new(big.Rat).SetFloat64(pi[i]))}
		}
		slices.SortFunc(items, func(a, b item) int { return b.g.Cmp(a.g) })
		left, k := big.NewRat(1, 1), new(big.Rat)
		for _, it := range items {
			y := it.cap
			if y.Cmp(left) > 0 {
				y = left
			}
			k.Add(k, new(big.Rat).Mul(y, it.g))
			left = new(big.Rat).Sub(left, y)
			if left.Sign() <= 0 {
				break
			}
		}
		if worst == nil || k.Cmp(worst) > 0 {
			worst = k
		}
	}
	if worst.Sign() < 0 {
		worst = new(big.Rat)
	}
	return sum.Add(sum, worst)
}

// TestUpperBoundRounding: with a small π_i, utilities near α_i/π_i of 1e5
// to 1e9 and budgets of 10 to 20 nats, g = u_ij − α_i/π_i cancels; the
// rounding margin must still cover the exact bound. (The first margin,
// taken on |g|, fell short in 8 % of such cases, by up to 1.2e-7.)
func TestUpperBoundRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := range 3000 {
		n, m := 2+rng.IntN(4), 1+rng.IntN(3)
		pi := randinst.Prior(rng, n, 0)
		pi[0] *= 1e-6
		s := 0.0
		for _, v := range pi {
			s += v
		}
		for i := range pi {
			pi[i] /= s
		}
		// Input 0 has a tiny mass and a multiplier α_0 of moderate size,
		// so α_0/π_0 and u_0j are huge, g_0j = u_0j − α_0/π_0 of order
		// one; the others are of order one throughout.
		scale := math.Pow(10, 5+4*rng.Float64())
		alpha := make([]float64, n)
		u := make(mech.Utility, n)
		for i := range u {
			alpha[i] = rng.NormFloat64()
			if i == 0 {
				alpha[i] *= scale * pi[i]
			}
			u[i] = make([]float64, m)
			for j := range u[i] {
				u[i][j] = rng.NormFloat64()
				if i == 0 {
					u[i][j] = alpha[i]/pi[i] + 1 + rng.Float64()
				}
			}
		}
		eps := 10 + 10*rng.Float64()
		got := new(big.Rat).SetFloat64(certify.UpperBound(pi, u, nil, eps, alpha))
		if want := exactBound(pi, u, eps, alpha); got.Cmp(want) < 0 {
			g, _ := got.Float64()
			w, _ := want.Float64()
			t.Fatalf("trial %d: bound %.17g below the exact %.17g", trial, g, w)
		}
	}
}

// TestUpperBoundSumBelowOne: at ε = 0 a prior such as (0.7, 0.2, 0.1) sums
// to 1 − 1e-16 in floating point; no output may be taken for unusable,
// or the bound skips them all and proves 0 for a value of 1.
func TestUpperBoundSumBelowOne(t *testing.T) {
	pi := mech.Prior{0.7, 0.2, 0.1}
	u := mech.Utility{{1, 1}, {1, 1}, {1, 1}}
	if b := certify.UpperBound(pi, u, nil, 0, []float64{0, 0, 0}); b < 1-1e-12 {
		t.Fatalf("bound %.17g below the value 1 of every mechanism", b)
	}
}

// TestBoundsScaleWithThePriorsSum: a prior whose masses sum to S ≠ 1
// (the validation allows |S − 1| ≤ 1e-9) gives every mechanism of a
// constant utility 1 the expected utility S. The bounds of every measure
// from multipliers 0 are at least S; under LIP and ALIP, whose columns'
// best value is then 1 on a total mass S, within 1e-12 of it.
func TestBoundsScaleWithThePriorsSum(t *testing.T) {
	for _, s := range []float64{1 + 1e-9, 1 - 1e-9} {
		pi := mech.Prior{0.25 * s, 0.35 * s, 0.4 * s}
		u := mech.Utility{{1, 1}, {1, 1}, {1, 1}}
		S := pi[0] + pi[1] + pi[2]
		zero := []float64{0, 0, 0}
		if b := certify.UpperBound(pi, u, nil, 0.5, zero); b < S {
			t.Errorf("S = 1 %+.0e, pml: bound %.17g below every mechanism's value %.17g", s-1, b, S)
		}
		for _, b := range []mech.Budget{{Measure: mech.LIP, Epsilon: 0.5}, {Measure: mech.ALIP, EpsilonLower: 0.3, EpsilonUpper: 0.5}, {Measure: mech.LDP, Epsilon: 0.5}} {
			v := certify.RatioUpperBound(pi, u, b, zero)
			if v < S || (b.Measure != mech.LDP && v > S+1e-12) {
				t.Errorf("S = 1 %+.0e, %s: bound %.17g, every mechanism's value %.17g", s-1, b.Measure, v, S)
			}
		}
	}
}
