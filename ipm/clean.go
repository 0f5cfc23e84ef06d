package ipm

import (
	"math"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
)

// noiseEntry is the size below which an interior point's entry is taken
// for zero.
const noiseEntry = 1e-11

// noiseColumn is the largest entry of an output that clean drops when its
// PML exceeds the budget.
const noiseColumn = 1e-9

// clean turns an interior point into a mechanism in place: outputs whose
// entries are all noise and that break the budget dropped, rows
// renormalised (polytope.DropNoise, as for an LP's solution), then, if its
// PML still exceeds eps, mixed into the budget (mixToBudget). Small entries
// of the other outputs stay: clearing them lowers their output's marginal,
// and in an output of little mass that raises the largest ratio by orders
// of magnitude, which the mixing then pays for in expected utility (5e-4
// of a value of 144 on a 101-letter counting query). Vertex removes them
// afterwards, on an optimal vertex's support.
func clean(pi mech.Prior, p mech.Mechanism, eps float64) mech.Mechanism {
	polytope.DropNoise(pi, p, mech.Budget{Measure: mech.PML, Epsilon: eps}, noiseColumn)
	return mixToBudget(pi, p, eps)
}

// clearTiny sets to zero, in place, the entries of p below noiseEntry,
// except each row's largest.
func clearTiny(p mech.Mechanism) {
	for _, row := range p {
		top := 0.0
		for _, v := range row {
			top = math.Max(top, v)
		}
		for j, v := range row {
			if v < noiseEntry && v < top {
				row[j] = 0
			}
		}
	}
}

// mixToBudget returns p, mixed in place with the independent mechanism of
// its own output marginal if its PML exceeds eps: that keeps the marginal
// and moves every ratio p_ij/q_j towards 1, so θ = (R − e^ε)/(R − 1) for
// the largest ratio R brings the PML to ε.
func mixToBudget(pi mech.Prior, p mech.Mechanism, eps float64) mech.Mechanism {
	a := leakage.PML(pi, p)
	if a <= eps {
		return p
	}
	q := make([]float64, len(p[0]))
	total := 0.0
	for i, row := range p {
		for j, v := range row {
			q[j] += pi[i] * v
		}
		total += pi[i]
	}
	for j := range q {
		q[j] /= total // Σ_j q_j = Σ_i π_i, which may differ from 1 by 1e-9
	}
	r, b := math.Exp(a), math.Exp(eps)
	theta := (r - b) / (r - 1)
	theta = math.Min(1, theta*(1+1e-12)+1e-16)
	for _, row := range p {
		for j := range row {
			row[j] = (1-theta)*row[j] + theta*q[j]
		}
	}
	return p
}
