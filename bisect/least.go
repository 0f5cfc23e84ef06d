package bisect

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/internal/patternbasis"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

// maxProbes caps the number of LPs of one search. Halving a bracket of at
// most −log p_min ≤ 745 nats down to 1e-15 takes about 60 probes.
const maxProbes = 200

// pruneSlack is added to the level at which outputs are pruned, so that an
// output whose bound equals the level up to rounding is kept. Pruning at a
// higher level is always valid; it only keeps more columns.
const pruneSlack = 1e-9

// LeastEpsilon returns the least ε at which an ε-PML mechanism exists that is
// zero on every pair pat forbids (problem (2) of seed 002 for a general zero
// pattern), bracketed to within opt.Tol, together with a mechanism reaching
// the upper end of the bracket. See the package documentation for the
// search and what the bracket certifies.
//
// pat must have one row per letter of pi, and every row must allow at least
// one output. If ctx is cancelled the search stops before its next LP and
// returns the bracket reached so far (valid, but wider than Tol) with
// ctx.Err().
func LeastEpsilon(ctx context.Context, pi mech.Prior, pat mech.Pattern, opt Options) (Result, error) {
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
}

// columnBounds returns, for every output j, c_j = −log Σ_{k allowed for j}
// π_k (+Inf for an output no input may use), and the index of an output
// allowed for every input, or −1.
func columnBounds(pi mech.Prior, pat mech.Pattern) (c []float64, all int) {
	c = pat.OutputBounds(pi)
	all = -1
	for j, v := range c {
		if v == 0 { // exactly 0 only for an output every input may use
			all = j
			break
		}
	}
	return c, all
}

// pruningBound returns max_i min_{j allowed for i} c_j.
func pruningBound(pat mech.Pattern, c []float64) float64 {
	lb := 0.0
	for _, row := range pat {
		best := math.Inf(1)
		for j, a := range row {
			if a {
				best = math.Min(best, c[j])
			}
		}
		lb = math.Max(lb, best)
	}
	return lb
}

// independent returns the mechanism that sends every input to output j.
func independent(n, m, j int) mech.Mechanism {
	p := mech.Zeros(n, m)
	for i := range p {
		p[i][j] = 1
	}
	return p
}

// pruned returns pat with the columns whose bound exceeds level forbidden:
// at every ε ≤ level no ε-PML mechanism can use them.
func pruned(pat mech.Pattern, c []float64, level float64) mech.Pattern {
	out := make(mech.Pattern, len(pat))
	for i, row := range pat {
		out[i] = make([]bool, len(row))
		for j, a := range row {
			out[i][j] = a && c[j] <= level+pruneSlack
		}
	}
	return out
}

func pmlBudget(eps float64) mech.Budget { return mech.Budget{Measure: mech.PML, Epsilon: eps} }

// prober answers "is there an ε-PML mechanism with the pattern at ε = t?"
// for one pattern, through a warm Session when the solver has one and by
// rebuilding otherwise.
type prober struct {
	pi     mech.Prior
	pat    mech.Pattern
	c      []float64
	slv    solver.Solver
	solves int
	ipm    bool           // ask ipm.Probe first
	cols   bool           // ask the column generation (master) first
	master *colgen.Master // the column generation's master problem, made on first use
	seed   *colgen.Seed   // columns from a neighbouring pattern for the master, or nil
	probes int            // ipm.Probe or master probe calls

	model     *polytope.Model // warm path: loaded once, pruned at level
	sess      solver.Session
	raw       solver.Session      // sess without the row scaling
	start     *patternbasis.Keyed // a neighbouring pattern's basis for the first solve, or nil
	keepBasis bool                // key the final basis for the Result (finish)

	// closes, if not nil, reports whether a proven bound lb and an
	// audited mechanism at a would close the search's bracket: a pure-Go
	// probe's evidence then stands without an LP.
	closes func(lb, a float64) bool

	near  bool // the last pure-Go probe stood open near ε* without an LP (withoutLP)
	stuck bool // the last probe's verdict was unproven or inconclusive
}

// verdict is the outcome of one probe.
type verdict int

const (
	// infeasible: proven, by a dual point that polytope.DualBound
	// checks in floating point, that no mechanism exists below lb.
	infeasible verdict = iota
	// feasible: a mechanism with audited PML ≤ t + auditSlop was found.
	feasible
	// inconclusive: the solver claimed feasible, but its point audits
	// above t (a point accepted only within the solver's tolerance).
	inconclusive
	// unproven: the solver claimed infeasible, and neither its
	// certificate nor the infeasibility LP's duals prove it.
	unproven
)

