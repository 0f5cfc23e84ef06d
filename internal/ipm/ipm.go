package ipm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/internal/vec"
	"github.com/pmlopt/pmlopt/mech"
)

// Problem is an ε-PML expected-utility problem: maximise Σ_ij π_i u_ij p_ij
// over the mechanisms P with PML at most Epsilon. Solve divides the prior
// by its sum first (mech.NewPrior accepts sums within 1e-9 of 1); the
// Result's value, bound and PML refer to that normalised prior. (The iterations would
// take a zero pattern as they are, but the exact repair of the result
// mixes in the independent mechanism, which fills every column; so no
// pattern is offered.)
type Problem struct {
	Prior   mech.Prior
	Utility mech.Utility
	Epsilon float64
}

// Options tunes Solve. The zero value is ready to use.
type Options struct {
	// Gap is the certified optimality gap at which Solve stops: the
	// returned mechanism's expected utility is within Gap·max(1, |value|)
	// of the optimum. 0 means DefaultGap, and then a gap up to
	// AcceptedGap is accepted when rounding stops the progress first.
	Gap float64
	// MaxIter caps the interior-point iterations; 0 means 200.
	MaxIter int
	// Context, if not nil, stops the iterations when it ends: the solve
	// then returns its error. An iteration at a thousand letters takes a
	// noticeable fraction of a second.
	Context context.Context
	// LowRank solves each Newton system through its 2M × 2M capacitance
	// matrix (lowRankSys) instead of the dense N×N one: O(NM² + M³) per
	// iteration in place of O(N²M + N³), for problems with far fewer
	// outputs than inputs.
	LowRank bool
	// Workers is the number of goroutines the passes over the pairs and
	// the dense system's rank-2 updates are split among; 0 or 1 means one.
	// The result is the same for any number.
	Workers int
}

// ctx returns opt.Context, or a context that never ends.
func (opt Options) ctx() context.Context {
	if opt.Context == nil {
		return context.Background()
	}
	return opt.Context
}

// settings returns the gap to aim at, the gap to accept and the iteration
// cap of opt.
func (opt Options) settings() (gap, accept float64, maxIter int, err error) {
	gap, accept = opt.Gap, opt.Gap
	if gap == 0 {
		gap, accept = DefaultGap, AcceptedGap
	}
	if !(gap > 0) || math.IsInf(gap, 0) {
		return 0, 0, 0, fmt.Errorf("ipm: gap %g is not a positive number", opt.Gap)
	}
	maxIter = opt.MaxIter
	if maxIter == 0 {
		maxIter = 200
	}
	if maxIter < 0 {
		return 0, 0, 0, fmt.Errorf("ipm: MaxIter %d is negative", opt.MaxIter)
	}
	return gap, accept, maxIter, nil
}

// DefaultGap is the relative optimality gap Solve aims at by default; one
// more iteration than 1e-10 usually brings the gap to rounding level.
const DefaultGap = 1e-12

// AcceptedGap is the largest relative gap Solve accepts with the default
// Gap: the cross-backend tolerance of pmlopt's callers is 1e-7.
const AcceptedGap = 1e-8

// Result is an optimal mechanism with its certificate.
type Result struct {
	// Mechanism has PML at most Epsilon (up to rounding), rows that sum
	// to 1 within certify.RowSumTol, and expected utility Value.
	Mechanism mech.Mechanism
	Value     float64
	// Bound is an upper bound on the optimum, proven by
	// certify.UpperBound from the multipliers Alpha: Value ≤ optimum ≤
	// Bound.
	Bound float64
	Alpha []float64
	// Iterations is the number of interior-point iterations.
	Iterations int
	// DenseFactors counts the dense N×N factorisations a low-rank solve
	// fell back on, and Rescued the low-rank solves that conjugate
	// gradients (preconditioned by the identity's solve or by an earlier
	// dense factor) recovered instead, over all the iterations run, also
	// those after the point returned.
	DenseFactors, Rescued int

	// face is the optimal face the interior point's complementarity
	// indicates (nil when the result is not an interior point); Vertex
	// starts from it.
	face *face
}

// face is a guess at an optimal face of the LP: the pairs used (p_ij > 0)
// and, among them, those at their cap (p_ij = t_j) or, for SolveRatio, at
// their lower cap.
type face struct {
	used, capped mech.Pattern
	// lower marks, for SolveRatio's polytopes, the pairs at their lower
	// cap (p_ij = κ t_j); nil for ε-PML.
	lower mech.Pattern
}

// ErrNotConverged is returned when the iterations end before the gap is
// certified (a numerically hard instance; an LP backend is the fallback).
var ErrNotConverged = errors.New("ipm: the interior-point method did not certify the optimum")

// structure is the problem's sparsity: its pairs grouped by output (every
// pair; the reduction works for any subset).
type structure struct {
	n, m     int
	colStart []int // pairs of output j: colStart[j] ≤ k < colStart[j+1]
	row      []int // input of pair k
	// full: every output has every input, in order (allPairs), so the
	// passes that sum over outputs into the inputs split by inputs
	// (splitRows, pairsOf).
	full bool
}

