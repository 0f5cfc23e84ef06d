package exact

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/worstcase"
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
		r, err := LeastT(context.Background(), c.prior, c.pat, 0, 0, nil)
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
	r, err := LeastT(context.Background(), pi, countingOrder.Pattern(6), math.Log(3.5)-1e-9, math.Log(3.5), nil)
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
	if testlong.Short() {
		trials = 4
	}
	for trial := range trials {
		n, m := 3+rng.IntN(4), 3+rng.IntN(4)
		fpi := randinst.Prior(rng, n, 0.05)
		o := randinst.StrictOrder(rng, n, m)
		h := 2 + rng.IntN(m-1)
		pat := o.Pattern(h)
		ref, err := worstcase.LeastEpsilon(context.Background(), fpi, pat, worstcase.Options{Tol: 1e-12})
		require.NoError(t, err)
		r, err := LeastT(context.Background(), Dyadic(fpi), pat, ref.OptimalEpsilonLower, ref.OptimalEpsilon, nil)
		require.NoError(t, err, "trial %d", trial)
		proven(t, r, pat)
		lo, hi := logRat(r.TLower), logRat(r.TUpper)
		t.Logf("trial %d (%d×%d, h %d): rational %v, ε* in [%.15g, %.15g], search [%.15g, %.15g], %d solves",
			trial, n, m, h, r.Rational, lo, hi, ref.OptimalEpsilonLower, ref.OptimalEpsilon, r.Solves)
		assert.InDelta(t, ref.OptimalEpsilon, hi, 2e-12, "trial %d", trial)
		assert.GreaterOrEqual(t, hi, ref.OptimalEpsilonLower-1e-15, "trial %d: the search's proof is below ε*", trial)
		assert.LessOrEqual(t, lo, ref.OptimalEpsilon+1e-15, "trial %d: the search's mechanism is above ε*", trial)
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

// TestIrrational: a problem whose optimum is irrational. With π =
// (6, 6, 3, 9, 10, 6, 4, 5)/49 and the order below at h = 4, the optimal
// basis's polynomial is (49μ − 20)(196μ² − 108μ + 13) (up to a factor),
// and μ* = 1/t* is the larger root of the quadratic, (27 + 2√23)/98: so
// t* = (54 − 4√23)/13. The proven bracket must hold that value, checked
// here by squaring, without the package's arithmetic.
func TestIrrational(t *testing.T) {
	pi := rats("6/49", "6/49", "3/49", "9/49", "10/49", "6/49", "4/49", "5/49")
	o := mech.Order{{2, 5, 1, 4, 3}, {3, 5, 2, 1, 4}, {2, 5, 3, 4, 1}, {4, 2, 5, 3, 1}, {3, 5, 1, 2, 4}, {1, 2, 5, 4, 3}, {1, 2, 3, 4, 5}, {1, 2, 5, 4, 3}}
	pat := o.Pattern(4)
	fpi := make(mech.Prior, len(pi))
	for i, p := range pi {
		fpi[i], _ = p.Float64()
	}
	ref, err := worstcase.LeastEpsilon(context.Background(), fpi, pat, worstcase.Options{})
	require.NoError(t, err)
	r, err := LeastT(context.Background(), pi, pat, ref.OptimalEpsilonLower, ref.OptimalEpsilon, nil)
	require.NoError(t, err)
	proven(t, r, pat)
	assert.False(t, r.Rational)
	assert.True(t, r.Irrational)
	assert.Equal(t, 3, r.Degree)
	// t_lo ≤ (54 − 4√23)/13 ⇔ 4√23 ≤ 54 − 13 t_lo ⇔ 368 ≤ (54 − 13 t_lo)²
	// (the right side being positive), and the reverse for t_hi.
	side := func(x *big.Rat) *big.Rat {
		s := new(big.Rat).Mul(big.NewRat(13, 1), x)
		return s.Sub(big.NewRat(54, 1), s)
	}
	sq := func(x *big.Rat) *big.Rat { return new(big.Rat).Mul(x, x) }
	lo, hi := side(r.TLower), side(r.TUpper)
	require.Positive(t, lo.Sign())
	require.Positive(t, hi.Sign())
	assert.LessOrEqual(t, big.NewRat(368, 1).Cmp(sq(lo)), 0, "t_lower above t*")
	assert.GreaterOrEqual(t, big.NewRat(368, 1).Cmp(sq(hi)), 0, "t_upper below t*")
	// Relative width below 2^-78.
	w := new(big.Rat).Sub(r.TUpper, r.TLower)
	w.Quo(w, r.TLower)
	assert.Negative(t, w.Cmp(new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 78))))
	assert.InDelta(t, ref.OptimalEpsilon, logRat(r.TUpper), 1e-9)
	// The floating-point search, which knows nothing of the closed form,
	// lands on it too.
	assert.InDelta(t, math.Log((54-4*math.Sqrt(23))/13), ref.OptimalEpsilon, 1e-9)
}