// outcome is a probe's verdict with its evidence: the best mechanism found
// and its audited PML (feasible, inconclusive), or the proven bound lb
// (infeasible).
type outcome struct {
	v   verdict
	m   mech.Mechanism
	a   float64
	lb  float64
	g   float64 // the infeasibility LP's optimum G, when it was solved
	est float64 // an estimate of ε* (infeasible verdicts of the column generation), 0 if none
	pol bool    // m is the column generation's polished mechanism (often at ε* itself)

	alpha []float64 // the multipliers proving lb (polytope.DualBound)
}

// exactRange is the bracket width below which the column generation's
// search tests whether its last proof is exact before it bisects.
const exactRange = 1e-5

// proofMargin is how far below t a proven bound may fall and still count as
// proving t infeasible: polytope.DualBound gives up about 1e-13 to
// rounding.
const proofMargin = 1e-12

// auditSlop is how far above the tested ε a returned point may audit and
// still count as a feasible verdict: rounding, not solver tolerance.
const auditSlop = 1e-13

// probe tests t ≤ level (level: the pruning level of a warm model, the
// upper end of the bracket): by ipm.Probe first when the prober asks it
// (its verdict stands when its evidence settles the question), else, or
// for what it leaves open, by lpProbe, whose outcome then carries the
// interior point's evidence as well.
func (p *prober) probe(t, level float64, settle bool) (outcome, error) {
	var ev *evidence
	if p.ipm || p.cols {
		var o outcome
		if o, ev = p.goProbe(t); o.v == feasible || o.v == infeasible {
			p.near = false
			return o, nil
		}
		if o, ok := p.withoutLP(t, ev); ok {
			return o, nil
		}
	}
	o, err := p.lpProbe(t, level, settle)
	if err == nil && ev != nil {
		o = o.with(ev)
	}
	return o, err
}

// nearSlop: a pure-Go probe's mechanism that audits at most this far
// above t marks the probe as within reach of ε* (see withoutLP).
const nearSlop = 1e-8

// withoutLP decides whether a pure-Go probe at t that left the question
// open (its mechanism audits a hair above t, its proof a hair below: that
// happens within a few 1e-10 of ε*) stands without an LP, which at a few
// hundred letters takes Clp minutes. It stands, as inconclusive with its
// evidence, when the evidence closes the search's bracket (closes), and
// when its mechanism audits within nearSlop of t and the last probe did not
// stand open this way too: the search then steers below t, where the next
// probe usually brings a proof and a polished mechanism.
func (p *prober) withoutLP(t float64, ev *evidence) (outcome, bool) {
	if ev == nil {
		return outcome{}, false
	}
	o := outcome{v: inconclusive, m: ev.m, a: ev.a, lb: ev.lb, alpha: ev.alpha}
	switch {
	case p.closes != nil && p.closes(ev.lb, ev.a):
		return o, true
	case !p.near && ev.a <= t+nearSlop:
		p.near = true
		return o, true
	}
	return outcome{}, false
}

// evidence is what a pure-Go probe (ipm.Probe, the column generation)
// found: a mechanism with the pattern and its audited PML (m nil and a
// +Inf if none), and multipliers alpha proving lb (lb 0 when they prove
// nothing, alpha nil when there are none).
type evidence struct {
	m     mech.Mechanism
	a     float64
	lb    float64
	alpha []float64
	est   float64 // an estimate of ε* (the column generation's Newton step), 0 if none
	pol   bool    // m is the column generation's polished mechanism
}

