package worstcase

// The search's policy: where a least-ε search places its probes, who
// answers them, and when a verdict without proof may stand instead of an
// LP. None of it moves a certified end: the bracket's lower end is only
// ever a bound certify.DualBound proves and its upper end an audited
// mechanism, so a value here changes the work a search does, never what
// its bracket certifies. The tolerances that judge the evidence
// (proofMargin, gNoise, certify.ProbeSlack, rowScale) are numerics, not
// policy, and stay with the prober. docs/theory.md, "How the search places
// its probes", tells the story these rules implement.
const (
	// ipmLetters is the number of letters from which ProbesAuto asks
	// ipm.Probe first instead of the column generation (unless a symmetry
	// folds the master): both cost O(N³) per probe, and on the bench's
	// curves at 128 and 256 letters the column generation first resolves
	// thresholds several times faster (docs/performance.md).
	ipmLetters = 512

	// maxProbes caps the number of probes of one pass of a search.
	// Halving a bracket of at most −log p_min ≤ 745 nats down to 1e-15
	// takes about 60 probes.
	maxProbes = 200

	// slowProbes is how many probes in a row may fail to halve the
	// steering interval [sl, hv] before the search bisects once. Proofs
	// that creep up from far below ε* do not halve it, and a few of them
	// in a row should not yet trigger a bisection.
	slowProbes = 5

	// steerFloor: a search stops once its steering interval is below
	// steerFloor·tol wide, even where unproven verdicts keep the certified
	// bracket wider than tol: more probes there would only repeat the
	// verdicts that moved sl.
	steerFloor = 1.0 / 64

	// exactTest places a probe at sl + exactTest·tol to test whether the
	// last proof is exact: proofs often land on ε* itself, where a
	// mechanism then closes the bracket, and an infeasible answer brings a
	// new proof and a new prediction.
	exactTest = 0.5

	// abovePrediction places the probe of a proofs' prediction of ε*
	// (predict) abovePrediction·tol above it, so that a prediction that is
	// exact finds a mechanism within tol of the proofs.
	abovePrediction = 0.25

	// belowUpper: a prediction at or just above the upper end is probed
	// belowUpper·tol below hv instead, where a proof closes the bracket.
	belowUpper = 0.75

	// predictionUses is how many probes one prediction gets; a new proof
	// brings the next.
	predictionUses = 1

	// maxSlope caps the slope of t ↦ lb(t) that predict extrapolates
	// along: near 1 the fixed point (lb − r t)/(1 − r) runs off far above
	// ε* on a slope measured between two noisy proofs.
	maxSlope = 0.99

	// exactRange is the steering interval's width below which the column
	// generation's placement tests its last proof's exactness (as
	// proofPlacement does) before it bisects: far from closing, a probe
	// just above a proof that creeps from below costs a master's pricing
	// rounds and usually finds nothing.
	exactRange = 1e-5

	// closeInBelow: after a polished mechanism (often at ε* itself), the
	// column generation probes closeInBelow·tol below it, where a proof
	// closes the bracket.
	closeInBelow = 0.5

	// newtonBelow: the column generation's Newton estimate of ε* is probed
	// newtonBelow·tol below the estimate, where the master's proof lands on
	// ε* when the estimate is exact.
	newtonBelow = 0.25

	// standHair: a verdict without proof that moved sl, with a mechanism
	// found above it, is tested standHair·tol above sl (standTest), where a
	// mechanism closes the steering interval at once.
	standHair = 1.0 / 128

	// lazyExact: where exact values are not expected (steer.lazyExact), a
	// candidate is probed only once the steering interval's upper end is
	// within this much of it, relative to max(1, c). A probe at a
	// candidate below ε* brings a proof that often creeps to the next
	// candidate rather than one that halves the bracket: on the random
	// family eager probes slow the curves by a fifth (docs/performance.md,
	// "Measured and not kept").
	lazyExact = 1e-5

	// exactHair is how far above a candidate, relative to max(1, c), its
	// second probe goes: a few units of roundoff, so that an output open at
	// c is open in floating point, while the sliver stays thinner than the
	// audit's rounding.
	exactHair = 4e-15

	// lowerAsExact is the number of near misses in a row (probes whose
	// point audits a hair above their ε) after which the proven lower end
	// itself is a candidate: a sliver the search can not name, whose proofs
	// have landed on ε* (certify.DualBound optimises them).
	lowerAsExact = 2

	// lowerHair: the second probe of the lower end as a candidate goes
	// lowerHair·tol above it rather than a hair, as ε* can lie a few 1e-12
	// above a proof.
	lowerHair = 1.0 / 32

	// maxDenominator bounds the denominators q of the rational candidates
	// λ = p/q: the masses of a uniform prior on up to this many letters.
	maxDenominator = 1024

	// ipmBlind is how many ipm.Probe calls in a row may come back with
	// nothing (an error, or neither a mechanism with the pattern nor a
	// proof) before a search stops asking it after a master that failed or
	// tailed (where ipm.Probe is the first probe, it is always asked). A
	// call that gives nothing has run its iterations without one point to
	// read, and where the interior point sees the pattern it gives
	// something at every call, so two such calls in a row say that it is
	// blind to this one.
	ipmBlind = 2

	// nearSlop: a pure-Go probe's mechanism that audits at most this far
	// above t marks the probe as within reach of ε* (see withoutLP). The
	// master's point a few 1e-10 above an ε* where its basis is
	// ill-conditioned (ε* = log 2, a tight pruning bound) can audit up to
	// 1e-7 above t.
	nearSlop = 1e-6

	// nearStands is how many pure-Go probes in a row may stand open within
	// nearSlop of ε* without an LP. Each moves the steering interval below
	// its t, and near ε* the next one usually settles (a proof, or a point
	// that audits within its ε); on the bench's families at N = 64, three
	// instead of one save most of the LPs left on the order curves.
	nearStands = 3

	// unsettledStands is how many column-generation probes of one search
	// may stop at their round limit without an LP. At a few hundred
	// letters the master tails for its thousand rounds a few 1e-3 below ε*
	// on some Dirichlet priors, where the pure-Go LP costs minutes; steered
	// above such a probe, the search's next probes, nearer ε*, settle.
	unsettledStands = 2

	// goOnProbes is how many more times the master may go on from its
	// round limit, on a probe that can no longer stand open, before the
	// LP: a master's rounds cost far less than a pure-Go LP of a few
	// hundred letters.
	goOnProbes = 4

	// stalledStands is how many probes of one search whose master failed
	// (masterProbe: a fresh master too), and which the interior point did
	// not settle, are left to other points of the bracket (retryPoints)
	// rather than to the LP. A master stalls at a point of degenerate
	// bases, typically a few 1e-7 from a breakpoint such as log 2; a point
	// a third of the bracket away does not share them, and costs a master
	// probe where the LP of a few hundred letters costs far more in pure
	// Go. The strict pass (search, step 4) settles a failed probe by the
	// LP all the same.
	stalledStands = 4

	// failedRetries is how many other points of [sl, hv] a search tries
	// after a probe failed (retryPoints) before it steers below the
	// failing point.
	failedRetries = len(retryPoints)
)