func (p Problem) validate() error {
	pi, err := mech.NewPrior(p.Prior)
	if err != nil {
		return err
	}
	if _, err := mech.NewUtility(p.Utility); err != nil {
		return err
	}
	n, _ := p.Utility.Dims()
	if n != len(pi) {
		return &mech.FieldError{Field: "utility", Row: -1, Col: -1,
			Msg: fmt.Sprintf("has %d rows but the prior has %d letters", n, len(pi))}
	}
	if math.IsNaN(p.Epsilon) || math.IsInf(p.Epsilon, 0) || p.Epsilon < 0 {
		return &mech.FieldError{Field: "budget.epsilon", Row: -1, Col: -1,
			Msg: fmt.Sprintf("must be a finite number ≥ 0, not %g", p.Epsilon)}
	}
	return nil
}

// allPairs returns every pair of an n×m problem, grouped by output, each
// output's inputs in order 0..n−1: pair k = j·n + i is (i, j) (factor
// updates whole rows on that).
func allPairs(n, m int) structure {
	s := structure{n: n, m: m, colStart: make([]int, m+1), full: true}
	for j := range m {
		s.colStart[j] = len(s.row)
		for i := range n {
			s.row = append(s.row, i)
		}
	}
	s.colStart[m] = len(s.row)
	return s
}

// Solve returns an optimal mechanism of p, certified to within opt.Gap by
// certify.UpperBound.
//
// It runs Mehrotra's predictor-corrector interior-point method on
//
//	max Σ c_k p_k  s.t.  Σ_j p_ij = 1,  Σ_i π_i p_ij = e^{−ε} t_j,  p_ij + s_ij = t_j,  p, s ≥ 0,
//
// with the Newton systems reduced, output by output, to one dense N×N
// system (a 2×2 block per output and a rank-2 update per output), so an
// iteration costs O(Σ_j |S_j|² + N³) instead of a sparse factorisation of
// the N·M cap rows. The interior point found is cleaned (entries below
// 1e-11 cleared, rows renormalised) and, if rounding left its PML above ε,
// mixed with the independent mechanism of the same output marginal, which
// brings it to ε exactly; its expected utility is then compared with the
// bound the row-sum multipliers prove.
func Solve(p Problem, opt Options) (*Result, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	gap, accept, maxIter, err := opt.settings()
	if err != nil {
		return nil, err
	}
	p.Prior = normalised(p.Prior)
	w := newWorkspace(p.Prior, p.Utility, allPairs(p.Utility.Dims()), pmlForm(p.Epsilon))
	w.lowRank = opt.LowRank
	w.workers = opt.Workers
	best := w.bestPoint(opt.ctx(), maxIter, gap, func() *Result { return w.result(p) })
	if err := opt.ctx().Err(); err != nil {
		return nil, err
	}
	if best != nil && best.Bound-best.Value <= accept*max(1, math.Abs(best.Value)) {
		return best, nil
	}
	return best, ErrNotConverged
}

// iterate runs Solve's iterations from the current point (see the
// package's iterate).
func (w *workspace) iterate(ctx context.Context, maxIter int, near float64, observe func(it int) (improved, done bool)) {
	// A cancelled context or a breakdown ends the run: the observed points
	// are what it answers with.
	w.done = ctx.Done()
	w.halted.Store(false)
	_, _ = iterate(ctx, w, maxIter, near, observe)
}

// testStopPoll, set by tests only, runs at every look of stopped before
// it reads done, so that a test can end the context at a chosen look.
var testStopPoll func()

// stopped reports whether the iterations' context has ended, and records
// it in halted. The workers of a split may call it at once.
func (w *workspace) stopped() bool {
	if testStopPoll != nil {
		testStopPoll()
	}
	if w.halted.Load() {
		return true
	}
	select {
	case <-w.done:
		w.halted.Store(true)
		return true
	default:
		return false
	}
}

// pollOutputs is how many outputs the Newton system's passes over outputs
// update between two looks at the context (stopped).
const pollOutputs = 16

// tiny reports the complementarity below which a point is observed
// whatever its residuals, and the one at which the iterations end.
func (w *workspace) tiny() (near, stop bool) { return w.lastGap < 1e-12, w.lastGap < 1e-15 }