// goProbe asks ipm.Probe or the column generation about t. Its verdict is
// feasible or infeasible when the evidence settles the question, and
// unproven otherwise (then ev holds whatever it found, for the LP's
// outcome). An infeasible verdict keeps the mechanism found, if any: the
// column generation's polished basis gives one above t.
func (p *prober) goProbe(t float64) (o outcome, ev *evidence) {
	p.probes++
	if p.cols {
		r, err := p.masterProbe(t)
		if err != nil {
			return outcome{v: unproven}, nil
		}
		ev = &evidence{m: r.Mechanism, a: r.PML, lb: r.Lower, alpha: r.Alpha, est: r.Estimate, pol: r.Polished}
	} else {
		r, err := ipm.Probe(p.pi, p.pat, t)
		if err != nil {
			return outcome{v: unproven}, nil
		}
		ev = &evidence{m: r.Mechanism, a: r.PML, lb: r.Lower, alpha: r.Alpha}
	}
	if ev.m != nil && !p.pat.Holds(ev.m) {
		ev.m, ev.a = nil, math.Inf(1)
	}
	switch {
	case ev.alpha != nil && ev.lb >= t-proofMargin:
		return outcome{v: infeasible, lb: ev.lb, alpha: ev.alpha, m: ev.m, a: ev.a, est: ev.est, pol: ev.pol}, ev
	case ev.m != nil && ev.a <= t+auditSlop:
		return outcome{v: feasible, m: ev.m, a: ev.a, lb: ev.lb, alpha: ev.alpha}, ev
	}
	return outcome{v: unproven}, ev
}

// masterProbe asks the column generation about t. Should the master's
// engine stall (a run of degenerate pivots it can not leave, rare and
// hard to foresee), a fresh master seeded with the stalled one's basic
// columns tries once more: at a few hundred letters the LP the search
// would fall back on takes minutes, a fresh master seconds.
func (p *prober) masterProbe(t float64) (*colgen.Result, error) {
	for try := 0; ; try++ {
		if p.master == nil {
			var err error
			if p.master, err = colgen.New(p.pi, p.pat); err != nil {
				return nil, err
			}
			_ = p.master.AddSeed(p.seed) // a refused seed only costs the warm start
		}
		r, err := probeMaster(p.master, t)
		if err == nil || try > 0 {
			return r, err
		}
		if s := p.master.Seed(); s != nil {
			p.seed = s
		}
		p.master = nil
	}
}

// probeMaster is (*colgen.Master).Probe; tests replace it to make a master
// stall.
var probeMaster = (*colgen.Master).Probe

// with adds a pure-Go probe's evidence to an LP's outcome: a higher proven
// bound, and a better mechanism.
func (o outcome) with(ev *evidence) outcome {
	if ev.alpha != nil && ev.lb > o.lb {
		o.lb, o.alpha = ev.lb, ev.alpha
	}
	if ev.m != nil && (o.m == nil || ev.a < o.a) {
		o.m, o.a = ev.m, ev.a
	}
	return o
}

// lpProbe tests t ≤ level with the solver's LPs.
//
// A feasible verdict is hard evidence: its point audits at most t. An
// infeasibility claim is taken as a bound only with a proof: the solver's
// Farkas certificate, or the duals of the infeasibility LP (polytope's
// Infeasibility objective), checked by polytope.DualBound. Solvers
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
	if o.v == feasible || o.v == infeasible || (!settle && !p.stuck) {
		p.stuck = o.v != feasible && o.v != infeasible
		return o, nil
	}
	p.stuck = false
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
	case g.m != nil && (o.m == nil || g.a < o.a):
		o.m, o.a = g.m, g.a
	}
	return o, nil
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
				return outcome{}, fmt.Errorf("bisect: loading the feasibility LP: %w", err)
			}
			if bs, ok := sess.(solver.BasisSession); ok && p.start != nil {
				// Row scaling changes no basis status.
				if b, err := p.start.Onto(p.model); err == nil {
					_ = bs.SetBasis(b) // a refused basis only costs the warm start
				}
			}
			p.raw, p.sess = sess, scaledSession{sess}
		}
		if err := p.model.SetBudget(p.sess, pmlBudget(t)); err != nil {
			return outcome{}, fmt.Errorf("bisect: moving ε to %g: %w", t, err)
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
		sol, err = p.slv.Solve(loaded)
	}
	p.solves++
	if err != nil {
		return outcome{}, fmt.Errorf("bisect: solving the feasibility LP at ε = %.17g with %s: %w", t, p.slv.Name(), err)
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
			return outcome{v: infeasible, lb: lb, alpha: alpha}, nil
		}
		return outcome{v: unproven}, nil
	case solver.Optimal:
		return p.judge(m, sol.X, t), nil
	}
	return outcome{}, fmt.Errorf("bisect: feasibility LP at ε = %.17g: solver %s returned status %v", t, p.slv.Name(), sol.Status)
}

