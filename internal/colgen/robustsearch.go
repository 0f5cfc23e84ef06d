package colgen

import (
	"context"
	"errors"
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// RobustBracket is what RobustLeastEpsilon found: the least PML over the
// set of a mechanism with the pattern lies in [Lower, Upper]. Upper is
// the audited level over the set of Mechanism (+Inf and nil when no
// mechanism was found up to RobustMaxEpsilon). Lower is 0, the pruning
// bound over the set (Pruning set; no multipliers), or the bound that
// Alpha proves with the prior Priors[j] on each output (RobustBound).
type RobustBracket struct {
	Lower, Upper float64
	Mechanism    mech.Mechanism
	Pruning      bool
	Alpha        []float64
	Priors       [][]float64
	// Probes, Rounds and Pivots count the master's probes, pricing
	// rounds and simplex pivots.
	Probes, Rounds, Pivots int
	// Restarts counts the new masters the search started when the one
	// it was given failed a probe or refuted one with a degenerate basis,
	// or when one probe came back unsettled twice in a row
	// (LeastEpsilon): at most maxRestarts.
	Restarts int
}

// maxLadder is the number of probes RobustLeastEpsilon makes below an
// upper end, at 4, 16, ... times the tolerance, when the master refutes
// ε within the tolerance of it but its duals prove less.
const maxLadder = 4

// RobustMaxEpsilon is the budget (nats) at which RobustLeastEpsilon looks
// for a mechanism when the utility-safe one has no finite level over the
// set (a box whose lower bounds have zeros can leave an output with no
// mass under some prior): a pattern with none there counts as having none.
const RobustMaxEpsilon = 50

// RobustCoverBound is the lower bound on the least PML over the set of a
// mechanism with the pattern that the pattern's fractional cover proves
// (Cover): its packing's multipliers α = y − κπ̂ give every output the
// sum Σ_{A_j} y_i/κ ≤ 1/κ whatever its prior, so RobustBound proves at
// least log κ with them over the set, and more with its prior per
// output. ok is false when the cover's bound log τ* is not above floor
// (nothing to gain) or no proof comes out.
func RobustCoverBound(set *mech.PriorSet, pat mech.Pattern, floor float64) (lb float64, alpha []float64, priors [][]float64, ok bool) {
	cv, err := SolveCover(pat, nil, nil, false)
	if err != nil {
		return 0, nil, nil, false
	}
	return robustCoverProof(set, pat, cv, floor)
}

// robustCoverProof is RobustCoverBound with the pattern's cover cv.
func robustCoverProof(set *mech.PriorSet, pat mech.Pattern, cv *Cover, floor float64) (lb float64, alpha []float64, priors [][]float64, ok bool) {
	if !(math.Log(cv.Tau) > floor) {
		return 0, nil, nil, false
	}
	s := 0.0
	for _, y := range cv.Y {
		s += y
	}
	kappa := s * (1 - coverMargin)
	alpha = make([]float64, len(pat))
	for i := range alpha {
		alpha[i] = cv.Y[i] - kappa*set.Center[i]
	}
	lb, priors, ok = RobustBound(set, pat, alpha)
	return lb, alpha, priors, ok
}

// RobustLeastEpsilon brackets the least PML over the prior set of a
// mechanism with the pattern pat to within tol, by probes of one
// RobustMaster. The search starts from the larger of the pruning bound
// over the set and the bound the pattern's fractional cover proves over
// it, and the audited level of the utility-safe mechanism, with a probe
// just above the lower end (often the answer); a refuted probe raises
// the lower end to the bound its duals prove, a feasible one lowers the
// upper end to its mechanism's level, and the next probe goes just above
// the fixed point of the secant through the last two proofs (just above
// the proof with one), just below the upper end when Newton's estimate
// reached it with an audited mechanism, or halves the bracket when that
// stops halving it.
func RobustLeastEpsilon(ctx context.Context, set *mech.PriorSet, pat mech.Pattern, tol float64) (RobustBracket, error) {
	g, err := NewRobust(set, pat)
	if err != nil {
		return RobustBracket{}, err
	}
	return g.LeastEpsilon(ctx, tol, nil)
}

// LeastEpsilon is RobustLeastEpsilon on the master g, whose columns
// (from earlier probes, say a decision at a budget) start the search;
// start, if not nil, is a mechanism with the pattern whose level over the
// set starts the upper end.
func (g *RobustMaster) LeastEpsilon(ctx context.Context, tol float64, start mech.Mechanism) (b RobustBracket, err error) {
	set, pat := g.set, g.pat
	g.SetStop(func() bool { return ctx.Err() != nil })
	if tol <= 0 {
		tol = 1e-9
	}
	b, done := g.startBracket(tol, start)
	if done {
		return b, nil
	}
	rounds0, pivots0 := g.Rounds, g.Pivots
	seeded := g.Rounds > 0 || len(g.cols) > 0 // the master holds columns of earlier probes or masters
	// The caller's master leaves the search as plain as it came, whether
	// or not a restart replaced g below.
	caller, stall := g, g.stall
	defer func() {
		b.Rounds, b.Pivots = b.Rounds+g.Rounds-rounds0, b.Pivots+g.Pivots-pivots0
		g.SetFar(false)
		caller.SetFar(false)
		caller.stall = stall
	}()
	fresh := false // the master was restarted (below)
	// restart replaces g by a new master of the pattern: once, or twice
	// where the second is for a plateau or the ladder (maxRestarts).
	restart := func() (*RobustMaster, error) {
		fresh = true
		h, err := g.Renew()
		if err != nil {
			return g, err
		}
		b.Restarts++
		h.SetStop(g.stop)
		h.SetFar(g.far)
		h.noRootProof, h.noCentreProof = g.noRootProof, g.noCentreProof
		h.stall = g.stall
		h.failNext, h.failCount = g.failNext, g.failCount // an engine that fails on every master
		b.Rounds, b.Pivots = b.Rounds+g.Rounds-rounds0, b.Pivots+g.Pivots-pivots0
		rounds0, pivots0 = 0, 0
		return h, nil
	}
	ladder := 0               // probes further below a refutation whose proof lags
	unsettledAt := math.NaN() // the last probe that came back unsettled
	stuck := 0                // unsettled probes in a row at unsettledAt
	failures, settled := 0, 0 // probes the engine failed, and answered
	var failure error         // the last failure
	// probe asks g at t. An engine failure other than a stop (the master
	// simplex going round a plateau at a degenerate ε, most often a
	// breakpoint such as the cover's bound) comes back as an unsettled
	// probe, failed set, so that the search goes on at another ε; past
	// maxFailures of them it is the search's error.
	probe := func(t float64) (r *RobustResult, failed bool, err error) {
		r, err = g.Probe(t)
		b.Probes++
		if err == nil || errors.Is(err, ErrStopped) || ctx.Err() != nil {
			if err == nil {
				settled++
			}
			return r, false, err
		}
		if failures++; failures > maxFailures {
			return nil, true, err
		}
		failure = err
		return &RobustResult{PML: math.Inf(1), Unsettled: true}, true, nil
	}

	type proofPt struct{ t, lb float64 }
	var proofs []proofPt
	steer := b.Lower // the master's word: no mechanism below (not a proof)
	slow := 0
	tried := math.NaN() // the lower end just above which a probe went
	lastT, lastUpper := math.NaN(), math.NaN()
	estimate := 0.0     // the last refuted probe's Newton estimate
	atEstimate := false // the last probe went just below the estimate
	overshoots := 0     // mechanisms found there
	secant := false     // the next probe goes to the secant's fixed point
	repeated := false   // the last two refutations gave one estimate
	t := b.Lower + (b.Upper-b.Lower)/2
	if b.Lower > 0 {
		// The pruning or the cover's bound is often the answer: one
		// probe settles it.
		t = min(b.Lower+tol/2, t)
	}
	if math.IsInf(b.Upper, 1) {
		t = max(b.Lower, RobustMaxEpsilon)
	}
	report := func() {}
	if caller.report != nil {
		report = func() { caller.report(b.Lower, b.Upper) }
	}
	for b.Probes < 200 && b.Upper-b.Lower > tol {
		report()
		if err := ctx.Err(); err != nil {
			return b, err
		}
		// Whether this probe goes just below the estimate, read before
		// the ladder's and the upper end's steps go on without it.
		byEstimate := atEstimate
		atEstimate = false
		width := b.Upper - max(b.Lower, steer)
		before := b.Lower
		// Far below the ε* that Newton's estimate (or the upper end)
		// points at, a probe is wanted for its proof and estimate only.
		ref := b.Upper
		if estimate > 0 {
			ref = min(ref, estimate)
		}
		g.SetFar(ref-t > farProbe)
		r, failed, err := probe(t)
		if failed && !fresh && seeded {
			// The engine stalled on a master that started elsewhere (a
			// decision's columns at the budget): a new master, asked
			// the same, starts from its slacks.
			if g, err = restart(); err == nil {
				r, failed, err = probe(t)
			}
		}
		if err != nil {
			return endOnFailure(b, err, settled > 0)
		}
		if r.Unsettled && t == unsettledAt && b.Restarts < maxRestarts {
			// The same probe unsettled twice: the master goes round a
			// degenerate plateau there. A new master, asked the same,
			// starts from its slacks.
			if g, err = restart(); err != nil {
				return b, err
			}
			if r, failed, err = probe(t); err != nil {
				return endOnFailure(b, err, settled > 0)
			}
		}
		if failed && t <= b.Lower+tol {
			// The engine failed just above the lower end: the next
			// probe goes elsewhere, not there again.
			tried = b.Lower
		}
		if r.Unsettled {
			if !failed {
				// The master's optimum stayed flat past its rounds (or
				// its rounds ran out): the next probes go on twice as
				// long. An engine's failure is no plateau.
				g.setStallRounds(2 * g.stallRounds())
			}
			if t == unsettledAt {
				stuck++
			} else {
				stuck = 1
			}
			unsettledAt = t
			if stuck >= maxStuck {
				// Every master ends on the same plateau there: the
				// bracket stands as it is (certified, wider than tol),
				// with the last probe's proof where it raises the lower
				// end.
				if r.Alpha != nil && r.Lower > b.Lower {
					b.Lower, b.Pruning, b.Alpha, b.Priors = r.Lower, false, r.Alpha, r.Priors
				}
				break
			}
		} else {
			stuck = 0
		}
		if r.Mechanism == nil && !r.Unsettled && r.Alpha != nil && r.Lower < t-tol && (!fresh || (ladder > 0 && b.Restarts < maxRestarts)) {
			// Refuted by duals that prove far less than t: a degenerate
			// basis of a master that started elsewhere (a decision's at
			// the budget, say), or, on the ladder below the upper end,
			// one that keeps its basis from rung to rung (no pivot) and
			// so proves no more. A new master, asked the same, most often
			// proves t and more.
			if g, err = restart(); err != nil {
				return b, err
			}
			if r, _, err = probe(t); err != nil {
				return endOnFailure(b, err, settled > 0)
			}
		}
		proved := false
		switch {
		case r.Mechanism != nil && r.PML < b.Upper:
			b.Upper, b.Mechanism = r.PML, r.Mechanism
		case r.Mechanism == nil && !r.Unsettled:
			steer = max(steer, t)
			polished := r.Polished != nil && r.PolishedPML < b.Upper
			if polished {
				b.Upper, b.Mechanism = r.PolishedPML, r.Polished
			}
			if r.Root != nil && polished && !g.far && !g.noRootProof && b.Upper-max(b.Lower, r.Lower) > tol {
				// The polished mechanism is the upper end: its basis's
				// duals at the root may prove it, which closes the
				// bracket without the probes just below it.
				if lb, priors, ok := RobustBound(set, pat, r.Root); ok && lb > b.Lower && b.Upper-lb <= tol {
					b.Lower, b.Pruning, b.Alpha, b.Priors = lb, false, r.Root, priors
				}
			}
			repeated = r.Estimate > 0 && estimate > 0 && math.Abs(r.Estimate-estimate) <= tol/4
			if r.Estimate > 0 {
				estimate = r.Estimate
			}
			if r.Alpha != nil && r.Lower > b.Lower {
				b.Lower, b.Pruning, b.Alpha, b.Priors = r.Lower, false, r.Alpha, r.Priors
			}
			if r.Alpha != nil {
				proofs = append(proofs, proofPt{t, r.Lower})
				proved = true
			}
		case r.Unsettled:
			// Neither answer; a proof it found still holds.
			if r.Alpha != nil && r.Lower > b.Lower {
				b.Lower, b.Pruning, b.Alpha, b.Priors = r.Lower, false, r.Alpha, r.Priors
			}
		}
		if math.IsInf(b.Upper, 1) {
			if t >= RobustMaxEpsilon {
				return b, nil // none up to RobustMaxEpsilon
			}
			t = RobustMaxEpsilon
			continue
		}
		if r.Mechanism != nil && t == lastT && b.Upper == lastUpper {
			// A second mechanism at the last probe's ε that audits above
			// the upper end (by the rounding of the master's point): the
			// next probe would ask the same again. The bracket stands.
			break
		}
		lastT, lastUpper = t, b.Upper
		lo := max(b.Lower, steer)
		if b.Upper-lo <= tol {
			if b.Upper-b.Lower <= tol || ladder == maxLadder {
				break
			}
			// Refuted within tol of the upper end, but the duals of a
			// master whose optimum is that close to 0 proved less: a
			// probe a few tol further below, where the optimum is larger,
			// proves more (the bracket then ends up to 4^maxLadder·tol
			// wide).
			ladder++
			if t = b.Upper - tol*math.Pow(4, float64(ladder)); t <= b.Lower {
				break
			}
			continue
		}
		// Progress: the bracket halved, or a proof raised the lower end.
		if b.Upper-lo > width/2 && !(proved && b.Lower > before+tol) {
			slow++
		} else {
			slow = 0
		}
		next := lo + (b.Upper-lo)/2
		bySecant := secant
		secant = false
		if byEstimate && r.Mechanism != nil {
			overshoots++
		}
		if !proved && b.Alpha != nil && slow < 6 {
			switch {
			case byEstimate && r.Mechanism != nil && overshoots > 1:
				// The estimates overshoot ε* again and again, and the
				// proofs from just above the lower end lag: a probe a
				// little below the estimate, refuted, gives the next
				// estimate from a basis near ε*, and often the proof that
				// closes the bracket.
				next = max(lo+tol/2, estimate-max(tol, belowEstimate*(estimate-lo)))
			case bySecant:
				// A mechanism just above the secant's fixed point: ε*
				// is most often within the tolerance below it, where a
				// refuted probe closes the bracket with its proof.
				next = b.Upper - tol/2
			case tried != b.Lower:
				// A mechanism: the last proof may be exact.
				next, tried = b.Lower+tol/2, b.Lower
			}
		}
		if proved && slow < 6 {
			// Just above the proof (it may be exact), or just above the
			// fixed point of the secant through the last two proofs:
			// lb(t) is near affine around ε*, its fixed point.
			// The least of Newton's estimate from the refuted probe's
			// basis and the fixed point of the secant through the last
			// two proofs (lb(t) is near affine around ε*, its fixed
			// point), or, with one proof, the proof's own jump past t
			// again; just above it. The estimate's first steps from far
			// below ε* overshoot, which the secant tempers.
			k := len(proofs)
			q := proofs[k-1]
			guess := q.lb + (q.lb - q.t)
			fixed := math.NaN() // the secant's fixed point, when there is one
			if k >= 2 {
				p := proofs[k-2]
				if den := (q.lb - q.t) - (p.lb - p.t); den != 0 {
					if f := p.t + (p.lb-p.t)*(q.t-p.t)/-den; f > lo {
						guess, fixed = f, f
					}
				}
			}
			if estimate > lo {
				guess = min(guess, estimate)
			}
			next = lo + tol/2
			if guess > lo && guess < b.Upper {
				next = guess + tol/4
				secant = guess == fixed
			}
			// Newton's estimate reached by an audited mechanism (the
			// basis is primal feasible at its own ε) is most often ε*
			// itself: one probe just below it, refuted, closes the
			// bracket with its proof. Not when the secant puts ε* well
			// below it: the estimate then converges only linearly, as
			// the proofs do, and the secant's fixed point is the better
			// probe. Unless the last two refutations' bases gave the
			// same estimate: the proofs lag there, not the estimate.
			if estimate > lo && math.Abs(b.Upper-estimate) <= tol/4 && (repeated || !(fixed < estimate-tol)) {
				next, secant, atEstimate = b.Upper-tol/2, false, true
			}
		}
		t = min(next, max(lo+(b.Upper-lo)*0.999, b.Upper-tol/2))
	}
	return endOnFailure(b, failure, settled > 0)
}

// endOnFailure ends a search, its lower end clipped at its upper: with
// the bracket it has, which is certified, where the engine failed no
// probe (err nil) or the bracket holds a mechanism and some probe was
// answered (settled); else with the engine's error (the last of its
// failures, or one past maxFailures), for the caller's other means.
func endOnFailure(b RobustBracket, err error, settled bool) (RobustBracket, error) {
	if b.Lower > b.Upper {
		b.Lower = b.Upper
	}
	if err != nil && (errors.Is(err, ErrStopped) || b.Mechanism == nil || !settled) {
		return b, err
	}
	return b, nil
}

// maxRestarts is the number of new masters a search may start: one for a
// failure or a degenerate refutation of a master that started elsewhere,
// one more for a probe that came back unsettled twice in a row or a
// degenerate refutation on the ladder below the upper end.
const maxRestarts = 2

// maxFailures is the number of probes of one search the engine may fail
// (errStalled) before the search ends (endOnFailure).
const maxFailures = 4

// belowEstimate is how far below Newton's estimate, as a fraction of the
// distance from the lower end, the search probes once probes just below
// estimates have found mechanisms twice: an estimate from a refutation
// far below ε* most often overshoots it by less than that.
const belowEstimate = 0.03

// maxStuck is the number of probes in a row at one ε that may come back
// unsettled, a new master asked in between, before the search ends with
// the bracket it has.
const maxStuck = 4

// farProbe is how far (nats) below the upper end, or below Newton's
// estimate once a refutation gave one, LeastEpsilon's probe is taken as
// far (SetFar): such probes refute, and their proof is wanted, not the
// master's optimum.
const farProbe = 3e-2

// startBracket is LeastEpsilon's bracket before its first probe: the
// pruning bound over the set, raised by the cover's proof over it, below;
// the least level over the set of the mechanism uniform over the allowed
// outputs, of start and of the cover's flow, above. done reports a
// bracket that needs no probe: ε* = 0 (an output open to every input) or
// no mechanism at all (an input none of whose outputs every prior can
// use).
func (g *RobustMaster) startBracket(tol float64, start mech.Mechanism) (b RobustBracket, done bool) {
	set, pat := g.set, g.pat
	// An output open to every input takes everything at ε = 0.
	if p := IndependentOver(pat); p != nil {
		b.Mechanism = p
		return b, true
	}
	if lb := SetPruningBound(set, pat); lb > 0 {
		b.Lower, b.Pruning = lb, true
	}
	b.Upper = math.Inf(1)
	if math.IsInf(b.Lower, 1) {
		return b, true // an input none of whose outputs every prior can use
	}
	safe := UniformOverAllowed(pat)
	if lvl := leakage.PMLOver(set, safe); lvl < b.Upper {
		b.Upper, b.Mechanism = lvl, safe
	}
	if start != nil && pat.Holds(start) {
		if lvl := leakage.PMLOver(set, start); lvl < b.Upper {
			b.Upper, b.Mechanism = lvl, start
		}
	}
	// The pattern's fractional cover bounds ε* for every prior (Cover):
	// its packing's multipliers prove log τ* over the set as well, with
	// any prior per output, and start the search above the pruning bound.
	// The estimate's mass routed along the cover at τ* (Flow) is the
	// mechanism that closes the searches at one prior; over the set it
	// keeps a level near ε* (above log τ* unless every output's mass is
	// the same under every prior of the set), which starts the upper
	// end, and closes the bracket without a master where it meets the
	// lower end (the pruning bound or the cover's proof over the set, over
	// balls most often).
	if b.Upper-b.Lower > tol {
		if cv := g.patternCover(); cv != nil {
			if lb, alpha, priors, ok := robustCoverProof(set, pat, cv, b.Lower+tol); ok && lb > b.Lower {
				b.Lower, b.Pruning, b.Alpha, b.Priors = min(lb, b.Upper), false, alpha, priors
			}
			if f, lvl := coverFlow(set, pat, cv); f != nil && lvl < b.Upper {
				b.Upper, b.Mechanism = lvl, f
			}
		}
	}
	return b, false
}

// SetPruningBound is the pruning bound over the set: every input must use
// an output open to it, and output j has PML at least −log min_{π∈Π}
// π(A_j) over the set, so no mechanism with the pattern is below max_i
// min_{j ∋ i} of it (+Inf when some input's outputs all have an empty
// least mass). The least masses are read as the master's model reads them
// (modelMinMass): the bound starts the search, whose first probe lies
// just above it, at an opening where the master is at its most
// degenerate; the certificate proves the lower end it reports on its own.
func SetPruningBound(set *mech.PriorSet, pat mech.Pattern) float64 {
	if len(pat) == 0 {
		return 0
	}
	n, m := len(pat), len(pat[0])
	open := make([]float64, m)
	in := make([]bool, n)
	pi := make([]float64, n)
	for j := range m {
		used := false
		for i := range n {
			in[i] = pat[i][j]
			used = used || in[i]
		}
		open[j] = math.Inf(1)
		if used {
			if mass := minMassOf(set, in, pi); mass > 0 {
				open[j] = -math.Log(mass)
			}
		}
	}
	worst := 0.0
	for i := range n {
		least := math.Inf(1)
		for j := range m {
			if pat[i][j] {
				least = min(least, open[j])
			}
		}
		worst = max(worst, least)
	}
	return worst
}

// minMassOf is modelMinMass of the indicator of the letters in, to the
// last bit: the same greedy prior (mech.PriorSet.Extreme), whose order of
// an indicator is known without a sort (the letters outside in, then
// those in it, each by index), summed in the same order. pi is scratch of
// the set's size. SetPruningBound asks it once per output of every
// pattern a decision or a search meets.
func minMassOf(set *mech.PriorSet, in []bool, pi []float64) float64 {
	n := len(in)
	any, all := false, true
	for _, a := range in {
		any, all = any || a, all && a
	}
	if !any {
		return 0
	}
	if set.IsBox() {
		rest := 1.0
		for i, l := range set.Lower {
			pi[i] = l
			rest -= l
		}
		for pass := range 2 {
			for k := range n {
				if rest <= 0 {
					break
				}
				if in[k] != (pass == 1) {
					continue
				}
				add := min(rest, set.Upper[k]-set.Lower[k])
				pi[k] += add
				rest -= add
			}
		}
	} else {
		// The cheapest letter is the first outside in (the first letter
		// when in holds them all); mass moves onto it from the dearest,
		// those in in by decreasing index, then the others.
		best := 0
		for k := range n {
			if !in[k] {
				best = k
				break
			}
		}
		others := 0.0
		for k, v := range set.Center {
			if k != best {
				others += v
			}
		}
		if set.Radius/2 >= others {
			clear(pi)
			pi[best] = 1
		} else {
			copy(pi, set.Center)
			move := set.Radius / 2
			for pass := range 2 {
				for k := n - 1; k >= 0 && move > 0; k-- {
					if in[k] != (pass == 0) || k == best {
						continue
					}
					take := min(move, pi[k])
					pi[k] -= take
					pi[best] += take
					move -= take
				}
			}
		}
	}
	mass := 0.0
	for k, a := range in {
		if a {
			mass += pi[k] // the others' terms are +0, which leave the sum
		}
	}
	lo, hi := 0.0, 1.0 // modelMinMass's clamp to the costs
	if all {
		lo = 1
	}
	return min(max(mass, lo), hi)
}

// UniformOverAllowed is the utility-safe mechanism of the pattern: each
// row uniform over its allowed outputs (nil when a row has none).
func UniformOverAllowed(pat mech.Pattern) mech.Mechanism {
	p := make(mech.Mechanism, len(pat))
	for i, row := range pat {
		p[i] = make([]float64, len(row))
		k := 0
		for _, a := range row {
			if a {
				k++
			}
		}
		if k == 0 {
			return nil
		}
		for j, a := range row {
			if a {
				p[i][j] = 1 / float64(k)
			}
		}
	}
	return p
}

// IndependentOver is the mechanism that sends every input to the first
// output open to all of them (PML 0 at every prior), nil when none is.
func IndependentOver(pat mech.Pattern) mech.Mechanism {
	if len(pat) == 0 {
		return nil
	}
	for j := range pat[0] {
		all := true
		for i := range pat {
			all = all && pat[i][j]
		}
		if all {
			p := make(mech.Mechanism, len(pat))
			for i := range p {
				p[i] = make([]float64, len(pat[0]))
				p[i][j] = 1
			}
			return p
		}
	}
	return nil
}

// coverFlow is the mechanism that routes the estimate's mass along the
// pattern's cover cv at the ratio τ* (Flow, the output marginal the cover
// normalised), and its audited level over the set; nil and +Inf when the
// flow leaves an input short or breaks the pattern.
func coverFlow(set *mech.PriorSet, pat mech.Pattern, cv *Cover) (mech.Mechanism, float64) {
	sum := 0.0
	for _, x := range cv.X {
		sum += x
	}
	if !(cv.Tau > 0) || !(sum > 0) {
		return nil, math.Inf(1)
	}
	q := make([]float64, len(cv.X))
	for j, x := range cv.X {
		q[j] = x / sum
	}
	f, _ := Flow(set.Center, pat, q, cv.Tau*coverFlowRatio)
	if f == nil {
		return nil, math.Inf(1)
	}
	// No dust (entries below certify.DustEntry), as the mechanisms
	// pmlopt returns: the level is audited after.
	for _, row := range f {
		for j, v := range row {
			if v < certify.DustEntry {
				row[j] = 0
			}
		}
		if !(mech.Normalise(row) > 0) {
			return nil, math.Inf(1)
		}
	}
	if !pat.Holds(f) {
		return nil, math.Inf(1)
	}
	return f, leakage.PMLOver(set, f)
}

// coverFlowRatio is how far above τ* coverFlow routes: the cover is
// optimal only to its LP's rounding.
const coverFlowRatio = 1 + 1e-12
