package ipm

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/vec"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// RatioProblem is an expected-utility problem under a budget whose
// constraints bound every entry of an output from both sides by one
// auxiliary per output: maximise Σ_ij π_i u_ij p_ij subject to
//
//	LIP, ALIP:  e^{−ε_l} q_j ≤ p_ij ≤ e^{ε_u} q_j   (LIP: ε_l = ε_u = ε)
//	LDP:        l_j ≤ p_ij ≤ e^ε l_j
//
// (the formulations of package polytope).
type RatioProblem struct {
	Prior   mech.Prior
	Utility mech.Utility
	Budget  mech.Budget
}

// ratioForm is the common form of the three polytopes: with t_j the upper
// cap of output j, κ t_j ≤ p_ij ≤ t_j and, when marg is set,
// Σ_i π_i p_ij = μ t_j.
type ratioForm struct {
	marg      bool
	mu, kappa float64
}

func (p RatioProblem) form() (ratioForm, error) {
	b := p.Budget
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v < 0 }
	switch b.Measure {
	case mech.LIP:
		if bad(b.Epsilon) {
			return ratioForm{}, fmt.Errorf("ipm: budget %g is not a finite number ≥ 0", b.Epsilon)
		}
		return ratioForm{marg: true, mu: math.Exp(-b.Epsilon), kappa: math.Exp(-2 * b.Epsilon)}, nil
	case mech.ALIP:
		if bad(b.EpsilonLower) || bad(b.EpsilonUpper) {
			return ratioForm{}, fmt.Errorf("ipm: budget (%g, %g) is not finite and ≥ 0", b.EpsilonLower, b.EpsilonUpper)
		}
		return ratioForm{marg: true, mu: math.Exp(-b.EpsilonUpper), kappa: math.Exp(-b.EpsilonLower - b.EpsilonUpper)}, nil
	case mech.LDP:
		if bad(b.Epsilon) {
			return ratioForm{}, fmt.Errorf("ipm: budget %g is not a finite number ≥ 0", b.Epsilon)
		}
		return ratioForm{kappa: math.Exp(-b.Epsilon)}, nil
	}
	return ratioForm{}, fmt.Errorf("ipm: SolveRatio takes lip, alip or ldp budgets, not %q", b.Measure)
}

// SolveRatio returns an optimal mechanism of p, certified to within
// opt.Gap by RatioUpperBound. It is Solve's method on the form
//
//	max Σ c_k p_k  s.t.  Σ_j p_ij = 1,  [Σ_i π_i p_ij = μ t_j],
//	                     p_ij + s_ij = t_j,  p_ij − r_ij = κ t_j,  s, r ≥ 0,
//
// where the lower caps replace Solve's p ≥ 0 (r plays p's part in the
// complementarity): with e = w/s, f = z/r, d = 1/(e + f) and g = e + κf,
// each pair's step is dp = d (h + da_i + π_i db_j + g dt_j), each output
// reduces to a 2×2 block in (db_j, dt_j) (1×1 in dt_j without the marginal
// row, LDP) and a rank-2 update of one dense N×N system in da.
func SolveRatio(p RatioProblem, opt Options) (*Result, error) {
	if _, err := mech.NewPrior(p.Prior); err != nil {
		return nil, err
	}
	if _, err := mech.NewUtility(p.Utility); err != nil {
		return nil, err
	}
	n, _ := p.Utility.Dims()
	if n != len(p.Prior) {
		return nil, &mech.FieldError{Field: "utility", Row: -1, Col: -1,
			Msg: fmt.Sprintf("has %d rows but the prior has %d letters", n, len(p.Prior))}
	}
	form, err := p.form()
	if err != nil {
		return nil, err
	}
	gap, accept := opt.Gap, opt.Gap
	if gap == 0 {
		gap, accept = DefaultGap, AcceptedGap
	}
	maxIter := opt.MaxIter
	if maxIter == 0 {
		maxIter = 200
	}
	p.Prior = normalised(p.Prior)
	if form.kappa == 1 || (form.marg && (form.mu == 1 || form.kappa == form.mu)) {
		return identicalRows(p), nil
	}
	w := newRatioWorkspace(p, form)
	var best *Result
	stale := 0
	for it := 0; it <= maxIter; it++ {
		w.residuals()
		if w.gapMeasure() < 1e-6 || w.lastGap < 1e-12 {
			r := w.result(p)
			r.Iterations = it
			if r.valid() && (best == nil || r.Bound-r.Value < best.Bound-best.Value) {
				best, stale = r, 0
			} else {
				stale++
			}
			if best != nil && best.Bound-best.Value <= gap*math.Max(1, math.Abs(best.Value)) {
				break
			}
		}
		if w.lastGap < 1e-15 || stale >= 5 || it == maxIter {
			break
		}
		if err := w.step(); err != nil {
			break
		}
	}
	if best != nil && best.Bound-best.Value > accept*math.Max(1, math.Abs(best.Value)) && best.face != nil {
		// Rounding stopped the iterations short of the gap: the LP of the
		// face the point lies in gives a vertex and sharper multipliers.
		if v, err := ratioVertex(p, form, best); err == nil && v.Bound-v.Value < best.Bound-best.Value {
			best = v
		}
	}
	if best != nil && best.Bound-best.Value <= accept*math.Max(1, math.Abs(best.Value)) {
		return best, nil
	}
	return best, ErrNotConverged
}

