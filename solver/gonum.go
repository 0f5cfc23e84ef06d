package solver

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/lp"
	"gonum.org/v1/gonum/mat"
	glp "gonum.org/v1/gonum/optimize/convex/lp"
)

func init() { mustRegister("gonum", Gonum) }

// Gonum returns the pure-Go backend on gonum's dense simplex
// (gonum.org/v1/gonum/optimize/convex/lp). It is always built in. The value
// also implements WarmSolver, with sessions that re-solve from scratch.
//
// Rows duals and reduced costs are recovered from the final basis when that
// basis is dual feasible, which it is at every non-degenerate optimum; when it
// is not, RowDuals and ColDuals are nil. Certificate is always nil and
// Iterations is always 0. The engine is dense: use it for models of a few
// hundred rows and columns.
func Gonum() Solver { return gonumSolver{} }

type gonumSolver struct{}

func (gonumSolver) Name() string { return "gonum" }

func (g gonumSolver) Load(m *lp.Model) (Session, error) { return ColdSession(g, m) }

// Size limits of the gonum backend. Gonum's Simplex is dense (every
// iteration solves with the full basis, O(rows³)), has no iteration limit
// and cannot be interrupted, so a model whose standard form exceeds these
// is refused with an error wrapping ErrTooLarge rather than left to run for
// hours. A 12×12 ε-PML LP (about 170 rows, 330 columns in standard form)
// is within them.
const (
	GonumMaxRows    = 400
	GonumMaxEntries = 200000
)

// ErrTooLarge is wrapped by the error of a backend that refuses a model for
// its size.
var ErrTooLarge = errors.New("model too large for this backend")

// Tolerances of the gonum backend.
const (
	gonumCostTol = 1e-11 // reduced cost optimality in gonum's simplex
	gonumFeasTol = 1e-9  // relative primal feasibility
	gonumIndTol  = 1e-9  // relative residual for linear independence
)

func (gonumSolver) Solve(m *lp.Model) (*Solution, error) {
	if err := checkModel(m); err != nil {
		return nil, err
	}
	if !boundsConsistent(m) {
		return &Solution{Status: Infeasible}, nil
	}
	sf := toStandard(m)
	// The size check comes before the dense copy, which alone would take
	// gigabytes for a model the backend refuses (4 GB at N = M = 128).
	if rows, cols := len(sf.sparse), len(sf.c); rows > GonumMaxRows || rows*cols > GonumMaxEntries {
		return nil, fmt.Errorf("solver: gonum: %w: standard form is %d×%d (limits %d rows, %d entries); use the revised or clp backend", ErrTooLarge, rows, cols, GonumMaxRows, GonumMaxEntries)
	}
	sf.densify()
	st, x, y, err := solveStandard(sf.c, sf.a, sf.b)
	if err != nil {
		return nil, err
	}
	sol := &Solution{Status: st}
	if st != Optimal {
		return sol, nil
	}
	sol.X = sf.recover(x)
	sol.RowActivity = rowActivity(m, sol.X)
	sol.Objective = objective(m, sol.X)
	if err := verifyPrimal(m, sol.X, sol.RowActivity); err != nil {
		return nil, fmt.Errorf("solver: gonum: %w", err)
	}
	if y != nil {
		sol.RowDuals = make([]float64, m.NumRows())
		for i, r := range sf.rowOf {
			if r >= 0 {
				sol.RowDuals[i] = y[r] + 0 // no −0
				if m.Maximize {
					sol.RowDuals[i] = 0 - y[r]
				}
			}
		}
		sol.ColDuals = reducedCosts(m, sol.RowDuals)
	}
	return sol, nil
}

// reducedCosts returns c − Aᵀy.
func reducedCosts(m *lp.Model, y []float64) []float64 {
	d := append([]float64(nil), m.ColCosts...)
	for _, e := range m.ConstMatrix {
		d[e.Col] -= e.Val * y[e.Row]
	}
	for j := range d {
		d[j] += 0 // no −0
	}
	return d
}

