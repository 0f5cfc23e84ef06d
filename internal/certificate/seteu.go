package certificate

import (
	"cmp"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
)

// setExpectedLP looks for the multipliers α and one prior a^(j) of the set
// per output that bound the expected utility Σ_ij π̂_i u_ij p_ij of every
// mechanism within the PML budget ε over p's prior set (with the pattern
// pat, nil for none) by B = Σ_i α_i. Output j's column lies in the cone
// {z ≥ 0 : z_i ≤ e^ε a·z} for any a above the set, and Σ_i (π̂_i u_ij −
// α_i) z_i ≤ 0 holds over that cone exactly when some μ ≥ 0 has μ_k −
// e^ε a_k Σ_i μ_i ≥ π̂_k u_kj − α_k (LP duality); with M_j = Σ_i μ_ij and
// y_·j = M_j a^(j) ∈ M_j Π the conditions are linear:
//
//	min Σ_i α_i  s.t.  μ_kj − e^ε y_kj + α_k ≥ π̂_k u_kj,  Σ_k μ_kj = M_j,
//	                   y_·j ∈ M_j Π,  μ, M ≥ 0.
//
// By LP duality its optimum is the optimum over the set, where one prior
// for every output (a Hint's bound) may stay above it. The LP holds each
// y times polytope.MassScale(e^ε), and its cap rows the coefficient e^ε over that
// (addScaledPrior), or where the engine gives up on that LP, times the
// smaller priorMults. ok is false when the LP fails or the problem has
// more than setTightenMaxCells cells.
func setExpectedLP(p *problem.Problem, u mech.Utility, eps float64, pat mech.Pattern) (alpha []float64, priors [][]float64, ok bool) {
	set := p.PriorSet
	n, m := len(u), len(u[0])
	if n*m > setTightenMaxCells {
		return nil, nil, false
	}
	S := 0.0
	for _, v := range p.Prior {
		S += v
	}
	hi := math.Exp(eps)
	for _, mult := range priorMults(hi) {
		x := &lp.Model{}
		a := make([]int, n)
		for i := range a {
			a[i] = x.AddCol(1, -lp.Inf, lp.Inf, "")
		}
		M := make([]int, m)
		y := make([][]int, m)
		for j := range m {
			M[j] = x.AddCol(0, 0, lp.Inf, "")
			y[j] = addScaledPrior(x, p.Prior, set, S, M[j], mult)
			mass := []lp.Nonzero{lp.Entry(M[j], -1)}
			for k := range n {
				if pat != nil && !pat[k][j] {
					continue
				}
				mu := x.AddCol(0, 0, lp.Inf, "")
				mass = append(mass, lp.Entry(mu, 1))
				x.AddRow(p.Prior[k]*u[k][j], lp.Inf, "", lp.Entry(mu, 1), lp.Entry(y[j][k], -hi/mult), lp.Entry(a[k], 1))
			}
			x.AddRow(0, 0, "", mass...)
		}
		if sol, ok := solveSetLP(x, mult); ok {
			return setLPProof(sol.X, a, M, y, mult, p.Prior, set)
		}
	}
	return nil, nil, false
}

