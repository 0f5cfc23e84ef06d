package revised

import (
	"errors"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/internal/simplex"
	"github.com/pmlopt/pmlopt/lp"
)

// Partial pricing reads at least partialMin columns, or 1/partialParts of
// them, per iteration before taking the best candidate found; it prices
// priceBlock of them per call (the choice does not depend on it).
const partialMin, partialParts, priceBlock = 2000, 8, 16

// Runs that switch the pricing to Bland's rule with an exact ratio test.
//
// stallRun: degenerate steps in a row (after the bounds were perturbed
// once). flatRun: phase 1 steps that moved the point yet left the sum of
// infeasibilities no lower than flatGain below the least sum seen. In
// exact arithmetic such a step lowers it; in floating point the Harris
// ratio test lets basics cross their bounds by up to the feasibility
// tolerance, and a point infeasible by a few times that tolerance can go
// round a cycle of two nondegenerate steps whose infeasible sets trade
// places, for as long as the iteration limit allows (ε-PML feasibility
// LPs just below their ε* do), and Bland's rule itself can go round
// degenerate steps there. Once more than 2·flatRun phase 1 steps have
// left that sum unlowered under Bland's rule, the solve ends infeasible
// if no reduced cost exceeds flatDual times the optimality tolerance:
// phase 1 is then over, below what the factors resolve. After
// staleRun·(rows + columns) such steps with reduced costs left (Bland's
// rule alternating between two degenerate steps, which it can do
// indefinitely in floating point) the bounds are perturbed anew, at most
// maxPerturbs times.
const (
	stallRun    = 50
	flatRun     = 50
	flatGain    = 1e-9
	flatDual    = 10
	staleRun    = 20
	maxPerturbs = 3
)

// Options are the tolerances and limits of the engine. A zero field takes
// its default.
type Options struct {
	// FeasTol is the primal feasibility tolerance: a variable or row
	// activity may violate its bound by at most this much (default 1e-9).
	FeasTol float64
	// OptTol is the dual feasibility tolerance on reduced costs
	// (default 1e-9).
	OptTol float64
	// PivotTol is the smallest |entry| of the pivot column accepted as a
	// pivot in the ratio test (default 1e-9).
	PivotTol float64
	// MaxIter bounds the simplex iterations of one Solve
	// (default 100·(rows+cols) + 10000).
	MaxIter int
	// RefactorEvery is the number of basis updates between two fresh LU
	// factorisations (default 100).
	RefactorEvery int
	// Stop, if not nil, is polled every stopEvery iterations; when it
	// returns true Solve ends with ErrStopped (a caller's context done).
	Stop func() bool
}

// stopEvery is how many iterations pass between two polls of Options.Stop:
// an iteration of a large LP takes about a millisecond.
const stopEvery = 64

// ErrStopped is the error of a Solve that Options.Stop ended.
var ErrStopped = errors.New("revised: stopped")

// defaultMaxIter is the iteration limit of a model of m rows and n
// columns when Options.MaxIter is not set.
func defaultMaxIter(m, n int) int { return 100*(m+n) + 10000 }

func (o *Options) fill(m, n int) {
	if o.FeasTol <= 0 {
		o.FeasTol = 1e-9
	}
	if o.OptTol <= 0 {
		o.OptTol = 1e-9
	}
	if o.PivotTol <= 0 {
		o.PivotTol = 1e-9
	}
	if o.MaxIter <= 0 {
		o.MaxIter = defaultMaxIter(m, n)
	}
	if o.RefactorEvery <= 0 {
		o.RefactorEvery = 100
	}
}

// Result is the outcome of a solve; its Status is lp.Limit when
// Options.MaxIter iterations were not enough. X, RowActivity, RowDuals and
// ColDuals are set when Status is lp.Optimal; Certificate is set when Status
// is lp.Infeasible, unless the infeasibility is a variable or row whose lower bound
// exceeds its upper bound.
//
// Dual sign convention: RowDuals[i] is the rate of change of the objective
// per unit increase of the active bound of row i, and ColDuals[j] =
// ColCosts[j] − Σ_i A_ij RowDuals[i] is the reduced cost of column j, the
// rate of change of the objective per unit increase of x_j (or of its active
// bound). For a minimisation a row at its lower bound has RowDuals ≥ 0 and
// at its upper bound ≤ 0; for a maximisation the signs are reversed.
//
// Certificate y (one entry per row) proves infeasibility by
//
//	max { (Aᵀy)·x : ColLower ≤ x ≤ ColUpper } < min { y·r : RowLower ≤ r ≤ RowUpper },
//
// which no x with RowLower ≤ Ax ≤ RowUpper can satisfy, since (Aᵀy)·x = y·(Ax).
type Result struct {
	Status      lp.Status
	Objective   float64
	X           []float64
	RowActivity []float64
	RowDuals    []float64
	ColDuals    []float64
	Certificate []float64
	Iterations  int
}

// Nonbasic positions of a variable.
const (
	atLower int8 = iota
	atUpper
	atZero // free nonbasic at 0
	basic
)