// verifyPrimal checks x against the bounds of m, relative to the size of the
// bound, and reports the worst violation beyond gonumFeasTol·1e2.
func verifyPrimal(m *lp.Model, x, act []float64) error {
	const tol = gonumFeasTol * 100
	viol := func(v, lo, up float64) bool {
		return v < lo-tol*max(1, math.Abs(lo)) || v > up+tol*max(1, math.Abs(up))
	}
	for j, v := range x {
		if viol(v, m.ColLower[j], m.ColUpper[j]) {
			return fmt.Errorf("numerical failure: column %d = %g outside [%g, %g]", j, v, m.ColLower[j], m.ColUpper[j])
		}
	}
	for i, v := range act {
		if viol(v, m.RowLower[i], m.RowUpper[i]) {
			return fmt.Errorf("numerical failure: row %d = %g outside [%g, %g]", i, v, m.RowLower[i], m.RowUpper[i])
		}
	}
	return nil
}

// colMap says how an original column is written in standard-form columns:
// x = base + sign·x'[k] (− x'[k2] for a free column), or x = base if k < 0.
type colMap struct {
	base    float64
	sign    float64
	k, k2   int
	hasNeg  bool
	isFixed bool
}

// standard is min cᵀx', A x' = b, x' ≥ 0 together with the map back.
type standard struct {
	c      []float64
	a      [][]float64 // dense rows, filled by densify
	b      []float64
	cols   []colMap
	rowOf  []int // standard row of each original row, or −1 for a free row
	sparse []srow
}

// srow is a row of the standard form before densify.
type srow struct {
	ent map[int]float64
	rhs float64
}

// densify fills a and b from the sparse rows.
func (s *standard) densify() {
	ns := len(s.c)
	s.a = make([][]float64, len(s.sparse))
	s.b = make([]float64, len(s.sparse))
	for i, sr := range s.sparse {
		row := make([]float64, ns)
		for k, v := range sr.ent {
			row[k] = v
		}
		s.a[i], s.b[i] = row, sr.rhs
	}
	s.sparse = nil
}

func (s *standard) recover(xs []float64) []float64 {
	x := make([]float64, len(s.cols))
	for j, cm := range s.cols {
		v := cm.base
		if !cm.isFixed {
			v += cm.sign * xs[cm.k]
			if cm.hasNeg {
				v -= xs[cm.k2]
			}
		}
		x[j] = v
	}
	return x
}

// toStandard writes the bounded model m in standard form. Fixed columns are
// substituted, finite lower bounds shifted, columns bounded only above
// mirrored, free columns split; a finite upper bound on a column and every
// inequality row get a slack column; two-sided rows get a bounded slack.
func toStandard(m *lp.Model) *standard {
	n, r := m.NumCols(), m.NumRows()
	s := &standard{cols: make([]colMap, n), rowOf: make([]int, r)}
	sense := 1.0
	if m.Maximize {
		sense = -1
	}
	type ub struct {
		k   int
		val float64
	}
	var ubs []ub
	newCol := func(cost float64) int {
		s.c = append(s.c, cost)
		return len(s.c) - 1
	}
	for j := 0; j < n; j++ {
		lo, up, c := m.ColLower[j], m.ColUpper[j], sense*m.ColCosts[j]
		switch {
		case lo == up:
			s.cols[j] = colMap{base: lo, isFixed: true, k: -1}
		case !math.IsInf(lo, -1):
			k := newCol(c)
			s.cols[j] = colMap{base: lo, sign: 1, k: k}
			if !math.IsInf(up, 1) {
				ubs = append(ubs, ub{k, up - lo})
			}
		case !math.IsInf(up, 1):
			s.cols[j] = colMap{base: up, sign: -1, k: newCol(-c)}
		default:
			k := newCol(c)
			s.cols[j] = colMap{sign: 1, k: k, k2: newCol(-c), hasNeg: true}
		}
	}
	// Rows of the original matrix on the standard columns.
	rows := make([]map[int]float64, r)
	konst := make([]float64, r)
	for i := range rows {
		rows[i] = map[int]float64{}
	}
	for _, e := range m.ConstMatrix {
		cm := s.cols[e.Col]
		konst[e.Row] += e.Val * cm.base
		if cm.isFixed {
			continue
		}
		rows[e.Row][cm.k] += e.Val * cm.sign
		if cm.hasNeg {
			rows[e.Row][cm.k2] -= e.Val
		}
	}
	var out []srow
	for i := 0; i < r; i++ {
		lo, up := m.RowLower[i]-konst[i], m.RowUpper[i]-konst[i]
		switch {
		case math.IsInf(lo, -1) && math.IsInf(up, 1):
			s.rowOf[i] = -1
			continue
		case m.RowLower[i] == m.RowUpper[i]:
			out = append(out, srow{rows[i], lo})
		case !math.IsInf(lo, -1):
			sl := newCol(0)
			rows[i][sl] = -1
			out = append(out, srow{rows[i], lo})
			if !math.IsInf(up, 1) {
				ubs = append(ubs, ub{sl, up - lo})
			}
		default:
			sl := newCol(0)
			rows[i][sl] = 1
			out = append(out, srow{rows[i], up})
		}
		s.rowOf[i] = len(out) - 1
	}
	for _, u := range ubs {
		t := newCol(0)
		out = append(out, srow{map[int]float64{u.k: 1, t: 1}, u.val})
	}
	s.sparse = out
	return s
}

