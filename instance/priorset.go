package instance

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/pmlopt/pmlopt/mech"
)

// The methods of ConfidenceSet, as a problem file's prior_set.method
// records them.
const (
	MethodClopperPearson = "clopper-pearson-bonferroni"
	MethodWeissman       = "weissman-l1"
)

// ClopperPearson returns the exact two-sided binomial interval of
// Clopper & Pearson (1934) at level 1 − delta for k successes in n trials:
// the delta/2 quantile of Beta(k, n−k+1) and the 1 − delta/2 quantile of
// Beta(k+1, n−k), with 0 for k = 0 and 1 for k = n.
func ClopperPearson(k, n int, delta float64) (lo, hi float64) {
	lo, hi = 0, 1
	if k > 0 {
		lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(delta / 2)
	}
	if k < n {
		hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - delta/2)
	}
	return lo, hi
}

// WeissmanRadius returns the L1 radius r at which the bound of Weissman
// et al. (2003), P(‖π̂ − π‖₁ ≥ r) ≤ (2^N − 2) e^{−n r²/2}, equals delta for
// the empirical distribution π̂ of n samples on N letters, capped at 2 (the
// simplex's diameter). On one letter the simplex is a single point, which
// every estimate is: the radius is 0.
func WeissmanRadius(n, letters int, delta float64) float64 {
	if letters <= 1 {
		return 0
	}
	// log(2^N − 2) = N log 2 + log(1 − 2^{1−N}), exact for large N.
	logCount := float64(letters)*math.Ln2 + math.Log1p(-math.Exp2(float64(1-letters)))
	r := math.Sqrt(2 / float64(n) * (logCount - math.Log(delta)))
	return math.Min(2, r)
}

// ConfidenceSet returns a set of priors around estimate that holds the
// distribution the counts were drawn from with probability at least level
// (over the draw of the counts), by method:
//
//   - MethodClopperPearson: a box of Clopper–Pearson intervals, each at
//     level 1 − (1 − level)/N (Bonferroni over the N letters, so that all
//     hold at once with probability ≥ level). A letter never seen gets an
//     interval from 0.
//   - MethodWeissman: the L1 ball of WeissmanRadius around the empirical
//     distribution.
//
// The estimate (a smoothed one, say) need not be the empirical
// distribution: the box is widened to hold it, and the ball's radius grows
// by its L1 distance from the empirical distribution, so the set still
// holds the true prior whenever the intervals or the ball around the
// empirical distribution do.
func ConfidenceSet(counts []float64, estimate mech.Prior, level float64, method string) (*mech.PriorSet, error) {
	if !(level > 0 && level < 1) {
		return nil, fmt.Errorf("instance: confidence level %g, want 0 < level < 1", level)
	}
	if len(counts) != len(estimate) {
		return nil, fmt.Errorf("instance: %d counts for a prior of %d letters", len(counts), len(estimate))
	}
	total := 0.0
	for i, c := range counts {
		if !(c >= 0) || c != math.Trunc(c) || c > 1<<52 {
			return nil, fmt.Errorf("instance: count %d is %g, want a whole number ≥ 0", i+1, c)
		}
		total += c
	}
	if total < 1 {
		return nil, fmt.Errorf("instance: no samples")
	}
	n, N := int(total), len(counts)
	delta := 1 - level
	switch method {
	case MethodClopperPearson:
		lo, up := make([]float64, N), make([]float64, N)
		for k, c := range counts {
			lo[k], up[k] = ClopperPearson(int(c), n, delta/float64(N))
			lo[k] = math.Min(lo[k], estimate[k])
			up[k] = math.Min(1, math.Max(up[k], estimate[k]))
		}
		return mech.NewBoxSet(estimate, lo, up)
	case MethodWeissman:
		r := WeissmanRadius(n, N, delta)
		for k, c := range counts {
			r += math.Abs(estimate[k] - c/total)
		}
		return mech.NewL1Set(estimate, math.Min(2, r))
	}
	return nil, fmt.Errorf("instance: unknown prior-set method %q (want %s or %s)", method, MethodClopperPearson, MethodWeissman)
}