// Simplex is an lp.Model loaded into the engine, with its current basis.
// Change it with the Set methods and call Solve again to re-solve from the
// last basis. A Simplex is not safe for concurrent use.
type Simplex struct {
	m, n     int
	opt      Options
	maximize bool
	offset   float64

	// A in compressed sparse column form.
	colStart []int
	rowIdx   []int
	val      []float64

	cost []float64 // internal costs (negated for maximisation), length n
	// rs[i] is the power of 2 that row i of A and its bounds are multiplied
	// by inside the engine, so that its largest entry is near 1.
	rs []float64
	// ftol[v] is the feasibility tolerance of variable v in internal units:
	// FeasTol for a column, FeasTol·rs[i] for the activity of row i, so
	// that the tolerance stays FeasTol in the units of the model.
	ftol   []float64
	lb, ub []float64 // length n+m; variable n+i is the activity of row i

	head  []int  // basis position -> variable
	state []int8 // per variable
	x     []float64

	f *factor

	// scratch
	cB, y, alpha, rhs, d []float64
	bp                   []simplex.Breakpoint
	stops                []simplex.Stop

	iter int

	// Bound perturbation against stalling: the true bounds while the
	// engine works on relaxed ones.
	perturbed bool
	// pricing is the rotating partial pricing, where its next pass starts.
	pricing simplex.Pricing
	// valid: the factors are those of the current basis of the current
	// matrix (a fresh refactorisation, possibly with eta updates since).
	// Changing an entry of A (SetCoef) or resetting the basis clears it.
	valid          bool
	saveLB, saveUB []float64
	rng            uint64
}

// perturb relaxes every finite bound by a pseudo-random
// simplex.Perturbation of the variable's feasibility tolerance (times 1 + |bound|),
// which breaks the ties of a degenerate vertex.
func (s *Simplex) perturb() {
	s.perturbed = true
	s.saveLB = append(s.saveLB[:0], s.lb...)
	s.saveUB = append(s.saveUB[:0], s.ub...)
	for j := range s.lb {
		if math.IsInf(s.lb[j], -1) && math.IsInf(s.ub[j], 1) {
			continue
		}
		if !math.IsInf(s.lb[j], -1) {
			s.lb[j] -= simplex.Perturbation(s.ftol[j], s.rand()) * (1 + math.Abs(s.lb[j]))
		}
		if !math.IsInf(s.ub[j], 1) {
			s.ub[j] += simplex.Perturbation(s.ftol[j], s.rand()) * (1 + math.Abs(s.ub[j]))
		}
	}
}

// unperturb restores the true bounds; nonbasic variables move back onto
// them at the next refactor.
func (s *Simplex) unperturb() {
	if !s.perturbed {
		return
	}
	copy(s.lb, s.saveLB)
	copy(s.ub, s.saveUB)
	s.perturbed = false
}

// rand returns a deterministic pseudo-random number in [0, 1)
// (splitmix64), so that solves are reproducible.
func (s *Simplex) rand() float64 {
	s.rng += 0x9e3779b97f4a7c15
	z := s.rng
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return simplex.Uniform(z)
}

// ErrInvalid wraps the reasons a model is refused.
var ErrInvalid = errors.New("revised: invalid model")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Solve solves m from scratch with the options opt (nil for defaults).
func Solve(m *lp.Model, opt *Options) (*Result, error) {
	s, err := New(m, opt)
	if err != nil {
		return nil, err
	}
	return s.Solve()
}

// New validates m and loads it with the slack basis. The model is copied;
// later changes to m do not affect the Simplex.
func New(m *lp.Model, opt *Options) (*Simplex, error) {
	if m == nil {
		return nil, invalid("nil model")
	}
	n, rows := m.NumCols(), m.NumRows()
	if len(m.ColLower) != n || len(m.ColUpper) != n {
		return nil, invalid("%d costs but %d lower and %d upper column bounds", n, len(m.ColLower), len(m.ColUpper))
	}
	if len(m.RowUpper) != rows {
		return nil, invalid("%d lower but %d upper row bounds", rows, len(m.RowUpper))
	}
	if math.IsNaN(m.Offset) || math.IsInf(m.Offset, 0) {
		return nil, invalid("offset %v", m.Offset)
	}
	for j := 0; j < n; j++ {
		if c := m.ColCosts[j]; math.IsNaN(c) || math.IsInf(c, 0) {
			return nil, invalid("cost of column %d is %v", j, c)
		}
		if err := checkBounds("column", j, m.ColLower[j], m.ColUpper[j]); err != nil {
			return nil, err
		}
	}
	for i := 0; i < rows; i++ {
		if err := checkBounds("row", i, m.RowLower[i], m.RowUpper[i]); err != nil {
			return nil, err
		}
	}
	s := &Simplex{m: rows, n: n, maximize: m.Maximize, offset: m.Offset}
	if opt != nil {
		s.opt = *opt
	}
	s.opt.fill(rows, n)

	// CSC, rejecting duplicates.
	count := make([]int, n+1)
	for k, e := range m.ConstMatrix {
		if e.Row < 0 || e.Row >= rows || e.Col < 0 || e.Col >= n {
			return nil, invalid("non-zero %d at (%d, %d) is outside the %d×%d matrix", k, e.Row, e.Col, rows, n)
		}
		if math.IsNaN(e.Val) || math.IsInf(e.Val, 0) {
			return nil, invalid("entry (%d, %d) is %v", e.Row, e.Col, e.Val)
		}
		count[e.Col+1]++
	}
	for j := 0; j < n; j++ {
		count[j+1] += count[j]
	}
	s.colStart = append([]int(nil), count...)
	s.rowIdx = make([]int, len(m.ConstMatrix))
	s.val = make([]float64, len(m.ConstMatrix))
	next := count[:n]
	for _, e := range m.ConstMatrix {
		k := next[e.Col]
		s.rowIdx[k] = e.Row
		s.val[k] = e.Val
		next[e.Col]++
	}
	// Row scaling by powers of 2 (exact): a model whose rows were
	// multiplied by a constant, as package worstcase does to tighten the tolerance,
	// is then solved on the same numbers as the unscaled one.
	s.rs = make([]float64, rows)
	for i := range s.rs {
		s.rs[i] = 1
	}
	rowMaxAbs := make([]float64, rows)
	for k, i := range s.rowIdx {
		rowMaxAbs[i] = max(rowMaxAbs[i], math.Abs(s.val[k]))
	}
	for i, mx := range rowMaxAbs {
		if mx > 0 {
			_, e := math.Frexp(mx)
			s.rs[i] = math.Ldexp(1, 1-e)
		}
	}
	for k, i := range s.rowIdx {
		s.val[k] *= s.rs[i]
	}
	seen := make([]int, rows)
	for i := range seen {
		seen[i] = -1
	}
	for j := 0; j < n; j++ {
		for k := s.colStart[j]; k < s.colStart[j+1]; k++ {
			if seen[s.rowIdx[k]] == j {
				return nil, invalid("entry (%d, %d) is given twice", s.rowIdx[k], j)
			}
			seen[s.rowIdx[k]] = j
		}
	}

	s.cost = make([]float64, n)
	for j, c := range m.ColCosts {
		s.cost[j] = s.internalCost(c)
	}
	s.lb = make([]float64, n+rows)
	s.ub = make([]float64, n+rows)
	copy(s.lb, m.ColLower)
	copy(s.ub, m.ColUpper)
	copy(s.lb[n:], m.RowLower)
	copy(s.ub[n:], m.RowUpper)
	s.ftol = make([]float64, n+rows)
	for j := range s.ftol {
		s.ftol[j] = s.opt.FeasTol
	}
	for i, r := range s.rs {
		s.lb[n+i] *= r
		s.ub[n+i] *= r
		s.ftol[n+i] *= r
	}

	s.head = make([]int, rows)
	s.state = make([]int8, n+rows)
	s.x = make([]float64, n+rows)
	for j := 0; j < n; j++ {
		s.state[j] = s.restState(j)
	}
	for i := 0; i < rows; i++ {
		s.head[i] = n + i
		s.state[n+i] = basic
	}
	s.f = newFactor(rows)
	s.cB = make([]float64, rows)
	s.y = make([]float64, rows)
	s.alpha = make([]float64, rows)
	s.rhs = make([]float64, rows)
	s.d = make([]float64, n+rows)
	return s, nil
}

