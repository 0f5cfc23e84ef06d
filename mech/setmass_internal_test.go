package mech

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The fills in float64 partials are the fills in big.Float bit for bit,
// for the least and the largest mass, on random boxes and balls around priors
// that sum to 1 only up to rounding, with letters whose bounds meet,
// columns of mixed magnitudes and ties; where a product's error could
// underflow (a column entry of 1e-300 against a bound of 1e-30) it hands
// over to big.Float instead.
func TestFillFloatIsTheBigFill(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 59))
	fast, slow := 0, 0
	for trial := range 3000 {
		n := 2 + r.IntN(11)
		pi := make(Prior, n)
		for k := range pi {
			pi[k] = r.ExpFloat64() * math.Pow(10, -float64(r.IntN(4)))
		}
		s := 0.0
		for _, v := range pi {
			s += v
		}
		for k := range pi {
			pi[k] /= s
		}
		lo, up := make([]float64, n), make([]float64, n)
		for k, v := range pi {
			switch r.IntN(5) {
			case 0:
				lo[k], up[k] = v, v
			case 1:
				lo[k], up[k] = 0, math.Min(1, 3*v)
			default:
				lo[k], up[k] = v*(0.5+0.5*r.Float64()), math.Min(1, v*(1+r.Float64()))
			}
		}
		if trial%7 == 0 {
			lo[0] = 1e-30
			pi[0] = math.Max(pi[0], lo[0])
		}
		set, err := NewBoxSet(pi, lo, up)
		if err != nil {
			continue
		}
		if trial%2 == 1 {
			set, _ = NewL1Set(pi, []float64{0, 1e-3, 0.1, 1, 2}[r.IntN(5)])
		}
		c := make([]float64, n)
		for k := range c {
			switch r.IntN(6) {
			case 0:
				c[k] = 0
			case 1:
				c[k] = c[r.IntN(k+1)] // a tie
			default:
				c[k] = r.Float64() * math.Pow(10, -float64(r.IntN(8)))
			}
		}
		if trial%7 == 0 {
			c[0] = 1e-300
		}
		for _, hi := range []bool{false, true} {
			f := new(exactFill)
			f.reset(n)
			order := fillOrder(f.order, c, hi)
			want, got, ok := set.ballBig(c, order), 0.0, false
			if set.IsBox() {
				want = set.boxBig(c, order, hi)
				got, ok = f.box(set, c, order, hi)
			} else {
				got, ok = f.ball(set, c, order)
			}
			if !ok {
				slow++
				continue
			}
			fast++
			if got != want {
				t.Fatalf("trial %d (hi %v): float fill %v, big.Float fill %v (prior %v, box %v..%v, column %v)", trial, hi, got, want, pi, lo, up, c)
			}
		}
	}
	if fast < 4000 || slow < 50 {
		t.Errorf("float fills %d, hand-overs %d: a path is not tried", fast, slow)
	}
}
