package exact

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/bisect"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// countingOrder is U of Song & Oechtering (2026), eq. (12).
var countingOrder = mech.Order{
	{7, 6, 5, 4, 3, 2, 1},
	{5, 7, 6, 4, 3, 2, 1},
	{3, 5, 7, 6, 4, 2, 1},
	{1, 3, 5, 7, 6, 4, 2},
	{1, 2, 3, 5, 7, 6, 4},
	{1, 2, 3, 4, 5, 7, 6},
	{1, 2, 3, 4, 5, 6, 7},
}

// example1 is the order (8) of Song & Oechtering (2026).
var example1 = mech.Order{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}}

// circulant is the 4×4 order of Song & Oechtering (2026), Figures 2 and 3.
var circulant = mech.Order{{4, 3, 2, 1}, {1, 4, 3, 2}, {2, 1, 4, 3}, {3, 2, 1, 4}}

func rats(s ...string) []*big.Rat {
	out := make([]*big.Rat, len(s))
	for i, x := range s {
		r, ok := new(big.Rat).SetString(x)
		if !ok {
			panic(x)
		}
		out[i] = r
	}
	return out
}

// proven re-checks a result from scratch: the mechanism at TUpper, the
// multipliers at TLower.
func proven(t *testing.T, r *Result, pat mech.Pattern) {
	t.Helper()
	require.NoError(t, CheckUpper(r.Prior, pat, r.Mechanism, r.TUpper))
	_, err := CheckLower(r.Prior, pat, r.Alpha, r.TLower)
	require.NoError(t, err)
	require.LessOrEqual(t, r.TLower.Cmp(r.TUpper), 0)
}

// TestPaperValues: the values that Song & Oechtering (2026) state in closed
// form come out exactly, for the priors of the paper read as fractions.
func TestPaperValues(t *testing.T) {
	three := rats("1/10", "1/10", "1/10", "7/10") // Fig. 3, p_min = 0.1
	one := rats("1/10", "3/10", "3/10", "3/10")   // Fig. 2, p_min = 0.1
	for _, c := range []struct {
		name  string
		prior []*big.Rat
		pat   mech.Pattern
		want  string
	}{
		// §IV-A: M*(5) at log 7/3, the general optimum for h = 6 at log 7/2.
		{"counting query h=6", rats("1/7", "1/7", "1/7", "1/7", "1/7", "1/7", "1/7"), countingOrder.Pattern(6), "7/2"},
		{"counting query h=7", rats("1/7", "1/7", "1/7", "1/7", "1/7", "1/7", "1/7"), countingOrder.Pattern(7), "7"},
		{"counting query h=1", rats("1/7", "1/7", "1/7", "1/7", "1/7", "1/7", "1/7"), countingOrder.Pattern(1), "1"},
		// Example 1, mechanism (9): log 2 below ε_S(2) = log 5/2.
		{"example 1 h=2", rats("3/5", "1/4", "3/20"), example1.Pattern(2), "2"},
		// Fig. 2: the utility-safe ε_S(h) is optimal: −log 0.7, −log 0.4.
		{"fig 2 h=2", one, circulant.Pattern(2), "10/7"},
		{"fig 2 h=3", one, circulant.Pattern(3), "5/2"},
		// Fig. 3: ε_S(3) = −log 0.2 optimal; for h = 2 the optimum log 3/2
		// lies below ε_S(2) = −log 0.3.
		{"fig 3 h=3", three, circulant.Pattern(3), "5"},
		{"fig 3 h=2", three, circulant.Pattern(2), "3/2"},
	} {
		r, err := LeastT(context.Background(), c.prior, c.pat, 0, 0)
		require.NoError(t, err, c.name)
		require.True(t, r.Rational, c.name)
		assert.Equal(t, c.want, r.TUpper.RatString(), c.name)
		proven(t, r, c.pat)
	}
}

// TestDyadicCountingQuery: for the prior as the float64 values of the
// file, the optimum is 1/(2π) for π the float64 nearest 1/7, the value
// that package verify prints.
func TestDyadicCountingQuery(t *testing.T) {
	pi := Dyadic(mech.Prior{1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7})
	r, err := LeastT(context.Background(), pi, countingOrder.Pattern(6), math.Log(3.5)-1e-9, math.Log(3.5))
	require.NoError(t, err)
	require.True(t, r.Rational)
	assert.Equal(t, "9007199254740992/2573485501354569", r.TUpper.RatString())
	proven(t, r, countingOrder.Pattern(6))
}

// TestAgainstSearch: on random instances the exact t* is within the
// floating-point search's bracket (tolerance 1e-12), and the exact
// mechanism rounded to float64 audits at that level.
func TestAgainstSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 5))
	trials := 12
	if testing.Short() {
		trials = 4
	}
	for trial := range trials {
		n, m := 3+rng.IntN(4), 3+rng.IntN(4)
		fpi := randinst.Prior(rng, n, 0.05)
		o := randinst.StrictOrder(rng, n, m)
		h := 2 + rng.IntN(m-1)
		pat := o.Pattern(h)
		ref, err := bisect.LeastEpsilon(context.Background(), fpi, pat, bisect.Options{Tol: 1e-12})
		require.NoError(t, err)
		r, err := LeastT(context.Background(), Dyadic(fpi), pat, ref.EpsLower, ref.EpsUpper)
		require.NoError(t, err, "trial %d", trial)
		proven(t, r, pat)
		lo, hi := logRat(r.TLower), logRat(r.TUpper)
		t.Logf("trial %d (%d×%d, h %d): rational %v, ε* in [%.15g, %.15g], search [%.15g, %.15g], %d solves",
			trial, n, m, h, r.Rational, lo, hi, ref.EpsLower, ref.EpsUpper, r.Solves)
		assert.InDelta(t, ref.EpsUpper, hi, 2e-12, "trial %d", trial)
		assert.GreaterOrEqual(t, hi, ref.EpsLower-1e-15, "trial %d: the search's proof is below ε*", trial)
		assert.LessOrEqual(t, lo, ref.EpsUpper+1e-15, "trial %d: the search's mechanism is above ε*", trial)
		// The exact mechanism, rounded, audits within rounding of ε*.
		p := make(mech.Mechanism, n)
		for i, row := range r.Mechanism {
			p[i] = make([]float64, m)
			for j, x := range row {
				p[i][j], _ = x.Float64()
			}
		}
		assert.True(t, pat.Holds(p))
		assert.InDelta(t, hi, leakage.PML(fpi, p), 1e-12, "trial %d", trial)
	}
}

func logRat(x *big.Rat) float64 {
	f, _ := x.Float64()
	return math.Log(f)
}