func checkBounds(kind string, k int, lo, up float64) error {
	if math.IsNaN(lo) || math.IsNaN(up) {
		return invalid("%s %d has a NaN bound", kind, k)
	}
	if math.IsInf(lo, 1) || math.IsInf(up, -1) {
		return invalid("%s %d has bounds [%v, %v]", kind, k, lo, up)
	}
	return nil
}

// crossed reports whether some variable has its lower bound above its upper
// bound, which makes the model infeasible.
func (s *Simplex) crossed() bool {
	for j, lo := range s.lb {
		if lo > s.ub[j] {
			return true
		}
	}
	return false
}

// restState is where a nonbasic variable j rests: its finite lower bound,
// else its finite upper bound, else 0.
func (s *Simplex) restState(j int) int8 {
	switch {
	case !math.IsInf(s.lb[j], -1):
		return atLower
	case !math.IsInf(s.ub[j], 1):
		return atUpper
	}
	return atZero
}

// NumRows and NumCols return the size of the loaded model.
func (s *Simplex) NumRows() int { return s.m }

// NumCols returns the number of structural variables.
func (s *Simplex) NumCols() int { return s.n }

// SetCoef changes the entry (row, col) of A, adding it when it is not a
// non-zero of the loaded model.
func (s *Simplex) SetCoef(row, col int, v float64) error {
	if col < 0 || col >= s.n || row < 0 || row >= s.m {
		return invalid("entry (%d, %d) is outside the %d×%d matrix", row, col, s.m, s.n)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return invalid("entry (%d, %d) set to %v", row, col, v)
	}
	v *= s.rs[row]
	s.valid = false
	for k := s.colStart[col]; k < s.colStart[col+1]; k++ {
		if s.rowIdx[k] == row {
			s.val[k] = v
			return nil
		}
	}
	// A new non-zero: insert it at the end of its column.
	k := s.colStart[col+1]
	s.rowIdx = append(s.rowIdx[:k], append([]int{row}, s.rowIdx[k:]...)...)
	s.val = append(s.val[:k], append([]float64{v}, s.val[k:]...)...)
	for j := col + 1; j <= s.n; j++ {
		s.colStart[j]++
	}
	return nil
}

// SetColBounds changes the bounds of column col.
func (s *Simplex) SetColBounds(col int, lower, upper float64) error {
	if col < 0 || col >= s.n {
		return invalid("column %d out of range [0, %d)", col, s.n)
	}
	return s.setBounds(col, lower, upper, "column")
}

// SetRowBounds changes the bounds of row row.
func (s *Simplex) SetRowBounds(row int, lower, upper float64) error {
	if row < 0 || row >= s.m {
		return invalid("row %d out of range [0, %d)", row, s.m)
	}
	return s.setBounds(s.n+row, lower, upper, "row")
}

func (s *Simplex) setBounds(j int, lower, upper float64, kind string) error {
	k := j
	if kind == "row" {
		k = j - s.n
	}
	if err := checkBounds(kind, k, lower, upper); err != nil {
		return err
	}
	if kind == "row" {
		lower *= s.rs[k]
		upper *= s.rs[k]
	}
	if s.state[j] == basic {
		s.lb[j], s.ub[j] = lower, upper
		return nil
	}
	// A nonbasic variable stays where it is when a new bound holds it
	// there: freeing a column fixed at [0, 0] must not move it to its new
	// upper bound, which would throw the warm basis far from feasible.
	at := 0.0
	switch s.state[j] {
	case atLower:
		at = s.lb[j]
	case atUpper:
		at = s.ub[j]
	}
	s.lb[j], s.ub[j] = lower, upper
	switch {
	case lower == at:
		s.state[j] = atLower
	case upper == at:
		s.state[j] = atUpper
	case s.state[j] == atLower && math.IsInf(lower, -1),
		s.state[j] == atUpper && math.IsInf(upper, 1),
		s.state[j] == atZero:
		s.state[j] = s.restState(j)
	}
	return nil
}

