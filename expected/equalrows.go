package expected

import (
	"math"

	"github.com/pmlopt/pmlopt/mech"
)

// EqualRows returns the best mechanism whose rows are all equal, and its
// expected utility under pi: every input sent to the first output of
// largest mean utility Σ_i π_i u_ij. Such a mechanism leaks nothing
// (every measure's level is 0, under every prior), and it is the optimum
// at a zero budget.
func EqualRows(pi mech.Prior, u mech.Utility) (mech.Mechanism, float64) {
	n, m := u.Dims()
	best, value := 0, math.Inf(-1)
	for j := range m {
		mean := 0.0
		for i := range n {
			mean += pi[i] * u[i][j]
		}
		if mean > value {
			best, value = j, mean
		}
	}
	p := make(mech.Mechanism, n)
	for i := range p {
		p[i] = make([]float64, m)
		p[i][best] = 1
	}
	return p, value
}