// retryPoints are the fractions of the steering interval [sl, hv] probed
// after a failure at a point (an engine error at a degenerate point, a
// master that failed): a third of the bracket away from the middle, whose
// degenerate bases the failing point's neighbourhood does not share.
var retryPoints = [...]float64{0.3, 0.7}

// closingProofs are the fractions f of tol below the upper end at which a
// search whose steering interval collapsed while the certified lower end
// lags tries proofs, at hi − f·tol: just below hi a proof closes the
// bracket, and a second one further down catches a proof that gives up
// its rounding margin.
var closingProofs = [...]float64{0.5, 0.9}

// extrapolations are the steps, in units of the distance from the last
// proof to the predicted ε*, along which extrapolate moves the proofs'
// multipliers: short of the prediction, at it, and beyond it, since the
// prediction itself is only a secant's.
var extrapolations = [...]float64{0.5, 1, 1.5}

// A placement says where a search probes. Both placements share the
// search's loop (place); they differ in the first probe and in the next
// one after a probe that made progress.
type placement interface {
	first(b *bracket) float64
	next(b *bracket, st *steer, tol float64) float64
}

// place returns where a search probes next: after failures at a point,
// another point of [sl, hv] (retryPoints); the placement's first probe;
// a test of a verdict without proof (standTest); a bisection after
// slowProbes slow probes; else the placement's next probe.
func place(pl placement, b *bracket, st *steer, tol float64, first bool, failures int) float64 {
	t := b.sl + (b.hv-b.sl)/2
	switch {
	case failures > 0:
		// After the oracle failed at a point: another point of [sl, hv].
		t = b.sl + (b.hv-b.sl)*retryPoints[failures-1]
	case first:
		t = pl.first(b)
	case st.standTest(b, tol):
		// A verdict without proof moved sl, and the probe above it found
		// a mechanism: test the verdict a hair above sl, where a
		// mechanism closes the steering interval.
		t = b.sl + standHair*tol
	case st.slow >= slowProbes:
		st.slow = 0 // bisect
	default:
		t = pl.next(b, st, tol)
	}
	return t
}

