package worstcase

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/internal/patternbasis"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// prober answers "is there an ε-PML mechanism with the pattern at ε = t?"
// for one pattern, through a warm Session when the solver has one and by
// rebuilding otherwise.
type prober struct {
	pi      mech.Prior
	pat     mech.Pattern
	c       []float64
	slv     solver.Solver
	solves  int              // LPs solved
	probes  int              // ipm.Probe or master probe calls
	ipm     bool             // ask ipm.Probe first
	cols    bool             // ask the column generation (master) first
	eng     engines          // who answers the pure-Go probes; nil: goEngines
	master  *colgen.Master   // the column generation's master problem, made on first use
	seed    *colgen.Seed     // columns from a neighbouring pattern for the master, or nil
	workers int              // goroutines of the master's engine and of ipm.ProbeWorkers
	sym     *colgen.Symmetry // fold the master by it (colgen.NewSymmetric), or nil
	decide  bool             // the master stops at the first proof of t (colgen.Master.SetDecide)

	model     *polytope.Model // warm path: loaded once, pruned at level
	sess      solver.Session
	raw       solver.Session      // sess without the row scaling
	start     *patternbasis.Keyed // a neighbouring pattern's basis for the first solve, or nil
	keepBasis bool                // key the final basis for the Result (finish)

	// closes, if not nil, reports whether a proven bound lb and an
	// audited mechanism at a would close the search's bracket: a pure-Go
	// probe's evidence then stands without an LP.
	closes func(lb, a float64) bool

	// ctx, if not nil, is the search's context: an LP of an engine that
	// can be stopped (solver.StoppableSession) and the master poll it
	// (stopped), so that a cancelled curve does not wait out a pure-Go LP
	// of minutes, and the interior point's probes watch it (a probe at a
	// thousand letters runs minutes).
	ctx context.Context

	stands stands // the verdicts without proof that stood (policy.go)
	misses misses // what the engines left unanswered lately
}

// newProber returns the prober of pattern pat of pi for a search under
// cfg: who answers first by cfg's Probes, the engines (cfg.eng), the
// symmetry and the workers; its LPs and master stop once ctx is done.
func newProber(ctx context.Context, pi mech.Prior, pat mech.Pattern, c []float64, cfg config) *prober {
	return &prober{pi: pi, pat: pat, c: c, slv: cfg.slv, ipm: cfg.ipmFor(len(pi)), cols: cfg.colsFor(len(pi)), eng: cfg.eng,
		sym: cfg.sym, workers: cfg.inner, ctx: ctx}
}

// context returns the search's context (context.Background without one).
func (p *prober) context() context.Context {
	if p.ctx == nil {
		return context.Background()
	}
	return p.ctx
}

// stopped reports that the search's context is done.
func (p *prober) stopped() bool { return p.ctx != nil && p.ctx.Err() != nil }

// stands counts the verdicts without proof that a search let stand
// instead of settling them by an LP; policy.go bounds each count.
type stands struct {
	strict    bool // no pure-Go verdict stands open (withoutLP), and LPs settle theirs
	stood     bool // a verdict without proof steered the search (withoutLP, or an LP's left unsettled)
	near      int  // pure-Go probes in a row that stood open near ε* (nearStands)
	unsettled int  // unsettled column-generation probes that stood (unsettledStands)
	stalls    int  // probes whose master failed that were left to other points (stalledStands)
}

// misses is what the engines left unanswered lately.
type misses struct {
	stuck   bool // the last LP probe's verdict was unproven or inconclusive
	stalled bool // the last pure-Go probe's master failed, even fresh (masterProbe)
	ipm     int  // ipm.Probe calls in a row that gave nothing (ipmBlind)
}

// engines answers the pure-Go probes: the column generation's master and
// the interior point. The searches use goEngines; tests replace it
// (leastEpsilon) to make either fail or stall.
type engines interface {
	probeMaster(m *colgen.Master, t float64) (*colgen.Result, error)
	probeIPM(ctx context.Context, pi mech.Prior, pat mech.Pattern, t float64, workers int) (*ipm.ProbeResult, error)
}

// goEngines is the engines themselves.
type goEngines struct{}

func (goEngines) probeMaster(m *colgen.Master, t float64) (*colgen.Result, error) {
	return m.Probe(t)
}

func (goEngines) probeIPM(ctx context.Context, pi mech.Prior, pat mech.Pattern, t float64, workers int) (*ipm.ProbeResult, error) {
	return ipm.ProbeWorkers(ctx, pi, pat, t, workers)
}