// bestPoint runs the iterations and returns the observed point (made by
// result) with the narrowest certified gap, its bound replaced by the
// lowest bound any observed point proved: every bound holds for the whole
// problem, whichever point's multipliers prove it, and the last iteration
// often has the better multipliers and the worse point (a step that ends
// on the boundary). It stops once that bracket is at most gap relative to
// max(1, |value|). A bound below the value (beyond rounding) would be a
// broken proof: such a point, or such a pairing, never counts.
func (w *workspace) bestPoint(ctx context.Context, maxIter int, gap float64, result func() *Result) *Result {
	var best, low *Result // the narrowest own gap; the lowest bound
	bound := func() float64 {
		if low.Bound < best.Bound && low.Bound >= best.Value-boundSlack*max(1, math.Abs(best.Value)) {
			return low.Bound
		}
		return best.Bound
	}
	w.iterate(ctx, maxIter, 1e-6, func(it int) (improved, done bool) {
		r := result()
		r.Iterations = it
		r.DenseFactors, r.Rescued = w.denseFactors, w.rescued
		if !r.valid() {
			return false, false
		}
		before := math.Inf(1)
		if best != nil {
			before = bound() - best.Value
		}
		if best == nil || r.Bound-r.Value < best.Bound-best.Value {
			best = r
		}
		if low == nil || r.Bound < low.Bound {
			low = r
		}
		g := bound() - best.Value
		return g < before, g <= gap*max(1, math.Abs(best.Value))
	})
	if best != nil {
		// The whole run's work, with the iterations after the point kept.
		best.DenseFactors, best.Rescued = w.denseFactors, w.rescued
	}
	if best == nil || bound() == best.Bound {
		return best
	}
	out := *best
	out.Bound, out.Alpha = low.Bound, low.Alpha
	return &out
}

// normalised returns pi divided by its sum. NewPrior accepts sums within
// 1e-9 of 1, but at ε = 0 a sum below 1 leaves no mechanism at all
// (p_ij ≤ q_j and Σ_j p_ij = 1 need Σ_j q_j = Σ_i π_i ≥ 1).
func normalised(pi mech.Prior) mech.Prior {
	out := slices.Clone(pi)
	mech.Normalise(out)
	return out
}

// valid reports that the result's bracket is a bracket: its bound is not
// below its value beyond rounding, and its rows sum to 1.
func (r *Result) valid() bool {
	if !(r.Bound >= r.Value-boundSlack*max(1, math.Abs(r.Value))) {
		return false
	}
	return certify.RowsSumToOne(r.Mechanism)
}

// workspace is the state of the interior-point iterations on the common
// form of the polytopes (capForm): κ t_j ≤ p_ij ≤ t_j and, when marg is
// set, Σ_i π_i p_ij = μ t_j. ε-PML is the case κ = 0, where the lower
// cap's slack r is p itself (r aliases p, and the directions' r their p),
// so its iterations are those of the plain form p ≥ 0.
type workspace struct {
	// done is the Done channel of the iterations' context: the Newton
	// system's passes inside an iteration (the updates over every pair or
	// over the pattern's pairs, the low-rank form's Gram matrix, its
	// refinement and rescues), an iteration's bulk on a large problem,
	// look at it every few outputs or rows (stopped) and end with
	// errStopped once it is closed (nil: never).
	done <-chan struct{}
	// halted is set by the look that finds done closed, for the code
	// after a split to tell that a worker ended early.
	halted atomic.Bool
	st     structure
	form   capForm
	pi     []float64
	c      []float64 // scaled objective per pair (maximised)
	scale  float64   // c = π_i u_ij / scale

	// workers and minWork split the rank-2 updates of factor (see
	// split); results do not depend on them.
	workers, minWork int

	// primal: p, s (cap slack), r (lower cap slack) per pair, t per
	// output; dual: a (rows), b (outputs), z (per pair, for r), w (per
	// pair, for s).
	p, s, r, t, a, b, z, w []float64

	res residual // the KKT residuals at the current point

	// Newton system
	d, e, f, g            []float64    // per pair
	k                     [][4]float64 // per output: K_j⁻¹ (factor)
	kk                    [][4]float64 // per output: K_j itself (k11 = es without marginal rows)
	mat                   *mat.Dense   // allocated by the first dense factor
	lowRank               bool         // solve through lr rather than mat
	denseReady            bool         // mat holds this iteration's factor (lowRank's fallback)
	staleChol             bool         // chol holds the dense factor of an earlier iteration (lowRank)
	denseFactors, rescued int          // counts for Result
	lr                    *lowRankSys
	chol                  cholesky
	aff, cor              direction // predictor and corrector
	u1, u2                []float64 // per pair: the rank-2 factors of its output (factor)
	v1, v2                []float64 // per pair: g d and π d
	rpz, rsw              []float64
	h                     []float64 // per pair: solve's −rd − g_w + h_z
	colB1                 []float64
	colB2                 []float64
	rowSumD               []float64
	rowB3                 []float64
	// per output scratch of the split passes: colMax the residuals'
	// largest cap residual (and factor's singular blocks), colS1 and
	// colS2 mulM's sums
	colMax, colS1, colS2 []float64
	// solve's step lengths: per output, and the least of them
	colAP, colAD []float64
	ap, ad       float64

	lastGap   float64
	lastPrimI float64
	lastDualI float64
}

// separate reports whether the lower cap's slack r is a variable of its
// own (κ > 0) rather than p.
func (w *workspace) separate() bool { return w.form.kappa != 0 }

// residual holds the residuals of the KKT conditions: rd (dual, per pair),
// rc (caps, per pair), rl (lower caps, per pair), ra (row sums), rb
// (marginals, per output) and rt (dual of t, per output).
type residual struct {
	rd, rc, rl, ra, rb, rt []float64
}

func newResidual(K, n, m int) residual {
	return residual{rd: make([]float64, K), rc: make([]float64, K), rl: make([]float64, K),
		ra: make([]float64, n), rb: make([]float64, m), rt: make([]float64, m)}
}

