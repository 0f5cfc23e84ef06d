package worstcase

import (
	"context"
	"math"
	"sync"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/internal/patternbasis"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// OrderCurve returns the trade-off curve of the order o: one Point for every
// threshold h = 1..M with the utility-safe ε_S(h) and the bracket of the
// optimal ε*(h).
//
// The thresholds are solved by divide and conquer: h = 1 and h = M first,
// then the middle of every unresolved interval [a, b], with the lower bound
// of a and the mechanism of b passed in as a starting bracket (Lemma 1:
// ε*(a) ≤ ε*(h) ≤ ε*(b), and b's mechanism respects h's pattern). When the
// brackets of a and b fit together within Tol, every threshold between them
// inherits [OptimalEpsilonLower(a), OptimalEpsilon(b)] and b's mechanism without an LP;
// so does every threshold whose pattern a's mechanism respects, with a's
// bracket (its PML bounds theirs). The searches of the solved thresholds
// stop at Tol/2, so an inherited bracket is at most Tol wide too. Up to opt.Workers searches run at once; the LPs
// solved and the results do not depend on the number of workers.
//
// With opt.Shard, only the shard's thresholds are solved, by the same
// divide and conquer over them alone, and returned in order of h.
//
// If ctx is cancelled, OrderCurve stops, and returns the points resolved so
// far (in order of h, possibly with gaps) with ctx.Err().
func OrderCurve(ctx context.Context, pi mech.Prior, o mech.Order, opt Options) ([]Point, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	fam, err := orderFamily(pi, o)
	if err != nil {
		return nil, err
	}
	safe, err := closedform.SafeCurve(pi, o)
	if err != nil {
		return nil, err
	}
	cfg, err := opt.config()
	if err != nil {
		return nil, err
	}
	cfg.stand = nil // Progress is the curves'
	idx := cfg.shard.Indices(fam.k)
	toPoint := func(j int, r *Result) Point {
		k := idx[j]
		h := float64(k + 1)
		return point(k+1, h, h, safe[k], r)
	}
	res, err := runCurve(ctx, pi, fam.sub(idx), cfg, false, toPoint, nil)
	var pts []Point
	for j, r := range res {
		if r != nil {
			pts = append(pts, toPoint(j, r))
		}
	}
	return pts, err
}

// ValueCurve returns the trade-off curve of the utility values of u: for the
// reachable distinct values v_1 < v_2 < ... of u (every row has some
// u'_ij ≥ v), ε*(v) is a non-decreasing step function, and ValueCurve
// returns one Point where each step starts: v_1 (where ε* = 0), and every
// v_k whose ε* exceeds that of the step's first value by more than Tol
// (precisely: whose OptimalEpsilon exceeds that value's OptimalEpsilonLower by more than
// Tol). ε* stays
// within Tol of the Point's bracket from Threshold up to ThresholdMax: the
// bracket is that of ThresholdMax, the step's best worst case, and its upper
// end is the audited PML of the Point's Mechanism, which reaches at least
// ThresholdMax.
//
// The search is the divide and conquer of OrderCurve over the sorted
// values, so a plateau of equal ε* costs no LP inside it. Of the
// thresholds inside a step only the brackets are kept while it runs: a
// mechanism has N·M entries, and a value curve up to N·M thresholds. If
// ctx is cancelled, the points resolved so far are returned with
// ctx.Err(): a step then also starts after every unresolved threshold,
// and reaches only as far as its thresholds are resolved (ThresholdMax
// and the Mechanism are those of its last resolved threshold).
//
// With opt.Shard (other than 1/1), only the shard's thresholds are solved
// and each is returned as its own point (ThresholdMax = Threshold), in
// order: the steps depend on the brackets of every threshold, so they are
// formed once the shards are merged. Mechanisms inside a step of the
// shard's own thresholds are let go as above (Mechanism nil); Settled sees
// every one.
func ValueCurve(ctx context.Context, pi mech.Prior, u mech.Utility, opt Options) ([]Point, error) {
	return valueCurve(ctx, pi, u, opt, true)
}

// valueCurve is ValueCurve, with the covers as bestOrder's.
func valueCurve(ctx context.Context, pi mech.Prior, u mech.Utility, opt Options, covers bool) ([]Point, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	fam, vs, err := valueFamily(pi, u)
	if err != nil {
		return nil, err
	}
	if opt.sym, err = symmetryFor(pi, u, opt); err != nil {
		return nil, err
	}
	cfg, err := opt.config()
	if err != nil {
		return nil, err
	}
	cfg.stand = nil // Progress is the curves'
	// Every threshold's search starts from what its pattern's cover
	// gives, as the best value's decisions do.
	cov := coverFor(pi, u, opt, covers)
	if cov != nil && opt.sym != nil {
		cov.noCuts = true
	}
	idx := cfg.shard.Indices(fam.k)
	toPoint := func(j int, r *Result) Point {
		k := idx[j]
		safe := leakage.PML(pi, closedform.UniformOnAllowed(fam.pattern(k)))
		return point(k+1, vs[k], vs[k], safe, r)
	}
	if !cfg.shard.All() {
		// The steps need the brackets of every threshold: the shard's
		// thresholds are reported one by one, to be merged.
		res, err := runCurve(ctx, pi, fam.sub(idx), cfg, true, toPoint, cov)
		var pts []Point
		for j, r := range res {
			if r != nil {
				pts = append(pts, toPoint(j, r))
			}
		}
		return pts, err
	}
	res, err := runCurve(ctx, pi, fam, cfg, true, toPoint, cov)
	var starts []int
	for k, r := range res {
		if r == nil {
			continue
		}
		if k == 0 || res[k-1] == nil || leavesStep(res[starts[len(starts)-1]], r, cfg.tol) {
			starts = append(starts, k)
		}
	}
	pts := make([]Point, 0, len(starts))
	for s, k := range starts {
		last := len(vs) - 1
		if s+1 < len(starts) {
			last = starts[s+1] - 1
		}
		for res[last] == nil {
			// Cancelled: the step reaches as far as it is known.
			last--
		}
		safe := leakage.PML(pi, closedform.UniformOnAllowed(fam.pattern(k)))
		// The step is reported by its last threshold: its mechanism
		// reaches the step's best worst case, its audited PML bounds ε*
		// on the whole step (ε*(v_k) ≤ ε*(v) ≤ ε*(v_last)), and its
		// bracket, closed to Tol, is the least ε of that worst case.
		r := res[k]
		if rl := res[last]; rl != nil && rl.Mechanism != nil {
			step := *rl
			r = &step
		}
		// The work of the whole step: its thresholds are not reported.
		work := *r
		work.LPSolves, work.GoProbes = 0, 0
		for _, rk := range res[k : last+1] {
			if rk != nil {
				work.LPSolves += rk.LPSolves
				work.GoProbes += rk.GoProbes
			}
		}
		r = &work
		pts = append(pts, point(k+1, vs[k], vs[last], safe, r))
	}
	return pts, err
}

func point(h int, v, vmax, safe float64, r *Result) Point {
	return Point{
		H:                   h,
		Threshold:           v,
		ThresholdMax:        vmax,
		SafeEpsilon:         safe,
		OptimalEpsilon:      r.OptimalEpsilon,
		OptimalEpsilonLower: r.OptimalEpsilonLower,
		Lower:               r.Lower,
		Mechanism:           r.Mechanism,
		LPSolves:            r.LPSolves,
		GoProbes:            r.GoProbes,
		Proof:               r.Proof,
		Failure:             r.Failure,
	}
}

// curveRun is the shared state of one divide-and-conquer run.
type curveRun struct {
	ctx    context.Context
	cancel context.CancelFunc
	pi     mech.Prior
	fam    family
	cfg    config
	slots  *slots   // one per running search
	cov    *coverer // the covers every search starts from, or nil

	// toPoint makes the point of index k reported to cfg.settled.
	toPoint func(k int, r *Result) Point

	mu   sync.Mutex
	res  []*Result
	done int
	err  error

	// steps is set for a value curve, which reports the mechanism of each
	// step's last threshold only; the others are let go as the resolved
	// prefix grows (settle). A mechanism is N·M floats, and a random
	// instance's value curve has up to N·M thresholds, thousands of them
	// searched.
	steps *stepScan
}

// stepScan follows the steps of a value curve (ValueCurve) along the
// resolved prefix of its thresholds.
type stepScan struct {
	resolved int // every index below it is resolved
	start    int // where the step of index resolved-1 starts
}

// runCurve resolves every index of fam. An engine failure that no other
// route gets past leaves its index with the bracket it reached and
// Result.Failure set; on cancellation the unresolved indices are nil.
func runCurve(parent context.Context, pi mech.Prior, fam family, cfg config, steps bool, toPoint func(k int, r *Result) Point, cov *coverer) ([]*Result, error) {
	if fam.k == 0 {
		// An empty shard.
		return nil, nil
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	c := &curveRun{
		ctx: ctx, cancel: cancel, pi: pi, fam: fam, cfg: cfg, toPoint: toPoint, cov: cov,
		slots: newSlots(cfg.workers),
		res:   make([]*Result, fam.k),
	}
	if steps {
		c.steps = &stepScan{}
	}
	last := fam.k - 1
	var wg sync.WaitGroup
	wg.Go(func() { c.solve(0, hint{keepBasis: true}) })
	if last > 0 {
		wg.Go(func() { c.solve(last, hint{keepBasis: true}) })
	}
	wg.Wait()
	if c.failed() == nil {
		c.rec(0, last)
	}
	c.dropWarm(0)
	c.dropWarm(last)
	if err := c.failed(); err != nil {
		return c.res, err
	}
	for _, r := range c.res {
		if r == nil {
			// rec stopped early without recording why: the caller's
			// context ended.
			return c.res, parent.Err()
		}
	}
	return c.res, nil
}

func (c *curveRun) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *curveRun) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
	c.cancel()
}

