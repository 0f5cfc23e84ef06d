package verify

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/internal/testlong"
)

// twoPriorExact is output j's count of twoPriorBound in exact rationals,
// written from its formula: g_k = C w_kj − κ c_k + (hi R + lo T δ hi) a_k
// − lo T b_k, w_kj = c_k u_kj − α_k, δ = max(0, Σ b − C), and the count
// Σ max(0, g_k) + max(0, T − Σ max(0, −g_k)).
func twoPriorExact(prior []float64, util [][]float64, alpha []float64, j int, a, b []float64, R, T float64, lo, hi, kappa *big.Float) *big.Rat {
	rat := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	ratB := func(x *big.Float) *big.Rat { r, _ := x.Rat(nil); return r }
	C := new(big.Rat)
	for _, v := range prior {
		C.Add(C, rat(v))
	}
	delta := new(big.Rat).Neg(C)
	for _, v := range b {
		delta.Add(delta, rat(v))
	}
	if delta.Sign() < 0 {
		delta.SetInt64(0)
	}
	loR, hiR, kR, Rr, Tr := ratB(lo), ratB(hi), ratB(kappa), rat(R), rat(T)
	loT := new(big.Rat).Mul(loR, Tr)
	up := new(big.Rat).Mul(hiR, Rr)
	up.Add(up, new(big.Rat).Mul(new(big.Rat).Mul(loT, delta), hiR))
	pos, neg := new(big.Rat), new(big.Rat)
	for i := range prior {
		w := new(big.Rat).Sub(new(big.Rat).Mul(rat(prior[i]), rat(util[i][j])), rat(alpha[i]))
		g := new(big.Rat).Mul(C, w)
		g.Sub(g, new(big.Rat).Mul(kR, rat(prior[i])))
		g.Add(g, new(big.Rat).Mul(up, rat(a[i])))
		g.Sub(g, new(big.Rat).Mul(loT, rat(b[i])))
		if g.Sign() > 0 {
			pos.Add(pos, g)
		} else {
			neg.Sub(neg, g)
		}
	}
	if t := new(big.Rat).Sub(Tr, neg); t.Sign() > 0 {
		pos.Add(pos, t)
	}
	return pos
}

// TestTwoPriorFloatNeverPassesAFailingColumn: the floating-point check of
// a column (twoPriorFloat) passes it only when the exact count is at most
// R. On random columns (60, or 500 in the long suite: 2 to 40 letters,
// magnitudes from 1e-300 to 1e30, multipliers that cancel the utility to
// 1e-9, budgets 1e-3 to 30 nats), κ is placed where the count crosses R
// (bisection in floats), then moved by 1 to 1000 ulps and by 1e-8 and
// 1e-6 either way: the float check must not pass any κ where the exact
// count exceeds R, and must pass most columns at a κ far past the
// crossing (the check that saves the exact arithmetic).
func TestTwoPriorFloatNeverPassesAFailingColumn(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	trials := 60
	if !testlong.Short() {
		trials = 500
	}
	passedFar, far, tight := 0, 0, 0
	for trial := range trials {
		n := 2 + rng.IntN(39)
		scale := math.Pow(10, float64(rng.IntN(331)-300))
		prior := make([]float64, n)
		for i := range prior {
			prior[i] = rng.Float64() / float64(n)
			if rng.IntN(10) == 0 {
				prior[i] *= 1e-12
			}
		}
		util := make([][]float64, n)
		alpha := make([]float64, n)
		for i := range util {
			util[i] = []float64{scale * (rng.Float64() - 0.5)}
			alpha[i] = prior[i] * util[i][0] * (1 + 1e-9*rng.NormFloat64())
			if rng.IntN(2) == 0 {
				alpha[i] = scale * (rng.Float64() - 0.5)
			}
		}
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i] = prior[i] * (1 + 0.3*rng.Float64())
			b[i] = prior[i] * (1 + 0.3*rng.Float64())
		}
		eps := math.Pow(10, -3+4.5*rng.Float64())
		lo, _ := expBounds(-eps)
		_, hi := expBounds(eps)
		R, T := scale*rng.Float64(), scale*rng.Float64()
		if trial%3 == 0 {
			T = 0
		}
		k := &checker{p: Problem{Prior: prior, Utility: util}, c: Certificate{Utility: &Utility{Alpha: alpha}}, n: n, m: 1}
		k.mass = k.a.zero()
		for _, v := range prior {
			k.a.add(k.mass, k.mass, k.a.num(v))
		}
		bf := func(x float64) *big.Float { return new(big.Float).SetPrec(exactPrec).SetFloat64(x) }
		count := func(kap float64) *big.Rat {
			return twoPriorExact(prior, util, alpha, 0, a, b, R, T, lo, hi, bf(kap))
		}
		holds := func(kap float64) bool { return count(kap).Cmp(new(big.Rat).SetFloat64(R)) <= 0 }
		// The count falls as κ grows: bisect in floats for the crossing.
		countF := func(kap float64) float64 {
			sb, C := 0.0, 0.0
			for i := range n {
				sb += b[i]
				C += prior[i]
			}
			lof, _ := lo.Float64()
			hif, _ := hi.Float64()
			up := hif*R + lof*T*math.Max(0, sb-C)*hif
			pos, neg := 0.0, 0.0
			for i := range n {
				g := C*(prior[i]*util[i][0]-alpha[i]) - kap*prior[i] + up*a[i] - lof*T*b[i]
				pos += math.Max(0, g)
				neg += math.Max(0, -g)
			}
			return pos + math.Max(0, T-neg) - R
		}
		kl, kh := -scale, scale
		for countF(kl) <= 0 && kl > -1e300 {
			kl *= 16
		}
		for countF(kh) > 0 && kh < 1e300 {
			kh *= 16
		}
		for range 2100 {
			mid := 0.5 * (kl + kh)
			if mid == kl || mid == kh {
				break
			}
			if countF(mid) <= 0 {
				kh = mid
			} else {
				kl = mid
			}
		}
		k0 := kh
		tries := []float64{k0, k0 * (1 - 1e-8), k0 * (1 + 1e-8), k0 * (1 - 1e-6), k0 * (1 + 1e-6)}
		for _, ulps := range []int{1, 4, 1000} {
			x, y := k0, k0
			for range ulps {
				x, y = math.Nextafter(x, math.Inf(-1)), math.Nextafter(y, math.Inf(1))
			}
			tries = append(tries, x, y)
		}
		farK := k0 + 2*math.Abs(k0) + scale
		tries = append(tries, farK)
		fails, passes := false, false
		for _, kap := range tries {
			got := k.twoPriorFloat(0, a, b, R, T, k.floatConsts(lo, hi, bf(kap)))
			ok := holds(kap)
			if got && !ok {
				t.Fatalf("trial %d (n %d, scale %g, ε %g): the float check passes κ = %g, where the exact count %s exceeds R = %g", trial, n, scale, eps, kap, count(kap).FloatString(20), R)
			}
			fails = fails || !ok
			passes = passes || (ok && kap != farK)
			if kap == farK && ok {
				far++
				if got {
					passedFar++
				}
			}
		}
		if fails && passes {
			tight++
		}
	}
	if tight < trials*3/5 {
		t.Errorf("only %d trials tried κ on both sides of the crossing", tight)
	}
	if far < trials*4/5 || passedFar < far*9/10 {
		t.Errorf("the float check passed %d of %d columns far below their R", passedFar, far)
	}
	t.Logf("passed %d of %d far columns; %d trials straddled the crossing", passedFar, far, tight)
}

