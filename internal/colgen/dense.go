package colgen

import (
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/pmlopt/pmlopt/internal/simplex"
	"github.com/pmlopt/pmlopt/internal/vec"
)

// dense is the master LP's simplex engine:
//
//	min Σ_i s_i  subject to  s + Σ_k w_k v_k = 1,  s, w ≥ 0,
//
// over the slacks s (variables 0..n−1) and the generated columns v_k
// (variables n + k), some of which may be dead (fixed at 0). The basis is
// an n×n matrix whose columns are dense in practice (a column of the
// master holds about n/λ entries), so its inverse is kept explicitly and
// updated by rank-one steps, which costs O(n²) per pivot in vector
// operations instead of a sparse factorisation's bookkeeping on dense data.
// The inverse is recomputed from the basis every max(refactorEvery,
// refactorPer·n) pivots (an inversion costs n³, an update n²) and whenever
// a basic column changes.
//
// The method is the primal simplex: phase 1 (when a warm basis has
// negative basic values, after the columns moved) minimises the sum of the
// negative parts with a long step over their breakpoints; phase 2 the sum
// of the slacks. Pricing is Dantzig's rule over a rotating part of the
// columns, the ratio test Harris's two passes (both, with the iteration
// itself, simplex.Run, the long step, Bland's rule and the perturbation's
// size, in internal/simplex, shared with internal/revised; denseRun writes
// the iteration's steps for this engine). After degenerateRun
// degenerate pivots in a row the bounds are lowered by small pseudo-random
// amounts (perturb) and the solve goes on, each bound lowered further
// should a recomputed inverse put its basic value below it (reshift); the
// point is cleaned up on the true bounds at the end. Should a run of
// degenerate pivots come again, Bland's rule takes over until a step makes
// progress. A phase 2 that stops lowering its objective ends the solve
// (stallPivots).
type dense struct {
	n    int
	cols []stored
	head []int // head[p]: the variable basic at position p
	pos  []int // pos[v]: the position of variable v in the basis, or −1

	// bt is (B⁻¹)ᵀ, row-major: bt[i*n+p] = (B⁻¹)_{p,i}. Row i of bt is
	// B⁻¹e_i, so B⁻¹a is a sum of rows of bt, one per entry of a.
	bt      []float64
	valid   bool            // bt is the inverse of the current basis matrix
	updates int             // rank-one updates since bt was computed
	pricing simplex.Pricing // rotating partial pricing: where its next scan starts
	yValid  bool            // y holds the phase 2 duals of the current basis (pivot keeps them)

	// feasTol is the feasibility tolerance of the solve: denseFeasTol,
	// or exactFeasTol within tighten.
	feasTol float64
	// iterCap, if positive, caps the pivots of a run (tighten's).
	iterCap int
	// fineTol lets a phase 2 grinding at a sum of slacks below
	// stallFloor tighten its feasibility tolerance to fineTolRatio of
	// that sum: the robust masters' choice. At one prior the same
	// tightening just above a breakpoint (log 2 on banded patterns) makes
	// the master stall where the engine's tolerance lets it end.
	fineTol bool
	// workers is the number of goroutines the O(n²) vector work may use
	// (split); results do not depend on it. minWork is parallelWork,
	// which tests lower to split small problems.
	workers, minWork int

	// While perturbed, variable v may go down to −shift[v] instead of 0
	// (see run).
	perturbed bool
	shift     []float64

	xb, y, cb, alpha []float64 // basic values, duals, basic costs, B⁻¹a_q
	nz               []int     // scratch of ftran: the entries of the entering column
	work             []float64 // n×n scratch of gaussJordan
	bps              []simplex.Breakpoint
	stops            []simplex.Stop

	// degenerateRun, refactorEvery, refactorPer, stallPivots and
	// stallPivotsMin are the engine's defaults (the constants of the same
	// names with a default prefix); tests lower them to reach the
	// perturbation, Bland's rule, the periodic inversion and the plateau.
	degenerateRun, refactorEvery, refactorPer int
	stallPivots, stallPivotsMin               int
}