// engines returns who answers p's pure-Go probes.
func (p *prober) engines() engines {
	if p.eng == nil {
		return goEngines{}
	}
	return p.eng
}

// verdict is the outcome of one probe.
type verdict int

const (
	// infeasible: proven, by a dual point that certify.DualBound
	// checks in floating point, that no mechanism exists below lb.
	infeasible verdict = iota
	// feasible: a mechanism with audited PML ≤ t + certify.ProbeSlack was found.
	feasible
	// inconclusive: the solver claimed feasible, but its point audits
	// above t (a point accepted only within the solver's tolerance).
	inconclusive
	// unproven: the solver claimed infeasible, and neither its
	// certificate nor the infeasibility LP's duals prove it.
	unproven
)

// outcome is a probe's verdict with its evidence: the best mechanism found
// and its audited PML (feasible, inconclusive), or the proven bound
// (infeasible). A zero PML goes with a nil Mechanism here, not +Inf.
type outcome struct {
	v verdict
	certify.Evidence
	g   float64 // the infeasibility LP's optimum G, when it was solved
	est float64 // an estimate of ε* (infeasible verdicts of the column generation), 0 if none
	pol bool    // Mechanism is the column generation's polished mechanism (often at ε* itself)
}

// proofMargin is how far below t a proven bound may fall and still count as
// proving t infeasible: certify.DualBound gives up about 1e-13 to
// rounding.
const proofMargin = 1e-12

// probe tests t ≤ level (level: the pruning level of a warm model, the
// upper end of the bracket): by the pure-Go probes first (goProbe; their
// verdict stands when their evidence settles the question, or when
// withoutLP lets it stand open), else by lpProbe, whose outcome then
// carries their evidence as well.
func (p *prober) probe(t, level float64, settle bool) (outcome, error) {
	var ev *evidence
	if p.ipm || p.cols {
		var o outcome
		if o, ev = p.goProbe(t); o.v == feasible || o.v == infeasible {
			p.stands.near = 0
			return o, nil
		}
		if p.stopped() {
			// The search is done: no LP, which not every engine stops.
			return o, errSearchStopped
		}
		if o, ok := p.withoutLP(t, ev); ok {
			return o, nil
		}
		if p.failedStands() {
			// The master failed at t and nothing else settled it: another
			// point of the bracket answers as well, at the cost of a
			// master probe rather than an LP.
			p.stands.stalls, p.stands.stood = p.stands.stalls+1, true
			o := outcome{v: unproven}
			if ev != nil {
				o.Evidence = ev.Evidence
			}
			return o, errMasterFailed
		}
	}
	o, err := p.lpProbe(t, level, settle)
	if err == nil && ev != nil {
		o = o.with(ev)
	}
	return o, err
}

// errSearchStopped is a probe's error when the search's context ended
// before the probe was settled.
var errSearchStopped = errors.New("worstcase: the search was stopped")

// errMasterFailed is a probe's error when the master failed at t and the
// probe was left to other points of the bracket (stalledStands).
var errMasterFailed = errors.New("worstcase: the column generation failed and no other pure-Go probe settled the point")

// evidence is what a pure-Go probe (ipm.Probe, the column generation)
// found, with the column generation's extras.
type evidence struct {
	certify.Evidence
	est float64 // an estimate of ε* (the column generation's Newton step), 0 if none
	pol bool    // Mechanism is the column generation's polished mechanism

	unsettled bool // the column generation stopped at its round limit (colgen.Result.Unsettled)
}