// TestChecksRefuse: each exact check fails on a tampered proof, naming
// the inequality.
func TestChecksRefuse(t *testing.T) {
	pi := rats("3/5", "1/4", "3/20")
	pat := example1.Pattern(2)
	r, err := LeastT(context.Background(), pi, pat, 0, 0, nil)
	require.NoError(t, err)
	proven(t, r, pat)
	two := big.NewRat(2, 1)
	below := big.NewRat(199, 100)
	above := big.NewRat(201, 100)
	clone := func() [][]*big.Rat {
		out := make([][]*big.Rat, len(r.Mechanism))
		for i, row := range r.Mechanism {
			for _, x := range row {
				out[i] = append(out[i], new(big.Rat).Set(x))
			}
		}
		return out
	}
	// The mechanism does not reach a smaller t.
	assert.ErrorContains(t, CheckUpper(pi, pat, r.Mechanism, below), "exceeds t·q_")
	// A forbidden pair, a row off 1, a negative entry.
	p := clone()
	p[0][2].SetFrac64(1, 100)
	p[0][1].Sub(p[0][1], big.NewRat(1, 100)) // the row still sums to 1
	assert.ErrorContains(t, CheckUpper(pi, pat, p, two), "forbidden pair")
	p = clone()
	p[1][1].SetFrac64(99, 100)
	assert.ErrorContains(t, CheckUpper(pi, pat, p, two), "row 2 sums to 99/100")
	p = clone()
	p[0][0].SetFrac64(13, 12)
	p[0][1].SetFrac64(-1, 12)
	assert.ErrorContains(t, CheckUpper(pi, pat, p, two), "< 0")
	// The multipliers prove nothing above t*, nor when changed.
	_, err = CheckLower(pi, pat, r.Alpha, above)
	assert.ErrorContains(t, err, "min_ν")
	a := make([]*big.Rat, len(r.Alpha))
	for i, x := range r.Alpha {
		a[i] = new(big.Rat).Neg(x)
	}
	_, err = CheckLower(pi, pat, a, two)
	assert.Error(t, err)
	_, err = CheckLower(pi, pat, zeros(3), two)
	assert.ErrorContains(t, err, "α is zero")
	// A prior changed after solving.
	_, err = CheckLower(rats("1/2", "1/4", "1/4"), pat, r.Alpha, two)
	assert.Error(t, err)
}

func TestFractions(t *testing.T) {
	fr, ok := Fractions(mech.Prior{0.6, 0.25, 0.15})
	require.True(t, ok)
	assert.Equal(t, []string{"3/5", "1/4", "3/20"}, []string{fr[0].RatString(), fr[1].RatString(), fr[2].RatString()})
	fr, ok = Fractions(mech.Prior{1.0 / 3, 1.0 / 3, 1.0 / 3})
	require.True(t, ok)
	assert.Equal(t, "1/3", fr[0].RatString())
	// Each reading rounds back to its float64.
	for _, x := range []float64{0.1, 1.0 / 7, 0.123456789, 1e-300, 0.7} {
		fr, _ := Fractions(mech.Prior{x})
		f, _ := fr[0].Float64()
		assert.Equal(t, x, f)
	}
	// A prior within the files' 1e-9 of summing to 1, whose fractions do
	// not add up to 1.
	_, ok = Fractions(mech.Prior{0.5, 0.5 + 1e-10})
	assert.False(t, ok)
	// Dyadic is exact.
	assert.Equal(t, "2573485501354569/18014398509481984", Dyadic(mech.Prior{1.0 / 7})[0].RatString())
}

func TestTooLarge(t *testing.T) {
	pi := make([]*big.Rat, 21)
	pat := make(mech.Pattern, 21)
	for i := range pi {
		pi[i] = big.NewRat(1, 21)
		pat[i] = []bool{true, true}
	}
	_, err := LeastT(context.Background(), pi, pat, 0, 0, nil)
	assert.ErrorIs(t, err, ErrTooLarge)
}