// denseCol is a generated column: its entries, or dead (fixed at 0).
type denseCol struct {
	rows []int
	vals []float64
	dead bool
}

// stored is a generated column in the engine, as a dense n-vector (zero
// when dead): every use of a column is a dense vector operation.
type stored struct {
	v    []float64
	dead bool
}

// store scatters c into buf (reused when long enough).
func (e *dense) store(c denseCol, buf []float64) stored {
	if cap(buf) < e.n {
		buf = make([]float64, e.n)
	}
	buf = buf[:e.n]
	clear(buf)
	if !c.dead {
		for t, i := range c.rows {
			buf[i] = c.vals[t]
		}
	}
	return stored{buf, c.dead}
}

// addColumn adds a times the column of variable v (e_v for a slack) to dst.
func (e *dense) addColumn(dst []float64, a float64, v int) {
	if v < e.n {
		dst[v] += a
		return
	}
	vec.AddScaled(dst, a, e.cols[v-e.n].v)
}

// dotColumn returns y times the column of variable v.
func (e *dense) dotColumn(v int, y []float64) float64 {
	if v < e.n {
		return y[v]
	}
	return vec.Dot(e.cols[v-e.n].v, y)
}

// Engine tolerances.
const (
	// denseFeasTol: a basic value above −denseFeasTol is feasible.
	denseFeasTol = 1e-9
	// exactFeasTol is the feasibility tolerance of tighten: a weight of
	// −1e-9 dropped from the master's point moves the rows, and the
	// audited PML with them, by about as much, while a probe's point must
	// audit within certify.ProbeSlack (1e-13) of its ε.
	exactFeasTol = 1e-15
	// tightenPivots·n caps the pivots of tighten: past that the point
	// is left to the caller's other means (the LP).
	tightenPivots = 2
	// denseOptTol: a reduced cost below −denseOptTol is a candidate; it is
	// priceTol, so that the engine and the pricing agree on what prices out.
	denseOptTol = priceTol
	// densePivTol: the least |α_p| taken as a pivot in the ratio test.
	densePivTol = 1e-9
	// defaultStallPivots·(n + columns) + defaultStallPivotsMin phase 2
	// pivots without the sum of the slacks falling by stallGain·max(1, sum) end a solve
	// as stalled, unless the sum came below stallFloor (near a breakpoint
	// the pivots can cross a face at a sum of 1e-7 for long before they
	// reach 0 or the prices prove the optimum). On a degenerate ε (an
	// opening) the master can go round a plateau far above 0, its steps
	// not degenerate enough for Bland's rule and rounding undoing them,
	// until maxIter; a solve that makes progress lowers the sum far more
	// often than this, and a run of Bland's degenerate pivots across a
	// face grows with the columns it can choose from, as maxIter does.
	defaultStallPivots, defaultStallPivotsMin = 10, 1000
	stallGain                                 = 1e-9
	stallFloor                                = 1e-6
	// Below stallFloor a master near ε* can have a sum of slacks of a few
	// times denseFeasTol: basic values within the tolerance of 0 then pass
	// for feasible or not by rounding, and the solve goes back and forth
	// between the phases, up to maxIter, without changing the sum. A robust master's phase 2 (fineTol) that has made more than n +
	// columns pivots with its sum below stallFloor takes the feasibility
	// tolerance fineTolRatio times that sum (at least fineTolFloor) for
	// the rest of the solve, where the sum is well above it.
	fineTolRatio = 1e-4
	fineTolFloor = 1e-13
	// denseSingTol: the least pivot, relative to the largest entry of the
	// basis, that inversion accepts; a column without one is replaced by
	// a slack.
	denseSingTol = 1e-11
	// minChunk: the least number of columns a partial pricing pass reads
	// (n/2 when that is larger). Pricing is a dense dot product per
	// column, the largest cost of a pivot, and n/2 columns per pass beat
	// max(2n, a quarter of the pool) and n/4 or n (docs/performance.md).
	minChunk = 32
)

// defaultDegenerateRun is the number of degenerate pivots in a row after
// which a solve perturbs the bounds, and after which, once perturbed, it
// follows Bland's rule.
const defaultDegenerateRun = 50

