package colgen

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// Master is the restricted master problem of one zero pattern: an N-row LP
// over the extreme columns generated so far. It keeps its columns and basis
// from one Probe to the next. A Master is not safe for concurrent use.
type Master struct {
	pi      mech.Prior
	pat     mech.Pattern
	allowed [][]int // allowed[j]: the inputs allowed for output j
	eps     float64
	mu      float64 // e^{−eps} = 1/λ
	sx      *dense
	cols    []column // generated columns; cols[k] is LP column n + k

	// f folds the master by a symmetry group (NewSymmetric), nil for
	// none. rho holds the masses of the master's rows (the prior, or the
	// masses of the input orbits), outs the outputs priced (every
	// output, or one per orbit).
	f    *fold
	rho  []float64
	outs []int
	acc  []float64 // scratch of fold.reduce
	mark []bool    // scratch of fold.reduce

	order []int     // scratch: inputs by decreasing y_i/π_i
	ratio []float64 // scratch

	// Scratch of priceAt: one output's fill order and column, copied
	// only when the column enters (most outputs price out).
	cand     []int
	candRows []int
	candVals []float64

	stop func() bool // polled once per pricing round (SetStop), or nil

	// decide: end a probe at the first stabilisation centre whose
	// multipliers prove the probed ε (SetDecide).
	decide bool
}

// ErrStopped is the error of a Probe that the function given to SetStop
// ended.
var ErrStopped = errors.New("colgen: stopped")

// SetStop makes every later Probe poll stop once per pricing round and
// end with ErrStopped when it returns true: a probe can run for a
// thousand pricing rounds of O(N²) pivots each, and a caller's cancelled
// work should not wait it out.
func (g *Master) SetStop(stop func() bool) { g.stop = stop }

// SetDecide makes every later Probe end as soon as the duals of its
// stabilisation centre prove, by certify.DualBound, that no mechanism with
// the pattern has PML below the probed ε, instead of pricing on until the
// master is optimal: a caller that only needs the verdict (a binary
// search's decision at a budget) saves the rounds that would raise the
// proof to ε* and give Newton's estimate. Such a probe's proof is about
// the probed ε, not more, and it has no Estimate.
func (g *Master) SetDecide(on bool) { g.decide = on }

// decideEvery is how many pricing rounds a deciding probe lets pass
// between two checks of its centre by certify.DualBound, whose O(N·M)
// pass costs about as much as a pricing round.
const decideEvery = 4

// column is a generated column: output j, the inputs in the order its
// fill takes them, and its entries at the current λ; erows and evals are
// its entries in the master (folded, or rows and vals themselves).
type column struct {
	j     int
	order []int
	rows  []int
	vals  []float64
	erows []int
	evals []float64
	dead  bool // no column with this order exists at the current λ: fixed at 0
}

// engineCol sets c's entries in the master from its unfolded ones.
func (g *Master) engineCol(c *column) {
	if g.f == nil {
		c.erows, c.evals = c.rows, c.vals
		return
	}
	c.erows, c.evals = g.f.reduce(c.j, c.rows, c.vals, g.acc, g.mark, c.erows, c.evals)
}

// Result is what a Probe found.
type Result struct {
	// Evidence holds the master's point as a mechanism with the pattern,
	// rows normalised, when the master reached a zero sum of slacks (nil
	// otherwise), and the row duals of the master as Alpha.
	certify.Evidence
	// Polished reports that Mechanism comes from the master's final
	// basis moved to the ε where it becomes feasible (see polish).
	Polished bool
	// Estimate is Newton's estimate of ε* from the master's final basis
	// (the first step of polish), 0 when there is none.
	Estimate float64
	// Rounds is the number of pricing rounds, Columns the columns of
	// the master after the probe, Pivots the simplex iterations.
	Rounds, Columns, Pivots int
	// Unsettled reports that the probe stopped at its round limit with
	// the master's sum of slacks still positive: neither answer is
	// known, though such tailing happens below ε*, where the master must
	// prove a positive optimum.
	Unsettled bool
}

// New returns the master problem of the pattern pat over the prior pi,
// holding only the slack columns.
func New(pi mech.Prior, pat mech.Pattern) (*Master, error) {
	if _, err := mech.NewPrior(pi); err != nil {
		return nil, err
	}
	n := len(pi)
	if err := pat.Check(n); err != nil {
		return nil, err
	}
	m := len(pat[0])
	g := &Master{pi: pi, pat: pat, allowed: make([][]int, m), eps: -1, rho: pi}
	for j := range m {
		for i := range n {
			if pat[i][j] {
				g.allowed[j] = append(g.allowed[j], i)
			}
		}
		if len(g.allowed[j]) > 0 {
			g.outs = append(g.outs, j)
		}
	}
	g.sx = newDense(n)
	g.order = make([]int, n)
	g.ratio = make([]float64, n)
	return g, nil
}