// direction is a Newton direction: per pair (p, s, r, z, w), per output
// (t, b) and per row (a). Without lower caps r is p.
type direction struct {
	p, s, r, z, w, t, b, a []float64
}

func newDirection(K, n, m int, separate bool) direction {
	v := func(l int) []float64 { return make([]float64, l) }
	d := direction{p: v(K), s: v(K), z: v(K), w: v(K), t: v(m), b: v(m), a: v(n)}
	d.r = d.p
	if separate {
		d.r = v(K)
	}
	return d
}

// newWorkspace starts the iterations of the form fm on the prior pi
// (summing to 1) and utility u over the pairs st.
func newWorkspace(pi mech.Prior, u mech.Utility, st structure, fm capForm) *workspace {
	K, n, m := len(st.row), st.n, st.m
	w := &workspace{st: st, form: fm, pi: pi}
	w.c = make([]float64, K)
	for j := range m {
		for k := st.colStart[j]; k < st.colStart[j+1]; k++ {
			w.c[k] = pi[st.row[k]] * u[st.row[k]][j]
			w.scale = max(w.scale, math.Abs(w.c[k]))
		}
	}
	if w.scale == 0 {
		w.scale = 1
	}
	for k := range w.c {
		w.c[k] /= w.scale
	}
	vec := func(l int) []float64 { return make([]float64, l) }
	w.p, w.s, w.z, w.w = vec(K), vec(K), vec(K), vec(K)
	w.r = w.p
	if w.separate() {
		w.r = vec(K)
	}
	w.t, w.b = vec(m), vec(m)
	w.a = vec(n)
	w.res = newResidual(K, n, m)
	w.d, w.e, w.f, w.g = vec(K), vec(K), vec(K), vec(K)
	w.k, w.kk = make([][4]float64, m), make([][4]float64, m)
	w.aff, w.cor = newDirection(K, n, m, w.separate()), newDirection(K, n, m, w.separate())
	w.u1, w.u2, w.v1, w.v2 = vec(K), vec(K), vec(K), vec(K)
	w.rpz, w.rsw, w.h = vec(K), vec(K), vec(K)
	w.colB1, w.colB2 = vec(m), vec(m)
	w.colAP, w.colAD = vec(m), vec(m)
	w.rowSumD, w.rowB3 = vec(n), vec(n)

	// Starting point: every row spread evenly over its pairs, t_j twice
	// the column's largest entry, slacks of the order of the entries and
	// duals of order one.
	cnt := make([]int, n)
	for _, i := range st.row {
		cnt[i]++
	}
	for k, i := range st.row {
		w.p[k] = 1 / float64(cnt[i])
	}
	for j := range m {
		top := 0.0
		for k := st.colStart[j]; k < st.colStart[j+1]; k++ {
			top = max(top, w.p[k])
		}
		w.t[j] = 2*top + 1/float64(m)
		if w.separate() {
			w.t[j] = 3 / float64(m) // see startOnMarginals
		}
	}
	w.setSlacks()
	for k := range w.z {
		w.z[k], w.w[k] = 1, 1
	}
	// Off the marginal rows (caps of order 1/M where they must be e^ε q_j)
	// the iterations at a few nats and more push the multipliers to 1e100
	// and beyond while the primal point does not move.
	w.startOnMarginals()
	return w
}

// setSlacks sets the slacks of the caps from p and t: s = t − p and, with
// lower caps, r = p − κt, or p/2 where that is larger (the start need not
// be feasible, only interior).
func (w *workspace) setSlacks() {
	st := w.st
	for j := range st.m {
		for k := st.colStart[j]; k < st.colStart[j+1]; k++ {
			w.s[k] = w.t[j] - w.p[k]
			if w.separate() {
				w.r[k] = max(w.p[k]-w.form.kappa*w.t[j], 0.5*w.p[k])
			}
		}
	}
}