// goProbe asks the column generation about t, then ipm.Probe when the
// prober asks for it, when the master fails, or when it stops at its
// round limit without settling the question (unless ipm.Probe is blind to
// the pattern, ipmBlind); a probe that may not stand
// open lets the master go on (goOnProbes). Its verdict is
// feasible or infeasible when the evidence settles the question, and
// unproven otherwise (then ev holds whatever it found, for the LP's
// outcome). An infeasible verdict keeps the mechanism found, if any: the
// column generation's polished basis gives one above t.
func (p *prober) goProbe(t float64) (o outcome, ev *evidence) {
	p.probes++
	p.misses.stalled = false
	if p.cols {
		// A master that stalled twice (masterProbe) leaves the question
		// to the interior point before any LP: at a hundred letters and
		// more a pure-Go LP can cost minutes.
		r, err := p.masterProbe(t)
		if err == nil {
			ev = &evidence{Evidence: r.Evidence, est: r.Estimate, pol: r.Polished, unsettled: r.Unsettled}
			p.keepPattern(ev)
		}
		p.misses.stalled = err != nil && !errors.Is(err, colgen.ErrStopped)
	}
	if ev == nil && p.stopped() {
		return outcome{v: unproven}, nil
	}
	if (ev == nil || (ev.unsettled && ev.settled(t) == unproven)) && !p.skipsIPM() {
		// A master tailing at its round limit is as likely above ε* as
		// below it: the interior point, another formulation, often
		// settles the question there.
		r, err := p.engines().probeIPM(p.context(), p.pi, p.pat, t, p.workers)
		switch {
		case err == nil && ev == nil:
			ev = &evidence{Evidence: r.Evidence}
			p.keepPattern(ev)
		case err == nil:
			ev.add(r.Evidence, p.pat)
		}
		if !p.stopped() {
			// A probe the search's context stopped is no miss of the
			// interior point's.
			p.misses.ipm++
		}
		if err == nil && (r.Mechanism != nil || r.Alpha != nil) {
			p.misses.ipm = 0
		}
	}
	if ev == nil {
		return outcome{v: unproven}, nil
	}
	for n := 0; p.goesOn(ev, t, n); n++ {
		if p.stopped() {
			break
		}
		// The probe can no longer stand open (withoutLP): the master
		// goes on from where its round limit stopped it, which costs far
		// less than a pure-Go LP of a few hundred letters.
		r, err := p.masterProbe(t)
		if err != nil {
			break
		}
		proof, found := ev.add(r.Evidence, p.pat)
		if proof {
			ev.est = r.Estimate
		}
		if found {
			ev.pol = r.Polished
		}
		ev.unsettled = r.Unsettled
	}
	switch ev.settled(t) {
	case infeasible:
		return outcome{v: infeasible, Evidence: ev.Evidence, est: ev.est, pol: ev.pol}, ev
	case feasible:
		return outcome{v: feasible, Evidence: ev.Evidence}, ev
	}
	return outcome{v: unproven}, ev
}

// keepPattern drops ev's mechanism if it breaks the prober's pattern.
func (p *prober) keepPattern(ev *evidence) {
	if ev.Mechanism != nil && !p.pat.Holds(ev.Mechanism) {
		ev.Mechanism, ev.PML = nil, math.Inf(1)
	}
}

// settled is what ev settles about t: infeasible (a proof within
// proofMargin of t), feasible (a mechanism within certify.ProbeSlack of
// t), or unproven.
func (ev *evidence) settled(t float64) verdict {
	switch {
	case ev.Alpha != nil && ev.Lower >= t-proofMargin:
		return infeasible
	case ev.Mechanism != nil && ev.PML <= t+certify.ProbeSlack:
		return feasible
	}
	return unproven
}

// add takes from e, another probe's evidence at the same t, a higher
// proven bound and a better mechanism respecting pat, and reports which
// it took; the extras of what it replaced (est, pol) are dropped.
func (ev *evidence) add(e certify.Evidence, pat mech.Pattern) (proof, found bool) {
	if e.Alpha != nil && e.Lower > ev.Lower {
		ev.Lower, ev.Alpha, ev.est, proof = e.Lower, e.Alpha, 0, true
	}
	if e.Mechanism != nil && e.PML < ev.PML && pat.Holds(e.Mechanism) {
		ev.Mechanism, ev.PML, ev.pol, found = e.Mechanism, e.PML, false, true
	}
	return proof, found
}

// masterProbe asks the column generation about t. Should the master's
// engine stall (a run of degenerate pivots it can not leave, rare and
// hard to foresee), a fresh master seeded with the stalled one's basic
// columns tries once more: at a few hundred letters the LP the search
// would fall back on costs far more than a fresh master.
func (p *prober) masterProbe(t float64) (*colgen.Result, error) {
	for try := 0; ; try++ {
		if p.master == nil {
			var err error
			if p.sym != nil {
				// A pattern the group does not keep (none on a value
				// search, whose utility it keeps) gets the plain master.
				p.master, err = colgen.NewSymmetric(p.pi, p.pat, *p.sym)
			}
			if p.master == nil {
				if p.master, err = colgen.New(p.pi, p.pat); err != nil {
					return nil, err
				}
			}
			_ = p.master.AddSeed(p.seed) // a refused seed only costs the warm start
			p.master.SetWorkers(p.workers)
			p.master.SetDecide(p.decide)
			if p.ctx != nil {
				p.master.SetStop(p.stopped)
			}
		}
		r, err := p.engines().probeMaster(p.master, t)
		if err == nil || try > 0 || errors.Is(err, colgen.ErrStopped) {
			return r, err
		}
		if s := p.master.Seed(); s != nil {
			p.seed = s
		}
		p.master = nil
	}
}