// gsBasis is an orthonormal basis grown one vector at a time (modified
// Gram-Schmidt with re-orthogonalisation), used to pick linearly independent
// rows and columns.
type gsBasis struct{ q [][]float64 }

// add appends v if it is independent of the vectors already in g.
func (g *gsBasis) add(v []float64) bool {
	n0 := norm2(v)
	if n0 == 0 {
		return false
	}
	r := append([]float64(nil), v...)
	for pass := 0; pass < 2; pass++ {
		for _, q := range g.q {
			d := dot(q, r)
			for i := range r {
				r[i] -= d * q[i]
			}
		}
	}
	nr := norm2(r)
	if nr <= gonumIndTol*n0 {
		return false
	}
	for i := range r {
		r[i] /= nr
	}
	g.q = append(g.q, r)
	return true
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func norm2(a []float64) float64 { return math.Sqrt(dot(a, a)) }

// callSimplex runs gonum's Simplex and turns a panic into an error.
func callSimplex(c []float64, a *mat.Dense, b []float64, basic []int) (x []float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			x, err = nil, fmt.Errorf("solver: gonum simplex: %v", r)
		}
	}()
	_, x, err = glp.Simplex(c, a, b, gonumCostTol, basic)
	return x, err
}

// solveStandard solves min cᵀx, A x = b, x ≥ 0 and returns the status, x
// and, when it can be certified, an optimal dual y (cᵀ − yᵀA ≥ 0).
//
// Gonum's Simplex needs a full-row-rank A without zero rows or columns, and
// its own phase I can give up on degenerate problems, so this function drops
// zero columns and dependent rows itself and runs phase I on the problem with
// one artificial column per row, started from the artificial basis.
func solveStandard(c []float64, a [][]float64, b []float64) (Status, []float64, []float64, error) {
	m := len(a)
	x := make([]float64, len(c))
	// 1. Zero columns and dependent rows out.
	p := reduce(c, a, b)
	if len(p.rows) == 0 {
		if st, done := p.verdict(x); done {
			return st, nil, nil, nil
		}
		return Optimal, x, make([]float64, m), nil
	}
	// 2. Phase I: a feasible vertex, or a proof there is none.
	x1, infeasible, err := p.phase1()
	if err != nil {
		return 0, nil, nil, err
	}
	if infeasible {
		return Infeasible, nil, nil, nil
	}
	for k, j := range p.cols {
		x[j] = x1[k]
	}
	// 3. The dropped rows and the zero columns decide what phase I can
	// not see.
	if st, done := p.verdict(x); done {
		return st, nil, nil, nil
	}
	// 4. A feasibility problem (all costs zero, as the ε-PML LPs of a
	// bisection) is solved by phase I's vertex, with zero duals: phase II
	// would only risk gonum losing feasibility at a degenerate vertex.
	if p.zeroCost() {
		return Optimal, x, make([]float64, m), nil
	}
	// 5. Phase II from phase I's vertex, and the duals of its basis.
	st, x2, y, err := p.phase2(x1)
	if st != Optimal || err != nil {
		return st, nil, nil, err
	}
	for k, j := range p.cols {
		x[j] = x2[k]
	}
	var yFull []float64
	if y != nil {
		yFull = make([]float64, m)
		for r, i := range p.rows {
			yFull[i] = y[r]
		}
	}
	return Optimal, x, yFull, nil
}