// identicalRows answers the budgets that force every row to be the same
// (LDP or LIP at ε = 0, ALIP with ε_l = 0 or ε_u = 0: Σ_i π_i p_ij = q_j
// with every p_ij on one side of q_j leaves p_ij = q_j), where the
// interior-point method has no interior: such a mechanism is worth
// Σ_j q_j Σ_i π_i u_ij, at most max_j Σ_i π_i u_ij, which the constant
// mechanism on the best output reaches. The multipliers 0 prove it.
func identicalRows(p RatioProblem) *Result {
	n, m := p.Utility.Dims()
	best, value := 0, math.Inf(-1)
	for j := range m {
		v := 0.0
		for i := range n {
			v += p.Prior[i] * p.Utility[i][j]
		}
		if v > value {
			best, value = j, v
		}
	}
	P := mech.Zeros(n, m)
	for i := range n {
		P[i][best] = 1
	}
	alpha := make([]float64, n)
	return &Result{Mechanism: P, Value: p.Utility.ExpectedUtility(p.Prior, P),
		Bound: certify.RatioUpperBound(p.Prior, p.Utility, p.Budget, alpha), Alpha: alpha}
}

// ratioWorkspace is the state of SolveRatio's iterations. Pair k = j·n + i
// is (i, j): every output holds every input.
type ratioWorkspace struct {
	n, m  int
	form  ratioForm
	pi    []float64
	c     []float64
	scale float64

	p, s, r, z, w []float64 // per pair
	t, b          []float64 // per output
	a             []float64 // per row

	rd, rc, rl, ra, rb, rt []float64

	d, e, f, g, v1, v2, u1, u2 []float64
	gw, hz, h, rpz, rsw        []float64
	k                          [][4]float64
	colB1, colB2               []float64
	rowSumD, rowB3             []float64
	mat                        *mat.Dense
	lu                         mat.LU
	rhs, sol                   *mat.VecDense
	aff, cor                   ratioDirection

	lastGap, lastPrimI, lastDualI float64
}

type ratioDirection struct{ p, s, r, z, w, t, b, a []float64 }

func newRatioWorkspace(p RatioProblem, form ratioForm) *ratioWorkspace {
	n, m := p.Utility.Dims()
	K := n * m
	v := func(l int) []float64 { return make([]float64, l) }
	w := &ratioWorkspace{n: n, m: m, form: form, pi: p.Prior}
	w.c = v(K)
	for j := range m {
		for i := range n {
			w.c[j*n+i] = p.Prior[i] * p.Utility[i][j]
			w.scale = math.Max(w.scale, math.Abs(w.c[j*n+i]))
		}
	}
	if w.scale == 0 {
		w.scale = 1
	}
	for k := range w.c {
		w.c[k] /= w.scale
	}
	w.p, w.s, w.r, w.z, w.w = v(K), v(K), v(K), v(K), v(K)
	w.t, w.b, w.a = v(m), v(m), v(n)
	w.rd, w.rc, w.rl, w.ra, w.rb, w.rt = v(K), v(K), v(K), v(n), v(m), v(m)
	w.d, w.e, w.f, w.g, w.v1, w.v2, w.u1, w.u2 = v(K), v(K), v(K), v(K), v(K), v(K), v(K), v(K)
	w.gw, w.hz, w.h, w.rpz, w.rsw = v(K), v(K), v(K), v(K), v(K)
	w.k = make([][4]float64, m)
	w.colB1, w.colB2 = v(m), v(m)
	w.rowSumD, w.rowB3 = v(n), v(n)
	w.mat = mat.NewDense(n, n, nil)
	w.rhs, w.sol = mat.NewVecDense(n, nil), mat.NewVecDense(n, nil)
	dir := func() ratioDirection {
		return ratioDirection{p: v(K), s: v(K), r: v(K), z: v(K), w: v(K), t: v(m), b: v(m), a: v(n)}
	}
	w.aff, w.cor = dir(), dir()
	// Starting point: rows spread evenly, t_j above every entry, both
	// slacks of the order of the entries, duals 1.
	for k := range w.p {
		w.p[k] = 1 / float64(m)
	}
	for j := range m {
		w.t[j] = 3 / float64(m)
		if form.marg {
			// On the marginal row: t_j = q_j/μ, far above 3/M at a
			// large ε_u (an infeasible start there stalled at ε_u = 10).
			w.t[j] = math.Max(w.t[j], 1/(float64(m)*form.mu))
		}
	}
	for k := range w.p {
		j := k / n
		w.s[k] = w.t[j] - w.p[k]
		w.r[k] = math.Max(w.p[k]-form.kappa*w.t[j], 0.5*w.p[k])
		w.z[k], w.w[k] = 1, 1
	}
	return w
}

