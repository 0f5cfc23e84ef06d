package bisect

import (
	"context"
	"fmt"
	"math"

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
	if err := checkPattern(pat, len(pi)); err != nil {
		return Result{}, err
	}
	return search(ctx, pi, pat, cfg.slv, cfg.tol, hint{})
}

// checkPattern verifies that pat is an n×M pattern with an allowed output in
// every row.
func checkPattern(pat mech.Pattern, n int) error {
	if len(pat) != n {
		return &mech.FieldError{Field: "pattern", Row: -1, Col: -1,
			Msg: fmt.Sprintf("has %d rows but the prior has %d letters", len(pat), n)}
	}
	m := len(pat[0])
	if m == 0 {
		return &mech.FieldError{Field: "pattern", Row: 0, Col: -1, Msg: "has no columns"}
	}
	for i, row := range pat {
		if len(row) != m {
			return &mech.FieldError{Field: "pattern", Row: i, Col: -1,
				Msg: fmt.Sprintf("has %d entries, row 1 has %d", len(row), m)}
		}
		ok := false
		for _, a := range row {
			ok = ok || a
		}
		if !ok {
			return &mech.FieldError{Field: "pattern", Row: i, Col: -1,
				Msg: "forbids every output, so no mechanism respects it"}
		}
	}
	return nil
}

// hint carries what is known about a pattern from its neighbours on a curve:
// a lower bound (valid because a weaker pattern's least ε is no larger) and
// a mechanism that respects the pattern (one of a stronger pattern).
type hint struct {
	lo     float64
	loKind Bound
	hiMech mech.Mechanism // nil if none
	hi     float64        // audited PML of hiMech
}

// columnBounds returns, for every output j, c_j = −log Σ_{k allowed for j}
// π_k (+Inf for an output no input may use), and the index of an output
// allowed for every input, or −1.
func columnBounds(pi mech.Prior, pat mech.Pattern) (c []float64, all int) {
	m := len(pat[0])
	mass := make([]float64, m)
	count := make([]int, m)
	for i, row := range pat {
		for j, a := range row {
			if a {
				mass[j] += pi[i]
				count[j]++
			}
		}
	}
	c = make([]float64, m)
	all = -1
	for j := range c {
		c[j] = negLog(mass[j])
		if count[j] == len(pat) {
			c[j] = 0 // exactly, whatever the rounding of the prior's sum
			if all < 0 {
				all = j
			}
		}
	}
	return c, all
}

