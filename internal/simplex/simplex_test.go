package simplex

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPricingAgainstScan compares Enter with a scan written from the
// definition: read the variables cyclically from the start, stop once chunk
// have been read and a candidate found (Bland's rule: from 0, at the first
// candidate), take the first of the best scores read; for every block.
func TestPricingAgainstScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		total := 1 + rng.IntN(60)
		scores := make([]float64, total)
		for v := range scores {
			if rng.IntN(3) == 0 {
				scores[v] = float64(1 + rng.IntN(5)) // ties on purpose
			}
		}
		chunk, from := 1+rng.IntN(total+3), rng.IntN(total+4)
		bland := rng.IntN(4) == 0

		start := from
		if bland || start >= total {
			start = 0
		}
		wantQ, best, read := -1, 0.0, 0
		for k := range total {
			if wantQ >= 0 && (bland || k >= chunk) {
				break
			}
			v := (start + k) % total
			read = k + 1
			if scores[v] > best {
				wantQ, best = v, scores[v]
			}
		}
		wantFrom := (start+read-1)%total + 1

		for _, block := range []int{0, 1, 2, 7, total} {
			pr := Pricing{From: from}
			calls := 0
			q, dq := pr.Enter(total, chunk, block, bland, func(fr, k0, k1 int, d, score []float64) {
				calls++
				for k := k0; k < k1; k++ {
					v := (fr + k) % total
					d[k-k0], score[k-k0] = -scores[v], scores[v]
				}
			})
			require.Equal(t, wantQ, q, "trial %d block %d", trial, block)
			if q >= 0 {
				require.Equal(t, -scores[q], dq)
			}
			require.Equal(t, wantFrom, pr.From, "trial %d block %d", trial, block)
			require.LessOrEqual(t, calls, total)
		}
	}
}

// phase1Sum is the sum of infeasibilities along the step, up to a
// constant: it falls at |dq| per unit and each breakpoint passed adds its
// Inc to the slope.
func phase1Sum(bps []Breakpoint, dq, t float64) float64 {
	f := -math.Abs(dq) * t
	for _, b := range bps {
		f += b.Inc * math.Max(0, t-b.T)
	}
	return f
}

// TestLongStep checks the long step against the piecewise linear sum it
// follows: with keep = 0 it stops at a least point of the sum among the
// breakpoints within θ, exactly when the slope turns non-negative there;
// with keep = 0.1 at a point no higher than the start, on a pivot at least
// 0.1 of the largest passed, no later than the least point.
func TestLongStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 3000 {
		nb := rng.IntN(8)
		bps := make([]Breakpoint, nb)
		for k := range bps {
			bps[k] = Breakpoint{T: float64(rng.IntN(10)) / 4, Inc: 0.05 + rng.Float64(), P: k, Key: rng.IntN(100)}
		}
		dq := -(0.1 + 2*rng.Float64())
		theta := math.Inf(1)
		if rng.IntN(2) == 0 {
			theta = float64(rng.IntN(12)) / 4
		}
		reach := -math.Abs(dq)
		for _, b := range bps {
			if b.T <= theta {
				reach += b.Inc
			}
		}
		for _, keep := range []float64{0, 0.1} {
			k := LongStep(append([]Breakpoint(nil), bps...), theta, dq, keep)
			sorted := append([]Breakpoint(nil), bps...)
			LongStep(sorted, theta, dq, keep)
			for i := 1; i < len(sorted); i++ {
				require.True(t, sorted[i-1].T < sorted[i].T || (sorted[i-1].T == sorted[i].T && sorted[i-1].Key <= sorted[i].Key))
			}
			if reach < 0 {
				require.Equal(t, -1, k, "trial %d: the slope stays negative within θ", trial)
				continue
			}
			require.GreaterOrEqual(t, k, 0, "trial %d", trial)
			at := sorted[k]
			require.LessOrEqual(t, at.T, theta)
			least := math.Inf(1)
			for _, b := range bps {
				if b.T <= theta {
					least = math.Min(least, phase1Sum(bps, dq, b.T))
				}
			}
			if keep == 0 {
				require.InDelta(t, least, phase1Sum(bps, dq, at.T), 1e-12, "trial %d", trial)
				continue
			}
			require.LessOrEqual(t, phase1Sum(bps, dq, at.T), 1e-12)
			incMax := 0.0
			for _, b := range sorted[:k+1] {
				incMax = math.Max(incMax, b.Inc)
			}
			require.GreaterOrEqual(t, at.Inc, 0.1*incMax)
		}
	}
}

