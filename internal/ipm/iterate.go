package ipm

import (
	"context"
	"errors"
	"math"
)

// iterand is an interior point as the iteration loop of the package's
// three methods (Solve's workspace, robustIPM, dualIPM) drives it.
type iterand interface {
	// residuals brings the residuals and complementarity up to date.
	residuals()
	// gapMeasure is the measure that near is compared with.
	gapMeasure() float64
	// tiny reports a complementarity at which a point is observed
	// whatever its residuals (near), and one at which the iterations end
	// (stop): the entries' last digits.
	tiny() (near, stop bool)
	// step makes one predictor-corrector iteration.
	step() error
}

// errBrokeDown is the interior points' error when a point or a pivot is
// not a number (or not positive where it must be): rounding has spoilt
// the iterations.
var errBrokeDown = errors.New("ipm: the iterations broke down")

// errStopped is step's error when the iterations' context ended it
// midway.
var errStopped = errors.New("ipm: stopped")

// iterate runs the predictor-corrector iterations of x from its current
// point. Near the end every point is a candidate: each point whose gap
// measure is below near, or whose complementarity is tiny, goes to
// observe, which reports whether it improved on the best point so far and
// whether to stop. Rounding ends the progress first when the
// complementarity reaches the level of the entries' last digits, when
// five observed points in a row bring no improvement, or when, after an
// observed point, the gap measure of five unobserved iterations in a row
// fails to decrease: rounding has then spoiled the Newton directions and
// the iterates diverge (a run that recovers from a jump decreases the
// measure at every step and goes on). maxIter ends it too. It returns
// the iteration it ended at and, where that was not a stop of the
// iterations' own, the context's error, errBrokeDown, or step's error.
func iterate(ctx context.Context, x iterand, maxIter int, near float64, observe func(it int) (improved, done bool)) (int, error) {
	return iterateWatched(ctx, x, maxIter, near, observe, newStallWatch(math.Inf(1), 0))
}

// iterateWatched is iterate with the stall rules of watch: a finite
// blow-up (newStallWatch) also ends a run that was never near-optimal
// once its gap measure stays that many times above its least for
// stallRuns iterations in a row: the iterates have left every
// neighbourhood they came near. A settled gap ends a run whose best point
// is within it after stallRuns iterations that do not improve on it,
// whether they are near-optimal or on the way back from a jump.
func iterateWatched(ctx context.Context, x iterand, maxIter int, near float64, observe func(it int) (improved, done bool), watch stallWatch) (int, error) {
	for it := 0; it <= maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return it, err
		}
		x.residuals()
		g := x.gapMeasure()
		if math.IsNaN(g) {
			return it, errBrokeDown
		}
		tiny, stop := x.tiny()
		if g < near || tiny {
			improved, done := observe(it)
			if done {
				return it, nil
			}
			watch.observed(g, improved)
		} else {
			watch.far(g)
		}
		if stop || watch.over() || it == maxIter {
			return it, nil
		}
		if err := x.step(); err != nil {
			return it, err
		}
	}
	return maxIter, nil
}

// stallWatch decides when iterations stop paying: past their first
// near-optimal point, after stallRuns observed points none of which
// improved on the best, or stallRuns growing gap measures in a row away
// from one; before it, after stallRuns measures in a row above blowUp
// times the least so far; and, once the best point is within settled,
// after stallRuns iterations that do not improve on it.
type stallWatch struct {
	watching         bool
	stale, diverging int
	last, least      float64
	blowUp           float64
	// settled is the gap measure at or below which the best point ends a
	// run after stallRuns iterations that do not improve on it, observed
	// or not (0 for none); since counts them.
	settled float64
	since   int
}

// stallRuns is how many steps without progress end the iterations: enough
// to ride out the slow steps near the boundary, few enough that a run
// broken by rounding is not carried on.
const stallRuns = 5

// newStallWatch returns the watch of a run from its start, its blow-up
// factor blowUp (+Inf for none) and its settled gap (0 for none).
func newStallWatch(blowUp, settled float64) stallWatch {
	return stallWatch{last: math.Inf(1), least: math.Inf(1), blowUp: blowUp, settled: settled}
}

// observed records a near-optimal point of gap measure g, improved when
// it beat the best.
func (s *stallWatch) observed(g float64, improved bool) {
	s.watching, s.diverging, s.last = true, 0, g
	s.record(g)
	if improved {
		s.stale = 0
	} else {
		s.stale++
	}
}

// far records the gap measure g of a point that is not near-optimal.
func (s *stallWatch) far(g float64) {
	switch {
	case s.watching && g >= s.last, !s.watching && g > s.blowUp*s.least:
		s.diverging++
	default:
		s.diverging = 0
	}
	s.last = g
	s.record(g)
}

// record counts g towards the least measure and the iterations since the
// best point came within settled.
func (s *stallWatch) record(g float64) {
	if s.settled > 0 && s.least <= s.settled && !(g < s.least) {
		s.since++
	} else {
		s.since = 0
	}
	s.least = min(s.least, g)
}

// over reports whether the iterations should end.
func (s *stallWatch) over() bool {
	return s.stale >= stallRuns || s.diverging >= stallRuns || s.since >= stallRuns
}
