package worstcase

import (
	"context"
	"errors"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/internal/patternbasis"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// LeastEpsilon returns the least ε at which an ε-PML mechanism exists that is
// zero on every pair pat forbids (problem (2) of Song & Oechtering (2026) for a general zero
// pattern), bracketed to within opt.Tol, together with a mechanism reaching
// the upper end of the bracket. See the package documentation for what the
// bracket certifies.
//
// pat must have one row per letter of pi, and every row must allow at least
// one output. If ctx is cancelled the search stops before its next LP and
// returns the bracket reached so far (valid, but wider than Tol) with
// ctx.Err().
func LeastEpsilon(ctx context.Context, pi mech.Prior, pat mech.Pattern, opt Options) (Result, error) {
	return leastEpsilon(ctx, pi, pat, opt, nil)
}

// leastEpsilon is LeastEpsilon with its pure-Go probes answered by eng
// (nil: the engines themselves, goEngines): the injection point through
// which tests make the master or the interior point fail.
func leastEpsilon(ctx context.Context, pi mech.Prior, pat mech.Pattern, opt Options, eng engines) (Result, error) {
	if err := checkContext(ctx); err != nil {
		return Result{}, err
	}
	cfg, err := opt.config()
	if err != nil {
		return Result{}, err
	}
	if _, err := mech.NewPrior(pi); err != nil {
		return Result{}, err
	}
	if err := pat.Check(len(pi)); err != nil {
		return Result{}, err
	}
	cfg.inner, cfg.eng = cfg.workers, eng
	return search(ctx, pi, pat, cfg, cfg.tol, hint{})
}

// hint carries what is known about a pattern from its neighbours on a curve:
// a lower bound (valid because a weaker pattern's least ε is no larger) and
// a mechanism that respects the pattern (one of a stronger pattern).
type hint struct {
	lo     float64
	loKind Bound
	proof  []float64           // α proving lo (loKind BoundInfeasible), or nil
	hiMech mech.Mechanism      // nil if none
	hi     float64             // audited PML of hiMech
	basis  *patternbasis.Keyed // a final basis of a neighbouring pattern, or nil
	seed   *colgen.Seed        // a neighbouring pattern's final master columns, or nil

	// keepBasis asks for the final basis in Result (curves pass it on to
	// neighbours; other callers would only discard it).
	keepBasis bool

	// lazyExact asks the search to probe a candidate exact value only
	// once a mechanism close to it is known: a curve sets it where
	// neither neighbour's ε* was found at one.
	lazyExact bool

	// width is the bracket width the caller accepts, when it asks the
	// search to stop at a narrower tol (curves stop at Tol/2 so that an
	// inherited bracket fits in Tol): a mechanism cleaned of dust may
	// leave the bracket up to this wide.
	width float64

	// support marks the search of a cleaned mechanism's support
	// (dustFreeOnSupport), which looks for no further support.
	support bool
}

// bracket is what a search knows of ε*, with the evidence of each end:
// lo is proven (as lower says: 0, the pruning bound, or multipliers proof
// checked by certify.DualBound), hi is the audited PML of mech, which
// respects the pattern.
//
// The search bisects the steering interval [sl, hv] inside it: sl ≥ lo is
// the largest ε the oracle called infeasible (proven or not), hv ≤ hi the
// least ε it called feasible. They differ from the certified ends only
// when a verdict is unproven (sl > lo) or a claimed-feasible point audits
// above its ε (hv < hi); then the bracket can stay wider than tol, and the
// search stops once [sl, hv] is below tol/64 wide.
type bracket struct {
	lo    float64
	lower Bound
	proof []float64 // α proving lo when lower is BoundInfeasible
	hi    float64
	mech  mech.Mechanism

	exact bool // mech came from a probe at an exact candidate (exactProbe)

	sl, hv float64
}

// closed reports whether the search can stop: the bracket is within tol,
// or the steering interval within tol/64.
func (b *bracket) closed(tol float64) bool {
	return !(b.hi-b.lo > tol && b.hv-b.sl > steerFloor*tol)
}

// closes reports whether a proven bound lb and an audited mechanism at a
// would close the bracket to within tol.
func (b *bracket) closes(lb, a, tol float64) bool {
	return min(a, b.hi)-max(lb, b.lo) <= tol
}

// raise takes a proven bound, capped at the audited upper end, as the new
// lower end when it is higher.
func (b *bracket) raise(lb float64, alpha []float64) {
	if lb = min(lb, b.hi); lb > b.lo {
		b.lo, b.lower, b.proof = lb, BoundInfeasible, alpha
	}
}

// steer is what the placements learn from the probes so far.
type steer struct {
	proofs     []proofPoint
	uses       int     // probes placed at the last prediction
	slow       int     // probes in a row that did not halve [sl, hv]
	newton     float64 // the last proof's estimate of ε* (column generation), 0 if none or used
	closeIn    bool    // an infeasible probe brought a polished mechanism: try a proof just below it
	exactTried bool    // the last proof's exactness was tested

	openings []float64       // the pattern's openings (see openings), increasing
	tried    map[float64]int // probes made at each exact candidate (exactProbe)
	exactAt  float64         // the candidate probed last
	above    bool            // the last probe found a mechanism at its ε
	// nearMisses counts the probes in a row whose mechanism audited a
	// hair above their ε (within nearSlop).
	nearMisses int

	// lazyExact: the neighbours' ε* were not at exact values (see
	// lazyExact).
	lazyExact bool

	// stand is the point a verdict without proof moved sl to (0 once
	// tested, see standTest).
	stand float64
}

// search is LeastEpsilon on validated input, starting from what h knows.
//
//  1. The free bounds: ε* = 0 when an output is allowed for every input;
//     else the pruning bound, a neighbour's lower end, the utility-safe
//     mechanism and a neighbour's mechanism give the first bracket.
//  2. Place a probe (the placement; a retry after an oracle failure;
//     bisection after five slow probes), ask the oracle, update the
//     bracket, until it is closed.
//  3. Close a bracket still wider than tol with proofs just below its
//     upper end.
//  4. A bracket still open after verdicts without proof steered the
//     search: steps 2 and 3 once more over the whole bracket, strict.
//  5. No dust.
func search(ctx context.Context, pi mech.Prior, pat mech.Pattern, cfg config, tol float64, h hint) (Result, error) {
	// 1. The free bounds.
	n, m := len(pat), len(pat[0])
	c, all := columnBounds(pi, pat)
	if all >= 0 {
		// Proven ε* = 0: the output marginal of a mechanism that uses
		// only output `all` is a point mass, and its PML is 0.
		return Result{Lower: BoundZero, Mechanism: independent(n, m, all)}, nil
	}
	b := bracket{lower: BoundZero}
	if lb := pruningBound(pat, c); lb > 0 {
		b.lo, b.lower = lb, BoundPruning
	}
	if h.lo > b.lo {
		b.lo, b.lower, b.proof = h.lo, h.loKind, h.proof
	}
	b.mech = closedform.UniformOnAllowed(pat)
	b.hi = leakage.PML(pi, b.mech)
	if h.hiMech != nil && h.hi < b.hi {
		b.mech, b.hi = h.hiMech.Clone(), h.hi
	}
	b.sl, b.hv = b.lo, b.hi

	p := newProber(ctx, pi, pat, c, cfg)
	p.start, p.seed, p.keepBasis = h.basis, h.seed, h.keepBasis
	defer p.close()
	p.closes = func(lb, a float64) bool { return b.closes(lb, a, tol) }
	level := b.hv // the pruning level of a warm model: valid for every ε ≤ hv
	var pl placement = proofPlacement{}
	if p.cols {
		pl = columnPlacement{}
	}

	// 2. Probe until the bracket is closed.
	st := steer{openings: openings(pi, pat), lazyExact: h.lazyExact}
	failures := 0
	var lastErr error
	tell := func() {
		if cfg.stand != nil {
			cfg.stand(Stand{Lower: b.lo, Upper: b.hi})
		}
	}
	for pass := 0; pass < 2; pass++ {
		for k := 0; !b.closed(tol) && k < maxProbes; k++ {
			tell()
			if err := ctx.Err(); err != nil {
				return b.result(p), err
			}
			if t, ok := st.exactProbe(&b, tol); ok && failures == 0 {
				if o, err := p.atExact(t, level); err == nil {
					b.takeExact(o, t, pat, &st)
				}
				continue
			}
			t := place(pl, &b, &st, tol, k == 0 && pass == 0, failures)
			width := b.hv - b.sl
			o, err := p.probe(t, level, p.stands.strict)
			if err != nil {
				// A backend may fail at a degenerate point: two other points
				// of the bracket get a chance, then the search steers below
				// the failing point (the bracket stays sound, only possibly
				// wider). The error is returned if the bracket ends wider than
				// tol. What the failed probe proved or found holds. A
				// master that failed (errMasterFailed) is no engine error:
				// the strict pass settles what it left with the LP.
				b.keep(o, p)
				if errors.Is(err, errLPTooLarge) {
					// Every other point would ask for the same LP.
					return b.result(p), err
				}
				if !errors.Is(err, errMasterFailed) {
					lastErr = err
				}
				if failures++; failures > failedRetries {
					b.hv, failures = t, 0
				}
				continue
			}
			failures = 0
			b.update(o, t, &st, p)
			st.above = o.v == feasible || o.v == inconclusive
			if o.v == inconclusive && o.Mechanism != nil && o.PML <= t+nearSlop {
				st.nearMisses++
			} else {
				st.nearMisses = 0
			}
			st.slow = progress(st.slow, width, b.hv-b.sl)
		}

		// 3. The steering interval can collapse while the certified lower end
		// lags (unproven verdicts near ε*, or a proof that gives up its
		// rounding margin): close the bracket with proofs just below the
		// upper end.
		for _, f := range closingProofs {
			t := b.hi - f*tol
			if b.hi-b.lo <= tol || t <= b.lo || ctx.Err() != nil {
				break
			}
			o, err := p.probe(t, level, true)
			if err != nil && !errors.Is(err, errMasterFailed) {
				continue
			}
			b.keep(o, p) // proven or found, whatever the verdict
			tell()
		}

		// 4. A bracket still open after that stood on verdicts without
		// proof that steered the search the wrong way (a master tailing
		// at its round limit can stand above ε*, not below it): steer
		// over the whole bracket once more, with every open verdict
		// settled by the LP.
		if b.hi-b.lo <= tol || ctx.Err() != nil || p.stands.strict || !p.stands.stood {
			break
		}
		p.stands.strict = true
		b.sl, b.hv, failures = b.lo, b.hi, 0
		// A candidate exact value is owed a probe as soon as a
		// mechanism was found: the first pass steered away from ε*, and
		// a probe at a candidate near the proven lower end costs less
		// than the bisection towards it.
		st.lazyExact, st.stand = false, 0
	}
	// 5. No dust: a mechanism with entries below certify.DustEntry is
	// replaced by its cleaned copy when that stays within the bracket's
	// tolerance (and below the hint's upper end, which a caller may have
	// chosen within a budget).
	limit := b.lo + max(tol, h.width)
	if h.hiMech != nil {
		limit = min(limit, h.hi)
	}
	if !b.dropDust(pi, max(b.hi, limit)) && !h.support && ctx.Err() == nil {
		b.dustFreeOnSupport(ctx, pi, pat, cfg, tol, max(b.hi, limit), p)
	}
	tell()
	if err := ctx.Err(); err != nil && b.hi-b.lo > tol {
		return b.result(p), err
	}
	if b.hi-b.lo > tol && lastErr != nil {
		return b.result(p), lastErr
	}
	return b.result(p), nil
}

// dropDust replaces the bracket's mechanism by its copy without dust
// (clean.WithoutDust) when the copy's audited PML is at most limit; the
// upper end becomes that audited PML. It reports whether the bracket's
// mechanism is then free of dust.
func (b *bracket) dropDust(pi mech.Prior, limit float64) bool {
	c, err := clean.WithoutDust(b.mech)
	if err != nil || c == nil {
		return err == nil
	}
	if a := leakage.PML(pi, c); a <= limit {
		b.mech, b.hi = c, a
		return true
	}
	return false
}

// dustFreeOnSupport looks for a mechanism without dust where the cleaned
// copy of the bracket's audits above limit: an LP vertex can put mass of
// 1e-10 on outputs at the budget's ratio, and dropping those outputs
// moves their mass into the others, raising the PML by as much. The least
// ε on the cleaned copy's support, a sub-pattern of pat, is searched from
// the bracket's lower end (a proof for pat holds for every sub-pattern)
// and the cleaned copy; its mechanism replaces the bracket's when it has
// no dust, respects pat and audits within limit. The lower end stays
// pat's. Its LPs and probes count as p's.
func (b *bracket) dustFreeOnSupport(ctx context.Context, pi mech.Prior, pat mech.Pattern, cfg config, tol, limit float64, p *prober) {
	c, err := clean.WithoutDust(b.mech)
	if err != nil || c == nil {
		return
	}
	sub := make(mech.Pattern, len(pat))
	for i, row := range pat {
		sub[i] = make([]bool, len(row))
		for j, a := range row {
			sub[i][j] = a && c[i][j] > 0
		}
	}
	h := hint{lo: b.lo, loKind: b.lower, proof: b.proof, hiMech: c, hi: leakage.PML(pi, c), support: true}
	cfg.stand = nil // a sub-pattern's bracket, not the one told
	r, _ := search(ctx, pi, sub, cfg, tol, h)
	p.solves += r.LPSolves
	p.probes += r.GoProbes
	if r.Mechanism == nil || r.OptimalEpsilon > limit || !pat.Holds(r.Mechanism) {
		return
	}
	if d, err := clean.WithoutDust(r.Mechanism); err == nil && d == nil {
		b.mech, b.hi, b.exact = r.Mechanism, r.OptimalEpsilon, false
	}
}

// update takes the outcome o of the probe at t into the bracket, and what
// the placements learn from it into st.
func (b *bracket) update(o outcome, t float64, st *steer, p *prober) {
	switch o.v {
	case infeasible:
		b.raise(o.Lower, o.Alpha)
		st.newton, st.exactTried = o.est, false
		if o.Mechanism != nil && o.PML < b.hi {
			// An infeasible probe's mechanism (the column generation's
			// polished basis, ipm.Probe's point) is an audited upper end
			// all the same; a polished one is often ε* itself.
			b.mech, b.hi, b.exact = o.Mechanism, o.PML, false
			b.hv, st.closeIn = min(b.hv, o.PML), o.pol
		}
		st.proofs, st.uses = append(st.proofs, proofPoint{t: t, lb: o.Lower, alpha: o.Alpha}), 0
		if lb, alpha, ok := p.extrapolate(st.proofs); ok {
			b.raise(lb, alpha)
		}
		b.sl = max(b.sl, max(t, b.lo))
	case unproven:
		// Whatever the probe proved or found holds all the same (an
		// unsettled master's, the interior point's); only the steering
		// rests on the verdict.
		b.keep(o, p)
		if t > b.sl {
			b.sl, st.stand = t, t
		}
	default: // feasible, inconclusive
		if o.Mechanism != nil && o.PML < b.hi && p.pat.Holds(o.Mechanism) {
			b.mech, b.hi, b.exact = o.Mechanism, o.PML, false
		}
		if o.Lower > b.lo && o.Lower <= b.hi {
			b.lo, b.lower, b.proof = o.Lower, BoundInfeasible, o.Alpha
		}
		b.hv = min(t, b.hi)
		if b.hv < b.sl {
			// An unproven infeasibility above a feasible point: the
			// oracle contradicted itself; trust the audited point.
			b.sl = b.lo
		}
	}
}

// keep takes what a probe without a verdict proved or found into the
// bracket: a proven bound raises the lower end, an audited mechanism with
// the pattern lowers the upper one.
func (b *bracket) keep(o outcome, p *prober) {
	if o.Alpha != nil {
		b.raise(o.Lower, o.Alpha)
	}
	if o.Mechanism != nil && o.PML < b.hi && p.pat.Holds(o.Mechanism) {
		b.mech, b.hi, b.exact = o.Mechanism, o.PML, false
		b.hv = min(b.hv, b.hi)
	}
	b.sl = max(b.sl, b.lo)
}

// result is the bracket as a Result, with the oracle's counts. A lower end
// above the audited upper end can only come from rounding in a solver's
// infeasibility verdict; the audited mechanism wins.
func (b *bracket) result(p *prober) Result {
	r := Result{
		OptimalEpsilonLower: min(b.lo, b.hi),
		OptimalEpsilon:      b.hi,
		Lower:               b.lower,
		Mechanism:           b.mech,
		LPSolves:            p.solves,
		GoProbes:            p.probes,
		Proof:               b.proof,
		exact:               b.exact,
	}
	if p.keepBasis {
		r.basis = p.finalBasis()
		if p.master != nil {
			r.seed = p.master.Seed()
		}
	}
	if r.Lower != BoundInfeasible {
		r.Proof = nil
	}
	return r
}

// proofPoint is an infeasible probe: the tested ε and the bound its proof
// gave (often well above t: certify.DualBound optimises the multipliers).
type proofPoint struct {
	t, lb float64
	alpha []float64
}