// Two columns whose float count loses its rounding bound to underflow:
// e^{−750} converts to 0 while a lower prior of 1e308 would multiply it,
// and a subnormal R times e^ε is rounded absolutely, then scaled by 2²⁰.
// The float check must leave both to the exact path, which refuses them.
func TestTwoPriorFloatLeavesUnderflowToTheExactPath(t *testing.T) {
	for _, tc := range []struct {
		name           string
		epsLo, epsUp   float64
		a, b           []float64
		R, T           float64
		alphaFromUpper bool
	}{
		{"lower cap underflows", 750, 27.6, []float64{0.5, 0.5}, []float64{1e308, 0.5}, 1e-13, 1, false},
		{"subnormal R", 0.3, 0.3, []float64{0x1p20, 0x1p20}, []float64{0.5, 0.5}, 1.487e-321, 0, true},
	} {
		prior := []float64{0.5, 0.5}
		util := [][]float64{{0}, {0}}
		lo, _ := expBounds(-tc.epsLo)
		_, hi := expBounds(tc.epsUp)
		hif, _ := hi.Float64()
		alpha := []float64{0, 0}
		kappa := new(big.Float).SetPrec(exactPrec).SetFloat64((1 + hif*tc.R) * (1 + 1e-14))
		if tc.alphaFromUpper {
			for i := range alpha {
				alpha[i] = hif * tc.R * tc.a[i]
			}
			kappa.SetFloat64(0)
		}
		k := &checker{p: Problem{Prior: prior, Utility: util}, c: Certificate{Utility: &Utility{Alpha: alpha}}, n: 2, m: 1}
		k.mass = k.a.zero()
		for _, v := range prior {
			k.a.add(k.mass, k.mass, k.a.num(v))
		}
		count := twoPriorExact(prior, util, alpha, 0, tc.a, tc.b, tc.R, tc.T, lo, hi, kappa)
		holds := count.Cmp(new(big.Rat).SetFloat64(tc.R)) <= 0
		if got := k.twoPriorFloat(0, tc.a, tc.b, tc.R, tc.T, k.floatConsts(lo, hi, kappa)); got && !holds {
			t.Errorf("%s: the float check passes a column whose exact count %s exceeds R = %g", tc.name, count.FloatString(30), tc.R)
		}
		if holds {
			t.Errorf("%s: the exact count %s is within R = %g: the case tests nothing", tc.name, count.FloatString(30), tc.R)
		}
	}
}