// setExpectedTwoLP looks for the multipliers α and, for each output j, a
// prior a^(j) of the set for the upper caps, b^(j) for the lower ones and
// the caps' totals R_j, T_j that bound the expected utility of every
// mechanism within the LIP or ALIP budget b over p's prior set by Σ_i α_i:
// the proof verify checks with two priors per output (docs/certificates.md,
// "Two priors per output"), there ρ_k − τ_k ≥ g_k with Σ_k ρ_k ≤ R and
// Σ_k τ_k = T. With C the estimate's total, κ = 0 (a constant is a shift
// of α along the estimate) and Y_·j = R_j a^(j) ∈ R_j Π, Z_·j = T_j b^(j) ∈
// T_j Π, the conditions are linear:
//
//	min Σ_i α_i  s.t.  ρ_kj − τ_kj − e^{ε_u} Y_kj + e^{−ε_l} Z_kj + C α_k ≥ C π̂_k u_kj,
//	                   Σ_k ρ_kj ≤ R_j,  Σ_k τ_kj = T_j,
//	                   Y_·j ∈ R_j Π,  Z_·j ∈ T_j Π,  ρ, τ, R, T ≥ 0,
//
// whose optimum is the optimum over the set (LP duality for each column's
// cone, whose two caps each take their worst prior). The LP holds Y times
// polytope.MassScale(e^{ε_u}), as setExpectedLP first holds its y, and has no
// fallback mult; Z enters its rows times e^{−ε_l} ≤ 1 and is held as it is.
// ok is false when the LP fails or the problem has more than
// setTwoPriorMaxCells cells.
func setExpectedTwoLP(p *problem.Problem, u mech.Utility, b mech.Budget) (r *ipm.RobustResult, ok bool) {
	set := p.PriorSet
	n, m := len(u), len(u[0])
	if n*m > setTwoPriorMaxCells {
		return nil, false
	}
	hi, lo := math.Exp(b.Epsilon), math.Exp(-b.Epsilon)
	if b.Measure == mech.ALIP {
		hi, lo = math.Exp(b.EpsilonUpper), math.Exp(-b.EpsilonLower)
	}
	C := 0.0
	for _, v := range p.Prior {
		C += v
	}
	mult := polytope.MassScale(hi)
	x := &lp.Model{}
	a := make([]int, n)
	for i := range a {
		a[i] = x.AddCol(1, -lp.Inf, lp.Inf, "")
	}
	R, T := make([]int, m), make([]int, m)
	Y, Z := make([][]int, m), make([][]int, m)
	for j := range m {
		R[j] = x.AddCol(0, 0, lp.Inf, "")
		T[j] = x.AddCol(0, 0, lp.Inf, "")
		Y[j] = addScaledPrior(x, p.Prior, set, C, R[j], mult)
		Z[j] = addScaledPrior(x, p.Prior, set, C, T[j], 1)
		up := []lp.Nonzero{lp.Entry(R[j], -1)}
		down := []lp.Nonzero{lp.Entry(T[j], -1)}
		for k := range n {
			rho := x.AddCol(0, 0, lp.Inf, "")
			tau := x.AddCol(0, 0, lp.Inf, "")
			up = append(up, lp.Entry(rho, 1))
			down = append(down, lp.Entry(tau, 1))
			x.AddRow(C*p.Prior[k]*u[k][j], lp.Inf, "", lp.Entry(rho, 1), lp.Entry(tau, -1),
				lp.Entry(Y[j][k], -hi/mult), lp.Entry(Z[j][k], lo), lp.Entry(a[k], C))
		}
		x.AddRow(-lp.Inf, 0, "", up...)
		x.AddRow(0, 0, "", down...)
	}
	sol, ok := solveSetLP(x, mult)
	if !ok {
		return nil, false
	}
	r = &ipm.RobustResult{Alpha: make([]float64, n), PriorsUpper: make([][]float64, m), PriorsLower: make([][]float64, m), CapWeights: make([][]float64, m)}
	for i := range n {
		r.Alpha[i] = sol.X[a[i]]
	}
	// A cap whose total is negligible beside the largest has no prior of
	// its own: the estimate stands in (any prior of the set does).
	top := 0.0
	for j := range m {
		top = max(top, max(sol.X[R[j]], sol.X[T[j]]))
	}
	read := func(scale int, cols []int, k float64) []float64 {
		if l := sol.X[scale]; l > 1e-9*top {
			v := make([]float64, n)
			for i := range n {
				v[i] = max(0, sol.X[cols[i]]/(k*l))
			}
			return v
		}
		return p.Prior
	}
	for j := range m {
		r.PriorsUpper[j], r.PriorsLower[j] = read(R[j], Y[j], mult), read(T[j], Z[j], 1)
		r.CapWeights[j] = []float64{max(0, sol.X[R[j]]), max(0, sol.X[T[j]])}
	}
	return r, true
}