// reduced is a standard-form problem min cᵀx, A x = b, x ≥ 0 with the
// parts gonum's Simplex can not take set aside: it is given the nonzero
// columns and a set of independent rows only.
type reduced struct {
	c       []float64
	a       [][]float64
	b       []float64
	cols    []int   // the nonzero columns
	rows    []int   // independent rows, a basis of A's row space
	dropped []int   // the other rows, checked on the solution
	rayFree bool    // a zero column of negative cost: unbounded if feasible
	feasTol float64 // absolute feasibility tolerance, relative to max |b_i|
}

// reduce sets aside A's zero columns, which stay at 0 (one with a negative
// cost makes a feasible problem unbounded), and the rows that depend on
// earlier ones.
func reduce(c []float64, a [][]float64, b []float64) *reduced {
	m, n := len(a), len(c)
	p := &reduced{c: c, a: a, b: b}
	scale := 1.0
	for _, v := range b {
		scale = max(scale, math.Abs(v))
	}
	p.feasTol = gonumFeasTol * scale
	for j := 0; j < n; j++ {
		zero := true
		for i := 0; i < m; i++ {
			if a[i][j] != 0 {
				zero = false
				break
			}
		}
		switch {
		case !zero:
			p.cols = append(p.cols, j)
		case c[j] < 0:
			p.rayFree = true
		}
	}
	var g gsBasis
	for i := 0; i < m; i++ {
		v := make([]float64, len(p.cols))
		for k, j := range p.cols {
			v[k] = a[i][j]
		}
		if g.add(v) {
			p.rows = append(p.rows, i)
		} else {
			p.dropped = append(p.dropped, i)
		}
	}
	return p
}

// verdict decides what the reduced problem does not show about a point x
// feasible for it: a dropped row it violates makes the problem infeasible
// (the row was dependent only up to the independence tolerance), and a
// zero column of negative cost unbounded. done is false when neither holds.
func (p *reduced) verdict(x []float64) (st Status, done bool) {
	for _, i := range p.dropped {
		var s float64
		for _, j := range p.cols {
			s += p.a[i][j] * x[j]
		}
		if math.Abs(s-p.b[i]) > p.feasTol {
			return Infeasible, true
		}
	}
	if p.rayFree {
		return Unbounded, true
	}
	return 0, false
}

// phase1 finds a vertex of the reduced problem (x over p.cols), or reports
// that it is infeasible (the artificials' sum stays above the tolerance): min Σ art, [A I_art] (x, art) = b with b ≥ 0 by
// row signs. A row whose sign-adjusted b is matched by a column that has
// its only non-zero there (a slack, typically) starts with that column
// basic; only the other rows get an artificial column, and with none the
// start is the vertex.
func (p *reduced) phase1() (x1 []float64, infeasible bool, err error) {
	a, b, rows, cols := p.a, p.b, p.rows, p.cols
	mk, nk := len(rows), len(cols)
	sg, single, artRows := p.start()
	na := len(artRows)
	if na == 0 {
		x1 = make([]float64, nk)
		for r, k := range single {
			x1[k] = b[rows[r]] / a[rows[r]][cols[k]]
		}
		return x1, false, nil
	}
	a1 := mat.NewDense(mk, nk+na, nil)
	b1 := make([]float64, mk)
	c1 := make([]float64, nk+na)
	basic := make([]int, mk)
	for r, i := range rows {
		for k, j := range cols {
			a1.Set(r, k, sg[r]*a[i][j])
		}
		b1[r] = sg[r] * b[i]
		basic[r] = single[r]
	}
	for t, r := range artRows {
		a1.Set(r, nk+t, 1)
		c1[nk+t] = 1
		basic[r] = nk + t
	}
	x1, err = callSimplex(c1, a1, b1, basic)
	if err != nil && !errors.Is(err, glp.ErrInfeasible) && !errors.Is(err, glp.ErrUnbounded) {
		// A near-singular basis on the way (degenerate PML vertices):
		// let gonum start phase I from its own basis instead.
		x1, err = callSimplex(c1, a1, b1, nil)
	}
	if err != nil {
		return nil, false, fmt.Errorf("solver: gonum phase I: %w", err)
	}
	var infeas float64
	for t := 0; t < na; t++ {
		infeas += math.Abs(x1[nk+t])
	}
	return x1, infeas > p.feasTol, nil
}