// TestHarris: a stop at a slightly longer step with a larger pivot wins
// over the nearest stop (a tiny pivot) when both lie within the relaxed
// bound; beyond it, it does not.
func TestHarris(t *testing.T) {
	const tol = 1e-9
	// Row 0: x = 1e-12 above its bound, pivot 1e-6: step 1e-6, relaxed
	// (1e-12 + tol)/1e-6 ≈ 1e-3. Row 1: x = 5e-4, pivot 1: step 5e-4,
	// relaxed 5e-4 + tol, the bound θ. Row 2: x = 2, pivot 1: step 2.
	rows := []struct{ x, a float64 }{{1e-12, 1e-6}, {5e-4, 1}, {2, 1}}
	var stops []Stop
	for p, r := range rows {
		stops = append(stops, Stop{T: r.x / r.a, Relaxed: (r.x + tol) / r.a, Pivot: r.a, P: p, Var: 10 - p})
	}
	theta := Bound(stops, math.Inf(1))
	require.Equal(t, 5e-4+tol, theta)
	require.Equal(t, 1, Harris(stops, theta), "the larger pivot within θ")
	require.Equal(t, 0, Nearest(stops, theta), "Bland's rule: the nearest")
	require.Equal(t, -1, Harris(stops, 1e-7), "no stop within θ")
	require.Equal(t, -1, Nearest(stops, 1e-7))
	require.Equal(t, 2, Harris(stops[2:], math.Inf(1))+2)

	// Ties: equal pivots keep the first; equal steps go to the least
	// variable under Bland's rule.
	tie := []Stop{{T: 1, Relaxed: 1, Pivot: 2, Var: 5}, {T: 1, Relaxed: 1, Pivot: 2, Var: 3}, {T: 1, Relaxed: 1, Pivot: 1, Var: 1}}
	require.Equal(t, 0, Harris(tie, 1))
	require.Equal(t, 2, Nearest(tie, 1))
	require.Equal(t, 0.5, Bound(tie, 0.5))
	require.Equal(t, -1, Harris(nil, 1))
	require.Equal(t, -1, Nearest(nil, 1))
}

// TestDegeneracy counts runs of steps no longer than DegenerateStep.
func TestDegeneracy(t *testing.T) {
	d := Degeneracy{Run: 2}
	for k, step := range []float64{0, DegenerateStep, 0} {
		require.False(t, d.Took(step), "step %d", k)
	}
	require.Equal(t, 3, d.Steps)
	require.True(t, d.Long())
	require.True(t, d.Took(2*DegenerateStep))
	require.Zero(t, d.Steps)
	require.False(t, d.Long())
}

// TestPerturbation: the size lies in [100, 1000] tolerances (1000 by
// rounding only) and Uniform
// in [0, 1).
func TestPerturbation(t *testing.T) {
	require.Equal(t, 0.0, Uniform(0))
	require.Equal(t, 1-0x1p-53, Uniform(math.MaxUint64))
	require.InDelta(t, 1e-7, Perturbation(1e-9, 0), 1e-22)
	require.InDelta(t, 1e-6, Perturbation(1e-9, Uniform(math.MaxUint64)), 1e-20)
	require.LessOrEqual(t, Perturbation(1e-9, Uniform(math.MaxUint64)), 1e-6)
}

// TestNoEntering: untrusted factors are refreshed before anything, then
// perturbed bounds restored; only then does phase 1 end infeasible and
// phase 2 optimal.
func TestNoEntering(t *testing.T) {
	for _, perturbed := range []bool{false, true} {
		for _, phase1 := range []bool{false, true} {
			require.Equal(t, Refresh, NoEntering(false, perturbed, phase1))
		}
		require.Equal(t, Unperturb, NoEntering(true, true, perturbed))
	}
	require.Equal(t, Infeasible, NoEntering(true, false, true))
	require.Equal(t, Optimal, NoEntering(true, false, false))

	d := Degeneracy{Run: 1}
	d.Took(0)
	require.False(t, d.PerturbNow(), "a run of Run steps is not long")
	d.Took(0)
	require.True(t, d.PerturbNow())
	d.Perturbing()
	require.Zero(t, d.Steps)
	d.Took(0)
	d.Took(0)
	require.True(t, d.Long())
	require.False(t, d.PerturbNow(), "the bounds are perturbed once a solve")
}