func (c *curveRun) get(k int) *Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.res[k]
}

// set records the results of indices k0, k0+1, ... and reports progress.
func (c *curveRun) set(k0 int, rs ...*Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, r := range rs {
		c.res[k0+i] = r
	}
	c.done += len(rs)
	if c.cfg.settled != nil {
		for i, r := range rs {
			c.cfg.settled(c.toPoint(k0+i, r))
		}
	}
	if c.steps != nil {
		c.settle()
	}
	if c.cfg.progress != nil && len(rs) > 0 {
		c.cfg.progress(c.done, c.fam.k)
	}
}

// leavesStep reports whether the threshold of bracket r starts a new step
// of a value curve whose current step starts at bracket start. A step runs
// while every threshold's bracket stays within tol of the step's first
// lower end, so that the step's one bracket is within tol of every ε* on
// it (comparing each threshold with its predecessor would let a long step
// drift).
func leavesStep(start, r *Result, tol float64) bool {
	return LeavesStep(start.OptimalEpsilonLower, r.OptimalEpsilon, tol)
}

// LeavesStep is the rule of ValueCurve's steps on the brackets alone: a
// threshold whose bracket has upper end upper starts a new step when the
// current step's first threshold has lower end stepLower and
// upper − stepLower > tol; never after a lower end of +Inf. A merge of a
// value curve's shards forms the steps with it.
func LeavesStep(stepLower, upper, tol float64) bool {
	if math.IsInf(stepLower, 1) {
		// A step no budget reaches (over a prior set): ε* is +∞ on
		// every later threshold too.
		return false
	}
	return upper-stepLower > tol
}