// defaultRefactorEvery is the least number of rank-one updates between
// two inversions (defaultRefactorPer·n when that is larger).
//
// defaultRefactorPer: inversions come every defaultRefactorPer·n updates.
// An inversion (Gauss-Jordan, memory-bound) costs n³ against n² for an
// update, and the updated inverse is checked at the end of every solve
// (accurate) and recomputed when it fails, so inversions can be rare: 16n
// was the fastest period measured (docs/performance.md).
const defaultRefactorEvery, defaultRefactorPer = 100, 16

// errStalled is returned when a solve can not make progress (numerical
// trouble): phase 1 ends above 0, a basis can not be inverted, the pivots
// reach maxIter, or phase 2 goes round a plateau (defaultStallPivots).
var errStalled = errors.New("colgen: the master simplex stalled")

func newDense(n int) *dense {
	e := &dense{n: n, head: make([]int, n), pos: make([]int, n),
		bt: make([]float64, n*n), xb: make([]float64, n), y: make([]float64, n),
		cb: make([]float64, n), alpha: make([]float64, n), work: make([]float64, n*n),
		degenerateRun: defaultDegenerateRun, refactorEvery: defaultRefactorEvery, refactorPer: defaultRefactorPer,
		stallPivots: defaultStallPivots, stallPivotsMin: defaultStallPivotsMin,
		feasTol: denseFeasTol, workers: 1, minWork: parallelWork}
	e.slackBasis()
	return e
}

// slackBasis makes every slack basic: B = I.
func (e *dense) slackBasis() {
	n := e.n
	for v := range e.pos {
		e.pos[v] = -1
	}
	clear(e.bt)
	for p := range n {
		e.head[p], e.pos[p] = p, p
		e.bt[p*n+p] = 1
	}
	e.valid, e.updates, e.yValid = true, 0, false
}

// numCols is the number of variables, slacks included.
func (e *dense) numCols() int { return e.n + len(e.cols) }

// isBasic reports whether variable v is in the basis.
func (e *dense) isBasic(v int) bool { return e.pos[v] >= 0 }

// add appends nonbasic columns.
func (e *dense) add(cs ...denseCol) {
	for _, c := range cs {
		e.cols = append(e.cols, e.store(c, nil))
		e.pos = append(e.pos, -1)
	}
}

// replace changes generated column k.
func (e *dense) replace(k int, c denseCol) {
	e.cols[k] = e.store(c, e.cols[k].v)
	if e.pos[e.n+k] >= 0 {
		e.valid = false
	}
}

// remove deletes the nonbasic generated columns ks (ascending); the later
// columns move down.
func (e *dense) remove(ks []int) error {
	if len(ks) == 0 {
		return nil
	}
	gone := make(map[int]bool, len(ks))
	for _, k := range ks {
		if k < 0 || k >= len(e.cols) || e.pos[e.n+k] >= 0 {
			return errors.New("colgen: remove: a basic or missing column")
		}
		gone[k] = true
	}
	w := 0
	for k := range e.cols {
		if gone[k] {
			continue
		}
		e.cols[w] = e.cols[k]
		p := e.pos[e.n+k]
		e.pos[e.n+w] = p
		if p >= 0 {
			e.head[p] = e.n + w
		}
		w++
	}
	e.cols = e.cols[:w]
	e.pos = e.pos[:e.n+w]
	return nil
}

// invert computes bt from the basis. Positions whose columns are dependent
// (or dead) get the slacks of the rows left without a pivot, and the basis
// is inverted again. It reports false when even that fails (it can not in
// exact arithmetic: the slacks complete any set of independent columns).
func (e *dense) invert() bool {
	e.yValid = false
	for try := 0; try < 2; try++ {
		badPos, badRows := e.gaussJordan()
		if len(badPos) == 0 {
			e.valid, e.updates = true, 0
			return true
		}
		for t, p := range badPos {
			e.pos[e.head[p]] = -1
			e.head[p] = badRows[t]
			e.pos[badRows[t]] = p
		}
	}
	return false
}