func (w *ratioWorkspace) residuals() {
	n, fm := w.n, w.form
	clear(w.ra)
	for j := range w.m {
		var q, ws, zs float64
		for i := range n {
			k := j*n + i
			w.rd[k] = -w.c[k] - w.a[i] - w.pi[i]*w.b[j] + w.w[k] - w.z[k]
			w.rc[k] = w.t[j] - w.p[k] - w.s[k]
			w.rl[k] = w.p[k] - fm.kappa*w.t[j] - w.r[k]
			w.ra[i] += w.p[k]
			q += w.pi[i] * w.p[k]
			ws += w.w[k]
			zs += w.z[k]
		}
		w.rb[j] = 0
		if fm.marg {
			w.rb[j] = q - fm.mu*w.t[j]
		}
		w.rt[j] = fm.mu*w.b[j] - ws + fm.kappa*zs
	}
	for i := range w.ra {
		w.ra[i]--
	}
	comp := 0.0
	for k := range w.p {
		comp += w.r[k]*w.z[k] + w.s[k]*w.w[k]
	}
	w.lastGap = comp
	w.lastPrimI = math.Max(maxAbs(w.ra), math.Max(maxAbs(w.rb), math.Max(maxAbs(w.rc), maxAbs(w.rl))))
	w.lastDualI = math.Max(maxAbs(w.rd), maxAbs(w.rt))
}

func (w *ratioWorkspace) gapMeasure() float64 {
	return math.Max(w.lastGap, math.Max(w.lastPrimI, w.lastDualI))
}

// factor builds and factorises the reduced N×N system at the current point.
func (w *ratioWorkspace) factor() error {
	n, fm := w.n, w.form
	kap := fm.kappa
	for k := range w.p {
		w.e[k] = w.w[k] / w.s[k]
		w.f[k] = w.z[k] / w.r[k]
		w.d[k] = 1 / (w.e[k] + w.f[k])
		w.g[k] = w.e[k] + kap*w.f[k]
	}
	data := w.mat.RawMatrix().Data
	clear(data)
	clear(w.rowSumD)
	for j := range w.m {
		k0, k1 := j*n, (j+1)*n
		var epd, ppd, es float64
		for k := k0; k < k1; k++ {
			i := k - k0
			w.v1[k], w.v2[k] = w.g[k]*w.d[k], w.pi[i]*w.d[k]
			epd += w.pi[i] * w.v1[k]
			ppd += w.pi[i] * w.v2[k]
			es += w.e[k] * w.f[k] * w.d[k]
			w.rowSumD[i] += w.d[k]
		}
		es *= (1 - kap) * (1 - kap)
		var i11, i12, i21, i22 float64
		if fm.marg {
			k11, k12, k21, k22 := fm.mu-epd, es, ppd, epd-fm.mu
			det := k11*k22 - k12*k21
			if !(det < 0) {
				return errors.New("ipm: singular output block")
			}
			i11, i12, i21, i22 = k22/det, -k12/det, -k21/det, k11/det
		} else {
			if !(es > 0) {
				return errors.New("ipm: singular output block")
			}
			i21 = 1 / es
		}
		w.k[j] = [4]float64{i11, i12, i21, i22}
		for k := k0; k < k1; k++ {
			pi, d, g := w.pi[k-k0], w.d[k], w.g[k]
			w.u1[k] = d * (pi*i11 + g*i21)
			w.u2[k] = d * (pi*i12 + g*i22)
		}
		v1, v2 := w.v1[k0:k1], w.v2[k0:k1]
		for k := k0; k < k1; k++ {
			i := k - k0
			row := data[i*n : (i+1)*n]
			vec.AddScaled(row, w.u1[k], v1)
			if fm.marg {
				vec.AddScaled(row, -w.u2[k], v2)
			}
		}
	}
	for i := range n {
		data[i*n+i] += w.rowSumD[i]
	}
	w.lu.Factorize(w.mat)
	return nil
}