// proofPlacement places the probes of the LP and ipm.Probe oracles, whose
// proofs land close to ε*:
//
//  1. The first probe tests lo: the pruning bound is sometimes tight.
//  2. Each proof's prediction of ε* (predict) is probed once, just above
//     it (or, predicted at the upper end, just below that).
//  3. Otherwise the probe tests whether the last proof is exact, at
//     sl + tol/2: the proofs often land on ε* itself, and an infeasible
//     answer brings a new proof and a new prediction.
//
// The search bisects instead when slowProbes probes in a row fail to
// halve [sl, hv] (proofs that creep up from far below do not halve it,
// and should not trigger it).
type proofPlacement struct{}

func (proofPlacement) first(b *bracket) float64 { return b.lo }

func (proofPlacement) next(b *bracket, st *steer, tol float64) float64 {
	t := b.sl + min((b.hv-b.sl)/2, exactTest*tol)
	st.exactTried = true
	if e, ok := predict(st.proofs); ok && st.uses < predictionUses {
		c := e + abovePrediction*tol
		if c >= b.hv && e-b.hv <= b.hv-b.sl {
			// Predicted at or just above the upper end: a proof just
			// below it closes the bracket.
			c = b.hv - belowUpper*tol
		}
		if c > b.sl && c < b.hv {
			t = c
			st.uses++
		}
	}
	return t
}

// columnPlacement places the probes of the column generation, which pays
// most for a probe far below ε* and whose proofs creep from far below:
//
//  1. The first probe is in the middle of the bracket.
//  2. After a polished mechanism, a proof just below it (at hv − tol/2).
//  3. After a proof, its Newton estimate of ε*, a hair below.
//  4. Otherwise bisect, except that within exactRange of closing, the last
//     proof's exactness is tested once as proofPlacement does.
type columnPlacement struct{}

func (columnPlacement) first(b *bracket) float64 { return b.sl + (b.hv-b.sl)/2 }

func (columnPlacement) next(b *bracket, st *steer, tol float64) float64 {
	switch {
	case st.closeIn && b.hv-closeInBelow*tol > b.sl:
		st.closeIn = false
		return b.hv - closeInBelow*tol
	case st.newton > b.sl+newtonBelow*tol && st.newton < b.hv:
		t := st.newton - newtonBelow*tol
		st.newton = 0
		return t
	case st.exactTried || b.hv-b.sl > exactRange:
		return b.sl + (b.hv-b.sl)/2
	}
	return proofPlacement{}.next(b, st, tol)
}

// predict estimates ε* from the proofs so far. The map φ: t ↦ lb(t) has ε*
// as its fixed point and, near it, is close to affine with a slope r in
// [0, 1) (about 0.4 on random instances, 0 where a proof is exact, up to
// 0.96 where the proofs creep, as at high thresholds with masses near
// 1e-4); the secant through the last two proofs gives r, and
// ε* ≈ (lb − r t)/(1 − r). With one proof, r = 0: the first guess is that
// the proof is exact.
func predict(ps []proofPoint) (float64, bool) {
	if len(ps) == 0 {
		return 0, false
	}
	b := ps[len(ps)-1]
	r := 0.0
	if len(ps) > 1 {
		a := ps[len(ps)-2]
		if d := b.t - a.t; d != 0 {
			if q := (b.lb - a.lb) / d; q >= 0 && q <= maxSlope {
				r = q
			}
		}
	}
	return (b.lb - r*b.t) / (1 - r), true
}

// standTest reports whether the next probe tests the verdict without
// proof that moved sl (stand), once: when the last probe, above it, found
// a mechanism. Such a verdict (a master tailing at its round limit) can
// lie above ε*; then every later probe finds a mechanism and the
// bisection creeps down onto sl one halving at a time, where one probe at
// sl + standHair·tol closes the steering interval (the strict pass then
// steers over the whole bracket). Below ε*, the probe costs one proof near
// sl.
func (st *steer) standTest(b *bracket, tol float64) bool {
	if st.stand == 0 || st.stand != b.sl || !st.above || b.hv-b.sl <= tol {
		return false
	}
	st.stand = 0
	return true
}

// progress counts the probes in a row that did not halve the steering
// interval.
func progress(slow int, before, after float64) int {
	if after <= before/2 {
		return 0
	}
	return slow + 1
}

