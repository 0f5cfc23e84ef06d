package worstcase

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// expBig returns e^x to prec bits: the Taylor series of x/2^k, |x/2^k| <
// 2^−10, squared k times.
func expBig(x float64, prec uint) *big.Float {
	k := 0
	for math.Abs(x) >= 0x1p-10 {
		x /= 2
		k++
	}
	xb := new(big.Float).SetPrec(prec).SetFloat64(x)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for n := int64(1); n < 60; n++ {
		term.Mul(term, xb)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(n))
		sum.Add(sum, term)
	}
	for range k {
		sum.Mul(sum, sum)
	}
	return sum
}

// TestColumnBoundsAreLowerBounds: every c_j of columnBounds is at most
// −log Σ_{k allowed} π_k in exact arithmetic, i.e. e^{−c_j} ≥ Σ π_k with
// the sum taken exactly (the pruning bound is a lower end of the bracket),
// on random priors of 2 to 300 letters and random patterns.
func TestColumnBoundsAreLowerBounds(t *testing.T) {
	const prec = 400
	rng := rand.New(rand.NewPCG(7, 23))
	for trial := range 400 {
		n, m := 2+rng.IntN(300), 1+rng.IntN(6)
		pi := randinst.Dirichlet(rng, n)
		pat := make(mech.Pattern, n)
		for i := range pat {
			pat[i] = make([]bool, m)
			for j := range pat[i] {
				pat[i][j] = rng.Float64() < 0.7
			}
		}
		c, _ := columnBounds(pi, pat)
		for j, cj := range c {
			exact := new(big.Float).SetPrec(4096)
			for i := range n {
				if pat[i][j] {
					exact.Add(exact, new(big.Float).SetFloat64(pi[i]))
				}
			}
			if math.IsInf(cj, 1) || cj == 0 {
				continue
			}
			if expBig(-cj, prec).Cmp(exact) < 0 {
				t.Fatalf("trial %d, output %d: c_j = %.17g exceeds −log of the exact mass %s", trial, j, cj, exact.Text('g', 20))
			}
		}
	}
}

// TestLeastEpsilonTinyMassNoFreeOutput: with π = (1, 1e-20) the mass of
// the inputs allowed for an output rounds to 1 when only the tiny input
// is left out, so its bound −log Σ π_k computes to 0; that output is still
// not open to every input, and the identity pattern's ε* is −log 1e-20
// (each output used by one input), not 0.
func TestLeastEpsilonTinyMassNoFreeOutput(t *testing.T) {
	pi := mech.Prior{1, 1e-20}
	pat := mech.Pattern{{true, false}, {false, true}}
	r, err := LeastEpsilon(t.Context(), pi, pat, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !pat.Holds(r.Mechanism) {
		t.Fatalf("the mechanism %v breaks the pattern", r.Mechanism)
	}
	want := -math.Log(1e-20)
	if math.Abs(r.OptimalEpsilon-want) > 1e-9*want || r.OptimalEpsilonLower > want {
		t.Fatalf("bracket [%g, %g], want ε* = %g", r.OptimalEpsilonLower, r.OptimalEpsilon, want)
	}
}

// TestRationalNear: the logarithm of a rational with a small denominator
// is recognised from a bound within tol of it, and nothing is made up
// where no such rational is near.
func TestRationalNear(t *testing.T) {
	for _, c := range []struct{ p, q float64 }{{3, 1}, {2, 1}, {128, 17}, {1000, 999}} {
		want := math.Log(c.p / c.q)
		for _, d := range []float64{-4e-10, -8.6e-13, 0, 3e-10} {
			got, ok := rationalNear(want+d, 5e-10)
			require.True(t, ok, "%v/%v, offset %v", c.p, c.q, d)
			assert.Equal(t, want, got, "%v/%v, offset %v", c.p, c.q, d)
		}
	}
	// e^{1/2} and log 3 + 1e-6: no p/q with q ≤ 1024 within 5e-10.
	for _, lo := range []float64{0.5, math.Log(3) + 1e-6, 0, -1} {
		_, ok := rationalNear(lo, 5e-10)
		assert.False(t, ok, "lo = %v", lo)
	}
}