// gaussJordan inverts A = Bᵀ (row p of A is the column basic at p) into bt
// by Gauss-Jordan elimination in place with partial pivoting, n³
// operations. A column of A without an acceptable pivot is skipped; the
// positions (rows of A) and constraint rows (columns of A) left without a
// pivot, equal in number, are returned, and bt is then not usable. (The
// in-place steps change only the pivot's own column, so the pivots chosen
// are those of an elimination on [A | I].)
func (e *dense) gaussJordan() (badPos, badRows []int) {
	n := e.n
	w := e.work
	clear(w)
	for p, v := range e.head {
		e.addColumn(w[p*n:(p+1)*n], 1, v)
	}
	scale := 0.0
	for _, x := range w {
		scale = max(scale, math.Abs(x))
	}
	tol := denseSingTol * max(scale, 1)
	used := make([]bool, n)
	piv := make([]int, n) // piv[c]: the row of A pivoted in column c
	for c := range n {
		r, big := -1, tol
		for p := range n {
			if !used[p] {
				if a := math.Abs(w[p*n+c]); a > big {
					r, big = p, a
				}
			}
		}
		if r < 0 {
			badRows = append(badRows, c)
			continue
		}
		used[r], piv[c] = true, r
		prow := w[r*n : (r+1)*n]
		inv := 1 / prow[c]
		prow[c] = 1
		floats.Scale(inv, prow)
		e.split(n, n, func(lo, hi int) {
			for p := lo; p < hi; p++ {
				if p == r {
					continue
				}
				row := w[p*n : (p+1)*n]
				if f := row[c]; f != 0 {
					row[c] = 0
					vec.AddScaled(row, -f, prow)
				}
			}
		})
	}
	for p := range n {
		if !used[p] {
			badPos = append(badPos, p)
		}
	}
	if len(badPos) > 0 {
		return badPos, badRows
	}
	// The rows were not swapped: with P the permutation that puts row
	// piv[c] of A at c, w holds (PA)⁻¹ = A⁻¹Pᵀ with row c stored at
	// piv[c], that is A⁻¹[c][piv[j]] = w[piv[c]][j].
	for c, rc := range piv {
		row := w[rc*n : (rc+1)*n]
		out := e.bt[c*n : (c+1)*n]
		for j, rj := range piv {
			out[rj] = row[j]
		}
	}
	return nil, nil
}

// computeX sets x_B = B⁻¹1, the sum of the rows of bt.
func (e *dense) computeX() {
	n := e.n
	clear(e.xb)
	e.split(n, n, func(lo, hi int) {
		for i := range n {
			floats.Add(e.xb[lo:hi], e.bt[i*n+lo:i*n+hi])
		}
	})
}

// ftran sets alpha = B⁻¹a for variable v.
func (e *dense) ftran(v int) {
	n := e.n
	if v < n {
		copy(e.alpha, e.bt[v*n:(v+1)*n])
		return
	}
	clear(e.alpha)
	a := e.cols[v-n].v
	e.nz = e.nz[:0]
	for i, x := range a {
		if x != 0 {
			e.nz = append(e.nz, i)
		}
	}
	// Split by entries of alpha, each summed in the order of the rows.
	if e.splits(n, len(e.nz)) {
		e.split(n, len(e.nz), func(lo, hi int) { e.ftranIn(a, lo, hi) })
	} else {
		e.ftranIn(a, 0, n)
	}
}

// ftranIn sums the entries lo ≤ p < hi of alpha = B⁻¹a.
func (e *dense) ftranIn(a []float64, lo, hi int) {
	n := e.n
	for _, i := range e.nz {
		vec.AddScaled(e.alpha[lo:hi], a[i], e.bt[i*n+lo:i*n+hi])
	}
}

// denseResult is the outcome of a solve: the objective Σ s, the pivots,
// the value of every variable and the duals y = c_Bᵀ B⁻¹ of the rows.
type denseResult struct {
	Objective  float64
	Iterations int
	X          []float64
	RowDuals   []float64
}

// solve runs the primal simplex from the current basis. Should it get into
// numerical trouble from a warm basis, it starts again once from the slack
// basis.
func (e *dense) solve() (*denseResult, error) {
	r, err := e.run()
	if err == nil {
		return r, nil
	}
	e.slackBasis()
	r2, err2 := e.run()
	if err2 != nil {
		return nil, err
	}
	r2.Iterations += r.Iterations
	return r2, nil
}