// settle extends the resolved prefix of a value curve and drops the
// mechanism of every threshold in it that does not end a step, once the
// next threshold is resolved too: the step rule (leavesStep) needs only
// the brackets before an index, and the search no longer needs a
// mechanism once both neighbours of its index are resolved (rec starts
// from a's mechanism while a+1 is open, and passes b's to its middle while
// b-1 is open). Searches that hold the mechanism keep their copy: the
// Result is replaced, not changed. c.mu is held.
func (c *curveRun) settle() {
	s := c.steps
	for ; s.resolved < len(c.res) && c.res[s.resolved] != nil; s.resolved++ {
		k := s.resolved
		if k == 0 {
			continue
		}
		if leavesStep(c.res[s.start], c.res[k], c.cfg.tol) {
			s.start = k // k-1 ends a step
			continue
		}
		if prev := c.res[k-1]; prev.Mechanism != nil {
			kept := *prev
			kept.Mechanism = nil
			c.res[k-1] = &kept
		}
	}
}

// solve runs the least-ε search of index k from the bracket h, and reports
// whether it succeeded.
func (c *curveRun) solve(k int, h hint) bool {
	if !c.slots.acquire(c.ctx, k) {
		c.fail(c.ctx.Err())
		return false
	}
	h.width = c.cfg.tol
	covered := 0
	if c.cov != nil {
		// The cover leaves out the outputs no mechanism within the
		// bracket's upper end can use.
		level := h.hi
		if h.hiMech == nil {
			level = leakage.PML(c.pi, closedform.UniformOnAllowed(c.fam.pattern(k)))
		}
		h = c.cov.hint(c.fam, k, level, h, c.cfg.tol/2)
		covered = 1
	}
	r, err := search(c.ctx, c.pi, c.fam.pattern(k), c.cfg, c.cfg.tol/2, h)
	if err != nil && c.ctx.Err() == nil {
		r, err = c.retry(k, h, r, err)
	}
	r.GoProbes += covered
	c.slots.release()
	if c.ctx.Err() != nil {
		c.fail(c.ctx.Err())
		return false
	}
	r.Failure = err
	c.set(k, &r)
	return true
}