// with adds a pure-Go probe's evidence to an LP's outcome: a higher proven
// bound, and a better mechanism.
func (o outcome) with(ev *evidence) outcome {
	if ev.Alpha != nil && ev.Lower > o.Lower {
		o.Lower, o.Alpha = ev.Lower, ev.Alpha
	}
	if ev.Mechanism != nil && (o.Mechanism == nil || ev.PML < o.PML) {
		o.Mechanism, o.PML = ev.Mechanism, ev.PML
	}
	return o
}

// lpProbe tests t ≤ level with the solver's LPs.
//
// A feasible verdict is hard evidence: its point audits at most t. An
// infeasibility claim is taken as a bound only with a proof: the solver's
// Farkas certificate, or the duals of the infeasibility LP (polytope's
// Infeasibility objective), checked by certify.DualBound. Solvers
// accept points that violate rows by an absolute tolerance (about 1e-9),
// and at degenerate points an engine can even call a feasible LP
// infeasible: neither may move the certified lower end. With settle, a
// verdict without evidence (unproven, inconclusive) is settled by a cold
// solve of the infeasibility LP; without it, it only steers the search,
// which saves that solve where later probes will bring the evidence; two
// such verdicts in a row are settled all the same.
func (p *prober) lpProbe(t, level float64, settle bool) (outcome, error) {
	_, warm := p.slv.(solver.WarmSolver)
	o, err := p.solveFeasibility(t, level, warm, true)
	if err != nil && warm {
		o, err = p.solveFeasibility(t, level, false, true)
	}
	if err != nil {
		o, err = p.solveFeasibility(t, level, false, false)
	}
	if err != nil {
		return o, err
	}
	if o.v == feasible || o.v == infeasible || (!settle && !p.misses.stuck) {
		p.misses.stuck = o.v != feasible && o.v != infeasible
		p.stands.stood = p.stands.stood || p.misses.stuck
		return o, nil
	}
	p.misses.stuck = false
	g, err := p.solveInfeasibility(t)
	switch {
	case err != nil:
		return o, nil // the first answer stands
	case g.v == feasible || g.v == infeasible:
		return g, nil
	case o.v == unproven && g.g <= gNoise:
		// An infeasibility claim without proof while G vanishes: a
		// mechanism exists within the solvers' tolerance, so the search
		// steers down as for a claimed-feasible point.
		return g, nil
	case g.Mechanism != nil && (o.Mechanism == nil || g.PML < o.PML):
		o.Mechanism, o.PML = g.Mechanism, g.PML
	}
	return o, nil
}

// solveCold solves m once: in a session that polls p.stopped when the engine
// has one, else by the solver's Solve.
func (p *prober) solveCold(m *lp.Model) (*solver.Solution, error) {
	if ws, ok := p.slv.(solver.WarmSolver); ok && p.ctx != nil {
		sess, err := ws.Load(m)
		if err != nil {
			return nil, err
		}
		defer sess.Close()
		if ss, ok := sess.(solver.StoppableSession); ok {
			ss.SetStop(p.stopped)
			return ss.Solve()
		}
	}
	return p.slv.Solve(m)
}

// gNoise is the value of the infeasibility LP's optimum G (a sum of row
// violations of the unscaled LP) below which it is solver noise.
const gNoise = 1e-9