// setTwoPriorMaxCells is the largest problem (inputs × outputs) whose
// bound setExpectedTwoLP closes: its LP has about 6 columns a cell (8 over
// a ball), and the revised simplex takes about a second at 10 × 10 and
// several at 16 × 16, more than the answer itself.
const setTwoPriorMaxCells = 100

// TwoPriorBoundLP is TwoPriorBound with the multipliers and priors of
// setExpectedTwoLP: the bound over the set of an answer whose own proof
// leaves it open (the LP route's bounds at the set's priors, or an
// interior point's multipliers short of the optimum). ok is true when c's
// bound was replaced by bound.
func TwoPriorBoundLP(p *problem.Problem, u mech.Utility, b mech.Budget, m mech.Mechanism, value float64, c *verify.Certificate) (bound float64, ok bool) {
	if b.Measure != mech.LIP && b.Measure != mech.ALIP {
		return math.NaN(), false
	}
	r, ok := setExpectedTwoLP(p, u, b)
	if !ok {
		return math.NaN(), false
	}
	return TwoPriorBound(p, u, b, r, m, value, c)
}

// TightenExpectedOver replaces c's bound (an expected-utility answer over
// p's prior set with the mechanism m and the pattern pat, nil for none;
// only PML answers on small problems) by a lower one proven with one prior
// per output, when setExpectedLP finds one: the smallest B = Σ_i α_i + κ,
// for κ a few sizes of rounding, that verify's exact check of the bound
// accepts. It returns the bound in force, NaN when c states none.
func TightenExpectedOver(p *problem.Problem, u mech.Utility, b mech.Budget, pat mech.Pattern, m mech.Mechanism, c *verify.Certificate) float64 {
	old := math.NaN()
	if c.Utility.Bound != nil {
		old = *c.Utility.Bound
	}
	if b.Measure != mech.PML {
		return old
	}
	alpha, priors, ok := setExpectedLP(p, u, b.Epsilon, pat)
	if !ok {
		return old
	}
	sum, mag := 0.0, 0.0
	for _, v := range alpha {
		sum += v
		mag += math.Abs(v)
	}
	vp := verify.Problem{Prior: p.Prior, Utility: u, Order: p.Order, Mechanism: m, PriorSet: PriorSet(p.PriorSet)}
	for _, rel := range []float64{1e-13, 1e-11, 1e-9} {
		B := sum + rel*max(1, mag)
		if !(B < old) && !math.IsNaN(old) {
			break
		}
		try := *c
		ut := *c.Utility
		ut.Bound, ut.Alpha, ut.Priors = &B, alpha, priors
		try.Utility = &ut
		for _, cl := range verify.Check(vp, try) {
			if cl.Name == verify.ClaimBound && cl.OK {
				*c = try
				return B
			}
		}
	}
	return old
}

// ProvenBound keeps c's expected-utility bound (an answer over p's prior
// set with the mechanism m) only as verify's exact check accepts it. The
// bound the engines prove in floats can miss that check by rounding (the
// multipliers' sums, the priors raised above the set), so it is raised by
// a few sizes of rounding of the multipliers' magnitude and the least
// one accepted is kept; when none is, the bound and its proof are
// dropped. It returns the bound in force, NaN when none.
func ProvenBound(p *problem.Problem, u mech.Utility, m mech.Mechanism, c *verify.Certificate) float64 {
	if c == nil || c.Utility == nil || c.Utility.Bound == nil {
		return math.NaN()
	}
	vp := verify.Problem{Prior: p.Prior, Utility: u, Order: p.Order, Mechanism: m, PriorSet: PriorSet(p.PriorSet)}
	holds := func(try verify.Certificate) bool {
		for _, cl := range verify.Check(vp, try) {
			if cl.Name == verify.ClaimBound {
				return cl.OK
			}
		}
		return false
	}
	if holds(*c) {
		return *c.Utility.Bound
	}
	mag := 0.0
	for _, v := range c.Utility.Alpha {
		mag += math.Abs(v)
	}
	for _, rel := range []float64{1e-13, 1e-11, 1e-9} {
		B := *c.Utility.Bound + rel*max(1, mag)
		try := *c
		ut := *c.Utility
		ut.Bound = &B
		try.Utility = &ut
		if holds(try) {
			*c = try
			return B
		}
	}
	ut := *c.Utility
	ut.Bound, ut.Alpha, ut.Priors, ut.PriorsLower, ut.CapWeights = nil, nil, nil, nil, nil
	c.Utility = &ut
	return math.NaN()
}