// TestRoundsRunOut: with no round left for a candidate, the result is the
// bracket of the solves made, proven all the same.
func TestRoundsRunOut(t *testing.T) {
	pi := rats("3/5", "1/4", "3/20")
	pat := example1.Pattern(2)
	s := &search{pi: pi, pat: pat, sets: allowedSets(pat), res: &Result{Prior: pi}}
	require.NoError(t, s.run(context.Background(), math.Log(2)-1e-9, math.Log(2)))
	r := s.res
	proven(t, r, pat)
	assert.False(t, r.Rational)
	assert.False(t, r.Irrational)
	// The bracket holds t* = 2: its ends are the solves at 1/p_min and
	// just above the search's μ.
	assert.LessOrEqual(t, r.TLower.Cmp(big.NewRat(2, 1)), 0)
	assert.GreaterOrEqual(t, r.TUpper.Cmp(big.NewRat(2, 1)), 0)
	assert.Equal(t, "20/3", r.TUpper.RatString()) // 1/p_min
}

// TestWrongHint: a floating-point bracket far from ε* costs solves, not
// the answer.
func TestWrongHint(t *testing.T) {
	pi := rats("3/5", "1/4", "3/20")
	pat := example1.Pattern(2)
	for _, h := range [][2]float64{{0, 0}, {1.5, 1.6}, {0.1, 0.2}, {math.NaN(), math.Inf(1)}} {
		r, err := LeastT(context.Background(), pi, pat, h[0], h[1], nil)
		require.NoError(t, err, "%v", h)
		require.True(t, r.Rational, "%v", h)
		assert.Equal(t, "2", r.TUpper.RatString(), "%v", h)
		proven(t, r, pat)
	}
}

// TestFloat64AboveOne: float64 values whose exact sum S exceeds 1 (here
// 1 + 1e-11, within the files' tolerance) are divided by S, so that the
// least t of a pattern with a full column is 1, proven both ways; read as
// written, the constant mechanism would reach t = 1/S < 1.
func TestFloat64AboveOne(t *testing.T) {
	pi := mech.Prior{0.3, 0.3, 0.40000000001}
	dy := Dyadic(pi)
	want := new(big.Rat)
	for _, x := range dy {
		want.Add(want, x)
	}
	require.Equal(t, 1, want.Cmp(big.NewRat(1, 1)))
	got, sum := Float64(pi)
	assert.Equal(t, want.RatString(), sum.RatString())
	total := new(big.Rat)
	for i, x := range got {
		total.Add(total, x)
		assert.Equal(t, new(big.Rat).Quo(dy[i], want).RatString(), x.RatString())
	}
	assert.Equal(t, "1", total.RatString())

	pat := example1.Pattern(1)
	for _, row := range pat {
		require.Equal(t, []bool{true, true, true}, []bool(row))
	}
	r, err := LeastT(context.Background(), got, pat, 0, 0, nil)
	require.NoError(t, err)
	assert.Equal(t, "1", r.TUpper.RatString())
	assert.Equal(t, "1", r.TLower.RatString())
	proven(t, r, pat)
	// The values as written: a proven t* = 1/S below 1.
	r, err = LeastT(context.Background(), dy, pat, 0, 0, nil)
	require.NoError(t, err)
	assert.Equal(t, new(big.Rat).Inv(want).RatString(), r.TUpper.RatString())

	// At S < 1 the values are read as written (t* ≥ 1/S > 1).
	got, sum = Float64(mech.Prior{1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7})
	assert.Equal(t, "18014398509481983/18014398509481984", sum.RatString())
	assert.Equal(t, "2573485501354569/18014398509481984", got[0].RatString())
}

// TestLeastTNotifies: the progress notes are one a solve, numbered, the
// last one's total the result's pivots.
func TestLeastTNotifies(t *testing.T) {
	pi := rats("3/5", "1/4", "3/20")
	var notes []string
	r, err := LeastT(context.Background(), pi, example1.Pattern(2), 0, 0, func(s string) { notes = append(notes, s) })
	require.NoError(t, err)
	require.Len(t, notes, r.Solves)
	for k, s := range notes {
		assert.True(t, strings.HasPrefix(s, fmt.Sprintf("exact LP %d at ε = ", k+1)), s)
	}
	assert.True(t, strings.HasSuffix(notes[len(notes)-1], fmt.Sprintf("(%d in all)", r.Pivots)), notes[len(notes)-1])
}