// residuals computes the residuals of the KKT conditions at the current
// point, the complementarity Σ r z + Σ s w into lastGap, and the largest
// primal and dual residuals into lastPrimI and lastDualI (a cap row's
// relative to max(1, t_j)).
func (w *workspace) residuals() {
	st, r, fm := w.st, &w.res, w.form
	if len(w.colMax) != st.m {
		w.colMax, w.colS1, w.colS2 = make([]float64, st.m), make([]float64, st.m), make([]float64, st.m)
	}
	w.split(st.m, st.n*8, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			var q, ws, zs, capRes float64
			for k := st.colStart[j]; k < st.colStart[j+1]; k++ {
				i := st.row[k]
				r.rd[k] = -w.c[k] - w.a[i] - w.pi[i]*w.b[j] + w.w[k] - w.z[k]
				r.rc[k] = w.t[j] - w.p[k] - w.s[k]
				r.rl[k] = w.p[k] - fm.kappa*w.t[j] - w.r[k]
				// A cap row's terms are of the size of t_j = e^{ε_u} q_j, up
				// to 1e13 at 30 nats: its residual counts relative to that
				// size, or the rounding of t_j − s_ij (1e-4 there) would keep
				// the point from ever counting as near the optimum.
				capRes = max(capRes, max(math.Abs(r.rc[k]), math.Abs(r.rl[k]))/max(1, w.t[j]))
				q += w.pi[i] * w.p[k]
				ws += w.w[k]
				zs += w.z[k]
			}
			w.colMax[j] = capRes
			r.rb[j] = 0
			if fm.marg {
				r.rb[j] = q - fm.mu*w.t[j]
			}
			r.rt[j] = fm.mu*w.b[j] - ws + fm.kappa*zs
		}
	})
	w.splitRows(st.m, func(lo, hi int) {
		ra := r.ra[lo:hi]
		clear(ra)
		for j := range st.m {
			k0, k1 := st.pairsOf(j, lo, hi)
			for k := k0; k < k1; k++ {
				r.ra[st.row[k]] += w.p[k]
			}
		}
		for i := range ra {
			ra[i]--
		}
	})
	capRes := 0.0
	for _, v := range w.colMax {
		capRes = max(capRes, v)
	}
	comp := 0.0
	for k := range w.p {
		comp += w.r[k]*w.z[k] + w.s[k]*w.w[k]
	}
	w.lastGap = comp
	w.lastPrimI = max(maxAbs(r.ra), max(maxAbs(r.rb), capRes))
	w.lastDualI = max(maxAbs(r.rd), maxAbs(r.rt))
}

// gapMeasure is the largest of the last complementarity and residuals.
func (w *workspace) gapMeasure() float64 {
	return max(w.lastGap, max(w.lastPrimI, w.lastDualI))
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	return m
}

// factor builds and factorises the reduced N×N Newton matrix at the current
// point. With e = w/s, f = z/r, d = 1/(e + f) and g = e + κf, each pair's
// step is dp = d (h + da_i + π_i db_j + g dt_j); each output reduces to a
// 2×2 block in (db_j, dt_j) (1×1 in dt_j without the marginal row) and a
// rank-2 update of the dense system in da.
func (w *workspace) factor() error {
	st, fm := w.st, w.form
	n, kap := st.n, fm.kappa
	w.split(len(w.p), 8, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			w.e[k] = w.w[k] / w.s[k]
			w.f[k] = w.z[k] / w.r[k]
			w.d[k] = 1 / (w.e[k] + w.f[k])
			w.g[k] = w.e[k] + kap*w.f[k]
		}
	})
	var data []float64
	w.denseReady = false
	if !w.lowRank {
		if w.mat == nil {
			w.mat = mat.NewDense(n, n, nil)
		}
		data = w.mat.RawMatrix().Data
		clear(data)
	}
	// Each output's 2×2 block and rank-2 factors, the outputs shared out
	// among the workers; an output whose block is singular is marked in
	// colMax.
	if len(w.colMax) != st.m {
		w.colMax, w.colS1, w.colS2 = make([]float64, st.m), make([]float64, st.m), make([]float64, st.m)
	}
	w.split(st.m, st.n*16, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			w.colMax[j] = 0
			if !w.outputBlock(j) {
				w.colMax[j] = 1
			}
		}
	})
	for _, v := range w.colMax {
		if v != 0 {
			return errors.New("ipm: singular output block")
		}
	}
	w.splitRows(st.m, func(lo, hi int) {
		clear(w.rowSumD[lo:hi])
		for j := range st.m {
			k0, k1 := st.pairsOf(j, lo, hi)
			for k := k0; k < k1; k++ {
				w.rowSumD[st.row[k]] += w.d[k]
			}
		}
	})
	if w.lowRank {
		return w.factorLowRank(diagFloor)
	}
	if !st.full {
		if err := w.scatterUpdates(data); err != nil {
			return err
		}
	}
	for j := range st.m {
		k0, k1 := st.colStart[j], st.colStart[j+1]
		if k0 == k1 || !st.full {
			continue
		}
		if j%pollOutputs == 0 && w.stopped() {
			return errStopped
		}
		// Every output has every input, in order (pairs), so row i of
		// the update is two axpys over the whole row, which internal/vec's
		// FMA kernels run at the speed of the cache.
		// The pairs of one output are distinct rows, which the workers
		// share out.
		v1, v2 := w.v1[k0:k1], w.v2[k0:k1]
		w.split(k1-k0, n, func(lo, hi int) {
			for kk := k0 + lo; kk < k0+hi; kk++ {
				rowData := data[st.row[kk]*n : (st.row[kk]+1)*n]
				vec.AddScaled(rowData, w.u1[kk], v1)
				if fm.marg {
					vec.AddScaled(rowData, -w.u2[kk], v2)
				}
			}
		})
	}
	for i := range n {
		data[i*n+i] += w.rowSumD[i]
	}
	w.chol.factorizeSplit(data, n, w.split)
	return nil
}