// solveFeasibility solves the feasibility LP (10) at t, warm or cold, with
// rows scaled or not, and judges its answer.
func (p *prober) solveFeasibility(t, level float64, warm, scale bool) (outcome, error) {
	var (
		sol *solver.Solution
		m   *polytope.Model
		err error
	)
	if warm {
		if p.sess == nil {
			p.model, err = p.build(level, level, polytope.Feasibility)
			if err != nil {
				return outcome{}, err
			}
			sess, err := p.slv.(solver.WarmSolver).Load(scaled(p.model.LP))
			if err != nil {
				return outcome{}, fmt.Errorf("worstcase: loading the feasibility LP: %w", err)
			}
			if bs, ok := sess.(solver.BasisSession); ok && p.start != nil {
				// Row scaling changes no basis status.
				if b, err := p.start.Onto(p.model); err == nil {
					_ = bs.SetBasis(b) // a refused basis only costs the warm start
				}
			}
			if ss, ok := sess.(solver.StoppableSession); ok && p.ctx != nil {
				ss.SetStop(p.stopped)
			}
			p.raw, p.sess = sess, scaledSession{sess}
		}
		if err := p.model.SetBudget(p.sess, pmlBudget(t)); err != nil {
			return outcome{}, fmt.Errorf("worstcase: moving ε to %g: %w", t, err)
		}
		m = p.model
		sol, err = p.sess.Solve()
	} else {
		m, err = p.build(t, t, polytope.Feasibility)
		if err != nil {
			return outcome{}, err
		}
		loaded := m.LP
		if scale {
			loaded = scaled(m.LP)
		}
		sol, err = p.solveCold(loaded)
	}
	p.solves++
	if err != nil {
		return outcome{}, fmt.Errorf("worstcase: solving the feasibility LP at ε = %.17g with %s: %w", t, p.slv.Name(), err)
	}
	switch sol.Status {
	case solver.Infeasible:
		// The raw ray when the engine gives one: a verified Certificate
		// is the same vector up to sign, and proven tries both signs.
		y := sol.Ray
		if y == nil {
			y = sol.Certificate
		}
		if lb, alpha, ok := p.proven(y); ok {
			return outcome{v: infeasible, Evidence: certify.Evidence{Lower: lb, Alpha: alpha}}, nil
		}
		return outcome{v: unproven}, nil
	case solver.Optimal:
		return p.judge(m, sol.X, t), nil
	}
	return outcome{}, fmt.Errorf("worstcase: feasibility LP at ε = %.17g: solver %s returned status %v", t, p.slv.Name(), sol.Status)
}

// solveInfeasibility solves the infeasibility LP at t from scratch: its
// optimum is 0 exactly when an ε-PML mechanism exists, its point is a
// candidate mechanism and its duals a candidate proof.
func (p *prober) solveInfeasibility(t float64) (outcome, error) {
	m, err := p.build(t, t, polytope.Infeasibility)
	if err != nil {
		return outcome{}, err
	}
	sol, err := p.solveCold(scaled(m.LP))
	p.solves++
	if err != nil {
		return outcome{}, err
	}
	if sol.Status != solver.Optimal {
		return outcome{}, fmt.Errorf("worstcase: infeasibility LP at ε = %.17g: solver %s returned status %v", t, p.slv.Name(), sol.Status)
	}
	if lb, alpha, ok := p.proven(sol.RowDuals); ok && lb >= t-proofMargin {
		return outcome{v: infeasible, Evidence: certify.Evidence{Lower: lb, Alpha: alpha}}, nil
	}
	o := p.judge(m, sol.X, t)
	o.g = sol.Objective // Σ r_j: row scaling leaves the objective unscaled
	if o.v == inconclusive {
		if lb, alpha, ok := p.proven(sol.RowDuals); ok {
			o.Lower, o.Alpha = lb, alpha // a weaker proof than t: kept by the caller's search
		}
	}
	return o, nil
}

// proven returns the lower bound a dual vector y of a feasibility or
// infeasibility LP of the pattern proves, and whether it proves anything.
// Only the duals of the rows sum[i] (the first N rows of every model) enter
// the proof, certify.DualBound's, which is checked in floating point and
// taken over the whole pattern: the models hand the solver the pattern
// with outputs pruned, and a proof for the pruned pattern alone would hold
// only below the pruning level. Both signs are tried (certificate
// conventions differ between engines; the proof holds either way).
func (p *prober) proven(y []float64) (float64, []float64, bool) {
	n := len(p.pi)
	if len(y) < n {
		return 0, nil, false
	}
	alpha := slices.Clone(y[:n])
	best, ok := certify.DualBound(p.pi, p.pat, alpha)
	neg := make([]float64, n)
	for i, a := range alpha {
		neg[i] = -a
	}
	if lb, k := certify.DualBound(p.pi, p.pat, neg); k && (!ok || lb > best) {
		return lb, neg, true
	}
	return best, alpha, ok
}