// SetColCost changes the objective coefficient of column col (in the sense
// of the loaded model: a maximisation stays one).
func (s *Simplex) SetColCost(col int, cost float64) error {
	if col < 0 || col >= s.n {
		return invalid("column %d out of range [0, %d)", col, s.n)
	}
	if math.IsNaN(cost) || math.IsInf(cost, 0) {
		return invalid("cost of column %d set to %v", col, cost)
	}
	s.cost[col] = s.internalCost(cost)
	return nil
}

// internalCost is the engine's cost of a column of cost c in the model's
// sense: the engine always minimises.
func (s *Simplex) internalCost(c float64) float64 {
	if s.maximize {
		return -c
	}
	return c
}

// column returns the non-zeros of variable j's column in [A −I].
var minusOne = []float64{-1}

func (s *Simplex) column(j int, idx *[1]int) ([]int, []float64) {
	if j < s.n {
		return s.rowIdx[s.colStart[j]:s.colStart[j+1]], s.val[s.colStart[j]:s.colStart[j+1]]
	}
	idx[0] = j - s.n
	return idx[:], minusOne
}

// dot returns a_jᵀ y.
func (s *Simplex) dot(j int, y []float64) float64 {
	if j >= s.n {
		return -y[j-s.n]
	}
	d := 0.0
	for k := s.colStart[j]; k < s.colStart[j+1]; k++ {
		d += s.val[k] * y[s.rowIdx[k]]
	}
	return d
}

// refactor computes a fresh LU of the basis, repairing a singular basis by
// swapping in logical variables, and recomputes the basic values.
func (s *Simplex) refactor() error {
	s.valid = false
	var one [1]int
	for attempt := 0; ; attempt++ {
		badPos, badRows := s.f.factorize(func(p int) ([]int, []float64) {
			return s.column(s.head[p], &one)
		})
		if badPos == nil {
			break
		}
		if attempt > s.m || len(badPos) != len(badRows) {
			return errors.New("revised: cannot repair a singular basis")
		}
		// The logical of an unpivoted row can only sit at an unpivoted
		// position (its column has its one entry in that row), so after
		// the variables at those positions leave, every such logical is
		// nonbasic and can take one of them.
		for _, p := range badPos {
			v := s.head[p]
			s.state[v] = s.restState(v)
		}
		for k, p := range badPos {
			lg := s.n + badRows[k]
			if s.state[lg] == basic {
				return errors.New("revised: singular basis holds the logical of an unpivoted row")
			}
			s.head[p] = lg
			s.state[lg] = basic
		}
	}
	s.computeX()
	s.valid = true
	return nil
}

// computeX sets nonbasic variables to their bounds and solves for the basics.
func (s *Simplex) computeX() {
	for i := range s.rhs {
		s.rhs[i] = 0
	}
	for j := 0; j < s.n+s.m; j++ {
		switch s.state[j] {
		case basic:
			continue
		case atLower:
			s.x[j] = s.lb[j]
		case atUpper:
			s.x[j] = s.ub[j]
		case atZero:
			s.x[j] = 0
		}
		if xj := s.x[j]; xj != 0 {
			if j >= s.n {
				s.rhs[j-s.n] += xj
				continue
			}
			for k := s.colStart[j]; k < s.colStart[j+1]; k++ {
				s.rhs[s.rowIdx[k]] -= s.val[k] * xj
			}
		}
	}
	s.f.ftran(s.rhs)
	for p, v := range s.head {
		s.x[v] = s.rhs[p]
	}
}

// SetStop sets Options.Stop for the next Solves.
func (s *Simplex) SetStop(stop func() bool) { s.opt.Stop = stop }

// SetMaxIter sets Options.MaxIter for the next Solves, at most the
// default for the loaded model's size; n ≤ 0 restores that default.
func (s *Simplex) SetMaxIter(n int) {
	if d := defaultMaxIter(s.m, s.n); n <= 0 || n > d {
		n = d
	}
	s.opt.MaxIter = n
}

// Solve runs the primal simplex method from the current basis: phase 1
// minimises the sum of infeasibilities, phase 2 the objective. Should the
// engine get into numerical trouble from a warm basis, it starts again once
// from the slack basis.
func (s *Simplex) Solve() (*Result, error) {
	r, err := s.solve()
	if err == nil || errors.Is(err, ErrStopped) || s.slackBasis() {
		return r, err
	}
	s.resetBasis()
	r2, err2 := s.solve()
	if err2 != nil {
		return nil, err
	}
	return r2, nil
}

// slackBasis reports whether every row's logical is basic.
func (s *Simplex) slackBasis() bool {
	for p, v := range s.head {
		if v != s.n+p {
			return false
		}
	}
	return true
}

// resetBasis makes the slack basis current.
func (s *Simplex) resetBasis() {
	s.valid = false
	for j := 0; j < s.n; j++ {
		s.state[j] = s.restState(j)
	}
	for i := range s.head {
		s.head[i] = s.n + i
		s.state[s.n+i] = basic
	}
	s.pricing.From = 0
}

// solve runs the primal simplex method from the current basis: the
// iteration of simplex.Run, whose steps solveRun writes for this engine.
func (s *Simplex) solve() (*Result, error) {
	if s.crossed() {
		return &Result{Status: lp.Infeasible}, nil
	}
	defer s.unperturb()
	if s.valid && s.f.numEtas() == 0 {
		// The factors of the last refactorisation still describe the
		// basis (only bounds or costs changed): x_B alone is
		// recomputed.
		s.computeX()
	} else if err := s.refactor(); err != nil {
		return nil, err
	}
	r := &solveRun{s: s, leastInfs: math.Inf(1), fresh: true, deg: simplex.Degeneracy{Run: stallRun}}
	err := simplex.Run(r, &r.deg)
	return r.res, err
}