// solveInfeasibility solves the infeasibility LP at t from scratch: its
// optimum is 0 exactly when an ε-PML mechanism exists, its point is a
// candidate mechanism and its duals a candidate proof.
func (p *prober) solveInfeasibility(t float64) (outcome, error) {
	m, err := p.build(t, t, polytope.Infeasibility)
	if err != nil {
		return outcome{}, err
	}
	sol, err := p.slv.Solve(scaled(m.LP))
	p.solves++
	if err != nil {
		return outcome{}, err
	}
	if sol.Status != solver.Optimal {
		return outcome{}, fmt.Errorf("bisect: infeasibility LP at ε = %.17g: solver %s returned status %v", t, p.slv.Name(), sol.Status)
	}
	if lb, alpha, ok := p.proven(sol.RowDuals); ok && lb >= t-proofMargin {
		return outcome{v: infeasible, lb: lb, alpha: alpha}, nil
	}
	o := p.judge(m, sol.X, t)
	o.g = sol.Objective // Σ r_j: row scaling leaves the objective unscaled
	if o.v == inconclusive {
		if lb, alpha, ok := p.proven(sol.RowDuals); ok {
			o.lb, o.alpha = lb, alpha // a weaker proof than t: kept by the caller's search
		}
	}
	return o, nil
}

// proven returns the lower bound a dual vector y of a feasibility or
// infeasibility LP of the pattern proves, and whether it proves anything.
// Only the duals of the rows sum[i] (the first N rows of every model) enter
// the proof, polytope.DualBound's, which is checked in floating point and
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
	best, ok := polytope.DualBound(p.pi, p.pat, alpha)
	neg := make([]float64, n)
	for i, a := range alpha {
		neg[i] = -a
	}
	if lb, k := polytope.DualBound(p.pi, p.pat, neg); k && (!ok || lb > best) {
		return lb, neg, true
	}
	return best, alpha, ok
}