// negLog returns −log s, clamped at 0 for sums that round above 1.
func negLog(s float64) float64 {
	if s <= 0 {
		return math.Inf(1)
	}
	return math.Max(0, -math.Log(s))
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

// uniformOnAllowed returns the mechanism whose row i is uniform over the
// outputs pat allows for i: the utility-safe mechanism of the pattern.
func uniformOnAllowed(pat mech.Pattern) mech.Mechanism {
	p := mech.Zeros(len(pat), len(pat[0]))
	for i, row := range pat {
		k := 0
		for _, a := range row {
			if a {
				k++
			}
		}
		for j, a := range row {
			if a {
				p[i][j] = 1 / float64(k)
			}
		}
	}
	return p
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

var debugProbe func(t float64, v verdict, a float64, err error)

func pmlBudget(eps float64) mech.Budget { return mech.Budget{Measure: mech.PML, Epsilon: eps} }

// prober answers "is the feasibility LP feasible at ε?" for one pattern,
// through a warm Session when the solver has one and by rebuilding
// otherwise.
type prober struct {
	pi     mech.Prior
	pat    mech.Pattern
	c      []float64
	slv    solver.Solver
	solves int

	model *polytope.Model // warm path: loaded once, pruned at level
	sess  solver.Session
}

// verdict is the outcome of one probe.
type verdict int

const (
	infeasible   verdict = iota // the solver proved the LP infeasible: ε* > t
	feasible                    // a mechanism with audited PML ≤ t + slop was found
	inconclusive                // the solver claimed feasible, but its point audits above t
)

// auditSlop is how far above the tested ε a returned point may audit and
// still count as a feasible verdict: rounding, not solver tolerance.
const auditSlop = 1e-13

// probe solves the feasibility LP at t ≤ level (level: the pruning level of
// a warm model, the upper end of the bracket). It returns the verdict and,
// unless infeasible, the best mechanism extracted with its audited PML.
//
// Solvers accept points that violate rows by an absolute tolerance (about
// 1e-9), which lets a column of tiny mass have any ratio p_ij/q_j: its
// relative violation is tolerance/q_j. The audit sees that; so a claimed
// feasible point whose audit exceeds t is cleaned (such columns dropped) and,
// on a warm session, the LP is solved once more from scratch before the
// verdict is called inconclusive.
func (p *prober) probe(t, level float64) (verdict, mech.Mechanism, float64, error) {
	// A feasible verdict is hard evidence: its point audits at most t. An
	// infeasibility claim is not (a backend can be wrong near degenerate
	// points, and a certificate check proved too brittle), so it gets a
	// second opinion from a cold solve of the unscaled model, and is taken
	// unless that opinion finds an audited point. A failed warm solve is
	// retried cold and scaled first.
	warm := false
	if _, ok := p.slv.(solver.WarmSolver); ok {
		warm = true
	}
	var (
		sawInf  bool
		bestM   mech.Mechanism
		bestA   = math.Inf(1)
		lastErr error
	)
	try := func(w, sc bool) bool {
		v, mm, a, err := p.solve(t, level, w, sc)
		switch {
		case err != nil:
			lastErr = err
			return false
		case v == infeasible:
			sawInf = true
		case mm != nil && a < bestA:
			bestM, bestA = mm, a
		}
		return v == feasible
	}
	if try(warm, true) {
		return feasible, bestM, bestA, nil
	}
	if warm && lastErr != nil && !sawInf && bestM == nil {
		lastErr = nil
		if try(false, true) {
			return feasible, bestM, bestA, nil
		}
	}
	if try(false, false) {
		return feasible, bestM, bestA, nil
	}
	switch {
	case sawInf:
		return infeasible, bestM, bestA, nil
	case bestM != nil:
		return inconclusive, bestM, bestA, nil
	}
	return 0, nil, 0, lastErr
}

// solve is one LP solve at t, warm or cold, with rows scaled or not, and the
// audit of its point.
func (p *prober) solve(t, level float64, warm, scale bool) (verdict, mech.Mechanism, float64, error) {
	var (
		sol *solver.Solution
		m   *polytope.Model
		err error
	)
	if warm {
		if p.sess == nil {
			p.model, err = p.build(level, level)
			if err != nil {
				return 0, nil, 0, err
			}
			sess, err := p.slv.(solver.WarmSolver).Load(scaled(p.model.LP))
			if err != nil {
				return 0, nil, 0, fmt.Errorf("bisect: loading the feasibility LP: %w", err)
			}
			p.sess = scaledSession{sess}
		}
		if err := p.model.SetBudget(p.sess, pmlBudget(t)); err != nil {
			return 0, nil, 0, fmt.Errorf("bisect: moving ε to %g: %w", t, err)
		}
		m = p.model
		sol, err = p.sess.Solve()
	} else {
		m, err = p.build(t, t)
		if err != nil {
			return 0, nil, 0, err
		}
		loaded := m.LP
		if scale {
			loaded = scaled(m.LP)
		}
		sol, err = p.slv.Solve(loaded)
	}
	p.solves++
	if err != nil {
		return 0, nil, 0, fmt.Errorf("bisect: solving the feasibility LP at ε = %.17g with %s: %w", t, p.slv.Name(), err)
	}
	switch sol.Status {
	case solver.Infeasible:
		return infeasible, nil, 0, nil
	case solver.Optimal:
	default:
		return 0, nil, 0, fmt.Errorf("bisect: feasibility LP at ε = %.17g: solver %s returned status %v", t, p.slv.Name(), sol.Status)
	}
	mm := m.Mechanism(sol.X)
	a := leakage.PML(p.pi, mm)
	if a > t+auditSlop {
		if cm := clean(p.pi, mm, t); cm != nil {
			if ca := leakage.PML(p.pi, cm); ca < a {
				mm, a = cm, ca
			}
		}
	}
	if a > t+auditSlop {
		return inconclusive, mm, a, nil
	}
	return feasible, mm, a, nil
}

// rowScale multiplies every row of the LPs handed to a solver. Backends
// check feasibility with an absolute tolerance τ (about 1e-9) on the rows,
// and a row violated by τ moves the PML of an output of mass q_j by about
// τ/q_j, so unscaled rows would blur ε* by a few 1e-9. Scaling the rows by
// 2^10 (exact in floating point) tightens that by three orders without
// changing the feasible set.
const rowScale = 1024

// scaled returns a copy of m with every row multiplied by rowScale.
func scaled(m *lp.Model) *lp.Model {
	s := *m
	s.ConstMatrix = make([]lp.Nonzero, len(m.ConstMatrix))
	for k, e := range m.ConstMatrix {
		s.ConstMatrix[k] = lp.Nonzero{Row: e.Row, Col: e.Col, Val: e.Val * rowScale}
	}
	s.RowLower = make([]float64, len(m.RowLower))
	s.RowUpper = make([]float64, len(m.RowUpper))
	for i := range m.RowLower {
		s.RowLower[i] = m.RowLower[i] * rowScale
		s.RowUpper[i] = m.RowUpper[i] * rowScale
	}
	return &s
}

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
		sum := 0.0
		for _, v := range c[i] {
			sum += v
		}
		if sum <= 0 {
			return nil
		}
		for j := range c[i] {
			c[i][j] /= sum
		}
	}
	return c
}

