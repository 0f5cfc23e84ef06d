package mech

import "math"

// SumTol is the tolerance within which a prior and each row of a mechanism
// must sum to 1.
const SumTol = 1e-9

// Prior is a probability distribution P_X on the N input letters. The papers
// assume full support, and NewPrior enforces it.
type Prior []float64

// NewPrior validates p as a prior: non-empty, finite, every entry positive and
// the sum within SumTol of 1. The returned Prior shares p's storage.
func NewPrior(p []float64) (Prior, error) {
	if len(p) == 0 {
		return nil, errorf("prior", -1, -1, "is empty")
	}
	sum := 0.0
	for i, v := range p {
		switch {
		case math.IsNaN(v):
			return nil, errorf("prior", -1, i, "is NaN")
		case math.IsInf(v, 0):
			return nil, errorf("prior", -1, i, "is infinite")
		case v < 0:
			return nil, errorf("prior", -1, i, "is negative (%g)", v)
		case v == 0:
			return nil, errorf("prior", -1, i, "is zero; pmlopt needs a prior with full support")
		}
		sum += v
	}
	if math.Abs(sum-1) > SumTol {
		return nil, errorf("prior", -1, -1, "sums to %.17g, not 1 (tolerance %g)", sum, SumTol)
	}
	return Prior(p), nil
}

// Uniform returns the uniform prior on n letters (nil for n ≤ 0).
func Uniform(n int) Prior {
	if n <= 0 {
		return nil
	}
	p := make(Prior, n)
	for i := range p {
		p[i] = 1 / float64(n)
	}
	return p
}

// Normalise divides v in place by its sum, if the sum is positive, and
// returns the sum.
func Normalise(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	if s > 0 {
		for i := range v {
			v[i] /= s
		}
	}
	return s
}

// Len returns the number of input letters N.
func (p Prior) Len() int { return len(p) }

// Min returns p_min, the smallest probability.
func (p Prior) Min() float64 {
	m := math.Inf(1)
	for _, v := range p {
		m = min(m, v)
	}
	return m
}

// Max returns the largest probability.
func (p Prior) Max() float64 {
	m := math.Inf(-1)
	for _, v := range p {
		m = max(m, v)
	}
	return m
}