// solveRun is one solve of the engine as simplex.Run sees it: the
// counters that outlive an iteration (when to perturb the bounds, switch
// to Bland's rule or give up on phase 1), the ratio test's choice for the
// step, and the result.
type solveRun struct {
	s     *Simplex
	iters int
	deg   simplex.Degeneracy // degenerate steps in a row
	// leastInfs is the least sum of infeasibilities of a phase 1 point so
	// far; flat and stale count the nondegenerate and all phase 1 steps
	// since it last fell.
	leastInfs   float64
	flat, stale int
	perturbs    int  // perturbations after a stale phase 1
	moved       bool // the last pass took a step longer than simplex.DegenerateStep
	stepped     bool // the last pass took a step
	fresh       bool // factors and x_B computed from scratch, no update since
	// The step the ratio test chose: q's direction (+1 up from its
	// bound, −1 down), the leaving position and the bound it reaches, or
	// q's own other bound (flip).
	dir        float64
	leave      int
	toLB, flip bool
	res        *Result
}

// Refactor: a fresh factorisation every RefactorEvery updates.
func (r *solveRun) Refactor() error {
	if r.s.f.numEtas() < r.s.opt.RefactorEvery {
		return nil
	}
	if err := r.s.refactor(); err != nil {
		return err
	}
	r.fresh = true
	return nil
}

// Price sets the phase's basic costs, tracks phase 1's progress and
// solves for the duals.
func (r *solveRun) Price() (phase1 bool) {
	phase1, infs := r.s.phaseCosts()
	r.track(phase1, infs)
	r.s.duals(phase1)
	return phase1
}

// Perturb relaxes the bounds by small random amounts and goes on from the
// same basis; the answer is cleaned up on the true bounds when this
// relaxed problem is solved.
func (r *solveRun) Perturb() (simplex.Flow, error) {
	r.s.perturb()
	return r.again()
}

// Bland: a phase 1 whose sum of infeasibilities stopped falling for
// flatRun nondegenerate steps.
func (r *solveRun) Bland(phase1 bool) bool { return phase1 && r.flat > flatRun }

// Enter prices by simplex.Pricing over the columns and the rows' logicals.
func (r *solveRun) Enter(phase1, bland bool) (q int, dq float64) { return r.s.entering(phase1, bland) }

// Trusted: only fresh factors declare the end of a solve.
func (r *solveRun) Trusted() bool { return r.fresh }

// Perturbed reports whether the bounds are relaxed.
func (r *solveRun) Perturbed() bool { return r.s.perturbed }

// Conclude acts on the verdict of a pass that found no entering variable:
// stale factors are recomputed and perturbed bounds restored (from this
// basis) before the next pass; phase 1 ends infeasible and phase 2
// optimal.
func (r *solveRun) Conclude(v simplex.Verdict) (simplex.Flow, error) {
	switch v {
	case simplex.Refresh:
		return r.again()
	case simplex.Unperturb:
		r.s.unperturb()
		r.deg.Steps = 0
		return r.again()
	case simplex.Infeasible:
		r.res = r.s.infeasible(r.iters)
		return simplex.Finish, nil
	}
	r.res = r.s.optimal(r.iters)
	return simplex.Finish, nil
}

// Limits: a phase 1 going round under Bland's rule (unstale), the
// iteration limit and the caller's stop; then the iteration counts.
func (r *solveRun) Limits(phase1, bland bool) (simplex.Flow, error) {
	if phase1 && bland && r.stale > 2*flatRun && r.stale%flatRun == 1 {
		if f, err := r.unstale(); f != simplex.Proceed {
			return f, err
		}
	}
	if r.iters >= r.s.opt.MaxIter {
		r.res = &Result{Status: lp.Limit, Iterations: r.iters}
		return simplex.Finish, nil
	}
	if r.s.opt.Stop != nil && r.iters%stopEvery == 0 && r.s.opt.Stop() {
		return simplex.Finish, ErrStopped
	}
	r.iters++
	r.s.iter++
	return simplex.Proceed, nil
}

// Ratio computes the entering column α = B⁻¹a_q and runs the ratio test.
func (r *solveRun) Ratio(q int, dq float64, phase1, bland bool) (blocked bool, step float64) {
	dir, ptol := r.s.enteringColumn(q, dq)
	r.dir = dir
	r.leave, step, r.toLB, r.flip = r.s.ratioTest(q, dq, dir, ptol, phase1, bland)
	return r.leave >= 0 || r.flip, step
}

// Step moves the primal values, then flips q's bound or changes the basis.
func (r *solveRun) Step(q int, dq, step float64, _, moved bool) {
	r.moved, r.stepped = moved, true
	r.s.move(q, r.dir, step)
	if r.flip {
		r.s.flip(q, r.dir)
		return
	}
	r.s.exchange(q, r.leave, r.toLB)
	r.fresh = false
}

// phaseCosts sets the basic costs of phase 1, the gradient of the sum of
// infeasibilities (−1 below a lower bound, +1 above an upper one, 0
// within), and returns whether any basic is infeasible and that sum.
func (s *Simplex) phaseCosts() (phase1 bool, infs float64) {
	for p, v := range s.head {
		xv, ftol := s.x[v], s.ftol[v]
		switch {
		case xv < s.lb[v]-ftol:
			s.cB[p] = -1
			phase1 = true
			infs += s.lb[v] - xv
		case xv > s.ub[v]+ftol:
			s.cB[p] = 1
			phase1 = true
			infs += xv - s.ub[v]
		default:
			s.cB[p] = 0
		}
	}
	return phase1, infs
}