// TwoPriorBound replaces c's bound (LIP or ALIP over a set, proven with
// one prior per output for both caps, which can stay well above the
// optimum) by the lower one that r's multipliers prove with a prior for
// each output's upper caps and another for its lower caps
// (ipm.RobustBoundTwo, package verify's twoPriorBound), the priors raised
// above the set in exact arithmetic first: the smallest of the float
// bound and a few sizes of rounding above it, and no less than value
// (the expected utility of m, the answer's mechanism), that verify's
// exact check accepts. c is left as it is when none is accepted or none
// is lower; a c without a bound takes any that is accepted. ok is true
// when c's bound was replaced by bound.
func TwoPriorBound(p *problem.Problem, u mech.Utility, b mech.Budget, r *ipm.RobustResult, m mech.Mechanism, value float64, c *verify.Certificate) (bound float64, ok bool) {
	if r.PriorsUpper == nil || c == nil || c.Utility == nil {
		return math.NaN(), false
	}
	cols := len(r.PriorsUpper)
	ups, downs := make([][]float64, cols), make([][]float64, cols)
	for j := range cols {
		var ok1, ok2 bool
		ups[j], ok1 = AboveSet(p.PriorSet, p.Prior, r.PriorsUpper[j])
		downs[j], ok2 = AboveSet(p.PriorSet, p.Prior, r.PriorsLower[j])
		if !ok1 || !ok2 {
			return math.NaN(), false
		}
	}
	// The priors raised above the set move each output's count by
	// roundings, which a letter of the estimate's mass 1e-20 turns into
	// a κ far above the optimum's: the caps' totals are tightened again
	// for the raised priors where the bound lies above the value.
	caps := make([][]float64, len(r.CapWeights))
	for j, rt := range r.CapWeights {
		caps[j] = slices.Clone(rt)
	}
	bound = ipm.TightenBoundTwo(p.Prior, u, b, r.Alpha, ups, downs, caps, value, ipm.AcceptedGap)
	return acceptLower(p, u, m, value, c, bound, r.Alpha, ups, downs, caps)
}

// acceptLower replaces c's bound by bound, proven by the multipliers
// alpha with the priors ups (and, for two priors per output, downs and
// the caps' totals caps; nil otherwise), when it is lower: the float bound
// or a few sizes of rounding of the multipliers above it, and no less than
// value (the expected utility of m, the answer's mechanism), the least
// that verify's exact check accepts. ok is true when c's bound was
// replaced; c is left as it is otherwise.
func acceptLower(p *problem.Problem, u mech.Utility, m mech.Mechanism, value float64, c *verify.Certificate, bound float64, alpha []float64, ups, downs, caps [][]float64) (float64, bool) {
	old := math.Inf(1)
	if c.Utility.Bound != nil {
		old = *c.Utility.Bound
	}
	if math.IsNaN(bound) || math.IsInf(bound, 0) || !(bound < old) {
		return math.NaN(), false
	}
	mag := 0.0
	for _, v := range alpha {
		mag += math.Abs(v)
	}
	vp := verify.Problem{Prior: p.Prior, Utility: u, Order: p.Order, Mechanism: m, PriorSet: PriorSet(p.PriorSet)}
	for _, rel := range []float64{0, 1e-13, 1e-11, 1e-9} {
		B := max(bound+rel*max(1, mag), value)
		if !(B < old) {
			return math.NaN(), false
		}
		try := *c
		ut := *c.Utility
		ut.Bound, ut.Alpha, ut.Priors, ut.PriorsLower, ut.CapWeights = &B, alpha, ups, downs, caps
		try.Utility = &ut
		if verify.BoundHolds(vp, try) {
			*c = try
			return B, true
		}
	}
	return math.NaN(), false
}