// solve computes the Newton direction for the current residuals and the
// complementarity right-hand sides rpz (r z) and rsw (s w).
func (w *ratioWorkspace) solve(d ratioDirection) error {
	n, kap := w.n, w.form.kappa
	for k := range w.p {
		w.gw[k] = w.rsw[k]/w.s[k] - w.e[k]*w.rc[k]
		w.hz[k] = w.rpz[k]/w.r[k] - w.f[k]*w.rl[k]
		w.h[k] = -w.rd[k] - w.gw[k] + w.hz[k]
	}
	for i := range n {
		w.rowB3[i] = -w.ra[i]
	}
	for j := range w.m {
		k0, k1 := j*n, (j+1)*n
		b1, b2 := -w.rt[j], -w.rb[j]
		for k := k0; k < k1; k++ {
			b1 += w.gw[k] - kap*w.hz[k] + w.v1[k]*w.h[k]
			b2 -= w.v2[k] * w.h[k]
			w.rowB3[k-k0] -= w.d[k] * w.h[k]
		}
		w.colB1[j], w.colB2[j] = b1, b2
		for k := k0; k < k1; k++ {
			w.rowB3[k-k0] -= w.u1[k]*b1 + w.u2[k]*b2
		}
	}
	copy(w.rhs.RawVector().Data, w.rowB3)
	if err := w.lu.SolveVecTo(w.sol, false, w.rhs); err != nil {
		var c mat.Condition
		if !errors.As(err, &c) {
			return err
		}
	}
	da := d.a
	copy(da, w.sol.RawVector().Data)
	for j := range w.m {
		k0, k1 := j*n, (j+1)*n
		var x, y float64
		for k := k0; k < k1; k++ {
			x += w.v1[k] * da[k-k0]
			y += w.v2[k] * da[k-k0]
		}
		ik := w.k[j]
		r1, r2 := w.colB1[j]+x, w.colB2[j]-y
		d.b[j] = ik[0]*r1 + ik[1]*r2
		d.t[j] = ik[2]*r1 + ik[3]*r2
		for k := k0; k < k1; k++ {
			i := k - k0
			d.p[k] = w.d[k] * (w.h[k] + da[i] + w.pi[i]*d.b[j] + w.g[k]*d.t[j])
			d.s[k] = d.t[j] - d.p[k] + w.rc[k]
			d.r[k] = d.p[k] - kap*d.t[j] + w.rl[k]
			d.w[k] = (w.rsw[k] - w.w[k]*d.s[k]) / w.s[k]
			d.z[k] = (w.rpz[k] - w.z[k]*d.r[k]) / w.r[k]
		}
	}
	return nil
}

// step makes one predictor-corrector iteration (residuals up to date).
func (w *ratioWorkspace) step() error {
	comp := w.lastGap
	muC := comp / float64(2*len(w.p))
	if err := w.factor(); err != nil {
		return err
	}
	for k := range w.p {
		w.rpz[k] = -w.r[k] * w.z[k]
		w.rsw[k] = -w.s[k] * w.w[k]
	}
	d := w.aff
	if err := w.solve(d); err != nil {
		return err
	}
	ap := stepTo(w.r, d.r, w.s, d.s)
	ad := stepTo(w.z, d.z, w.w, d.w)
	aff := 0.0
	for k := range w.p {
		aff += (w.r[k]+ap*d.r[k])*(w.z[k]+ad*d.z[k]) + (w.s[k]+ap*d.s[k])*(w.w[k]+ad*d.w[k])
	}
	sigma := math.Pow(aff/comp, 3)
	for k := range w.p {
		w.rpz[k] = sigma*muC - w.r[k]*w.z[k] - d.r[k]*d.z[k]
		w.rsw[k] = sigma*muC - w.s[k]*w.w[k] - d.s[k]*d.w[k]
	}
	d = w.cor
	if err := w.solve(d); err != nil {
		return err
	}
	ap = stepTo(w.r, d.r, w.s, d.s)
	ad = stepTo(w.z, d.z, w.w, d.w)
	eta := math.Max(0.9, 1-10*muC)
	ap, ad = math.Min(1, eta*ap), math.Min(1, eta*ad)
	for k := range w.p {
		w.p[k] += ap * d.p[k]
		w.s[k] += ap * d.s[k]
		w.r[k] += ap * d.r[k]
		w.z[k] += ad * d.z[k]
		w.w[k] += ad * d.w[k]
	}
	for j := range w.t {
		w.t[j] += ap * d.t[j]
		w.b[j] += ad * d.b[j]
	}
	for i := range w.a {
		w.a[i] += ad * d.a[i]
	}
	return nil
}

