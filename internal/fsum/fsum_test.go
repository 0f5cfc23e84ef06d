package fsum

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exact is Σ v in big.Float at a precision that holds any sum of float64s.
func exact(v []float64) *big.Float {
	s := new(big.Float).SetPrec(1 << 12)
	var t big.Float
	for _, x := range v {
		s.Add(s, t.SetFloat64(x))
	}
	return s
}

// Random sums that cancel to nothing, to one ulp, or to a subnormal, with
// magnitudes from 1e-320 to 1e300: the partials sum to the big.Float sum
// exactly, do not overlap, and Sign is its sign.
func TestPartialsAndSignAgreeWithBigFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	zeros := 0
	for trial := range 20000 {
		n := 1 + rng.IntN(30)
		v := make([]float64, 0, 2*n+1)
		for range n {
			x := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(620)-320))
			v = append(v, x)
			if rng.IntN(2) == 0 {
				v = append(v, -x) // cancels exactly
			}
		}
		if trial%3 == 0 {
			v = append(v, math.Nextafter(0, 1)*float64(rng.IntN(3)-1))
		}
		rng.Shuffle(len(v), func(i, j int) { v[i], v[j] = v[j], v[i] })
		want := exact(v)
		parts, ok := Partials(nil, v)
		if !ok {
			t.Fatalf("trial %d: overflow on finite values of at most 1e300", trial)
		}
		if got := exact(parts); got.Cmp(want) != 0 {
			t.Fatalf("trial %d: partials sum to %v, want %v", trial, got, want)
		}
		for i := 1; i < len(parts); i++ {
			if !(math.Abs(parts[i-1]) < math.Abs(parts[i])) {
				t.Fatalf("trial %d: partials %v not in increasing magnitude", trial, parts)
			}
		}
		s, ok := Sign(v)
		if !ok || s != want.Sign() {
			t.Fatalf("trial %d: sign %d (ok %v), want %d", trial, s, ok, want.Sign())
		}
		if s == 0 {
			zeros++
		}
	}
	if zeros < 100 {
		t.Errorf("only %d sums of zero: the cancelling cases are not tried", zeros)
	}
}

// Sign reports an overflowing sum as undecided rather than guessing.
func TestSignOverflow(t *testing.T) {
	if _, ok := Sign([]float64{math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64}); ok {
		t.Error("an overflowed intermediate sum gave a sign")
	}
	if s, ok := Sign([]float64{1, -1, 0x1p-1074}); !ok || s != 1 {
		t.Errorf("1 − 1 + 2^-1074: sign %d, ok %v", s, ok)
	}
}