// NewSymmetric returns the master problem of the pattern pat over the
// prior pi folded by the symmetry group that sym generates (see fold): its
// rows are the orbits of the inputs and it prices one output per orbit,
// while its mechanisms and proofs are those of the unfolded problem (the
// mechanism assembled over the group, the multipliers spread over each
// orbit), audited and checked by certify.DualBound as New's are. It
// refuses a sym that does not leave pi and pat unchanged.
func NewSymmetric(pi mech.Prior, pat mech.Pattern, sym Symmetry) (*Master, error) {
	g, err := New(pi, pat)
	if err != nil {
		return nil, err
	}
	f, err := newFold(pi, pat, sym)
	if err != nil {
		return nil, err
	}
	g.f, g.rho = f, f.rho
	g.outs = withInputs(g.allowed, f.reps)
	g.sx = newDense(f.n)
	g.acc, g.mark = make([]float64, f.n), make([]bool, f.n)
	return g, nil
}

// withInputs returns the outputs of outs that allow some input: those a
// master prices.
func withInputs(allowed [][]int, outs []int) []int {
	var with []int
	for _, j := range outs {
		if len(allowed[j]) > 0 {
			with = append(with, j)
		}
	}
	return with
}

// fill writes the extreme column of C_j(λ) that takes the inputs in order,
// divided by its largest entry (see the package documentation, "Scaling"):
// v_i = 1 while π(S) stays below μ = 1/λ, then the fraction (μ − π(S))/π_k
// that brings π·v to μ; a column whose first input already has π_k ≥ μ is
// e_k. ok is false when the order runs out first (Σ π_i < μ: the output
// can not be used at this λ).
func fill(pi mech.Prior, order []int, mu float64, rows []int, vals []float64) ([]int, []float64, bool) {
	rows, vals = rows[:0], vals[:0]
	mass := 0.0
	for _, i := range order {
		if m := mass + pi[i]; m < mu {
			rows, vals = append(rows, i), append(vals, 1)
			mass = m
			continue
		}
		if len(rows) == 0 {
			return append(rows, i), append(vals, 1), true
		}
		if th := (mu - mass) / pi[i]; th > 0 {
			rows, vals = append(rows, i), append(vals, th)
		}
		return rows, vals, true
	}
	return rows, vals, false
}

// massOf returns π·v of a column.
func massOf(pi []float64, rows []int, vals []float64) float64 {
	s := 0.0
	for e, i := range rows {
		s += pi[i] * vals[e]
	}
	return s
}

// setEps moves every generated column to λ = e^eps.
func (g *Master) setEps(eps float64) {
	if eps == g.eps {
		return
	}
	g.eps, g.mu = eps, math.Exp(-eps)
	for k := range g.cols {
		c := &g.cols[k]
		var ok bool
		c.rows, c.vals, ok = fill(g.pi, c.order, g.mu, c.rows, c.vals)
		c.dead = !ok
		if ok {
			g.engineCol(c)
		}
		g.sx.replace(k, denseCol{rows: c.erows, vals: c.evals, dead: c.dead})
	}
}

// priceTol is the least y·v at which a column enters the master: the
// master engine's optimality tolerance (denseOptTol), below which the
// engine would not pivot it in.
const priceTol = 1e-9

