package worstcase

import (
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/mech"
)

// The free bounds are what the pattern and the prior give before any
// probe: the PML of an output is at least −log of the prior mass of the
// inputs that may use it (Song & Oechtering (2026), Lemmas 2-3).

// pruneSlack is added to the level at which outputs are pruned, so that an
// output whose bound equals the level up to rounding is kept. Pruning at a
// higher level is always valid; it only keeps more columns.
const pruneSlack = 1e-9

// columnBounds returns, for every output j, a lower bound c_j on
// −log Σ_{k allowed for j} π_k in exact arithmetic (+Inf for an output no
// input may use), and the index of an output allowed for every input, or
// −1. The computed −log of the rounded sum can exceed the exact value by
// rounding (k − 1 units of roundoff of the sum of k masses, an ulp in the
// logarithm), and a lower bound must not: c_j is lowered by that much. An
// output is open to every input by the pattern, not by its bound: masses
// below 1e-16 leave the bound of an output closed to them at 0.
func columnBounds(pi mech.Prior, pat mech.Pattern) (c []float64, all int) {
	c = pat.OutputBounds(pi)
	all = -1
	for j := range c {
		k := 0
		for _, row := range pat {
			if row[j] {
				k++
			}
		}
		if k == len(pat) && all < 0 {
			all = j
		}
		if v := c[j]; v > 0 && !math.IsInf(v, 1) {
			gamma := 1.01 * float64(k-1) * certify.UnitRoundoff
			c[j] = max(0, v-2*certify.UnitRoundoff*v-gamma)
		}
	}
	return c, all
}

// pruningBound returns max_i min_{j allowed for i} c_j: every row must use
// an allowed output, so the least ε is at least this.
func pruningBound(pat mech.Pattern, c []float64) float64 {
	lb := 0.0
	for _, row := range pat {
		best := math.Inf(1)
		for j, a := range row {
			if a {
				best = min(best, c[j])
			}
		}
		lb = max(lb, best)
	}
	return lb
}

// independent returns the mechanism that sends every input to output j.
func independent(n, m, j int) mech.Mechanism {
	p := mech.Zeros(n, m)
	for i := range p {
		p[i][j] = 1
	}
	return p
}

// pruned returns pat with the columns whose bound exceeds level forbidden:
// at every ε ≤ level no ε-PML mechanism can use them.
func pruned(pat mech.Pattern, c []float64, level float64) mech.Pattern {
	out := make(mech.Pattern, len(pat))
	for i, row := range pat {
		out[i] = make([]bool, len(row))
		for j, a := range row {
			out[i][j] = a && c[j] <= level+pruneSlack
		}
	}
	return out
}

func pmlBudget(eps float64) mech.Budget { return mech.Budget{Measure: mech.PML, Epsilon: eps} }