// tighten solves again from the current basis, on fresh factors, with
// basic values feasible to exactFeasTol instead of denseFeasTol. A solve
// that ended with its sum of slacks at 0 can leave weights down to −1e-9
// (more on an ill-conditioned basis, once refine has corrected the
// updated inverse): a few more pivots usually reach a point that is
// feasible to rounding. On error the caller keeps its earlier point (the
// next solve inverts the basis afresh).
func (e *dense) tighten() (*denseResult, error) {
	e.feasTol, e.iterCap = exactFeasTol, tightenPivots*e.n
	defer func() { e.feasTol, e.iterCap = denseFeasTol, 0 }()
	e.valid = false
	r, err := e.run()
	if err != nil {
		e.valid = false
	}
	return r, err
}

// slackSum returns the phase 2 objective of the current basis: the sum of
// its basic slacks.
func (e *dense) slackSum() float64 {
	f := 0.0
	for p, v := range e.head {
		if v < e.n {
			f += e.xb[p]
		}
	}
	return f
}

// minBasic returns the least basic value of a result (0 when every basic
// value is non-negative).
func (r *denseResult) minBasic() float64 {
	m := 0.0
	for _, v := range r.X {
		m = min(m, v)
	}
	return m
}

// run is one attempt of the primal simplex from the current basis: the
// iteration of simplex.Run, whose steps denseRun writes for this engine.
// Its result holds the pivots made even when it fails.
func (e *dense) run() (*denseResult, error) {
	n := e.n
	if !e.valid && !e.invert() {
		return &denseResult{}, errStalled
	}
	e.computeX()
	r := &denseRun{e: e, maxIter: 50*(n+len(e.cols)) + 10000, best: math.Inf(1), deg: simplex.Degeneracy{Run: e.degenerateRun}}
	if e.iterCap > 0 {
		r.maxIter = min(r.maxIter, e.iterCap)
	}
	tol := e.feasTol
	defer func() { e.perturbed, e.feasTol = false, tol }()
	err := simplex.Run(r, &r.deg)
	return r.res, err
}

// denseRun is one attempt of the dense engine as simplex.Run sees it.
type denseRun struct {
	e              *dense
	iters, maxIter int
	deg            simplex.Degeneracy
	// best is the least sum of the slacks of a phase 2 basis so far,
	// flat the phase 2 pivots since it last fell by stallGain.
	best  float64
	flat  int
	leave int // the position the ratio test chose
	res   *denseResult
	// fine: the feasibility tolerance was tightened to fineTolRatio of
	// the sum of the slacks; run puts the engine's back at the end.
	fine bool
}

// stalled ends the attempt with errStalled and the pivots made.
func (r *denseRun) stalled() (simplex.Flow, error) {
	r.res = &denseResult{Iterations: r.iters}
	return simplex.Finish, errStalled
}

// reinvert recomputes the inverse and x_B (reshifting perturbed bounds);
// false when the basis matrix is too ill-conditioned to invert.
func (r *denseRun) reinvert() bool {
	if !r.e.invert() {
		return false
	}
	r.e.computeX()
	r.e.reshift()
	return true
}

// refresh is reinvert as a step that starts the next iteration.
func (r *denseRun) refresh() (simplex.Flow, error) {
	if !r.reinvert() {
		return r.stalled()
	}
	return simplex.Restart, nil
}

// Refactor recomputes the inverse every max(refactorEvery, refactorPer·n)
// rank-one updates.
func (r *denseRun) Refactor() error {
	e := r.e
	if e.updates < max(e.refactorEvery, e.refactorPer*e.n) || r.reinvert() {
		return nil
	}
	_, err := r.stalled()
	return err
}