// result turns the current point into an audited mechanism (outputs of
// noise dropped, rows renormalised, mixed into the budget by mixIntoRatio) with its value and
// the bound its multipliers prove.
func (w *ratioWorkspace) result(p RatioProblem) *Result {
	n, m := w.n, w.m
	P := mech.Zeros(n, m)
	for j := range m {
		// An output the optimum leaves unused keeps entries of the
		// order of the complementarity, whose ratios are noise: it is
		// dropped, or the mixing would pay for that noise.
		top := 0.0
		for i := range n {
			top = math.Max(top, w.p[j*n+i])
		}
		if top <= certify.InteriorColumnNoise {
			continue
		}
		for i := range n {
			P[i][j] = math.Max(0, w.p[j*n+i])
		}
	}
	for i := range n {
		s := 0.0
		for j := range m {
			s += P[i][j]
		}
		for j := range m {
			P[i][j] /= s
		}
	}
	P = mixIntoRatio(p.Prior, P, p.Budget)
	alpha := make([]float64, n)
	for i, a := range w.a {
		alpha[i] = -a * w.scale
	}
	return &Result{
		Mechanism: P,
		Value:     p.Utility.ExpectedUtility(p.Prior, P),
		Bound:     certify.RatioUpperBound(p.Prior, p.Utility, p.Budget, alpha),
		Alpha:     alpha,
		face:      w.face(),
	}
}

// face reads the optimal face off the current point by complementarity,
// as workspace.face does: an output is used when its largest entry is not
// noise, a pair of it is at its cap when s_ij < w_ij and at its lower cap
// when r_ij < z_ij.
func (w *ratioWorkspace) face() *face {
	n, m := w.n, w.m
	f := &face{used: make(mech.Pattern, n), capped: make(mech.Pattern, n), lower: make(mech.Pattern, n)}
	for i := range n {
		f.used[i], f.capped[i], f.lower[i] = make([]bool, m), make([]bool, m), make([]bool, m)
	}
	for j := range m {
		top := 0.0
		for i := range n {
			top = math.Max(top, w.p[j*n+i])
		}
		for i := range n {
			k := j*n + i
			f.used[i][j] = top > certify.InteriorColumnNoise
			f.capped[i][j] = f.used[i][j] && w.s[k] < w.w[k]
			f.lower[i][j] = f.used[i][j] && !f.capped[i][j] && w.r[k] < w.z[k]
		}
	}
	return f
}

// ratioMeets reports whether P meets the budget b (LIP, ALIP or LDP) under
// package leakage, up to a relative slack.
func ratioMeets(pi mech.Prior, P mech.Mechanism, b mech.Budget, slack float64) bool {
	within := func(a, eps float64) bool { return a <= eps+slack*math.Max(1, eps) }
	switch b.Measure {
	case mech.LIP:
		return within(leakage.LIP(pi, P), b.Epsilon)
	case mech.ALIP:
		lo, up := leakage.ALIP(pi, P)
		return within(lo, b.EpsilonLower) && within(up, b.EpsilonUpper)
	case mech.LDP:
		return within(leakage.LDP(pi, P), b.Epsilon)
	}
	return false
}

// mixIntoRatio returns P, mixed in place with the mechanism whose every
// row is P's output marginal q (LIP 0, ALIP 0, LDP 0) when P exceeds the
// budget: the mixture keeps q and moves every ratio p_ij/q_j and
// p_ij/p_i'j towards 1. The least mixing weight that meets the budget is
// found by bisection on the audit (60 halvings), which must hold without
// slack. (At a budget of 0 no weight may: a ratio 1/q_j is 1 only up to
// the rounding of the prior's sum; the weight is then 1.)
func mixIntoRatio(pi mech.Prior, P mech.Mechanism, b mech.Budget) mech.Mechanism {
	if ratioMeets(pi, P, b, 0) {
		return P
	}
	n, m := P.Dims()
	q := make([]float64, m)
	for i, row := range P {
		for j, v := range row {
			q[j] += pi[i] * v
		}
	}
	mix := func(theta float64) mech.Mechanism {
		out := mech.Zeros(n, m)
		for i, row := range P {
			for j, v := range row {
				out[i][j] = (1-theta)*v + theta*q[j]
			}
		}
		return out
	}
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if ratioMeets(pi, mix(mid), b, 0) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return mix(hi)
}