// withoutLP decides whether a pure-Go probe at t that left the question
// open (its mechanism audits a hair above t, its proof a hair below: that
// happens within a few 1e-10 of ε*) stands without an LP, which at a few
// hundred letters costs more than the rest of the search. It stands, as
// inconclusive with its evidence, when the evidence closes the search's
// bracket (closes), and when its mechanism audits within nearSlop of t and
// fewer than nearStands probes in a row stood open this way: the search
// then steers below t, where the next probe usually brings a proof and a
// polished mechanism. A column-generation probe stopped at its round limit
// stands, as unproven, up to unsettledStands times a search.
func (p *prober) withoutLP(t float64, ev *evidence) (outcome, bool) {
	if ev == nil {
		return outcome{}, false
	}
	o := outcome{v: inconclusive, Evidence: ev.Evidence}
	switch {
	case p.closes != nil && p.closes(ev.Lower, ev.PML):
		return o, true
	case p.stands.strict:
		return outcome{}, false
	case p.stands.near < nearStands && ev.PML <= t+nearSlop:
		p.stands.near, p.stands.stood = p.stands.near+1, true
		return o, true
	case ev.unsettled && p.stands.unsettled < unsettledStands:
		// Tailing, most often below ε*: the search steers above t, as
		// for an unproven infeasibility, and keeps whatever the probe
		// proved or found (bracket.update).
		p.stands.unsettled, p.stands.stood = p.stands.unsettled+1, true
		o.v = unproven
		return o, true
	}
	return outcome{}, false
}

// failedStands reports whether a probe whose master failed at t, and which
// nothing else settled, is left to other points of the bracket rather
// than to the LP (stalledStands).
func (p *prober) failedStands() bool {
	return p.misses.stalled && !p.stands.strict && p.stands.stalls < stalledStands
}

// skipsIPM reports whether a column-generation search leaves the interior
// point out of a probe its master did not settle: after ipmBlind calls in
// a row that gave nothing, and with a master folded by a symmetry from
// ipmLetters letters on, where the interior point's O(N³) iterations cost
// far more than the master's probes.
func (p *prober) skipsIPM() bool {
	return p.cols && (p.misses.ipm >= ipmBlind || (p.sym != nil && len(p.pi) >= ipmLetters))
}

// goesOn reports whether the master goes on from its round limit for the
// n-th time at t: its evidence ev is still unsettled and the probe can no
// longer stand open (strict, or unsettledStands used), up to goOnProbes
// times.
func (p *prober) goesOn(ev *evidence, t float64, n int) bool {
	return ev.unsettled && ev.settled(t) == unproven && (p.stands.strict || p.stands.unsettled >= unsettledStands) && n < goOnProbes
}

// The closure by covers and flows (cover.go): how far inside the budget
// and above τ* its flows route, and how many covering LPs, cuts and flow
// sets it spends on one pattern.

// dustRoutes bounds how often flowWithoutDust routes again.
const dustRoutes = 3

// budgetRoom is how far below e^limit a decision's flow keeps its ratio:
// the flow's mechanism audits some 1e-11 above the ratio it was routed
// at (the flow's rounding, the rows' normalisation).
const budgetRoom = 1e-9

// tightRatio is how far above τ* the final flow's ratio lies: the cover
// is optimal only to the LP's rounding, and the flow's mechanism audits
// a few ulps above its ratio.
const tightRatio = 1 + 1e-12

// tightRatios are the ratios above τ* at which the final flows route: at
// τ* itself the transportation problem has no slack, and the flow's
// rounding leaves rows short by up to some 1e-9 of their mass, which
// their normalisation adds to the ratio; a little above τ* the flow
// completes. The best audit of them stands.
var tightRatios = []float64{tightRatio, 1 + 1e-11, 1 + 1e-10}

// cutRounds bounds the covering LPs with cuts (colgen.SolveCuts) that
// cut asks for one pattern.
const cutRounds = 64

// flowSets bounds the sets of single short inputs a cut's flow returns
// besides its minimum cut (colgen.FlowSets); the decisions' flows need
// none.
const flowSets = 8

// cutStall bounds the LPs cut solves at one ratio, adding cuts: where
// ε* is the pruning bound the feasible marginals at a ratio a hair above
// it are a sliver that the flows' cuts close in on slowly, and the master
// settles the bracket for less.
const cutStall = 24

// inside is how far inside the bracket, as a share of its width, a
// secant step after a routed flow must lie to be taken instead of the
// middle.
const inside = 1e-3

// secantReach bounds a secant step of cut: at most this many times the
// last LP's excess τ(λ) − λ past λ.
const secantReach = 1e3

// cutSlack is the relative excess of a covering LP's optimum over its
// ratio below which the ratio counts as reached: the LP's rounding.
const cutSlack = 1e-12

// cutGap is the relative excess of a covering LP's optimum over its ratio
// below which the flows route at the optimum: the ratio is a proven bound,
// which gives up some 1e-11 to the proof's margins (coverMargin).
const cutGap = 1e-9

// The budget decisions of BestOrder and BestValue (best.go).

// settleRounds bounds how often decide narrows a bracket that straddles the
// budget; each round asks for a bracket four times narrower than the gap
// between its lower end and the budget.
const settleRounds = 6