// track updates the phase 1 progress counters with the sum of
// infeasibilities of this iteration's point: steps that leave it unlowered
// are what switch the pricing to Bland's rule and, at last, end phase 1.
func (r *solveRun) track(phase1 bool, infs float64) {
	switch {
	case !phase1:
		r.leastInfs, r.flat, r.stale = math.Inf(1), 0, 0
	case infs < r.leastInfs*(1-flatGain):
		r.leastInfs, r.flat, r.stale = infs, 0, 0
	case r.moved:
		r.flat++
		r.stale++
	case r.stepped:
		r.stale++
	}
	r.moved, r.stepped = false, false
}

// duals sets the basic costs of phase 2 (the objective's) when every basic
// is feasible, then solves Bᵀy = c_B for the duals that price the
// nonbasics.
func (s *Simplex) duals(phase1 bool) {
	if !phase1 {
		for p, v := range s.head {
			if v < s.n {
				s.cB[p] = s.cost[v]
			} else {
				s.cB[p] = 0
			}
		}
	}
	copy(s.y, s.cB)
	s.f.btran(s.y)
}

// entering returns the nonbasic variable to enter the basis and its
// reduced cost, or q < 0 when none prices out: rotating partial pricing
// over the columns and the rows' logicals, or Bland's rule
// (simplex.Pricing).
func (s *Simplex) entering(phase1, bland bool) (q int, dq float64) {
	total := s.n + s.m
	return s.pricing.Enter(total, max(partialMin, total/partialParts), priceBlock, bland,
		func(from, k0, k1 int, d, score []float64) {
			for k := k0; k < k1; k++ {
				j := from + k
				if j >= total {
					j -= total
				}
				d[k-k0], score[k-k0] = s.price(j, phase1, s.opt.OptTol)
			}
		})
}

// unstale handles phase 1 once Bland's rule has gone round as well.
// Checked on fresh factors and the true bounds: with every reduced cost at
// rounding level phase 1 is over and the LP infeasible by a few tolerances
// (the phase 1 duals are then the certificate there is); else, after
// staleRun·(rows + columns) such steps, new perturbed bounds break the
// cycle.
func (r *solveRun) unstale() (simplex.Flow, error) {
	s := r.s
	dtol := s.opt.OptTol
	settled := s.largestPrice(dtol) <= flatDual*dtol
	again := r.stale > staleRun*(s.m+s.n) && r.perturbs < maxPerturbs
	if !settled && !again && !s.perturbed {
		return simplex.Proceed, nil
	}
	switch {
	case !r.fresh:
	case s.perturbed:
		s.unperturb()
		r.leastInfs, r.flat, r.stale, r.deg.Steps = math.Inf(1), 0, 0, 0
	case settled:
		r.res = s.infeasible(r.iters)
		return simplex.Finish, nil
	default:
		s.perturb()
		r.deg.Perturbing()
		r.perturbs++
		r.leastInfs, r.flat, r.stale = math.Inf(1), 0, 0
	}
	return r.again()
}

// enteringColumn computes α = B⁻¹a_q in s.alpha and returns the direction
// in which q moves (+1 up from its bound, −1 down) and the pivot
// tolerance, relative to the column: an entry below 1e-9 of the largest
// one is rounding noise of the FTRAN, not a pivot.
func (s *Simplex) enteringColumn(q int, dq float64) (dir, ptol float64) {
	var one [1]int
	for i := range s.alpha {
		s.alpha[i] = 0
	}
	idx, vals := s.column(q, &one)
	for k, i := range idx {
		s.alpha[i] = vals[k]
	}
	s.f.ftran(s.alpha)
	dir = 1.0
	if dq > 0 {
		dir = -1
	}
	amax := 0.0
	for _, a := range s.alpha {
		if a := math.Abs(a); a > amax {
			amax = a
		}
	}
	return dir, max(s.opt.PivotTol, 1e-9*amax)
}

// ratioTest chooses the leaving basic and the step length: Harris's two
// passes over the hard stops, after the phase 1 breakpoints where an
// infeasible basic reaches its bound (a long step passes those while the
// sum of infeasibilities still falls, simplex.LongStep); under Bland's
// rule the nearest stop (simplex.Nearest). flip: q reaches its other bound
// first and no basis change is needed. leave < 0 without flip: a ray.
func (s *Simplex) ratioTest(q int, dq, dir, ptol float64, phase1, bland bool) (leave int, step float64, toLB, flip bool) {
	theta := s.hardStops(q, dir, ptol, phase1, bland)
	leave = -1
	if len(s.bp) > 0 {
		// A long step stops at the last breakpoint passed whose pivot is
		// at least 0.1 of the largest passed: one that ends on a tiny
		// pivot would leave an ill-conditioned basis.
		k := simplex.LongStep(s.bp, theta, dq, 0.1)
		if k < 0 && math.IsInf(theta, 1) {
			// Past every breakpoint the slope is −|dq| + Σ Inc, zero in
			// exact arithmetic when no basic bounds the step, and the
			// rounding of dq against the pivots can leave it a few ulps
			// below: not a ray of phase 1 (its objective is bounded
			// below by 0) but a step to the last breakpoint (LongStep
			// sorted them), on the same rule for a tiny pivot.
			k = lastSizeable(s.bp, 0.1)
		}
		if k >= 0 {
			leave, step, toLB = s.bp[k].P, s.bp[k].T, s.bp[k].ToLB
		}
	}
	if leave < 0 && !math.IsInf(theta, 1) {
		var k int
		if bland {
			k = simplex.Nearest(s.stops, theta)
		} else {
			k = simplex.Harris(s.stops, theta)
		}
		if k >= 0 {
			leave, step, toLB = s.stops[k].P, s.stops[k].T, s.stops[k].ToLB
		}
		if step < 0 {
			step = 0
		}
	}
	if rng := s.ub[q] - s.lb[q]; !math.IsInf(rng, 1) && (leave < 0 || rng <= step) {
		flip, step = true, rng
	}
	return leave, step, toLB, flip
}