// boxFillAlong returns v moved into the box set along the column c: each
// entry into [l_k, u_k], then the estimate's total restored on the letters
// of least c_k first (taken back from those of largest), as the greedy
// fills a least mass. Multipliers' priors miss the box by the engine's
// tolerance over the mass bound's multiplier, large for an output of
// little weight; raised to lie above the set on letters of large c_k, as
// AboveSet would, they move the least mass, which e^ε magnifies in the
// bound. A ball's v is returned as it is.
func boxFillAlong(set *mech.PriorSet, v, c []float64) []float64 {
	if !set.IsBox() {
		return v
	}
	w := slices.Clone(v)
	rest := 0.0
	for k := range w {
		w[k] = min(max(w[k], set.Lower[k]), set.Upper[k])
		rest += set.Center[k] - w[k]
	}
	order := make([]int, len(w))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(c[a], c[b]) })
	if rest < 0 {
		slices.Reverse(order)
	}
	for _, k := range order {
		if rest > 0 {
			add := min(rest, set.Upper[k]-w[k])
			w[k] += add
			rest -= add
		} else if rest < 0 {
			take := min(-rest, w[k]-set.Lower[k])
			w[k] -= take
			rest += take
		}
	}
	return w
}

// MultipliersBound replaces c's bound (an expected-utility answer over
// p's set with the mechanism m of expected utility value) by the lower one
// that r's multipliers prove, when verify's exact check accepts it: under
// LIP and ALIP with two priors per output (TwoPriorBound), under PML with
// r.Priors raised above the set (ipm.RobustBound), its float bound and a
// few sizes of rounding above it. The multipliers may come from any
// engine (an LP's row duals, say): the check does not trust them. ok is
// true when c's bound was replaced by bound.
func MultipliersBound(p *problem.Problem, u mech.Utility, b mech.Budget, r *ipm.RobustResult, m mech.Mechanism, value float64, c *verify.Certificate) (bound float64, ok bool) {
	if r == nil || c == nil || c.Utility == nil {
		return math.NaN(), false
	}
	if b.Measure == mech.LIP || b.Measure == mech.ALIP {
		return TwoPriorBound(p, u, b, r, m, value, c)
	}
	if b.Measure != mech.PML || len(r.Priors) == 0 {
		return math.NaN(), false
	}
	// Each output's prior is the multipliers', raised above the set as
	// AboveSet raises it or first filled into the box along m's column,
	// or, where their weight on the output is too small to fix it, the
	// set's worst for that column: RobustBound keeps the best.
	cands := make([][][]float64, len(r.Priors))
	n := len(p.Prior)
	col := make([]float64, n)
	for j, v := range r.Priors {
		for i := range n {
			col[i] = 0
			if j < len(m[i]) {
				col[i] = m[i][j]
			}
		}
		for _, q := range [][]float64{v, boxFillAlong(p.PriorSet, v, col), p.PriorSet.Extreme(col, false)} {
			if w, ok := AboveSet(p.PriorSet, p.Prior, q); ok {
				cands[j] = append(cands[j], w)
			}
		}
		if cands[j] == nil {
			return math.NaN(), false
		}
	}
	bound, priors := ipm.RobustBound(p.Prior, u, b, r.Alpha, cands)
	return acceptLower(p, u, m, value, c, bound, r.Alpha, priors, nil, nil)
}
