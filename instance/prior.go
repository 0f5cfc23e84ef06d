package instance

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// minLogMass is the log of the smallest normal float64, 2^−1022. A mass
// below it would be subnormal (fewer than 53 significant bits) or 0, and a
// prior with a zero entry is not a prior for pmlopt, so such masses are
// refused rather than rounded.
var minLogMass = -1022 * math.Ln2

// fromLog returns the prior with masses proportional to exp(l_i): it
// subtracts the log of the normaliser, log Σ exp(l_i) computed around the
// largest l_i, so that every mass is one exp of a log and a mass of 1e-300
// is as exact as a mass of 0.5.
func fromLog(name string, l []float64) (mech.Prior, error) {
	if len(l) == 0 {
		return nil, fmt.Errorf("instance: %s prior: no letters", name)
	}
	top := math.Inf(-1)
	for _, v := range l {
		top = max(top, v)
	}
	s := 0.0
	for _, v := range l {
		s += math.Exp(v - top)
	}
	lz := top + math.Log(s)
	p := make(mech.Prior, len(l))
	for i, v := range l {
		if v-lz < minLogMass || math.IsNaN(v) {
			return nil, fmt.Errorf("instance: %s prior: letter %d has mass exp(%.6g), below the smallest normal float64 (2^-1022); choose fewer letters or milder parameters", name, i, v-lz)
		}
		p[i] = math.Exp(v - lz)
	}
	return p, nil
}

// Uniform returns the uniform prior on n letters.
func Uniform(n int) (mech.Prior, error) {
	if n < 1 {
		return nil, fmt.Errorf("instance: uniform prior: %d letters", n)
	}
	return mech.Uniform(n), nil
}

// Binomial returns the binomial(trials, p) prior on the trials+1 letters
// 0..trials: mass C(trials, k) p^k (1−p)^(trials−k), computed as the
// exponential of its logarithm (log-gamma for the binomial coefficient,
// log1p for 1 − p), so masses far below 1e-300 are exact to rounding or
// refused, never 0.
func Binomial(trials int, p float64) (mech.Prior, error) {
	if trials < 0 || !(p > 0 && p < 1) {
		return nil, fmt.Errorf("instance: binomial(%d, %g): want trials ≥ 0 and 0 < p < 1", trials, p)
	}
	n := float64(trials)
	lgn, _ := math.Lgamma(n + 1)
	lp, lq := mathx.Log(p), math.Log1p(-p)
	l := make([]float64, trials+1)
	for k := range l {
		x := float64(k)
		a, _ := math.Lgamma(x + 1)
		b, _ := math.Lgamma(n - x + 1)
		l[k] = lgn - a - b + x*lp + (n-x)*lq
	}
	return fromLog(fmt.Sprintf("binomial(%d, %g)", trials, p), l)
}

// Zipf returns the Zipf(s) prior on n letters: mass ∝ (k+1)^−s for
// k = 0..n−1.
func Zipf(n int, s float64) (mech.Prior, error) {
	if n < 1 || !(s >= 0) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("instance: zipf(%g) on %d letters: want n ≥ 1 and a finite s ≥ 0", s, n)
	}
	l := make([]float64, n)
	for k := range l {
		l[k] = -s * math.Log(float64(k+1))
	}
	return fromLog(fmt.Sprintf("zipf(%g)", s), l)
}

// Geometric returns the geometric prior of ratio r on n letters, truncated
// and normalised: mass ∝ r^k for k = 0..n−1.
func Geometric(n int, r float64) (mech.Prior, error) {
	if n < 1 || !(r > 0) || math.IsInf(r, 0) {
		return nil, fmt.Errorf("instance: geometric(%g) on %d letters: want n ≥ 1 and a finite r > 0", r, n)
	}
	l := make([]float64, n)
	lr := mathx.Log(r)
	for k := range l {
		l[k] = float64(k) * lr
	}
	return fromLog(fmt.Sprintf("geometric(%g)", r), l)
}

// Dirichlet returns a prior on n letters drawn from the symmetric
// Dirichlet(a, …, a) distribution: independent Gamma(a) variates,
// normalised. Gamma(1) is the standard exponential, drawn with
// rng.ExpFloat64, so Dirichlet(1) is the uniform law on the simplex; other
// shapes use the method of Marsaglia and Tsang (2000). A variate of 0 is
// drawn again: the prior has full support.
func Dirichlet(rng *rand.Rand, n int, a float64) (mech.Prior, error) {
	if n < 1 || !(a > 0) || math.IsInf(a, 0) {
		return nil, fmt.Errorf("instance: dirichlet(%g) on %d letters: want n ≥ 1 and a finite a > 0", a, n)
	}
	if rng == nil {
		return nil, errors.New("instance: dirichlet needs a random generator, got nil")
	}
	p := make(mech.Prior, n)
	for i := range p {
		for p[i] == 0 {
			p[i] = gamma(rng, a)
		}
	}
	mech.Normalise(p)
	for i, v := range p {
		if v < 0x1p-1022 {
			return nil, fmt.Errorf("instance: dirichlet(%g): letter %d drew mass %g, below the smallest normal float64; use a larger a", a, i, v)
		}
	}
	return p, nil
}

// gamma draws a Gamma(a, 1) variate.
func gamma(rng *rand.Rand, a float64) float64 {
	if a == 1 {
		return rng.ExpFloat64()
	}
	if a < 1 {
		// Gamma(a) = Gamma(a+1) · U^(1/a).
		return gamma(rng, a+1) * math.Pow(rng.Float64(), 1/a)
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < x*x/2+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