// scatterUpdates adds every output's rank-2 update to the dense N×N
// system (row-major data) when the outputs' pairs are a sparse subset:
// each update touches only the |S_j|² entries of its own pairs, so the
// pass costs Σ_j |S_j|² instead of N²M. The workers take ranges of rows;
// each entry's terms are added in the order of the outputs whatever the
// split, so the result does not depend on it. Each worker looks at the
// context every pollOutputs outputs; a stopped pass returns errStopped.
func (w *workspace) scatterUpdates(data []float64) error {
	st, n, marg := w.st, w.st.n, w.form.marg
	work := 0
	for j := range st.m {
		c := st.colStart[j+1] - st.colStart[j]
		work += c * c
	}
	w.split(n, work/max(n, 1)+1, func(lo, hi int) {
		for j := range st.m {
			if j%pollOutputs == 0 && w.stopped() {
				return
			}
			k0, k1 := st.colStart[j], st.colStart[j+1]
			rows, v1, v2 := st.row[k0:k1], w.v1[k0:k1], w.v2[k0:k1]
			for kk := k0; kk < k1; kk++ {
				i := st.row[kk]
				if i < lo || i >= hi {
					continue
				}
				r := data[i*n : (i+1)*n]
				a1, a2 := w.u1[kk], w.u2[kk]
				if k1-k0 == n {
					// Every input, in order: two axpys over the row.
					vec.AddScaled(r, a1, v1)
					if marg {
						vec.AddScaled(r, -a2, v2)
					}
					continue
				}
				if marg {
					for b, l := range rows {
						r[l] += a1*v1[b] - a2*v2[b]
					}
				} else {
					for b, l := range rows {
						r[l] += a1 * v1[b]
					}
				}
			}
		}
	})
	if w.halted.Load() {
		return errStopped
	}
	return nil
}

// outputBlock computes output j's products v1 = g d, v2 = π d, its 2×2
// block K_j (kk) and inverse (k), and the rank-2 factors u1, u2 of its
// pairs; it reports false when the block is singular.
func (w *workspace) outputBlock(j int) bool {
	st, fm := w.st, w.form
	kap := fm.kappa
	k0, k1 := st.colStart[j], st.colStart[j+1]
	if k0 == k1 {
		return true
	}
	var epd, ppd, es float64
	for k := k0; k < k1; k++ {
		pi := w.pi[st.row[k]]
		d := w.d[k]
		w.v1[k], w.v2[k] = w.g[k]*d, pi*d
		epd += pi * w.v1[k]
		ppd += pi * w.v2[k]
		if w.separate() { // e f d, in each form's order (startOnMarginals)
			es += w.e[k] * w.f[k] * d
		} else {
			es += w.e[k] * d * w.z[k] / w.r[k]
		}
	}
	es *= (1 - kap) * (1 - kap)
	var i11, i12, i21, i22 float64
	if fm.marg {
		// K = [[μ − Σ π g d, (1−κ)² Σ e f d], [Σ π² d, Σ π g d − μ]].
		k11, k12, k21, k22 := fm.mu-epd, es, ppd, epd-fm.mu
		det := k11*k22 - k12*k21
		if !(det < 0) {
			return false
		}
		i11, i12, i21, i22 = k22/det, -k12/det, -k21/det, k11/det
		w.kk[j] = [4]float64{k11, k12, k21, k22}
	} else {
		if !(es > 0) {
			return false
		}
		i21 = 1 / es
		w.kk[j] = [4]float64{es}
	}
	w.k[j] = [4]float64{i11, i12, i21, i22}
	// Rank-2 update over the pairs of output j:
	// M[i][l] += u1_i v1_l − u2_i v2_l with
	// u1 = d(π_i i11 + g i21), u2 = d(π_i i12 + g i22), v1 = g d, v2 = π d
	// (u1 and u2 are kept for the right-hand sides of solve).
	for k := k0; k < k1; k++ {
		pi, d, g := w.pi[st.row[k]], w.d[k], w.g[k]
		w.u1[k] = d * (pi*i11 + g*i21)
		w.u2[k] = d * (pi*i12 + g*i22)
	}
	return true
}