// start returns phase I's starting basis: the sign sg[r] that makes row
// r's right-hand side nonnegative, the column single[r] (an index into
// p.cols) basic in row r, or −1, and the rows left for artificial columns.
func (p *reduced) start() (sg []float64, single, artRows []int) {
	a, b, rows, cols := p.a, p.b, p.rows, p.cols
	mk := len(rows)
	sg = make([]float64, mk)
	for r, i := range rows {
		sg[r] = 1
		if b[i] < 0 {
			sg[r] = -1
		}
	}
	single = make([]int, mk)
	for r := range single {
		single[r] = -1
	}
	for k, j := range cols {
		rr, cnt := -1, 0
		for r, i := range rows {
			if a[i][j] != 0 {
				rr, cnt = r, cnt+1
			}
		}
		if cnt == 1 && single[rr] < 0 && (sg[rr]*a[rows[rr]][j] > 0 || b[rows[rr]] == 0) {
			single[rr] = k
		}
	}
	for r := range single {
		if single[r] < 0 {
			artRows = append(artRows, r)
		}
	}
	return sg, single, artRows
}

// zeroCost reports whether every kept column costs nothing.
func (p *reduced) zeroCost() bool {
	for _, j := range p.cols {
		if p.c[j] != 0 {
			return false
		}
	}
	return true
}

// phase2 minimises cᵀx over the reduced problem from the basis of phase
// I's vertex x1, completed to a full basis, and returns the optimum over
// p.cols with the duals over p.rows of its basis when they are dual
// feasible (else nil).
func (p *reduced) phase2(x1 []float64) (Status, []float64, []float64, error) {
	mk, nk := len(p.rows), len(p.cols)
	a2 := mat.NewDense(mk, nk, nil)
	b2 := make([]float64, mk)
	c2 := make([]float64, nk)
	for r, i := range p.rows {
		for k, j := range p.cols {
			a2.Set(r, k, p.a[i][j])
		}
		b2[r] = p.b[i]
	}
	for k, j := range p.cols {
		c2[k] = p.c[j]
	}
	basis2 := completeBasis(a2, x1[:nk])
	if len(basis2) == mk {
		if st, x2, y, ok := perturbedPhase2(c2, a2, b2, basis2); ok {
			return st, x2, y, nil
		}
	}
	x2, err := callSimplex(c2, a2, b2, basis2)
	if err != nil && !errors.Is(err, glp.ErrUnbounded) && len(basis2) == mk {
		// The phase I vertex may be infeasible by more than gonum's 1e-13
		// for the completed basis: let gonum find its own start.
		x2, err = callSimplex(c2, a2, b2, nil)
	}
	switch {
	case errors.Is(err, glp.ErrUnbounded):
		return Unbounded, nil, nil, nil
	case errors.Is(err, glp.ErrInfeasible):
		return 0, nil, nil, fmt.Errorf("solver: gonum phase II lost feasibility: %w", err)
	case err != nil:
		return 0, nil, nil, fmt.Errorf("solver: gonum phase II: %w", err)
	}
	return Optimal, x2, standardDuals(a2, c2, x2), nil
}

// perturbStep is the size of the perturbation of perturbedPhase2,
// relative to the largest right-hand side.
const perturbStep = 1e-7