// retry takes index k past an engine failure: the search runs again from
// the bracket r it reached, by every other route in turn (routes), until
// one closes the bracket. The brackets of all routes are certified, so the
// result keeps the highest lower end and the lowest upper end seen. It
// returns the last error when no route closes the bracket.
func (c *curveRun) retry(k int, h hint, r Result, err error) (Result, error) {
	pat := c.fam.pattern(k)
	for _, cfg := range routes(c.cfg, len(c.pi)) {
		if c.ctx.Err() != nil {
			break
		}
		next := h
		next.lo, next.loKind, next.proof = r.OptimalEpsilonLower, r.Lower, r.Proof
		next.hiMech, next.hi = r.Mechanism, r.OptimalEpsilon
		got, e := search(c.ctx, c.pi, pat, cfg, c.cfg.tol/2, next)
		r = tighter(r, got)
		if e == nil {
			return r, nil
		}
		err = e
	}
	return r, err
}

// tighter combines two certified brackets of the same pattern into the
// narrowest: the higher lower end with its proof, the lower upper end with
// its mechanism, and the work of both.
func tighter(a, b Result) Result {
	out := a
	if b.OptimalEpsilonLower > a.OptimalEpsilonLower {
		out.OptimalEpsilonLower, out.Lower, out.Proof = b.OptimalEpsilonLower, b.Lower, b.Proof
	}
	if b.Mechanism != nil && b.OptimalEpsilon < a.OptimalEpsilon {
		out.OptimalEpsilon, out.Mechanism, out.exact = b.OptimalEpsilon, b.Mechanism, b.exact
	}
	out.OptimalEpsilonLower = min(out.OptimalEpsilonLower, out.OptimalEpsilon)
	out.LPSolves, out.GoProbes = a.LPSolves+b.LPSolves, a.GoProbes+b.GoProbes
	out.basis, out.seed = b.basis, b.seed
	return out
}

// routes lists the other ways to search after an engine failure, most
// promising first: the pure-Go backend (when another one failed), the
// column generation and the interior-point probes with the LP only for
// what they leave open, and the pure-Go LPs alone.
func routes(cfg config, n int) []config {
	used := cfg.probes
	switch {
	case cfg.ipmFor(n):
		used = ProbesIPM
	case cfg.colsFor(n):
		used = ProbesColumns
	}
	var out []config
	add := func(slv solver.Solver, p Probes) {
		if slv == nil || (slv.Name() == cfg.slv.Name() && p == used) {
			return
		}
		c := cfg
		c.slv, c.probes = slv, p
		out = append(out, c)
	}
	revised, _ := solver.Get("revised")
	add(revised, used)
	add(cfg.slv, ProbesColumns)
	add(cfg.slv, ProbesIPM)
	add(revised, ProbesLP)
	return out
}