// priceAt generates, for every output, the extreme column that maximises
// yp·v/π·v (the pricing duals), adds it if y·v > priceTol (the master's
// duals), and returns how many it added and the largest yp·v/π·v over all
// outputs (−Inf if no output has a column).
func (g *Master) priceAt(yp, y []float64) (int, float64) {
	for i := range g.order {
		g.order[i] = i
		if g.f == nil {
			g.ratio[i] = yp[i] / g.pi[i]
		} else {
			// The knapsack of the unfolded problem, with the
			// multipliers α_i = y_r/|O_r| (see fold).
			r := g.f.orb[i]
			g.ratio[i] = yp[r] * g.f.inv[i] / g.pi[i]
		}
	}
	slices.SortFunc(g.order, func(a, b int) int {
		switch ra, rb := g.ratio[a], g.ratio[b]; {
		case ra > rb:
			return -1
		case ra < rb:
			return 1
		}
		return a - b
	})
	added, best := 0, math.Inf(-1)
	var seen vectorSet // the vectors added in this round, made on first use
	var probe column   // scratch: a candidate's entries in the master
	for _, j := range g.outs {
		order := g.cand[:0]
		for _, i := range g.order {
			if g.pat[i][j] {
				order = append(order, i)
			}
		}
		rows, vals, ok := fill(g.pi, order, g.mu, g.candRows, g.candVals)
		g.cand, g.candRows, g.candVals = order, rows, vals
		if !ok {
			continue
		}
		probe.j, probe.rows, probe.vals = j, rows, vals
		g.engineCol(&probe)
		erows, evals := probe.erows, probe.evals
		d, dp := 0.0, 0.0
		for e, i := range erows {
			d += evals[e] * y[i]
			dp += evals[e] * yp[i]
		}
		best = max(best, dp/massOf(g.rho, erows, evals))
		if d <= priceTol {
			continue
		}
		if seen.byKey == nil {
			seen = newVectorSet()
		}
		if seen.has(erows, evals) {
			continue // another output priced this vector in this round
		}
		c := column{j: j, order: slices.Clone(order), rows: slices.Clone(rows), vals: slices.Clone(vals)}
		if g.f == nil {
			c.erows, c.evals = c.rows, c.vals
		} else {
			c.erows, c.evals = slices.Clone(erows), slices.Clone(evals)
		}
		seen.put(c.erows, c.evals)
		g.cols = append(g.cols, c)
		g.sx.add(denseCol{rows: c.erows, vals: c.evals})
		added++
	}
	return added, best
}

// lagrangian is the Lagrangian bound on the master's optimum from row
// duals y, given the largest y·v/π·v over all columns: every point of the
// master has Σ_c w_c π·v_c + π·s = 1 (the rows sum to 1), so Σ s ≥ Σ y +
// min(−max_c y·v_c/π·v_c, min_i (1 − y_i)/π_i).
func (g *Master) lagrangian(y []float64, best float64) float64 {
	m := -best
	sum := 0.0
	for i, yi := range y {
		sum += yi
		m = min(m, (1-yi)/g.rho[i])
	}
	return sum + m
}

// poolFactor: when the master holds more than poolFactor·N generated
// columns, a Probe first removes the nonbasic ones (pricing brings back
// those it needs), so that the engine's scans of the whole pool (every
// optimality check, and the partial pricing passes that find no candidate
// in their chunk) stay cheap; within a probe, a pool past 2·poolFactor·N is trimmed to poolFactor·N between
// pricing rounds. (Trimming to N instead makes the rounds tail: at
// 256 letters a probe then runs into maxRounds.)
const poolFactor = 2

// trim removes nonbasic generated columns until at most keep generated
// columns remain (or only basic ones): those least likely to enter
// first, that is with the smallest y·v (in order of generation when y is
// nil).
func (g *Master) trim(y []float64, keep int) error {
	cols, err := trimPool(g.sx, g.cols, y, keep)
	g.cols = cols
	return err
}