// solve computes the Newton direction for the current residuals and the
// complementarity right-hand sides rpz (for r z) and rsw (for s w) into d,
// and its step lengths (stepTo) into ap (primal) and ad (dual).
func (w *workspace) solve(d direction) error {
	st, r := w.st, &w.res
	kap := w.form.kappa
	// Per pair g_w = rsw/s − e rc, h_z = rpz/r − f rl and h = −rd − g_w
	// + h_z (kept), and each output's sums of them.
	w.split(st.m, st.n*14, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			b1, b2 := -r.rt[j], -r.rb[j]
			for k := st.colStart[j]; k < st.colStart[j+1]; k++ {
				gw := w.rsw[k]/w.s[k] - w.e[k]*r.rc[k]
				hz := w.rpz[k]/w.r[k] - w.f[k]*r.rl[k]
				h := -r.rd[k] - gw + hz
				w.h[k] = h
				b1 += gw - kap*hz + w.v1[k]*h
				b2 -= w.v2[k] * h
			}
			w.colB1[j], w.colB2[j] = b1, b2
		}
	})
	w.splitRows(st.m*6, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			w.rowB3[i] = -r.ra[i]
		}
		for j := range st.m {
			k0, k1 := st.pairsOf(j, lo, hi)
			b1, b2 := w.colB1[j], w.colB2[j]
			for k := k0; k < k1; k++ {
				i := st.row[k]
				w.rowB3[i] -= w.d[k] * w.h[k]
				w.rowB3[i] -= w.u1[k]*b1 + w.u2[k]*b2
			}
		}
	})
	if w.lowRank {
		if err := w.solveLowRank(w.rowB3); err != nil {
			return err
		}
	} else {
		w.chol.solve(w.rowB3)
	}
	da := d.a
	copy(da, w.rowB3)
	w.split(st.m, st.n*24, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			k0, k1 := st.colStart[j], st.colStart[j+1]
			var x, y float64
			for k := k0; k < k1; k++ {
				x += w.v1[k] * da[st.row[k]]
				y += w.v2[k] * da[st.row[k]]
			}
			ik := w.k[j]
			r1, r2 := w.colB1[j]+x, w.colB2[j]-y
			d.b[j] = ik[0]*r1 + ik[1]*r2
			d.t[j] = ik[2]*r1 + ik[3]*r2
			for k := k0; k < k1; k++ {
				i := st.row[k]
				dp := w.d[k] * (w.h[k] + da[i] + w.pi[i]*d.b[j] + w.g[k]*d.t[j])
				d.p[k] = dp
				d.s[k] = d.t[j] - dp + r.rc[k]
				d.r[k] = dp - kap*d.t[j] + r.rl[k] // d.p itself without lower caps
				d.z[k] = (w.rpz[k] - w.z[k]*d.r[k]) / w.r[k]
				d.w[k] = (w.rsw[k] - w.w[k]*d.s[k]) / w.s[k]
			}
			// The output's step lengths, while its pairs are in the cache.
			w.colAP[j] = stepTo(w.r[k0:k1], d.r[k0:k1], w.s[k0:k1], d.s[k0:k1])
			w.colAD[j] = stepTo(w.z[k0:k1], d.z[k0:k1], w.w[k0:k1], d.w[k0:k1])
		}
	})
	w.ap, w.ad = 1, 1
	for j := range st.m {
		w.ap, w.ad = minStep(w.ap, w.colAP[j]), minStep(w.ad, w.colAD[j])
	}
	return nil
}

// minStep returns the lesser of two steps, NaN if b is NaN (as stepTo
// keeps a NaN ratio).
func minStep(a, b float64) float64 {
	if b < a || b != b {
		return b
	}
	return a
}

// stepTo returns the largest step in (0, 1] that keeps x + step·dx ≥ 0
// (and y + step·dy ≥ 0).
func stepTo(x, dx, y, dy []float64) float64 { return stepWithin(1, x, dx, y, dy) }

// stepFraction is the share of the largest interior step an iteration
// takes, at most limit: 1 − 10μ near the optimum (μ the mean
// complementarity of its pairs), so that the steps come as near the
// boundary as the complementarity they aim at, and at least 0.9 further
// from it.
func stepFraction(limit, mu float64) float64 { return min(limit, max(0.9, 1-10*mu)) }

// stepWithin is stepTo with the steps capped at limit instead of 1.
func stepWithin(limit float64, x, dx, y, dy []float64) float64 {
	a := limit
	for k, v := range dx {
		// t != t keeps a NaN ratio, as math.Min would (without its call).
		if v < 0 {
			if t := -x[k] / v; t < a || t != t {
				a = t
			}
		}
	}
	for k, v := range dy {
		if v < 0 {
			if t := -y[k] / v; t < a || t != t {
				a = t
			}
		}
	}
	return a
}

// step makes one predictor-corrector iteration from the current point,
// whose residuals must be up to date.
func (w *workspace) step() error {
	comp := w.lastGap
	muC := comp / float64(2*len(w.p))
	if err := w.factor(); err != nil {
		return err
	}
	// Predictor (affine scaling).
	w.split(len(w.p), 2, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			w.rpz[k] = -w.r[k] * w.z[k]
			w.rsw[k] = -w.s[k] * w.w[k]
		}
	})
	d := w.aff
	if err := w.solve(d); err != nil {
		return err
	}
	ap, ad := w.ap, w.ad
	aff := 0.0
	for k := range w.p {
		aff += (w.r[k]+ap*d.r[k])*(w.z[k]+ad*d.z[k]) + (w.s[k]+ap*d.s[k])*(w.w[k]+ad*d.w[k])
	}
	sigma := math.Pow(aff/comp, 3)
	// Corrector.
	w.split(len(w.p), 4, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			w.rpz[k] = sigma*muC - w.r[k]*w.z[k] - d.r[k]*d.z[k]
			w.rsw[k] = sigma*muC - w.s[k]*w.w[k] - d.s[k]*d.w[k]
		}
	})
	d = w.cor
	var err error
	if err = w.solve(d); err != nil {
		return err
	}
	ap, ad = w.ap, w.ad
	if w.lowRank {
		// The affine direction is spent: its buffer holds the trials.
		if d, ap, ad, err = w.centrality(d, w.aff, ap, ad, sigma*muC); err != nil {
			return err
		}
	}
	eta := stepFraction(1, muC)
	ap, ad = min(1, eta*ap), min(1, eta*ad)
	w.move(d, ap, ad)
	return nil
}

