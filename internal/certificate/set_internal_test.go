package certificate

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
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

// NoFiniteLevel (the engines' decision that no budget reaches a pattern
// over a set) agrees with verify.Unreachable, the checker's own exact
// test through its greedy least masses, on random patterns over boxes
// whose unseen letters have a lower end of 0 and over L1 balls of radii
// up to 1.5, with priors in sixteenths so that both read the same exact
// numbers; both answers occur.
func TestNoFiniteLevelAgreesWithVerify(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	yes, no := 0, 0
	for trial := range 300 {
		n, m := 3+r.IntN(4), 3+r.IntN(4)
		// A prior in sixteenths, every letter at least 1/16.
		units := make([]int, n)
		for k := range units {
			units[k] = 1
		}
		for range 16 - n {
			units[r.IntN(n)]++
		}
		pi := make(mech.Prior, n)
		for k, u := range units {
			pi[k] = float64(u) / 16
		}
		var set *mech.PriorSet
		var err error
		if trial%2 == 0 {
			lo, up := make([]float64, n), make([]float64, n)
			for k := range n {
				if r.IntN(2) == 0 {
					lo[k] = pi[k] / 2
				}
				up[k] = math.Min(1, 2*pi[k])
			}
			set, err = mech.NewBoxSet(pi, lo, up)
		} else {
			set, err = mech.NewL1Set(pi, float64(r.IntN(25))/16)
		}
		if err != nil {
			t.Fatal(err)
		}
		o := make(mech.Order, n)
		for i := range o {
			o[i] = make([]int, m)
			for j, v := range r.Perm(m) {
				o[i][j] = v + 1
			}
		}
		pat := o.Pattern(1 + r.IntN(m))
		p := &problem.Problem{Prior: pi, Order: o, PriorSet: set}
		got := NoFiniteLevel(p, pat)
		claims := verify.Unreachable(verify.Problem{Prior: pi, PriorSet: PriorSet(set)}, pat)
		if want := claims[len(claims)-1]; want.OK != got || want.Name != verify.ClaimUnreachable {
			t.Fatalf("trial %d: NoFiniteLevel %v, verify %s (set %v, pattern %v)", trial, got, want, set, pat)
		}
		if got {
			yes++
		} else {
			no++
		}
	}
	if yes < 20 || no < 20 {
		t.Fatalf("%d unreachable and %d reachable patterns: too few of one", yes, no)
	}
}

// exactSum of values whose float partial sums overflow is still their
// exact sum (the big.Float path), not a panic on an infinite partial.
func TestExactSumPastFloat64(t *testing.T) {
	got := exactSum([]float64{math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64, 0x1p-1074})
	want := new(big.Float).SetPrec(1 << 13).SetFloat64(math.MaxFloat64)
	want.Add(want, new(big.Float).SetFloat64(0x1p-1074))
	if got.Cmp(want) != 0 {
		t.Fatalf("exactSum = %v, want %v", got, want)
	}
}
