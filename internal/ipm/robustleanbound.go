package ipm

import (
	"errors"
	"math"
)

// RobustLeanBound runs only SolveRobust's first route, the lean interior
// point written for p's set and budget, and returns the upper bound on
// the robust optimum that its multipliers prove (RobustBound, as
// SolveRobust's Bound). ok is false where no lean route applies, the run
// ends without an answer, or its bound is not finite. It is for a caller
// that wants a bound quickly, not the optimum: where the lean run stalls
// SolveRobust's later routes may take minutes.
func RobustLeanBound(p RobustProblem, opt Options) (bound float64, ok bool) {
	if p.Set == nil || !dualApplies(p.Set) {
		return 0, false
	}
	n, _ := p.Utility.Dims()
	if n != p.Set.N() {
		return 0, false
	}
	mu, kap, lip, err := robustRates(p.Budget)
	if err != nil || mu == 1 || (lip && kap == 1) {
		return 0, false
	}
	gap, accept, maxIter, err := opt.settings()
	if err != nil {
		return 0, false
	}
	pi := normalised(p.Set.Center)
	r, tried, err := solveRobustLeanRoute(opt.ctx(), p, pi, mu, kap, lip, maxIter, max(gap, robustGap), accept)
	if !tried || r == nil || (err != nil && !errors.Is(err, errStalledWithinGap)) || math.IsNaN(r.Bound) || math.IsInf(r.Bound, 0) {
		return 0, false
	}
	return r.Bound, true
}