// move steps the primal variables by ap along d and the dual ones by ad.
func (w *workspace) move(d direction, ap, ad float64) {
	w.split(len(w.p), 5, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			w.p[k] += ap * d.p[k]
			w.s[k] += ap * d.s[k]
			w.z[k] += ad * d.z[k]
			w.w[k] += ad * d.w[k]
		}
		if w.separate() {
			for k := lo; k < hi; k++ {
				w.r[k] += ap * d.r[k]
			}
		}
	})
	for j := range w.t {
		w.t[j] += ap * d.t[j]
		w.b[j] += ad * d.b[j]
	}
	for i := range w.a {
		w.a[i] += ad * d.a[i]
	}
}

// point returns the current point's entries p_ij as a mechanism, with the
// pairs pat forbids (pat nil: none) left at zero. Column c of the
// iterations is output cols[c] of the mechanism, whose width is pat's
// (cols nil: column c is output c, and the width the iterations'); the
// columns cols leaves out (Probe's outlet) are dropped. The entries are
// positive (the steps stop short of the boundary), but the rows sum to 1
// only up to the residuals.
func (w *workspace) point(pat mech.Pattern, cols []int) mech.Mechanism {
	st := w.st
	width, read := st.m, st.m
	if cols != nil {
		width, read = len(pat[0]), len(cols)
	}
	p := mech.Zeros(st.n, width)
	for c := range read {
		j := c
		if cols != nil {
			j = cols[c]
		}
		for k := st.colStart[c]; k < st.colStart[c+1]; k++ {
			if i := st.row[k]; pat == nil || pat[i][j] {
				p[i][j] = w.p[k]
			}
		}
	}
	return p
}

// result turns the current point into a cleaned, audited mechanism with
// its value and the bound its multipliers prove.
func (w *workspace) result(p Problem) *Result {
	st := w.st
	P, err := clean.Interior(p.Prior, w.point(nil, nil), p.Epsilon)
	if err != nil {
		// p is validated, so the shapes agree; a NaN value is never valid.
		return &Result{Value: math.NaN(), Bound: math.NaN()}
	}
	alpha := make([]float64, st.n)
	for i, a := range w.a {
		alpha[i] = -a * w.scale // the maximisation's multipliers, unscaled
	}
	return &Result{
		Mechanism: P,
		Value:     p.Utility.ExpectedUtility(p.Prior, P),
		Bound:     certify.UpperBound(p.Prior, p.Utility, nil, p.Epsilon, alpha),
		Alpha:     alpha,
		face:      w.face(),
	}
}

// face reads the optimal face off the current point by complementarity: a
// pair is used when its entry exceeds its dual slack (p_ij > z_ij), and
// capped when its cap's slack is below that slack's dual (s_ij < w_ij).
// Near the optimum one of each product's factors goes to 0 and the other
// stays of the order of the (scaled) data, so the comparison holds long
// before either factor falls below a fixed threshold.
func (w *workspace) face() *face {
	st := w.st
	f := &face{used: make(mech.Pattern, st.n), capped: make(mech.Pattern, st.n)}
	for i := range st.n {
		f.used[i], f.capped[i] = make([]bool, st.m), make([]bool, st.m)
	}
	for j := range st.m {
		for k := st.colStart[j]; k < st.colStart[j+1]; k++ {
			i := st.row[k]
			f.used[i][j] = w.p[k] > w.z[k]
			f.capped[i][j] = f.used[i][j] && w.s[k] < w.w[k]
		}
	}
	return f
}

// startOnMarginals raises each t_j of the starting point to q_j/μ, on
// its marginal row, where that is higher (from ε ≈ 1 on), and the slacks
// with it: at a large ε the default start lies e^ε away from the marginal
// rows, from where the iterations stall short of the gap (13 of 1 400
// small random ε-PML instances at ε = 7 to 30; none from this start).
//
// The start is the same for both forms in exact arithmetic (every row
// spread evenly: t_j = 3/M, q_j = 1/M), but each form computes it as its
// tests were run with (ε-PML: 2/M + 1/M and Σ_i π_i/M; with lower caps:
// 3/M and 1/M), because the iterations are sensitive to its last bits: on
// the 5-letter LDP instance of TestExpectedUtilityRandomAcrossBackends
// one start certifies to 1e-13 and the other breaks down at a gap of
// 1.6e-8. The products e f d of factor are likewise summed in each form's
// order.
func (w *workspace) startOnMarginals() {
	st := w.st
	if !w.form.marg || !(w.form.mu > 0) {
		return
	}
	for j := range st.m {
		q := 0.0
		for k := st.colStart[j]; k < st.colStart[j+1]; k++ {
			q += w.pi[st.row[k]] * w.p[k]
		}
		lift := q / w.form.mu
		if w.separate() {
			lift = 1 / (float64(st.m) * w.form.mu)
		}
		if q > 0 && lift > w.t[j] {
			w.t[j] = lift
		}
	}
	w.setSlacks()
}
