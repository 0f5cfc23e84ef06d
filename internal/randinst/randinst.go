// Package randinst draws seeded random instances — priors, mechanisms,
// utility orders and utilities — for pmlopt's property tests, benchmarks and
// scaling study, so that they all sample the same distributions.
package randinst

import (
	"math/rand/v2"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
)

// Prior returns a prior with entries proportional to floor + U(0, 1); a
// positive floor keeps p_min away from 0.
func Prior(rng *rand.Rand, n int, floor float64) mech.Prior {
	pi := make(mech.Prior, n)
	for i := range pi {
		pi[i] = floor + rng.Float64()
	}
	return normalise(pi)
}

// Dirichlet returns a prior drawn from the flat Dirichlet(1, …, 1)
// distribution (normalised exponentials), the uniform law on the simplex:
// instance.Dirichlet with a = 1, and an empty prior for n = 0. A draw that
// instance.Dirichlet refuses (a mass below 2^−1022, probability below
// 1e-300) is drawn again.
func Dirichlet(rng *rand.Rand, n int) mech.Prior {
	if n < 1 {
		return mech.Prior{}
	}
	for {
		if pi, err := instance.Dirichlet(rng, n, 1); err == nil {
			return pi
		}
	}
}

func normalise(v []float64) []float64 {
	mech.Normalise(v)
	return v
}

// Mechanism returns an n×m mechanism whose entries are independently zero
// with probability zeros and otherwise exponential, rows normalised; a row
// left all zero gets a single 1.
func Mechanism(rng *rand.Rand, n, m int, zeros float64) mech.Mechanism {
	p := mech.Zeros(n, m)
	for i := range p {
		s := 0.0
		for j := range p[i] {
			if rng.Float64() < zeros {
				continue
			}
			p[i][j] = rng.ExpFloat64()
			s += p[i][j]
		}
		if s == 0 {
			p[i][rng.IntN(m)] = 1
			continue
		}
		normalise(p[i])
	}
	return p
}

// StrictOrder returns an n×m utility order whose rows are independent
// uniform permutations of 1..m.
func StrictOrder(rng *rand.Rand, n, m int) mech.Order {
	o := make(mech.Order, n)
	for i := range o {
		o[i] = rng.Perm(m)
		for j := range o[i] {
			o[i][j]++
		}
	}
	return o
}

// Utility returns an n×m utility matrix with entries uniform on
// {0, 1, …, levels−1}, or uniform on [0, 1) when levels is 0 (distinct
// values with probability 1, so the order is strict).
func Utility(rng *rand.Rand, n, m, levels int) mech.Utility {
	u := make(mech.Utility, n)
	for i := range u {
		u[i] = make([]float64, m)
		for j := range u[i] {
			if levels > 0 {
				u[i][j] = float64(rng.IntN(levels))
			} else {
				u[i][j] = rng.Float64()
			}
		}
	}
	return u
}
