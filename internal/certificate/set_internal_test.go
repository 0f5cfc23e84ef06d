package certificate

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactSum is the exact sum of its floats: on random vectors of mixed
// magnitudes and signs (whose float sums round) it equals big.Float's sum
// at full precision.
func TestExactSumIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 44))
	for trial := range 500 {
		v := make([]float64, 1+r.IntN(12))
		for k := range v {
			v[k] = math.Ldexp(r.NormFloat64(), r.IntN(120)-60)
			if r.IntN(4) == 0 && k > 0 {
				v[k] = -v[k-1] // cancellations
			}
		}
		want := new(big.Float).SetPrec(1 << 13)
		for _, x := range v {
			want.Add(want, new(big.Float).SetFloat64(x))
		}
		if got := exactSum(v); got.Cmp(want) != 0 {
			t.Fatalf("trial %d: exactSum(%v) = %v, want %v", trial, v, got, want)
		}
	}
}