// perturbedPhase2 solves min cᵀx, A x = b, x ≥ 0 from the feasible basis
// basis with b moved to b + A_B δ, δ_r in perturbStep·[1, 2): every basic
// variable starts at least perturbStep above its value, none at 0.
// Gonum's Simplex falls back to its Bland rule on a move of zero, and
// that rule, which orders the columns by their place in its own lists
// rather than by a fixed index, can cycle for ever on a degenerate vertex
// (robust models over an L1 ball have many). The perturbation is numeric,
// not lexicographic: it makes a zero move, hence a cycle, unlikely rather
// than impossible. The optimal basis of the perturbed problem has the
// same reduced costs as the true one, so where B⁻¹b ≥ 0 it is optimal for
// the true problem too, and its duals y are returned; ok is false where it
// is not, or Simplex failed, and the caller solves the true problem, as
// before. Unboundedness does not depend on b.
func perturbedPhase2(c []float64, a *mat.Dense, b []float64, basis []int) (Status, []float64, []float64, bool) {
	mk, nk := a.Dims()
	scale := 1.0
	for _, v := range b {
		scale = max(scale, math.Abs(v))
	}
	bp := slices.Clone(b)
	for r, j := range basis {
		// δ_r from the golden ratio's multiples: distinct, deterministic.
		_, frac := math.Modf(float64(r+1) * 0.6180339887498949)
		d := perturbStep * scale * (1 + frac)
		for i := range mk {
			bp[i] += a.At(i, j) * d
		}
	}
	xp, err := callSimplex(c, a, bp, basis)
	switch {
	case errors.Is(err, glp.ErrUnbounded):
		return Unbounded, nil, nil, true
	case err != nil:
		return 0, nil, nil, false
	}
	// The basis Simplex ended on, optimal for the perturbed problem when
	// its duals are feasible.
	final := completeBasis(a, xp)
	y := basisDuals(a, c, final)
	if y == nil {
		return 0, nil, nil, false
	}
	bm := mat.NewDense(mk, mk, nil)
	for k, j := range final {
		bm.SetCol(k, mat.Col(nil, j, a))
	}
	var xb mat.VecDense
	if err := xb.SolveVec(bm, mat.NewVecDense(mk, slices.Clone(b))); err != nil {
		return 0, nil, nil, false
	}
	x := make([]float64, nk)
	for k, j := range final {
		v := xb.AtVec(k)
		if v < -gonumFeasTol*scale {
			return 0, nil, nil, false
		}
		x[j] = max(0, v)
	}
	return Optimal, x, y, true
}

// completeBasis returns the columns of a where x > 0 completed by further
// columns to a set of rank rows(a). If a has no such set it returns what it
// found.
func completeBasis(a *mat.Dense, x []float64) []int {
	mk, nk := a.Dims()
	var g gsBasis
	var basis []int
	in := make([]bool, nk)
	try := func(j int) {
		if len(basis) < mk && !in[j] && g.add(mat.Col(nil, j, a)) {
			basis = append(basis, j)
			in[j] = true
		}
	}
	for j, v := range x {
		if v > 0 {
			try(j)
		}
	}
	// Slack-like columns last, as gonum does.
	for j := nk - 1; j >= 0; j-- {
		try(j)
	}
	return basis
}

// standardDuals recovers y from the basis of the vertex x (its positive
// entries completed to a basis) and returns it if it is dual feasible,
// cᵀ − yᵀA ≥ −tol, else nil.
func standardDuals(a *mat.Dense, c, x []float64) []float64 {
	return basisDuals(a, c, completeBasis(a, x))
}

// basisDuals returns the duals y of the basis (Bᵀy = c_B) if they are
// dual feasible, cᵀ − yᵀA ≥ −tol, else nil.
func basisDuals(a *mat.Dense, c []float64, basis []int) []float64 {
	mk, _ := a.Dims()
	if len(basis) != mk {
		return nil
	}
	bm := mat.NewDense(mk, mk, nil)
	cb := mat.NewVecDense(mk, nil)
	for k, j := range basis {
		bm.SetCol(k, mat.Col(nil, j, a))
		cb.SetVec(k, c[j])
	}
	var y mat.VecDense
	if err := y.SolveVec(bm.T(), cb); err != nil {
		return nil
	}
	var d mat.VecDense
	d.MulVec(a.T(), &y)
	cmax := 1.0
	for _, v := range c {
		cmax = max(cmax, math.Abs(v))
	}
	for j, v := range c {
		if v-d.AtVec(j) < -1e-9*cmax {
			return nil
		}
	}
	return mat.Col(nil, 0, &y)
}