// judge audits the mechanism of an LP point against t.
func (p *prober) judge(m *polytope.Model, x []float64, t float64) outcome {
	mm, err := m.Mechanism(x)
	if err != nil {
		// An engine's point of the wrong length proves nothing.
		return outcome{v: inconclusive, Evidence: certify.Evidence{PML: math.Inf(1)}}
	}
	a, ok := certify.Within(p.pi, mm, t)
	if !ok {
		if cm, _ := clean.WithoutNoise(p.pi, mm, t); cm != nil {
			if ca := leakage.PML(p.pi, cm); ca < a {
				mm, a = cm, ca
			}
		}
	}
	if a > t+certify.ProbeSlack {
		return outcome{v: inconclusive, Evidence: certify.Evidence{Mechanism: mm, PML: a}}
	}
	return outcome{v: feasible, Evidence: certify.Evidence{Mechanism: mm, PML: a}}
}

// rowScale multiplies every row of the LPs handed to a solver: unscaled
// rows would blur ε* by a few 1e-9 (see polytope.RowScale).
const rowScale = polytope.RowScale

// scaled returns a copy of m with every row multiplied by rowScale.
func scaled(m *lp.Model) *lp.Model { return m.ScaledRows(rowScale) }

// scaledSession is a Session of a scaled model that takes the coefficients
// of the unscaled one.
type scaledSession struct{ solver.Session }

func (s scaledSession) SetCoef(row, col int, val float64) {
	s.Session.SetCoef(row, col, val*rowScale)
}

// maxLPPairs bounds the allowed pairs (the variables) of an LP the search
// builds: a 48×48 grid's value pattern near half the side has 2.6·10⁶ and
// the pure-Go simplex holds such an LP in gigabytes for an hour, so a
// search whose pure-Go probes left a pattern that large open ends with an
// error saying so instead.
const maxLPPairs = 1 << 20

// errLPTooLarge is build's error for an LP over maxLPPairs.
var errLPTooLarge = errors.New("too large for this search")

// build makes the LP at eps with the outputs pruned at level.
func (p *prober) build(eps, level float64, obj problem.Objective) (*polytope.Model, error) {
	pat := pruned(p.pat, p.c, level)
	pairs := 0
	for _, row := range pat {
		for _, a := range row {
			if a {
				pairs++
			}
		}
	}
	if pairs > maxLPPairs {
		return nil, fmt.Errorf("worstcase: the feasibility LP at ε = %.17g would have %d variables (allowed pairs), over the %d this search builds (%w): the pure-Go probes left the pattern of %d letters open", eps, pairs, maxLPPairs, errLPTooLarge, len(p.pi))
	}
	m, err := polytope.Build(polytope.Spec{
		Prior:     p.pi,
		Budget:    pmlBudget(eps),
		Pattern:   pat,
		Objective: obj,
	})
	if err != nil {
		return nil, fmt.Errorf("worstcase: building the feasibility LP: %w", err)
	}
	return m, nil
}

func (p *prober) close() {
	if p.sess != nil {
		p.sess.Close()
		p.sess, p.raw = nil, nil
	}
}

// finalBasis returns the keyed basis of the warm session's last solve, or
// nil.
func (p *prober) finalBasis() *patternbasis.Keyed {
	bs, ok := p.raw.(solver.BasisSession)
	if !ok {
		return nil
	}
	b, ok := bs.Basis()
	if !ok {
		return nil
	}
	k, err := patternbasis.Key(p.model, b)
	if err != nil {
		return nil
	}
	return k
}

// extrapolate tries, without an LP, multipliers extrapolated from the last
// two proofs' α (normalised to Σ|α| = 1) towards the predicted ε*: within
// one piece of the parametric LP the certificate moves almost linearly
// with t, so the extrapolated α often proves more than either.
func (p *prober) extrapolate(ps []proofPoint) (float64, []float64, bool) {
	if len(ps) < 2 {
		return 0, nil, false
	}
	a, b := ps[len(ps)-2], ps[len(ps)-1]
	if a.alpha == nil || b.alpha == nil || b.t == a.t {
		return 0, nil, false
	}
	e, _ := predict(ps)
	na, nb := normalised(a.alpha), normalised(b.alpha)
	best, bestA, ok := 0.0, []float64(nil), false
	for _, f := range extrapolations {
		x := f * (e - b.t) / (b.t - a.t)
		alpha := make([]float64, len(nb))
		for i := range alpha {
			alpha[i] = nb[i] + x*(nb[i]-na[i])
		}
		if lb, k := certify.DualBound(p.pi, p.pat, alpha); k && lb > best {
			best, bestA, ok = lb, alpha, true
		}
	}
	return best, bestA, ok
}

func normalised(v []float64) []float64 {
	s := 0.0
	for _, x := range v {
		s += math.Abs(x)
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x / s
	}
	return out
}
