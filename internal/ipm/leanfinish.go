package ipm

// leanFinish takes the last step of a lean route's run. A lean step goes
// at most leanEta of the way to the boundary, so that a run whose tie
// between outputs is still open keeps the digits of its directions; in
// the tail, where the full Newton step brings the active rows to the
// boundary, each step then cuts the gap by 1/(1 − leanEta) only, one or
// two iterations more than the nominal interior point, whose steps go
// 1 − 10μ of the way. The finishing step goes leanFinishCut short of the
// boundary, and is kept only where it ends the run:
//
//  1. In the tail (gap measure below leanExactGap) and where the route's
//     step is not the full one, the complementarity the direction
//     predicts at the finishing step and the residuals, cut by the
//     steps' fractions, give the gap measure the step would reach.
//  2. Where that is below leanFinishShare of the run's target, the step
//     is taken and the residuals brought up to date.
//  3. A point within the target is kept. Any other is moved back along
//     the same direction to the route's own step: the prediction scales
//     the residuals by the steps' fractions and keeps the objective,
//     and the direction solves its system only to the refinement's
//     tolerance.
//
// A kept point ends the run (runKeepingBest) unless an earlier point of
// lower gap measure was not within the target, which only a target above
// robustFeasTol allows; the run then goes on from it as from any other
// interior point.
type leanFinish struct {
	// target is the run's gap, set by the route's runTo; 0 turns the
	// finishing step off.
	target float64
	// tried and taken count the finishing steps taken and those of
	// them kept, for the tests.
	tried, taken int
}

// leanFinishing is what leanFinish reads and moves of a lean route.
type leanFinishing interface {
	// residuals brings the residuals and complementarity up to date.
	residuals()
	// converged reports the current point within tol (withinGap).
	converged(tol float64) bool
	// gapParts returns the complementarity, the primal and dual
	// residuals and the objective at the current point.
	gapParts() (comp, primI, dualI, obj float64)
}

// The finishing step's tolerances.
const (
	// leanFinishCut is how far short of the largest interior step, as a
	// fraction of it, the finishing step stops.
	leanFinishCut = 1e-9
	// leanFinishShare is the share of the target the predicted gap
	// measure must be below for the finishing step to be tried.
	leanFinishShare = 0.5
)

// step moves x along its direction (move) by eta of the largest steps
// that keep it interior, apMax and adMax (as far as the route's ratio
// test looked: at most 1/leanEta or so, where eta of them is a full
// step), or by the finishing step where that ends the run; comp is the
// complementarity after given steps along the direction.
func (f *leanFinish) step(x leanFinishing, apMax, adMax, eta float64, comp func(ap, ad float64) float64, move func(ap, ad float64)) {
	ap, ad := min(1, eta*apMax), min(1, eta*adMax)
	// 1. The tail, and a step short of the full one.
	c, primI, dualI, obj := x.gapParts()
	if !(f.target > 0) || (ap >= 1 && ad >= 1) || !(relativeGap(c, primI, dualI, obj) < leanExactGap) {
		move(ap, ad)
		return
	}
	fp, fd := min(1, (1-leanFinishCut)*apMax), min(1, (1-leanFinishCut)*adMax)
	// 2. The predicted gap measure.
	if !(relativeGap(comp(fp, fd), (1-fp)*primI, (1-fd)*dualI, obj) < leanFinishShare*f.target) {
		move(ap, ad)
		return
	}
	f.tried++
	move(fp, fd)
	x.residuals()
	// 3. Within the target, or back to the route's step.
	if x.converged(f.target) {
		f.taken++
		return
	}
	move(ap-fp, ad-fd)
}
