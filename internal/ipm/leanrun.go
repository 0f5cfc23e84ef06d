package ipm

import "context"

// leanRun is what a lean route keeps of its run beside its point: the
// measures of the current point (set by the route's residuals), the gap
// measure of the point its run left, and the finishing step's target and
// counts. Each route embeds one, and iterand's and keptIterand's measures
// are its methods.
type leanRun struct {
	// comp is the complementarity, primI and dualI the largest primal
	// and dual residuals, obj the scaled objective, at the current point.
	comp, primI, dualI, obj float64
	// held is the gap measure of the point run left.
	held float64
	// target is the run's gap, which the finishing step aims at; 0 turns
	// that step off.
	target float64
	// tried and taken count the finishing steps taken and those of them
	// kept, for the tests.
	tried, taken int
}

// measureRel is the current point's gap measure (relativeGap).
func (r *leanRun) measureRel() float64 { return relativeGap(r.comp, r.primI, r.dualI, r.obj) }

func (r *leanRun) gapMeasure() float64 { return r.measureRel() }

// tiny: like dualIPM, a point is observed on its gap measure alone.
func (r *leanRun) tiny() (near, stop bool) { return false, r.comp < leanStop }

// converged reports the current point within tol (withinGap).
func (r *leanRun) converged(tol float64) bool {
	return withinGap(r.comp, r.primI, r.dualI, r.obj, tol)
}

// heldGap is the gap measure of the point run left.
func (r *leanRun) heldGap() float64 { return r.held }

// run iterates x, the route whose run r is, until the relative gap and
// the residuals are below tol (then done), the iterations stall or break
// down, or maxIter, its finishing step aimed at tol; x is left at the
// best point it saw below robustLooseTol, keep holding what its reading
// uses (runKeepingBest).
func (r *leanRun) run(ctx context.Context, x keptIterand, maxIter int, tol float64, keep [][]float64) (iters int, done bool, err error) {
	r.target = tol
	iters, done, r.held, err = runKeepingBest(ctx, x, maxIter, tol, keep)
	return iters, done, err
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

// advance moves the route along its direction (move) by eta of the largest
// steps that keep it interior, apMax and adMax (as far as the route's
// ratio test looked: at most 1/leanEta or so, where eta of them is a full
// step), or by the finishing step where that ends the run; comp is the
// complementarity after given steps along the direction, residuals the
// route's, which bring r's measures up to date.
//
// A lean step goes at most leanEta of the way to the boundary, so that a
// run whose tie between outputs is still open keeps the digits of its
// directions; in the tail, where the full Newton step brings the active
// rows to the boundary, each step then cuts the gap by 1/(1 − leanEta)
// only, one or two iterations more than the nominal interior point, whose
// steps go 1 − 10μ of the way. The finishing step goes leanFinishCut
// short of the boundary, and is kept only where it ends the run:
//
//  1. In the tail (gap measure below leanExactGap) and where the route's
//     step is not the full one, the complementarity the direction
//     predicts at the finishing step and the residuals, cut by the
//     steps' fractions, give the gap measure the step would reach.
//  2. Where that is below leanFinishShare of the target, the step is
//     taken and the residuals brought up to date.
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
func (r *leanRun) advance(residuals func(), apMax, adMax, eta float64, comp func(ap, ad float64) float64, move func(ap, ad float64)) {
	ap, ad := min(1, eta*apMax), min(1, eta*adMax)
	// 1. The tail, and a step short of the full one.
	if !(r.target > 0) || (ap >= 1 && ad >= 1) || !(r.measureRel() < leanExactGap) {
		move(ap, ad)
		return
	}
	fp, fd := min(1, (1-leanFinishCut)*apMax), min(1, (1-leanFinishCut)*adMax)
	// 2. The predicted gap measure.
	if !(relativeGap(comp(fp, fd), (1-fp)*r.primI, (1-fd)*r.dualI, r.obj) < leanFinishShare*r.target) {
		move(ap, ad)
		return
	}
	r.tried++
	move(fp, fd)
	residuals()
	// 3. Within the target, or back to the route's step.
	if r.converged(r.target) {
		r.taken++
		return
	}
	move(ap-fp, ad-fd)
}
