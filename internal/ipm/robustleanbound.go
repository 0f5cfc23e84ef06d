package ipm

import (
	"errors"
	"math"
)

// RobustLean runs only SolveRobust's first route, the lean interior point
// written for p's set and budget, and returns its answer: the mechanism,
// and the bound its multipliers Alpha and priors prove (as SolveRobust's
// Bound). It returns nil where no lean route applies, or the run ends
// without an answer or a finite bound. It is for a caller that wants a
// bound quickly, not the optimum: where the lean run stalls, SolveRobust's
// later routes cost many times more.
func RobustLean(p RobustProblem, opt Options) *RobustResult {
	if p.Set == nil || !dualApplies(p.Set) {
		return nil
	}
	if n, _ := p.Utility.Dims(); n != p.Set.N() {
		return nil
	}
	mu, kap, lip, err := robustRates(p.Budget)
	if err != nil || mu == 1 || (lip && kap == 1) {
		return nil
	}
	gap, accept, maxIter, err := opt.settings()
	if err != nil {
		return nil
	}
	pi := normalised(p.Set.Center)
	r, tried, err := solveRobustLeanRoute(opt.ctx(), p, pi, mu, kap, lip, maxIter, max(gap, robustGap), accept)
	if !tried || r == nil || (err != nil && !errors.Is(err, errStalledWithinGap)) || math.IsNaN(r.Bound) || math.IsInf(r.Bound, 0) {
		return nil
	}
	return r
}