// Price sets the basic costs (phase 1: −1 on a negative basic value;
// phase 2: 1 on a basic slack) and the duals, which pivot keeps up to
// date in phase 2.
func (r *denseRun) Price() (phase1 bool) {
	e, n := r.e, r.e.n
	for p := range e.cb {
		e.cb[p] = 0
		if e.room(p) < -e.feasTol {
			e.cb[p], phase1 = -1, true
		}
	}
	if !phase1 {
		for p, v := range e.head {
			if v < n {
				e.cb[p] = 1
			}
		}
	}
	if phase1 || !e.yValid {
		if e.splits(n, n) {
			e.split(n, n, e.dualsIn)
		} else {
			e.dualsIn(0, n)
		}
		e.yValid = !phase1
	}
	return phase1
}

// dualsIn sets the duals y_i = (row i of B⁻¹)·c_B for lo ≤ i < hi.
func (e *dense) dualsIn(lo, hi int) {
	n := e.n
	for i := lo; i < hi; i++ {
		e.y[i] = vec.Dot(e.bt[i*n:(i+1)*n], e.cb)
	}
}

// Perturb relaxes the bounds a little and goes on; the point is cleaned
// up on the true bounds once this relaxed problem is solved.
func (r *denseRun) Perturb() (simplex.Flow, error) {
	r.e.perturb()
	r.best, r.flat = math.Inf(1), 0
	return simplex.Proceed, nil
}

// Bland: only a degenerate run calls for Bland's rule here.
func (r *denseRun) Bland(bool) bool { return false }

// Enter is Dantzig's rule on a part of the columns, chunk at a time, their
// reduced costs split over the workers (or Bland's rule).
func (r *denseRun) Enter(phase1, bland bool) (q int, dq float64) {
	e := r.e
	total, chunk := e.n+len(e.cols), max(e.n/2, minChunk)
	return e.pricing.Enter(total, chunk, chunk, bland,
		func(from, k0, k1 int, d, score []float64) { e.reducedCosts(from, k0, k1, phase1, d, score) })
}

// Trusted: an inverse without updates, or one whose residuals are checked.
func (r *denseRun) Trusted() bool { return r.e.updates == 0 || r.e.accurate() }

// Perturbed reports whether the bounds are lowered.
func (r *denseRun) Perturbed() bool { return r.e.perturbed }

// Conclude confirms on a fresh inverse, then on the true bounds (where the
// sum of the slacks can not reach what the relaxed problem's did). The
// master is feasible from the slack basis, so an infeasible end is
// numerical trouble.
func (r *denseRun) Conclude(v simplex.Verdict) (simplex.Flow, error) {
	switch v {
	case simplex.Refresh:
		return r.refresh()
	case simplex.Unperturb:
		r.e.perturbed = false
		r.best, r.flat = math.Inf(1), 0
		return simplex.Restart, nil
	case simplex.Infeasible:
		return r.stalled()
	}
	r.res = r.e.result(r.iters)
	return simplex.Finish, nil
}

// Limits: the pivot limit, and a phase 2 that stopped lowering its
// objective.
func (r *denseRun) Limits(bool, bool) (simplex.Flow, error) {
	e := r.e
	if r.iters >= r.maxIter || r.flat > e.stallPivots*(e.n+len(e.cols))+e.stallPivotsMin {
		return r.stalled()
	}
	return simplex.Proceed, nil
}

// Ratio computes B⁻¹a_q and chooses the leaving position.
func (r *denseRun) Ratio(q int, dq float64, phase1, bland bool) (blocked bool, step float64) {
	r.e.ftran(q)
	r.leave, step = r.e.ratio(phase1, dq, bland)
	return r.leave >= 0, step
}

// Ray: the objective is bounded below by 0, so nothing blocking is
// rounding, in the updated inverse unless it is fresh: recompute it and
// price again.
func (r *denseRun) Ray(bool) (simplex.Flow, error) {
	if r.e.updates == 0 {
		return r.stalled()
	}
	return r.refresh()
}

// Step pivots. Phase 1 pivots neither count nor reset best: a solve that
// ping-pongs between the phases on rounding keeps its plateau.
func (r *denseRun) Step(q int, dq, step float64, phase1, _ bool) {
	e := r.e
	e.pivot(q, r.leave, step, dq)
	r.iters++
	if !phase1 {
		f := e.slackSum()
		if e.fineTol && !r.fine && e.iterCap == 0 && f < stallFloor && r.iters > e.n+len(e.cols) {
			r.fine = true
			e.feasTol = min(e.feasTol, max(fineTolFloor, fineTolRatio*f))
		}
		switch {
		case f < r.best-stallGain*max(1, f):
			r.best, r.flat = f, 0
		case r.best > stallFloor:
			r.flat++
		}
	}
}