// judge audits the mechanism of an LP point against t.
func (p *prober) judge(m *polytope.Model, x []float64, t float64) outcome {
	mm := m.Mechanism(x)
	a := leakage.PML(p.pi, mm)
	if a > t+auditSlop {
		if cm := clean(p.pi, mm, t); cm != nil {
			if ca := leakage.PML(p.pi, cm); ca < a {
				mm, a = cm, ca
			}
		}
	}
	if a > t+auditSlop {
		return outcome{v: inconclusive, m: mm, a: a}
	}
	return outcome{v: feasible, m: mm, a: a}
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

// clean returns p without the outputs whose PML exceeds t and whose entries
// are all at most 1e-6 (solver noise), rows renormalised; nil if there are
// none or a row would be left empty.
func clean(pi mech.Prior, p mech.Mechanism, t float64) mech.Mechanism {
	per := leakage.PMLPerOutput(pi, p)
	var drop []int
	for j, l := range per {
		if l <= t {
			continue
		}
		small := true
		for i := range p {
			small = small && p[i][j] <= 1e-6
		}
		if small {
			drop = append(drop, j)
		}
	}
	if len(drop) == 0 {
		return nil
	}
	c := p.Clone()
	for i := range c {
		for _, j := range drop {
			c[i][j] = 0
		}
		if mech.Normalise(c[i]) <= 0 {
			return nil
		}
	}
	return c
}

// build makes the LP at eps with the outputs pruned at level.
func (p *prober) build(eps, level float64, obj polytope.Objective) (*polytope.Model, error) {
	m, err := polytope.Build(polytope.Spec{
		Prior:     p.pi,
		Budget:    pmlBudget(eps),
		Pattern:   pruned(p.pat, p.c, level),
		Objective: obj,
	})
	if err != nil {
		return nil, fmt.Errorf("bisect: building the feasibility LP: %w", err)
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

// search is LeastEpsilon on validated input, starting from what h knows.
func search(ctx context.Context, pi mech.Prior, pat mech.Pattern, cfg config, tol float64, h hint) (Result, error) {
	n, m := len(pat), len(pat[0])
	c, all := columnBounds(pi, pat)
	if all >= 0 {
		// Proven ε* = 0: the output marginal of a mechanism that uses
		// only output `all` is a point mass, and its PML is 0.
		return Result{Lower: BoundZero, Mechanism: independent(n, m, all)}, nil
	}

	r := Result{Lower: BoundZero}
	if lb := pruningBound(pat, c); lb > 0 {
		r.EpsLower, r.Lower = lb, BoundPruning
	}
	if h.lo > r.EpsLower {
		r.EpsLower, r.Lower, r.Proof = h.lo, h.loKind, h.proof
	}
	r.Mechanism = closedform.UniformOnAllowed(pat)
	r.EpsUpper = leakage.PML(pi, r.Mechanism)
	if h.hiMech != nil && h.hi < r.EpsUpper {
		r.Mechanism, r.EpsUpper = h.hiMech.Clone(), h.hi
	}

	// The search keeps lo (a proven lower bound: ε* ≥ lo) and the audited
	// upper end r.EpsUpper, and bisects the steering interval [sl, hv]:
	// sl ≥ lo is the largest ε the solver called infeasible (proven or
	// not), hv ≤ r.EpsUpper the least ε it called feasible. They differ from
	// the certified ends only when a verdict is unproven (sl > lo) or a
	// claimed-feasible point audits above its ε (hv < r.EpsUpper); then the
	// bracket can stay wider than tol, and the search stops once [sl, hv]
	// is below tol/64 wide.
	lo := r.EpsLower
	sl, hv := lo, r.EpsUpper
	p := &prober{pi: pi, pat: pat, c: c, slv: cfg.slv, start: h.basis, seed: h.seed, keepBasis: h.keepBasis, ipm: cfg.ipmFor(len(pi)), cols: cfg.colsFor(len(pi))}
	defer p.close()
	level := hv // the pruning level of a warm model: valid for every ε ≤ hv

	// With LP or ipm probes, the first probe tests lo (the pruning bound is
	// sometimes tight). Then each proof's prediction of ε* (predict) is
	// probed once, and between predictions the probe tests lo + tol/2;
	// bisection takes over when five probes in a row fail to halve [sl, hv]
	// (proofs that creep up from far below do not halve it, and should not
	// trigger it). With the column generation, the first probe is in the
	// middle of the bracket; after a proof its Newton estimate is probed
	// (a hair below), after a polished mechanism a proof just below it,
	// and otherwise the search bisects (testing a proof's exactness first
	// within exactRange). raise takes a proven bound (capped at the
	// audited upper end) as the new lower end when it is higher.
	raise := func(lb float64, alpha []float64) {
		if lb = math.Min(lb, r.EpsUpper); lb > lo {
			lo, r.Lower, r.Proof = lb, BoundInfeasible, alpha
		}
	}
	p.closes = func(lb, a float64) bool { return math.Min(a, r.EpsUpper)-math.Max(lb, lo) <= tol }
	var proofs []proofPoint
	slow, uses := 0, 0
	closeIn := false    // an infeasible probe brought a polished mechanism: try a proof just below it
	newton := 0.0       // the last infeasible probe's estimate of ε*, to probe next
	exactTried := false // the last proof's exactness was tested (at sl + tol/2)
	failures := 0
	var lastErr error
	for k := 0; r.EpsUpper-lo > tol && hv-sl > tol/64 && k < maxProbes; k++ {
		if err := ctx.Err(); err != nil {
			return finish(r, lo, p), err
		}
		t := sl + (hv-sl)/2
		switch {
		case failures > 0:
			// Another point of the bracket after a solver failure.
			t = sl + (hv-sl)*[]float64{0.3, 0.7}[failures-1]
		case k == 0 && p.cols:
			// The column generation pays most for a probe far below ε*
			// (the pruning bound often is): it starts in the middle.
			t = sl + (hv-sl)/2
		case k == 0:
			t = lo
		case slow >= 5:
			slow = 0 // bisect
		default:
			// A fresh prediction is probed just above (or, predicted
			// at the upper end, just below that). Otherwise the probe
			// tests whether the last proof is exact, at sl + tol/2: the
			// proofs often land on ε* itself, and an infeasible answer
			// brings a new proof and a new prediction.
			t = sl + math.Min((hv-sl)/2, tol/2)
			if closeIn && hv-tol/2 > sl {
				t, closeIn = hv-tol/2, false
				break
			}
			if newton > sl+tol/4 && newton < hv {
				t, newton = newton-tol/4, 0
				break
			}
			if p.cols && k > 0 && (exactTried || hv-sl > exactRange) {
				// The column generation's Newton estimates overshoot far
				// from ε*: without a fresh estimate, bisect (near ε*,
				// after testing whether the last proof is exact).
				t = sl + (hv-sl)/2
				break
			}
			exactTried = true
			if e, ok := predict(proofs); ok && uses < 1 {
				c := e + tol/4
				if c >= hv && e-hv <= hv-sl {
					// Predicted at or just above the upper end: a
					// proof just below it closes the bracket.
					c = hv - 0.75*tol
				}
				if c > sl && c < hv {
					t = c
					uses++
				}
			}
		}
		width := hv - sl
		o, err := p.probe(t, level, false)
		if err != nil {
			// A backend may fail at a degenerate point: two other points
			// of the bracket get a chance, then the search steers below
			// the failing point (the bracket stays sound, only possibly
			// wider). The error is returned if the bracket ends wider than
			// tol.
			lastErr = err
			if failures++; failures > 2 {
				hv, failures = t, 0
			}
			continue
		}
		failures = 0
		switch o.v {
		case infeasible:
			raise(o.lb, o.alpha)
			newton, exactTried = o.est, false
			if o.m != nil && o.a < r.EpsUpper {
				// An infeasible probe's mechanism (the column
				// generation's polished basis, ipm.Probe's point) is an
				// audited upper end all the same; a polished one is
				// often ε* itself.
				r.Mechanism, r.EpsUpper = o.m, o.a
				hv, closeIn = math.Min(hv, o.a), o.pol
			}
			proofs, uses = append(proofs, proofPoint{t: t, lb: o.lb, alpha: o.alpha}), 0
			if lb, alpha, ok := p.extrapolate(proofs); ok {
				raise(lb, alpha)
			}
			sl = math.Max(sl, math.Max(t, lo))
			slow = progress(slow, width, hv-sl)
			continue
		case unproven:
			sl = math.Max(sl, t)
			slow = progress(slow, width, hv-sl)
			continue
		}
		if o.m != nil && o.a < r.EpsUpper && pat.Holds(o.m) {
			r.Mechanism, r.EpsUpper = o.m, o.a
		}
		if o.lb > lo && o.lb <= r.EpsUpper {
			lo, r.Lower, r.Proof = o.lb, BoundInfeasible, o.alpha
		}
		hv = math.Min(t, r.EpsUpper)
		if hv < sl {
			// An unproven infeasibility above a feasible point: the
			// solver contradicted itself; trust the audited point.
			sl = lo
		}
		slow = progress(slow, width, hv-sl)
	}
	// The steering interval can collapse while the certified lower end
	// lags (unproven verdicts near ε*, or a proof that gives up its
	// rounding margin): close the bracket with proofs just below the
	// upper end.
	for _, f := range []float64{0.5, 0.9} {
		t := r.EpsUpper - f*tol
		if r.EpsUpper-lo <= tol || t <= lo || ctx.Err() != nil {
			break
		}
		o, err := p.probe(t, level, true)
		if err != nil {
			continue
		}
		if o.m != nil && o.a < r.EpsUpper && pat.Holds(o.m) {
			r.Mechanism, r.EpsUpper = o.m, o.a
		}
		if o.alpha != nil {
			raise(o.lb, o.alpha) // proven whatever the verdict
		}
	}
	if r.EpsUpper-lo > tol && lastErr != nil {
		return finish(r, lo, p), lastErr
	}
	return finish(r, lo, p), nil
}

// proofPoint is an infeasible probe: the tested ε and the bound its proof
// gave (often well above t: polytope.DualBound optimises the multipliers).
type proofPoint struct {
	t, lb float64
	alpha []float64
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
	for _, f := range []float64{0.5, 1, 1.5} {
		x := f * (e - b.t) / (b.t - a.t)
		alpha := make([]float64, len(nb))
		for i := range alpha {
			alpha[i] = nb[i] + x*(nb[i]-na[i])
		}
		if lb, k := polytope.DualBound(p.pi, p.pat, alpha); k && lb > best {
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
			if q := (b.lb - a.lb) / d; q >= 0 && q <= 0.99 {
				r = q
			}
		}
	}
	return (b.lb - r*b.t) / (1 - r), true
}

// progress counts the probes in a row that did not halve the steering
// interval.
func progress(slow int, before, after float64) int {
	if after <= before/2 {
		return 0
	}
	return slow + 1
}

// finish completes r with the lower end lo and the LP count. A lower end
// above the audited upper end can only come from rounding in a solver's
// infeasibility verdict; the audited mechanism wins.
func finish(r Result, lo float64, p *prober) Result {
	r.EpsLower = math.Min(lo, r.EpsUpper)
	r.LPSolves = p.solves
	r.GoProbes = p.probes
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
