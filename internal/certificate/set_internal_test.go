package certificate

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/mech"
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

// zeroMassPrior decides exactly whether a prior of the set gives the
// letters of in no mass, in the engines' reading of the set (priors of
// total 1) and in verify's (above a prior of the estimate's total). A box
// whose other letters' upper ends reach only the estimate's total of
// 1 − 5e-10 has every prior of total 1 give letter 2 a mass of at least
// 2.5e-10, so no; with those ends reaching 1, yes; with letter 2's lower
// end above 0, no. A ball reaches zero mass on letter 2 exactly when its
// radius is at least twice that letter's mass: at 2π̂_2, yes, one ulp
// below, no.
func TestZeroMassPriorIsExact(t *testing.T) {
	in := []bool{false, false, true}
	short := mech.Prior{0.5, 0.3, 0.1999999995}
	for _, c := range []struct {
		name   string
		pi     mech.Prior
		lo, up []float64
		radius float64
		want   bool
	}{
		{"box to the estimate's total only", short, []float64{0.4, 0.2, 0}, []float64{0.6, 0.39999999975, 0.3}, 0, false},
		{"box to 1", short, []float64{0.4, 0.2, 0}, []float64{0.6, 0.4, 0.3}, 0, true},
		{"box with a lower end on the letter", mech.Prior{0.5, 0.3, 0.2}, []float64{0.4, 0.2, 1e-300}, []float64{0.6, 0.4, 0.3}, 0, false},
		{"ball of radius 2π̂_2", mech.Prior{0.5, 0.3, 0.2}, nil, nil, 0.4, true},
		{"ball one ulp smaller", mech.Prior{0.5, 0.3, 0.2}, nil, nil, math.Nextafter(0.4, 0), false},
	} {
		var set *mech.PriorSet
		var err error
		if c.lo != nil {
			set, err = mech.NewBoxSet(c.pi, c.lo, c.up)
		} else {
			set, err = mech.NewL1Set(c.pi, c.radius)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := zeroMassPrior(set, c.pi, in); got != c.want {
			t.Errorf("%s: zero mass %v, want %v", c.name, got, c.want)
		}
	}
}