// rec resolves the indices strictly between a and b, which are resolved.
func (c *curveRun) rec(a, b int) {
	if b-a <= 1 || c.ctx.Err() != nil {
		return
	}
	if k := c.reach(a, b); k > a {
		// ε*(a) ≤ ε*(h) ≤ PML of a's mechanism for a < h ≤ k: a's
		// bracket is inherited, and the search goes on from k. The
		// points share a's mechanism: a copy each would cost N·M floats
		// per threshold, and a random instance's value curve has up to
		// N·M thresholds (63 000 at 256 letters: 32 GB).
		ra := c.get(a)
		rs := make([]*Result, 0, k-a)
		for range k - a {
			rs = append(rs, &Result{OptimalEpsilonLower: ra.OptimalEpsilonLower, Lower: ra.Lower, OptimalEpsilon: ra.OptimalEpsilon, Mechanism: ra.Mechanism, Proof: ra.Proof, exact: ra.exact})
		}
		c.set(a+1, rs...)
		a = k
		if b-a <= 1 {
			return
		}
	}
	ra, rb := c.get(a), c.get(b)
	if rb.OptimalEpsilon-ra.OptimalEpsilonLower <= c.cfg.tol {
		// ε*(a) ≤ ε*(k) ≤ ε*(b) for a < k < b, and b's mechanism respects
		// k's pattern: the bracket is inherited.
		rs := make([]*Result, 0, b-a-1)
		for k := a + 1; k < b; k++ {
			// Each threshold's pruning bound is a pass over the prior and
			// the pattern (a second for a few hundred thresholds at a
			// thousand letters): a cancelled curve keeps those done.
			if c.ctx.Err() != nil {
				break
			}
			r := &Result{OptimalEpsilonLower: ra.OptimalEpsilonLower, Lower: ra.Lower, OptimalEpsilon: rb.OptimalEpsilon, Mechanism: rb.Mechanism, Proof: ra.Proof, exact: rb.exact}
			pat := c.fam.pattern(k)
			cb, _ := columnBounds(c.pi, pat)
			if lb := pruningBound(pat, cb); lb > r.OptimalEpsilonLower {
				r.OptimalEpsilonLower, r.Lower, r.Proof = min(lb, r.OptimalEpsilon), BoundPruning, nil
			}
			rs = append(rs, r)
		}
		c.set(a+1, rs...)
		return
	}
	mid := a + (b-a)/2
	// b's last basis starts mid's first LP, and b's master columns seed
	// mid's master (they fit mid's weaker pattern). b's pattern is
	// stronger, so its model has a subset of mid's columns and rows unless
	// mid prunes an output b kept (mid's pruning level, b's ε*, can be
	// lower than b's); the mapped basis then lacks basic variables and Clp
	// repairs it.
	basis, seed := c.warm(b)
	h := hint{lo: ra.OptimalEpsilonLower, loKind: ra.Lower, proof: ra.Proof, hiMech: rb.Mechanism, hi: rb.OptimalEpsilon, basis: basis, seed: seed, keepBasis: true,
		lazyExact: !ra.exact && !rb.exact}
	// The proof of b (a stronger pattern) often holds for mid too: on a
	// plateau of the staircase it closes mid's bracket without an LP.
	if rb.Proof != nil {
		if lb, ok := certify.DualBound(c.pi, c.fam.pattern(mid), rb.Proof); ok && lb > h.lo {
			h.lo, h.loKind, h.proof = min(lb, rb.OptimalEpsilon), BoundInfeasible, rb.Proof
		}
	}
	if !c.solve(mid, h) {
		return
	}
	// The curve resolves from its left end, so that the resolved prefix
	// grows while it runs (settle): one worker takes the halves in turn;
	// with more, the right half runs beside the left one, and the slots
	// go to the lowest index waiting.
	if c.cfg.workers == 1 {
		c.rec(a, mid)
		c.rec(mid, b)
	} else {
		var wg sync.WaitGroup
		wg.Go(func() { c.rec(mid, b) })
		c.rec(a, mid)
		wg.Wait()
	}
	c.dropWarm(mid) // only rec(a, mid) starts from it: memory stays O(NM log M)
}

// reach returns the largest index k < b whose pattern a's mechanism
// respects (a if none): the patterns shrink along the family, so the
// indices it respects are a prefix, found by bisection. On a value curve
// the mechanism found for one threshold often reaches many more (its worst
// case lies above the threshold), and their searches are saved.
func (c *curveRun) reach(a, b int) int {
	ra := c.get(a)
	if ra == nil || ra.Mechanism == nil {
		return a
	}
	lo, hi := a, b // respects lo's pattern; hi is not known to be respected
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if c.fam.pattern(mid).Holds(ra.Mechanism) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// warm returns what index k's search left for a neighbour's: its final
// LP basis and its master's final columns (either nil if none).
func (c *curveRun) warm(k int) (*patternbasis.Keyed, *colgen.Seed) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.res[k] == nil {
		return nil, nil
	}
	return c.res[k].basis, c.res[k].seed
}

func (c *curveRun) dropWarm(k int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.res[k] != nil {
		c.res[k].basis, c.res[k].seed = nil, nil
	}
}
