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

// Round is the big.Float sum rounded to nearest even, on random sums,
// on sums placed exactly at a tie between two float64s (1 + 2^-53 and
// its neighbours, nudged by a tiny partial either way), and on sums
// that cancel to a subnormal.
func TestRoundIsTheCorrectlyRoundedSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	check := func(trial int, v []float64) {
		t.Helper()
		parts, ok := Partials(nil, v)
		if !ok {
			t.Fatalf("trial %d: overflow", trial)
		}
		want, _ := exact(v).Float64()
		if got := Round(parts); got != want {
			t.Fatalf("trial %d: Round(%v) = %v, want %v", trial, v, got, want)
		}
	}
	for trial := range 20000 {
		n := 1 + rng.IntN(20)
		v := make([]float64, 0, 2*n)
		for range n {
			x := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
			v = append(v, x)
			if rng.IntN(3) == 0 {
				v = append(v, -x*(1+0x1p-52*float64(rng.IntN(5))))
			}
		}
		check(trial, v)
	}
	half := 0x1p-53 // half an ulp of 1: 1 + half is a tie
	for trial, v := range [][]float64{
		{1, half},                     // tie, rounds to even 1
		{1, half, 0x1p-120},           // just above the tie: up
		{1, half, -0x1p-120},          // just below: down
		{1 + 0x1p-52, half},           // tie from odd: up to even
		{1 + 0x1p-52, half, -0x1p-90}, // just below: stays
		{-1, -half, -0x1p-120},        // negative, past the tie
		{0x1p-1074, 0x1p-1074, -0x1p-1073, 0x1p-1074},
	} {
		check(-trial-1, v)
	}
}

// Product's hi + lo is the exact product, and it refuses the products
// whose error could underflow, and overflows.
func TestProductIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	for trial := range 20000 {
		a := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(600)-300))
		b := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(600)-300))
		hi, lo, ok := Product(a, b)
		want := new(big.Float).SetPrec(1<<12).Mul(new(big.Float).SetFloat64(a), new(big.Float).SetFloat64(b))
		if !ok {
			if p := math.Abs(a * b); p >= exactProductMin && !math.IsInf(p, 0) {
				t.Fatalf("trial %d: %v·%v refused", trial, a, b)
			}
			continue
		}
		if got := exact([]float64{hi, lo}); got.Cmp(want) != 0 {
			t.Fatalf("trial %d: %v·%v = %v + %v, want %v", trial, a, b, hi, lo, want)
		}
	}
	if _, _, ok := Product(0x1p-600, 0x1p-600); ok {
		t.Error("a product of 2^-1200 was taken as exact")
	}
	if _, _, ok := Product(0, 0x1p-1074); !ok {
		t.Error("a product with a zero factor was refused")
	}
	if _, _, ok := Product(math.MaxFloat64, 2); ok {
		t.Error("an overflowed product was taken as exact")
	}
}