// reducedCosts writes to d[k−k0], for k0 ≤ k < k1, the reduced cost of
// the variable at offset k from from (cyclically), +Inf for a basic or
// dead one, which never enters, and its pricing score to score[k−k0]: −d
// below −denseOptTol, else 0.
func (e *dense) reducedCosts(from, k0, k1 int, phase1 bool, dq, score []float64) {
	if !e.splits(k1-k0, e.n) {
		e.reducedCostsIn(from, k0, 0, k1-k0, phase1, dq, score)
		return
	}
	e.split(k1-k0, e.n, func(lo, hi int) { e.reducedCostsIn(from, k0, lo, hi, phase1, dq, score) })
}

// reducedCostsIn is reducedCosts on the entries lo ≤ t < hi of dq and
// score.
func (e *dense) reducedCostsIn(from, k0, lo, hi int, phase1 bool, dq, score []float64) {
	n, total := e.n, e.n+len(e.cols)
	for t := lo; t < hi; t++ {
		v := from + k0 + t
		if v >= total {
			v -= total
		}
		d := math.Inf(1)
		switch {
		case e.pos[v] >= 0:
		case v < n:
			d = -e.y[v]
			if !phase1 {
				d++
			}
		case !e.cols[v-n].dead:
			d = -vec.Dot(e.cols[v-n].v, e.y)
		}
		dq[t], score[t] = d, 0
		if d < -denseOptTol {
			score[t] = -d
		}
	}
}

// ratio chooses the leaving position for the entering column alpha: the
// first breakpoint of the phase 1 objective where its slope turns
// non-negative (a negative basic value reaching 0, simplex.LongStep), or
// the basic value that blocks first by Harris's two passes (with Bland's
// rule, the smallest variable among the exact ties, simplex.Nearest). It
// returns −1 if none blocks.
func (e *dense) ratio(phase1 bool, dq float64, bland bool) (int, float64) {
	e.stops, e.bps = e.stops[:0], e.bps[:0]
	for p, a := range e.alpha {
		room := e.room(p)
		switch {
		case a > densePivTol && room >= -e.feasTol:
			// Divided, not room ≤ θ·a: when tol is lost in room + tol,
			// rounding the product can exclude the row that set θ.
			t := room / a
			if bland {
				// Values within the tolerance of the bound are exact
				// ties, broken by the smallest variable.
				t = 0
				if room > e.feasTol {
					t = room / a
				}
			}
			e.stops = append(e.stops, simplex.Stop{T: t, Relaxed: (room + e.feasTol) / a, Pivot: a, P: p, Var: e.head[p], ToLB: true})
		case phase1 && a < -densePivTol && room < -e.feasTol:
			e.bps = append(e.bps, simplex.Breakpoint{T: room / a, Inc: -a, P: p, Key: p, ToLB: true})
		}
	}
	theta1 := simplex.Bound(e.stops, math.Inf(1))
	if phase1 {
		if k := simplex.LongStep(e.bps, theta1, dq, 0); k >= 0 {
			return e.bps[k].P, e.bps[k].T
		}
	}
	if bland {
		if k := simplex.Nearest(e.stops, math.Inf(1)); k >= 0 {
			return e.stops[k].P, e.stops[k].T
		}
		return -1, 0
	}
	if k := simplex.Harris(e.stops, theta1); k >= 0 {
		return e.stops[k].P, max(e.stops[k].T, 0)
	}
	return -1, 0
}

// room is how far the value basic at position p is above its lower bound.
func (e *dense) room(p int) float64 {
	if e.perturbed {
		return e.xb[p] + e.shift[e.head[p]]
	}
	return e.xb[p]
}