// trimPool is trim for any master: cols[k] is the engine's column n + k.
// It returns the columns kept, in their order.
func trimPool[C any](sx *dense, cols []C, y []float64, keep int) ([]C, error) {
	n := sx.n
	if len(cols) <= keep {
		return cols, nil
	}
	type cand struct {
		k int
		d float64
	}
	var cs []cand
	for k := range cols {
		if !sx.isBasic(n + k) {
			c := cand{k: k}
			if y != nil {
				c.d = sx.dotColumn(n+k, y)
			}
			cs = append(cs, c)
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(a.d, b.d) })
	gone := make([]int, min(len(cols)-keep, len(cs)))
	for t := range gone {
		gone[t] = cs[t].k
	}
	slices.Sort(gone)
	if err := sx.remove(gone); err != nil {
		return cols, err
	}
	kept := cols[:0]
	for k, c := range cols {
		if _, found := slices.BinarySearch(gone, k); !found {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// centre is the stabilised pricing's state within a probe: the duals with
// the best Lagrangian bound so far (nil before the first round) and that
// bound.
type centre struct {
	y  []float64
	lb float64
}

// priceStabilised is a pricing round with Wentges' smoothing, which damps
// the round-to-round oscillation of the duals y that makes column
// generation tail: it prices at stabAlpha·centre + (1 − stabAlpha)·y, and
// at y itself when that finds nothing y prices in (mispricing); the centre
// moves to any pricing point with a better Lagrangian bound. It returns the
// columns added.
func (g *Master) priceStabilised(st *centre, y []float64) int {
	at := func(yp []float64) int {
		added, best := g.priceAt(yp, y)
		if lb := g.lagrangian(yp, best); st.y == nil || lb > st.lb {
			st.y, st.lb = slices.Clone(yp), lb
		}
		return added
	}
	if st.y == nil {
		return at(y)
	}
	yp := make([]float64, len(y))
	for i := range yp {
		yp[i] = stabAlpha*st.y[i] + (1-stabAlpha)*y[i]
	}
	if added := at(yp); added > 0 {
		return added
	}
	return at(y)
}

// stabAlpha is the weight of the centre in the stabilised pricing duals
// (Wentges' smoothing). Without it, probes at a few hundred letters and a
// small ε* oscillate until maxRounds and the search falls back on LPs; 0.5
// was the best of the weights measured (docs/performance.md).
const stabAlpha = 0.5

// decideMargin is how far below the probed ε a deciding probe's proof may
// fall (certify.DualBound gives up about 1e-13 to rounding); the callers
// count a proof within 1e-12 of their ε as refuting it.
const decideMargin = 1e-13

// maxRounds bounds the pricing rounds of one Probe.
const maxRounds = 1000

// Probe answers whether an eps-PML mechanism with the pattern exists, by
// column generation from the master's current columns and basis (0 ≤ eps
// ≤ 709, so that e^eps is finite). Whatever the answer, Result holds what
// was found: a mechanism when the master reached a zero sum of slacks (or
// a polished one above eps), and the bound its duals prove. Neither rests
// on the engine's tolerances: the mechanism is audited and the bound
// re-proven by certify.DualBound. An error comes only from the engine, or
// is ErrStopped (SetStop).
func (g *Master) Probe(eps float64) (*Result, error) {
	if math.IsNaN(eps) || eps < 0 || math.IsInf(math.Exp(eps), 0) {
		return nil, fmt.Errorf("colgen: Probe: ε = %v: want 0 ≤ ε ≤ 709 (e^ε must be a finite float64)", eps)
	}
	n := g.sx.n
	if len(g.cols) > poolFactor*n {
		if err := g.trim(nil, 0); err != nil {
			return nil, err
		}
	}
	g.setEps(eps)
	r := &Result{Evidence: certify.Evidence{PML: math.Inf(1)}}
	var sol *denseResult
	var st centre
	checked := -decideEvery
	for r.Rounds = 0; ; r.Rounds++ {
		if g.stop != nil && g.stop() {
			return nil, ErrStopped
		}
		var err error
		sol, err = g.sx.solve()
		if err != nil {
			return nil, err
		}
		r.Pivots += sol.Iterations
		if sol.Objective <= 0 || r.Rounds == maxRounds {
			break
		}
		trimmed := len(g.cols) > 2*poolFactor*n
		if trimmed {
			// A long probe's pool: the engine's full pricing scans
			// read it, so the columns least likely to enter go.
			if err := g.trim(sol.RowDuals, poolFactor*n); err != nil {
				return nil, err
			}
		}
		added := g.priceStabilised(&st, sol.RowDuals)
		if g.decide && st.lb > 0 && r.Rounds >= checked+decideEvery {
			// A positive Lagrangian bound at the centre: its
			// multipliers refute ε, up to rounding.
			checked = r.Rounds
			alpha := st.y
			if g.f != nil {
				alpha = g.f.unfold(alpha)
			}
			if lb, ok := certify.DualBound(g.pi, g.pat, alpha); ok && lb >= eps-decideMargin {
				r.Columns, r.Lower, r.Alpha = len(g.cols), lb, alpha
				return r, nil
			}
		}
		if added == 0 {
			if trimmed {
				// The point must be read off the columns it has.
				if sol, err = g.sx.solve(); err != nil {
					return nil, err
				}
			}
			break
		}
	}
	r.Columns = len(g.cols)
	r.Unsettled = r.Rounds == maxRounds && sol.Objective > 0
	r.Alpha = sol.RowDuals[:n]
	if g.f != nil {
		r.Alpha = g.f.unfold(r.Alpha)
	}
	if lb, ok := certify.DualBound(g.pi, g.pat, r.Alpha); ok {
		r.Lower = lb
	}
	if p := g.mechanism(sol.X); p != nil {
		r.Mechanism, r.PML = p, leakage.PML(g.pi, p)
	}
	if sol.Objective <= 0 && r.PML > eps+certify.ProbeSlack {
		// Weights a hair below 0 (within the engine's tolerance, or
		// found by refine on an ill-conditioned basis) make the point
		// audit above eps: settle them with a few more pivots.
		if t, err := g.sx.tighten(); err == nil && t.Objective <= 0 {
			if p := g.mechanism(t.X); p != nil {
				if a := leakage.PML(g.pi, p); a < r.PML {
					r.Mechanism, r.PML = p, a
				}
			}
			r.Pivots += t.Iterations
		}
	}
	if sol.Objective > 0 {
		var p mech.Mechanism
		if r.Estimate, p = g.polish(); p != nil {
			if a := leakage.PML(g.pi, p); a < r.PML {
				r.Mechanism, r.PML, r.Polished = p, a, true
			}
		}
	}
	return r, nil
}

// mechanism assembles the master's point x as a mechanism (see assemble).
func (g *Master) mechanism(x []float64) mech.Mechanism {
	n := g.sx.n
	var ws []weighted
	for k, c := range g.cols {
		if w := x[n+k]; w > 0 && !c.dead {
			ws = append(ws, weighted{j: c.j, rows: c.rows, vals: c.vals, w: w})
		}
	}
	return g.assemble(ws)
}

// assemble returns the mechanism of the weighted columns (see the
// function assemble), over the symmetry group when the master is folded.
func (g *Master) assemble(ws []weighted) mech.Mechanism {
	if g.f != nil {
		return g.f.assemble(len(g.pi), len(g.allowed), ws)
	}
	return assemble(len(g.pi), len(g.allowed), ws)
}

// weighted is a column of output j with its entries and its weight.
type weighted struct {
	j    int
	rows []int
	vals []float64
	w    float64
}

// assemble returns the n×m mechanism Σ w v over the weighted columns, rows
// normalised; nil when a row has no mass.
func assemble(n, m int, ws []weighted) mech.Mechanism {
	p := mech.Mechanism(make([][]float64, n))
	for i := range p {
		p[i] = make([]float64, m)
	}
	for _, c := range ws {
		for e, i := range c.rows {
			p[i][c.j] += c.w * c.vals[e]
		}
	}
	for i := range p {
		if mech.Normalise(p[i]) <= 0 {
			return nil
		}
	}
	return p
}

// validOrder reports whether every input of order is below n.
func validOrder(order []int, n int) bool {
	for _, i := range order {
		if i < 0 || i >= n {
			return false
		}
	}
	return true
}

// Seed is a set of columns carried from one master to another, for
// example from a neighbouring threshold's pattern on a curve: each is an
// output and the order in which its inputs are filled.
type Seed struct {
	cols []seedColumn
}

type seedColumn struct {
	j     int
	order []int
}

// Seed returns the master's basic generated columns, or nil if it has none.
func (g *Master) Seed() *Seed {
	n := g.sx.n
	var s Seed
	for k, c := range g.cols {
		if g.sx.isBasic(n+k) && !c.dead {
			s.cols = append(s.cols, seedColumn{j: c.j, order: c.order})
		}
	}
	if len(s.cols) == 0 {
		return nil
	}
	return &s
}

// AddSeed adds the columns of s to the master before its first Probe,
// fitted to its pattern: each order keeps its inputs allowed here, in its
// order, followed by the other inputs allowed here. Columns of outputs the
// master does not have are skipped.
func (g *Master) AddSeed(s *Seed) error {
	if s == nil {
		return nil
	}
	if g.eps >= 0 {
		return errors.New("colgen: AddSeed after the first Probe")
	}
	for _, sc := range s.cols {
		if sc.j >= len(g.allowed) || len(g.allowed[sc.j]) == 0 {
			continue
		}
		if g.f != nil && g.f.repOf[sc.j] != sc.j {
			// The same column, moved to its orbit's representative.
			if !validOrder(sc.order, len(g.pi)) {
				continue
			}
			j, order := g.f.toRepresentative(sc.j, sc.order)
			sc = seedColumn{j: j, order: order}
		}
		order := make([]int, 0, len(g.allowed[sc.j]))
		seen := make(map[int]bool, len(order))
		for _, i := range sc.order {
			if i < len(g.pi) && g.pat[i][sc.j] && !seen[i] {
				order, seen[i] = append(order, i), true
			}
		}
		for _, i := range g.allowed[sc.j] {
			if !seen[i] {
				order = append(order, i)
			}
		}
		// Entries come with the first Probe's ε (setEps); until then the
		// column is fixed at 0.
		g.cols = append(g.cols, column{j: sc.j, order: order, dead: true})
		g.sx.add(denseCol{dead: true})
	}
	return nil
}
