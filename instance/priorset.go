package instance

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"

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
// with X ~ Binomial(n, p), the lower end is the p at which P(X ≥ k) =
// delta/2 (0 for k = 0), the upper end the p at which P(X ≤ k) = delta/2
// (1 for k = n). Each end is found by bisection to adjacent floats on its
// tail written as a regularised incomplete beta function on the tail's
// own side, P(X ≥ k) = I_p(k, n−k+1) and P(X ≤ k) = I_{1−p}(n−k, k+1),
// which keeps its relative accuracy down to the smallest tails (a Bonferroni
// split over many letters at a high level asks for tails of 1e-7 and far
// below, where inverting the beta distribution's quantile loses it). Each
// end is the outer end of its last bracket, then moved out by
// cpMargin of itself, more than the incomplete beta function's error, so
// that the interval holds the exact one.
func ClopperPearson(k, n int, delta float64) (lo, hi float64) {
	tail := delta / 2
	lo, hi = 0, 1
	if k > 0 {
		// P(X ≥ k) grows with p: keep P ≤ tail at a, P > tail at b.
		a, b := 0.0, 1.0
		for {
			mid := a + (b-a)/2
			if mid <= a || mid >= b {
				break
			}
			if mathext.RegIncBeta(float64(k), float64(n-k+1), mid) <= tail {
				a = mid
			} else {
				b = mid
			}
		}
		lo = a * (1 - cpMargin(n))
	}
	if k < n {
		// P(X ≤ k) falls with p: keep P > tail at a, P ≤ tail at b.
		a, b := 0.0, 1.0
		for {
			mid := a + (b-a)/2
			if mid <= a || mid >= b {
				break
			}
			if mathext.RegIncBeta(float64(n-k), float64(k+1), 1-mid) > tail {
				a = mid
			} else {
				b = mid
			}
		}
		hi = min(1, b*(1+cpMargin(n)))
	}
	return lo, hi
}

// cpMargin is the relative margin by which ClopperPearson moves each end
// out at n trials: the incomplete beta function's error grows with n
// (3e-11 of the end at a million trials, against the exact ends), and
// the margin 1e-10 + 1e-15·n, 35 times that there, stays far below the
// interval's statistical width.
func cpMargin(n int) float64 { return 1e-10 + 1e-15*float64(n) }

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
	return min(2, r)
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
			lo[k] = min(lo[k], estimate[k])
			up[k] = min(1, max(up[k], estimate[k]))
		}
		return mech.NewBoxSet(estimate, lo, up)
	case MethodWeissman:
		r := WeissmanRadius(n, N, delta)
		for k, c := range counts {
			r += math.Abs(estimate[k] - c/total)
		}
		return mech.NewL1Set(estimate, min(2, r))
	}
	return nil, fmt.Errorf("instance: unknown prior-set method %q (want %s or %s)", method, MethodClopperPearson, MethodWeissman)
}