// perturb lowers every variable's bound by a pseudo-random
// simplex.Perturbation of the feasibility tolerance (the same sequence on every call, so
// that solves are reproducible): the current basis stays feasible and the
// ties of the ratio test that make a degenerate run are broken.
func (e *dense) perturb() {
	e.shift = slices.Grow(e.shift[:0], e.numCols())[:e.numCols()]
	seed := uint64(0x9e3779b97f4a7c15)
	for v := range e.shift {
		seed = seed*6364136223846793005 + 1442695040888963407
		e.shift[v] = simplex.Perturbation(e.feasTol, simplex.Uniform(seed))
	}
	e.perturbed = true
}

// reshift lowers, while the bounds are perturbed, the bound of every basic
// value that fresh factors put below it to just below that value. On an
// ill-conditioned basis (near-parallel columns of a banded pattern) x_B =
// B⁻¹1 moves by more than the perturbation when the inverse is recomputed;
// phase 1 would then undo phase 2's progress, and phase 2 phase 1's, until
// the pivot limit. The point is cleaned up on the true bounds at the end as
// after any perturbation.
func (e *dense) reshift() {
	if !e.perturbed {
		return
	}
	for p, v := range e.head {
		if r := e.room(p); r < 0 {
			e.shift[v] += e.feasTol - r
		}
	}
}

// pivot brings variable q, of reduced cost dq, into position r with step
// theta. The phase 2 duals follow: y' = y + dq·(row r of the new B⁻¹).
func (e *dense) pivot(q, r int, theta, dq float64) {
	n := e.n
	vec.AddScaled(e.xb, -theta, e.alpha)
	e.xb[r] = theta
	if e.splits(n, n) {
		e.split(n, n, func(lo, hi int) { e.pivotRows(r, lo, hi, dq) })
	} else {
		e.pivotRows(r, 0, n, dq)
	}
	e.pos[e.head[r]] = -1
	e.head[r], e.pos[q] = q, r
	e.updates++
}

// pivotRows updates the rows lo ≤ i < hi of bt, and their duals, for the
// pivot on alpha at position r.
func (e *dense) pivotRows(r, lo, hi int, dq float64) {
	n, ar := e.n, e.alpha[r]
	for i := lo; i < hi; i++ {
		row := e.bt[i*n : (i+1)*n]
		rho := row[r] / ar
		if rho != 0 {
			vec.AddScaled(row, -rho, e.alpha)
			e.y[i] += dq * rho
		}
		row[r] = rho
	}
}

// accuracyTol bounds the residuals that accurate accepts.
const accuracyTol = 1e-11

// accurate reports whether the updated inverse still gives x_B and y to
// accuracyTol: the rows B x_B = 1 and the basic reduced costs c_B − Bᵀy.
func (e *dense) accurate() bool {
	for p, v := range e.head {
		if math.Abs(e.cb[p]-e.dotColumn(v, e.y)) > accuracyTol {
			return false
		}
	}
	r := e.alpha // scratch
	e.residual(r)
	return floats.Norm(r, math.Inf(1)) <= accuracyTol
}

// residual writes the row residuals 1 − B x_B to r.
func (e *dense) residual(r []float64) {
	for i := range r {
		r[i] = 1
	}
	for p, v := range e.head {
		e.addColumn(r, -e.xb[p], v)
	}
}

// refine improves x_B by two steps of iterative refinement, x_B += B⁻¹(1 −
// B x_B): the mechanism built from it is audited against the probed ε to
// 1e-13, which the updated inverse alone does not reach.
func (e *dense) refine() {
	n := e.n
	r := e.alpha // scratch
	for range 2 {
		e.residual(r)
		for i, ri := range r {
			if ri != 0 {
				vec.AddScaled(e.xb, ri, e.bt[i*n:(i+1)*n])
			}
		}
	}
}

// result reads the optimal point and duals of phase 2.
func (e *dense) result(iters int) *denseResult {
	n := e.n
	e.refine()
	res := &denseResult{Iterations: iters, X: make([]float64, n+len(e.cols)), RowDuals: slices.Clone(e.y)}
	for p, v := range e.head {
		res.X[v] = e.xb[p]
	}
	res.Objective = e.slackSum()
	return res
}