// lastSizeable returns the last of the breakpoints bps whose Inc is at
// least keep times the largest, or −1 when there are none.
func lastSizeable(bps []simplex.Breakpoint, keep float64) int {
	incMax := 0.0
	for _, b := range bps {
		incMax = max(incMax, b.Inc)
	}
	for k := len(bps) - 1; k >= 0; k-- {
		if bps[k].Inc >= keep*incMax {
			return k
		}
	}
	return -1
}

// hardStops classifies the basics against their bounds along the entering
// direction: in s.stops the bounds each must keep (relaxed by the
// feasibility tolerance, not under Bland's rule), in s.bp the phase 1
// breakpoints, where an infeasible basic reaches the bound it violates.
// It returns the first pass of Harris's ratio test: the longest step θ
// before a basic passes a relaxed stop, or q its own range.
func (s *Simplex) hardStops(q int, dir, ptol float64, phase1, bland bool) (theta float64) {
	theta = math.Inf(1)
	if !math.IsInf(s.ub[q], 1) && !math.IsInf(s.lb[q], -1) {
		theta = s.ub[q] - s.lb[q]
	}
	s.bp, s.stops = s.bp[:0], s.stops[:0]
	for p, v := range s.head {
		rate := -dir * s.alpha[p]
		ar := math.Abs(rate)
		if ar <= ptol {
			continue
		}
		xv, lo, up, ftol := s.x[v], s.lb[v], s.ub[v], s.ftol[v]
		tol := ftol
		if bland {
			tol = 0
		}
		switch {
		case phase1 && xv < lo-ftol:
			if rate > 0 {
				s.bp = append(s.bp, simplex.Breakpoint{T: (lo - xv) / rate, Inc: rate, P: p, Key: v, ToLB: true})
				if !math.IsInf(up, 1) {
					s.stops = append(s.stops, simplex.Stop{T: (up - xv) / rate, Relaxed: (up + tol - xv) / rate, Pivot: ar, P: p, Var: v})
				}
			}
		case phase1 && xv > up+ftol:
			if rate < 0 {
				s.bp = append(s.bp, simplex.Breakpoint{T: (up - xv) / rate, Inc: -rate, P: p, Key: v})
				if !math.IsInf(lo, -1) {
					s.stops = append(s.stops, simplex.Stop{T: (lo - xv) / rate, Relaxed: (lo - tol - xv) / rate, Pivot: ar, P: p, Var: v, ToLB: true})
				}
			}
		case rate > 0:
			if !math.IsInf(up, 1) {
				s.stops = append(s.stops, simplex.Stop{T: (up - xv) / rate, Relaxed: (up + tol - xv) / rate, Pivot: ar, P: p, Var: v})
			}
		default:
			if !math.IsInf(lo, -1) {
				s.stops = append(s.stops, simplex.Stop{T: (lo - xv) / rate, Relaxed: (lo - tol - xv) / rate, Pivot: ar, P: p, Var: v, ToLB: true})
			}
		}
	}
	return simplex.Bound(s.stops, theta)
}

// Ray handles a pass whose ratio test found no bound to stop at. In phase
// 1 that cannot happen in exact arithmetic: the factors are recomputed,
// and on fresh ones the solve fails (Solve then starts once from the slack
// basis). On perturbed bounds the true ones are restored; else the LP is
// unbounded.
func (r *solveRun) Ray(phase1 bool) (simplex.Flow, error) {
	if phase1 {
		if r.fresh {
			return simplex.Finish, errors.New("revised: phase 1 ray found, numerical trouble")
		}
		return r.again()
	}
	if r.s.perturbed {
		r.s.unperturb()
		r.deg.Steps = 0
		return r.again()
	}
	if !r.fresh {
		// Updated factors can lose the pivots that bound the step: only
		// a ray on fresh ones is taken for one.
		return r.again()
	}
	r.res = &Result{Status: lp.Unbounded, Iterations: r.iters}
	return simplex.Finish, nil
}

// again refactorises the basis, after a change of bounds or to drop the
// factors' updates before a verdict, and starts the next iteration from
// the fresh factors.
func (r *solveRun) again() (simplex.Flow, error) {
	if err := r.s.refactor(); err != nil {
		return simplex.Finish, err
	}
	r.fresh = true
	return simplex.Restart, nil
}

// move takes the step: q by dir·step, the basics along −dir·α·step.
func (s *Simplex) move(q int, dir, step float64) {
	if step == 0 {
		return
	}
	s.x[q] += dir * step
	for p, v := range s.head {
		if a := s.alpha[p]; a != 0 {
			s.x[v] -= dir * a * step
		}
	}
}

// flip puts q, which reached its other bound before any basic stopped it,
// exactly on that bound; the basis and its factors stay.
func (s *Simplex) flip(q int, dir float64) {
	if dir > 0 {
		s.state[q], s.x[q] = atUpper, s.ub[q]
	} else {
		s.state[q], s.x[q] = atLower, s.lb[q]
	}
}

// exchange makes q basic at position leave and puts the leaving variable
// exactly on the bound it reached (a fixed variable at its lower bound),
// so that rounding does not accumulate in nonbasic values; the factors
// take one eta update.
func (s *Simplex) exchange(q, leave int, toLB bool) {
	v := s.head[leave]
	if toLB {
		s.state[v], s.x[v] = atLower, s.lb[v]
	} else {
		s.state[v], s.x[v] = atUpper, s.ub[v]
	}
	if s.lb[v] == s.ub[v] {
		s.state[v] = atLower
	}
	s.head[leave] = q
	s.state[q] = basic
	s.f.update(s.alpha, leave)
}