// build makes the feasibility LP at eps with the outputs pruned at level.
func (p *prober) build(eps, level float64) (*polytope.Model, error) {
	m, err := polytope.Build(polytope.Spec{
		Prior:     p.pi,
		Budget:    pmlBudget(eps),
		Pattern:   pruned(p.pat, p.c, level),
		Objective: polytope.Feasibility,
	})
	if err != nil {
		return nil, fmt.Errorf("bisect: building the feasibility LP: %w", err)
	}
	return m, nil
}

func (p *prober) close() {
	if p.sess != nil {
		p.sess.Close()
		p.sess = nil
	}
}

// search is LeastEpsilon on validated input, starting from what h knows.
func search(ctx context.Context, pi mech.Prior, pat mech.Pattern, slv solver.Solver, tol float64, h hint) (Result, error) {
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
		r.EpsLower, r.Lower = h.lo, h.loKind
	}
	r.Mechanism = uniformOnAllowed(pat)
	r.EpsUpper = leakage.PML(pi, r.Mechanism)
	if h.hiMech != nil && h.hi < r.EpsUpper {
		r.Mechanism, r.EpsUpper = h.hiMech, h.hi
	}

	// The search keeps lo (a proven lower bound: ε* ≥ lo) and the audited
	// upper end r.EpsUpper, and bisects [lo, hv], where hv ≤ r.EpsUpper is
	// the least ε tested whose LP the solver called feasible. hv runs below
	// r.EpsUpper only when a claimed-feasible point audits above its ε
	// (inconclusive); then the bracket can stay wider than tol, and the
	// search stops once [lo, hv] is below tol/64 wide.
	lo, hv := r.EpsLower, r.EpsUpper
	p := &prober{pi: pi, pat: pat, c: c, slv: slv}
	defer p.close()
	level := hv // the pruning level of a warm model: valid for every ε ≤ hv

	// The first probes test the ends: just below the upper end (the
	// utility-safe mechanism, or the neighbour's, is often optimal) and, for
	// a proven bound, lo itself (the pruning bound is sometimes tight).
	// Then the bracket is bisected.
	first := []float64{hv - tol/2}
	if r.Lower == BoundPruning {
		first = append(first, lo)
	}
	failures := 0
	var lastErr error
	for k := 0; r.EpsUpper-lo > tol && hv-lo > tol/64 && k < maxProbes; k++ {
		if err := ctx.Err(); err != nil {
			return finish(r, lo, p), err
		}
		t := lo + (hv-lo)/2
		switch {
		case failures > 0:
			// Another point of the bracket after a solver failure.
			t = lo + (hv-lo)*[]float64{0.3, 0.7}[failures-1]
		case k < len(first):
			t = first[k]
			if t < lo || t >= hv {
				continue
			}
		}
		v, mm, a, err := p.probe(t, level)
		if debugProbe != nil {
			debugProbe(t, v, a, err)
		}
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
		if v == infeasible {
			lo, r.Lower = t, BoundInfeasible
			continue
		}
		if a < r.EpsUpper && pat.Holds(mm) {
			r.Mechanism, r.EpsUpper = mm, a
		}
		hv = math.Min(t, r.EpsUpper)
	}
	if r.EpsUpper-lo > tol && lastErr != nil {
		return finish(r, lo, p), lastErr
	}
	return finish(r, lo, p), nil
}

// finish completes r with the lower end lo and the LP count. A lower end
// above the audited upper end can only come from rounding in a solver's
// infeasibility verdict; the audited mechanism wins.
func finish(r Result, lo float64, p *prober) Result {
	r.EpsLower = math.Min(lo, r.EpsUpper)
	r.LPSolves = p.solves
	return r
}