// price returns the reduced cost of nonbasic variable j under the duals
// s.y (phase 1: of the sum of infeasibilities), and its score: |d_j| when
// moving j off its bound lowers the objective by more than dtol per unit,
// else 0.
func (s *Simplex) price(j int, phase1 bool, dtol float64) (dj, score float64) {
	st := s.state[j]
	if st == basic || s.lb[j] == s.ub[j] {
		return 0, 0
	}
	c := 0.0
	if !phase1 && j < s.n {
		c = s.cost[j]
	}
	dj = c - s.dot(j, s.y)
	switch {
	case dj < -dtol && st != atUpper:
		return dj, -dj
	case dj > dtol && st != atLower:
		return dj, dj
	}
	return dj, 0
}

// largestPrice is the largest phase 1 score of price over every
// nonbasic variable.
func (s *Simplex) largestPrice(dtol float64) float64 {
	best := 0.0
	for j := range s.n + s.m {
		_, score := s.price(j, true, dtol)
		best = max(best, score)
	}
	return best
}

// optimal assembles the result at an optimal basis; s.y holds the duals.
func (s *Simplex) optimal(iters int) *Result {
	r := &Result{Status: lp.Optimal, Iterations: iters}
	r.X = append([]float64(nil), s.x[:s.n]...)
	r.RowActivity = make([]float64, s.m)
	for j := 0; j < s.n; j++ {
		for k := s.colStart[j]; k < s.colStart[j+1]; k++ {
			r.RowActivity[s.rowIdx[k]] += s.val[k] * r.X[j]
		}
	}
	for i, rs := range s.rs {
		r.RowActivity[i] /= rs
	}
	sign := 1.0
	if s.maximize {
		sign = -1
	}
	r.RowDuals = make([]float64, s.m)
	for i, yi := range s.y {
		r.RowDuals[i] = sign * yi * s.rs[i]
	}
	r.ColDuals = make([]float64, s.n)
	obj := s.offset
	for j := 0; j < s.n; j++ {
		r.ColDuals[j] = sign * (s.cost[j] - s.dot(j, s.y))
		obj += sign * s.cost[j] * r.X[j]
	}
	r.Objective = obj
	return r
}

// infeasible assembles the result of phase 1 ending with a positive sum of
// infeasibilities; s.y holds the phase 1 duals, which are a Farkas ray.
func (s *Simplex) infeasible(iters int) *Result {
	r := &Result{Status: lp.Infeasible, Iterations: iters}
	r.Certificate = s.certificate(s.y)
	// In the units of the model, normalised to max |y_i| = 1 (a ray's
	// length is arbitrary; this keeps absolute tolerances on Aᵀy meaningful).
	ymax := 0.0
	for i, rs := range s.rs {
		r.Certificate[i] *= rs
		ymax = max(ymax, math.Abs(r.Certificate[i]))
	}
	if ymax > 0 {
		for i := range r.Certificate {
			r.Certificate[i] /= ymax
		}
	}
	return r
}

// certificate returns the Farkas ray y of the phase 1 duals, cleaned of the
// rounding noise that would make it prove nothing: a row whose bound in the
// direction of y_i is infinite contributes −∞ to min y·r unless y_i is
// exactly 0, and at a phase 1 optimum such a y_i is the reduced cost of a
// nonbasic logical, so of the right sign up to OptTol. Entries of the wrong
// sign within OptTol are therefore set to zero.
func (s *Simplex) certificate(y []float64) []float64 {
	c := make([]float64, s.m)
	for i, yi := range y {
		lo, up := s.lb[s.n+i], s.ub[s.n+i]
		if (yi > 0 && math.IsInf(lo, -1)) || (yi < 0 && math.IsInf(up, 1)) {
			if math.Abs(yi) <= s.opt.OptTol {
				yi = 0
			}
		}
		c[i] = yi
	}
	s.repairColumns(c)
	return c
}

// repairColumns removes the wrong-sign rounding noise of z = Aᵀy on the
// columns whose bound in that direction is infinite (a nonbasic column
// priced within OptTol, or a basic one whose B⁻ᵀ solve left noise): such a
// z_j, however small, makes max z·x infinite. For each one it moves one
// y_i of the column (the largest |A_ij| whose row stays bounded in the new
// direction of y_i) by −z_j/A_ij, which makes z_j zero up to rounding and
// changes the other terms of the gap by about |z_j|.
func (s *Simplex) repairColumns(y []float64) {
	for pass := 0; pass < 3; pass++ {
		changed := false
		for j := 0; j < s.n; j++ {
			z, mag := 0.0, 0.0
			for k := s.colStart[j]; k < s.colStart[j+1]; k++ {
				t := s.val[k] * y[s.rowIdx[k]]
				z += t
				mag += math.Abs(t)
			}
			if math.Abs(z) <= 1e-9*mag || (z > 0 && !math.IsInf(s.ub[j], 1)) || (z < 0 && !math.IsInf(s.lb[j], -1)) {
				continue
			}
			if math.Abs(z) > s.opt.OptTol*(1+mag) {
				continue // not noise; leave the certificate as it is
			}
			best, bestA, bestY := -1, 0.0, 0.0
			for k := s.colStart[j]; k < s.colStart[j+1]; k++ {
				i, a := s.rowIdx[k], s.val[k]
				ny := y[i] - z/a
				if (ny > 0 && math.IsInf(s.lb[s.n+i], -1)) || (ny < 0 && math.IsInf(s.ub[s.n+i], 1)) {
					continue
				}
				if math.Abs(a) > bestA {
					best, bestA, bestY = i, math.Abs(a), ny
				}
			}
			if best >= 0 {
				y[best] = bestY
				changed = true
			}
		}
		if !changed {
			return
		}
	}
}
