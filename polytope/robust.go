package polytope

import (
	"fmt"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
)

// RobustModel is the privacy polytope over a set of priors written as an
// LP: every constraint that involves the prior holds for every prior of
// the set (docs/theory.md, "When the prior is estimated").
type RobustModel struct {
	LP   *lp.Model
	N, M int
	// P[i][j] is the column of p_ij, or -1 for a pair the pattern forbids.
	P [][]int
	// Low[j] is the column of s·L_j, L_j ≤ min_{π∈Π} Σ_k π_k p_kj (PML,
	// ALIP, LIP; s the model's scale of the least masses, see
	// addMassBound); High[j] the column of H_j ≥ max_{π∈Π} Σ_k π_k p_kj
	// (ALIP, LIP); -1 where the measure has none.
	Low, High []int
	// Sum[i] is the row Σ_j p_ij = 1.
	Sum []int
	// Cap[i][j] is the row p_ij − e^ε L_j ≤ 0 (PML, ALIP, LIP: ε_u), or -1
	// where p_ij has no column; nil for LDP.
	Cap [][]int
	// level is the upper level the model was built for, capNz[i][j] the
	// index in LP.ConstMatrix of the Cap row's entry on the Low column.
	level float64
	capNz [][]int
	// lowRows[j] and highRows[j] are the rows of output j's least and
	// largest mass (addMassBound; none in a CutModel), floorRows[j] its
	// floors κ H_j ≤ p_ij (addFloor), kappa the floors' κ (0 for PML), set
	// the set of priors; read by Proof.
	lowRows, highRows []massRows
	floorRows         [][]int
	kappa             float64
	set               *mech.PriorSet
}

// lowScale is the scale s of the Low columns: MassScale of the cap's
// factor at the level the model was built for.
func (m *RobustModel) lowScale() float64 { return MassScale(math.Exp(m.level)) }

// CostScale is the factor by which an engine should see the model's
// objective. The Low columns and their dual variables hold their values
// times lowScale, and an engine holds reduced costs, as it holds rows, to
// an absolute tolerance: a column that ranges up to s and whose reduced
// cost is within that tolerance of the optimum's sign can leave s times
// the tolerance of objective on the table, a relative 1e-9 of an optimum
// near 1 only where s is near 1. Costs multiplied by s give that column
// back the engine's tolerance in the model's own units; the solution's
// objective and duals are then divided by s (package overset).
func (m *RobustModel) CostScale() float64 { return m.lowScale() }

// newCaps returns the n×m table of Cap rows, every entry −1 (none yet).
func newCaps(n, m int) [][]int {
	caps := make([][]int, n)
	for i := range caps {
		caps[i] = make([]int, m)
		for j := range caps[i] {
			caps[i][j] = -1
		}
	}
	return caps
}

// massRows are the rows addMassBound adds for one output: bound, the row
// B ≤ (or ≥) the dual objective, and letters[k], the row tying letter k's
// dual variable to p_k (-1 where the box's width is 0).
type massRows struct {
	bound   int
	letters []int
}

// BuildRobust writes the polytope of s over the set of priors set: the
// mechanisms P with the pattern of s that keep s.Budget for every prior of
// the set, with the objective of s (Feasibility or ExpectedUtility, whose
// weights are set.Center, the estimate). s.Prior must be set.Center.
//
// For PML the constraint p_ij ≤ e^ε min_{π∈Π} Σ_k π_k p_kj becomes linear
// through LP duality: the inner minimum over a box or an L1 ball is a small
// LP, and its dual, whose variables join the model (O(N) per output), has
// the same value. So L_j ≤ dual objective with p_ij ≤ e^ε L_j says exactly
// that p_ij ≤ e^ε times the least mass over the set. ALIP's and LIP's lower
// constraint e^{−ε_l} max_{π∈Π} Σ_k π_k p_kj ≤ p_ij (for every pair of a
// used column) is dualised in the same way with the maximum. LDP does not
// depend on the prior, and BuildRobust gives Build's model's constraints in
// its own form. Outputs that no mechanism can use within the budget over
// the set are always pruned; Spec.Prune is ignored.
func BuildRobust(s Spec, set *mech.PriorSet) (*RobustModel, error) {
	n, m, err := setSpecSize(s, set)
	if err != nil {
		return nil, err
	}
	b := normBudget(s.Budget)
	mod := &RobustModel{LP: &lp.Model{Maximize: s.Objective == ExpectedUtility}, N: n, M: m,
		P: make([][]int, n), Low: make([]int, m), High: make([]int, m), Sum: make([]int, n), level: upperLevel(b),
		lowRows: make([]massRows, m), highRows: make([]massRows, m), floorRows: make([][]int, m), set: set}
	if b.Measure != mech.LDP {
		mod.Cap, mod.capNz = newCaps(n, m), make([][]int, n)
		for i := range mod.capNz {
			mod.capNz[i] = make([]int, m)
		}
	}
	if b.Measure == mech.ALIP || b.Measure == mech.LIP {
		mod.kappa = math.Exp(-b.EpsilonLower)
	}
	scale := mod.lowScale()
	x := mod.LP
	// An output that only the inputs A_j may produce has PML at least
	// −log π(A_j) at every prior π that gives it mass (docs/theory.md §2),
	// so over the set at least −log min_{π∈Π} π(A_j): above the budget
	// it can not be used, and its column is left out. This is the pruning
	// rule of Song & Oechtering (2026), §III-B, over the set; it also keeps
	// outputs of mass 0 under some prior of the set out of the model,
	// where the engines' tolerances would let dust through.
	addMechanism(x, s, set, b, mod)
	for j := range m {
		mod.Low[j], mod.High[j] = -1, -1
		col := make([]int, n)
		used := false
		for i := range n {
			col[i] = mod.P[i][j]
			used = used || col[i] >= 0
		}
		if !used {
			continue
		}
		if b.Measure == mech.LDP {
			// l_j ≤ p_ij ≤ e^ε l_j, and a column with a forbidden pair is
			// all zero (l_j ≤ 0 there).
			l := x.AddCol(0, 0, 1, "")
			lam := math.Exp(b.Epsilon)
			for i := range n {
				if col[i] < 0 {
					x.ColUpper[l] = 0
					continue
				}
				x.AddRow(0, lp.Inf, "", lp.Entry(col[i], 1), lp.Entry(l, -1))
				x.AddRow(-lp.Inf, 0, "", lp.Entry(col[i], 1), lp.Entry(l, -lam))
			}
			continue
		}
		lam := math.Exp(upperLevel(b))
		mod.Low[j], mod.lowRows[j] = addMassBound(x, set, col, false, scale)
		for i := range n {
			if col[i] >= 0 {
				mod.Cap[i][j] = x.AddRow(-lp.Inf, 0, "", lp.Entry(col[i], 1), lp.Entry(mod.Low[j], -lam/scale))
				mod.capNz[i][j] = len(x.ConstMatrix) - 1
			}
		}
		if b.Measure == mech.ALIP || b.Measure == mech.LIP {
			mod.High[j], mod.highRows[j] = addMassBound(x, set, col, true, 1)
			for i := range n {
				if col[i] < 0 {
					// a forbidden pair in the column: κ H_j ≤ p_ij = 0
					// forces the column's mass, hence the column, to 0
					x.AddRow(-lp.Inf, 0, "", lp.Entry(mod.High[j], 1))
					continue
				}
				mod.floorRows[j] = append(mod.floorRows[j], addFloor(x, col[i], mod.High[j], mod.kappa))
			}
		}
	}
	return mod, nil
}

// addMassBound adds a column B and the dual variables and rows that make B
// range exactly up to min_{π∈Π} Σ_k π_k p_k (high false), or down to
// max_{π∈Π} Σ_k π_k p_k (high true), for the column p given by the LP
// columns col (-1: p_k = 0). It returns B's column.
//
// Box {l ≤ π ≤ u, Σπ = 1}. The minimum is
//
//	max_μ  μ (1 − Σl) + Σ_k l_k p_k − Σ_k (u_k − l_k) (μ − p_k)^+,
//
// written with w_k ≥ μ − p_k, w_k ≥ 0; the maximum is
//
//	min_ν  ν (1 − Σl) + Σ_k l_k p_k + Σ_k (u_k − l_k) (p_k − ν)^+.
//
// L1 ball {‖π − π̂‖₁ ≤ r} ∩ simplex, S = Σ_k π̂_k. The minimum is
//
//	max  S μ − r ρ + Σ_k π̂_k g_k  over g_k ≤ p_k − μ, −ρ ≤ g_k ≤ ρ, ρ ≥ 0,
//
// and the maximum is min S μ + r ρ + Σ_k π̂_k g_k over g_k ≥ p_k − μ,
// −ρ ≤ g_k ≤ ρ, ρ ≥ 0. Both are the LP duals of the inner problems
// (docs/theory.md).
//
// The column returned holds scale·B, and the dual variables are scaled
// with it (the p_k enter with scale times their coefficients). An engine
// holds each row and bound to an absolute tolerance of about 1e-9, and a
// minimum feeds p_ij ≤ e^ε B: unscaled, an error of 1e-9 in B or in a
// dual variable lets p_ij exceed its cap by e^ε·1e-9, 1.6e-4 at ε = 12,
// and puts mass on an output that some prior of the set never produces.
// BuildRobust passes MassScale(e^ε) for the minimum, so that the error
// reaches p_ij as about 1e-9, as at one prior.
func addMassBound(x *lp.Model, set *mech.PriorSet, col []int, high bool, scale float64) (int, massRows) {
	sign := 1.0 // B ≤ expression for the minimum, B ≥ expression for the maximum
	if high {
		sign = -1
	}
	bcol := x.AddCol(0, 0, scale, "")
	// row: B − expression ≤ 0 (minimum) or expression − B ≤ 0 (maximum),
	// written as sign·(B − expression) ≤ 0.
	row := []lp.Nonzero{lp.Entry(bcol, sign)}
	pTerm := func(k int, coef float64) { // adds −sign·coef·p_k to the row
		if col[k] >= 0 && coef != 0 {
			row = append(row, lp.Entry(col[k], -sign*scale*coef))
		}
	}
	n := len(col)
	rows := massRows{letters: make([]int, n)}
	if set.IsBox() {
		sumL := 0.0
		for _, l := range set.Lower {
			sumL += l
		}
		mu := x.AddCol(0, 0, scale, "") // the optimum lies between 0 and 1
		row = append(row, lp.Entry(mu, -sign*(1-sumL)))
		for k := range n {
			pTerm(k, set.Lower[k])
			width := set.Upper[k] - set.Lower[k]
			rows.letters[k] = -1
			if width <= 0 {
				continue
			}
			w := x.AddCol(0, 0, lp.Inf, "")
			row = append(row, lp.Entry(w, width))
			// minimum: w − μ + p_k ≥ 0; maximum: w + ν − p_k ≥ 0
			es := []lp.Nonzero{lp.Entry(w, 1), lp.Entry(mu, -sign)}
			if col[k] >= 0 {
				es = append(es, lp.Entry(col[k], sign*scale))
			}
			rows.letters[k] = x.AddRow(0, lp.Inf, "", es...)
		}
		rows.bound = x.AddRow(-lp.Inf, 0, "", row...)
		return bcol, rows
	}
	// The ball's priors are moves of mass from the estimate, so they keep
	// its total S, which the problem files let lie within 1e-9 of 1 (the
	// greedy of mech.PriorSet.Extreme and the certificates read the set
	// so). Written with Σπ = 1 instead, a ball of radius below |1 − S|
	// would hold no prior, μ would be unbounded, and the mass bound
	// vacuous.
	total := 0.0
	for _, v := range set.Center {
		total += v
	}
	mu := x.AddCol(0, -lp.Inf, lp.Inf, "")
	rho := x.AddCol(0, 0, lp.Inf, "")
	row = append(row, lp.Entry(mu, -sign*total), lp.Entry(rho, set.Radius))
	for k := range n {
		g := x.AddCol(0, -lp.Inf, lp.Inf, "")
		row = append(row, lp.Entry(g, -sign*set.Center[k]))
		// minimum: g + μ − p_k ≤ 0; maximum: g + μ − p_k ≥ 0
		es := []lp.Nonzero{lp.Entry(g, 1), lp.Entry(mu, 1)}
		if col[k] >= 0 {
			es = append(es, lp.Entry(col[k], -scale))
		}
		if high {
			rows.letters[k] = x.AddRow(0, lp.Inf, "", es...)
		} else {
			rows.letters[k] = x.AddRow(-lp.Inf, 0, "", es...)
		}
		x.AddRow(-lp.Inf, 0, "", lp.Entry(g, 1), lp.Entry(rho, -1))
		x.AddRow(0, lp.Inf, "", lp.Entry(g, 1), lp.Entry(rho, 1))
	}
	rows.bound = x.AddRow(-lp.Inf, 0, "", row...)
	return bcol, rows
}

// Multipliers is what the row duals of an optimal point of a robust LP
// (BuildRobust's or CutModel's, ExpectedUtility) prove about its optimum:
// the multipliers Alpha of the rows Σ_j p_ij = 1 and, for each output j,
// the prior Up[j] of its caps p_ij ≤ e^ε π·p_·j, Down[j] that of its
// floors (ALIP and LIP; nil for PML), and Totals[j] = [R, T], the totals
// of the caps' and the floors' multipliers, each times Σ_k π̂_k. The
// estimate stands in for an output whose caps carry no weight. These are
// the shapes of ipm.RobustBound's and ipm.RobustBoundTwo's proofs: the
// bound is theirs to compute from them, and package verify's to check, so
// an engine's rounding here costs tightness, never soundness.
type Multipliers struct {
	Alpha    []float64
	Up, Down [][]float64
	Totals   [][]float64
}

// newMultipliers fills Alpha and Totals from the point x of rm, the
// duals y of its rows and the reduced costs d of its columns (nil: none):
// the caps (rm.Cap, unscaled) and the floors (rm.floorRows, written times
// MassScale(1/κ)). An entry p_ij = 1 held at its upper bound 1 carries
// part of the optimum's proof in its reduced cost d_ij > 0; added to α_i
// it moves there, where the proof reads it (the row's other entries, at
// 0, only get more room).
func newMultipliers(rm *RobustModel, x, y, d []float64) Multipliers {
	total := 0.0
	for _, v := range rm.set.Center {
		total += v
	}
	pr := Multipliers{Alpha: make([]float64, rm.N), Up: make([][]float64, rm.M), Totals: make([][]float64, rm.M)}
	for i, r := range rm.Sum {
		pr.Alpha[i] = y[r]
		if len(d) != len(x) {
			continue
		}
		for _, c := range rm.P[i] {
			if c >= 0 && x[c] >= 1-1e-9 && d[c] > 0 {
				pr.Alpha[i] += d[c]
			}
		}
	}
	if rm.kappa > 0 {
		pr.Down = make([][]float64, rm.M)
	}
	for j := range rm.M {
		caps, floors := 0.0, 0.0
		for i := range rm.Cap {
			if r := rm.Cap[i][j]; r >= 0 {
				caps += math.Abs(y[r])
			}
		}
		for _, r := range rm.floorRows[j] {
			floors += math.Abs(y[r])
		}
		pr.Totals[j] = []float64{caps * total, 0}
		if rm.kappa > 0 {
			pr.Totals[j][1] = floors * MassScale(1/rm.kappa) * total
		}
	}
	return pr
}

// Proof reads the Multipliers of an optimal point x of the model with its
// row duals y and reduced costs d (package solver's convention: d =
// ColCosts − Aᵀy; nil where the engine gives none).
// Each output's priors are those of the inner problems' duals: with y_B
// the dual of the row of B and z_k that of letter k's row, π_k = l_k +
// |z_k|/|y_B| over a box (l_k alone where the box's width is 0) and
// |z_k|/|y_B| over a ball. Where the model's μ sits at a bound (an output
// the optimum leaves unused, B = 0) those ratios need not make a prior of
// the set; the reader moves them into it or tries another (a looser
// bound, never a wrong one, since verify checks it). ok is false when y
// does not fit the model, the measure is LDP, or the model is not
// ExpectedUtility's (a feasibility LP's duals prove nothing of a value).
func (m *RobustModel) Proof(x, y, d []float64) (Multipliers, bool) {
	if !m.provable(x, y) {
		return Multipliers{}, false
	}
	pr := newMultipliers(m, x, y, d)
	read := func(r massRows) []float64 {
		yb := 0.0
		if r.letters != nil {
			yb = math.Abs(y[r.bound])
		}
		if !(yb > 0) {
			return slices.Clone(m.set.Center)
		}
		v := make([]float64, m.N)
		for k := range v {
			if m.set.IsBox() {
				v[k] = m.set.Lower[k]
			}
			if r.letters[k] >= 0 {
				v[k] += math.Abs(y[r.letters[k]]) / yb
			}
		}
		return v
	}
	for j := range m.M {
		pr.Up[j] = read(m.lowRows[j])
		if pr.Down != nil {
			pr.Down[j] = read(m.highRows[j])
		}
	}
	return pr, true
}

// provable reports whether a point x with row duals y of m can be read
// for a proof of an expected utility: they fit m, whose objective is one
// (maximised) and whose measure has caps.
func (m *RobustModel) provable(x, y []float64) bool {
	return m.LP.Maximize && m.Cap != nil && m.set != nil && len(y) == m.LP.NumRows() && len(x) == m.LP.NumCols()
}

// maxMassScale bounds MassScale. An engine that equilibrates its rows
// holds a row whose entries reach s to 1e-9/s of them: beyond 1e6, that
// asks for less than the rounding of a sum of a few entries near 1.
const maxMassScale = 1e6

// MassScale is the factor by which an output's least mass over the set is
// scaled in the LP (addMassBound, cutModel.addCut) when its cap is
// p_ij ≤ lam·B, and an entry's floor (addFloor) when it is p_ij ≥ B/lam:
// lam, up to maxMassScale. The certificates' LPs over a set hold their
// priors by the same factor where those enter a row times lam.
func MassScale(lam float64) float64 { return min(lam, maxMassScale) }

// addFloor adds, and returns, the row κ H ≤ p, the floor of an entry p under ALIP and
// LIP, multiplied by MassScale(1/κ). Held to 1e-9 as written, the row
// would let p fall 1e-9 below a floor that at a large ε_l is itself below
// 1e-9: the entry would read 0 and its output's lower level be infinite.
func addFloor(x *lp.Model, p, h int, kappa float64) int {
	s := MassScale(1 / kappa)
	return x.AddRow(0, lp.Inf, "", lp.Entry(p, s), lp.Entry(h, -kappa*s))
}

// SetUpperLevel makes the model's Cap rows read p_ij ≤ e^ε L_j in the
// backend's copy sess (and in m.LP), so that a bisection on ε re-solves one
// loaded model from its last basis. The outputs BuildRobust pruned stay
// out: a model built at a level ε serves every level up to ε, where the
// pruned outputs can not be used either (an output that can not carry
// mass at ε can not at a smaller ε); above it, build the model again.
func (m *RobustModel) SetUpperLevel(sess CoefSetter, eps float64) error {
	if m.Cap == nil {
		return &mech.FieldError{Field: "budget.measure", Row: -1, Col: -1, Msg: "LDP has no mass bound to move"}
	}
	if eps > m.level {
		return &mech.FieldError{Field: "budget.epsilon", Row: -1, Col: -1,
			Msg: fmt.Sprintf("is %g, above the level %g the model was built for (its pruned outputs may be usable)", eps, m.level)}
	}
	lam := math.Exp(eps) / m.lowScale()
	for i := range m.Cap {
		for j, r := range m.Cap[i] {
			if r < 0 {
				continue
			}
			sess.SetCoef(r, m.Low[j], -lam)
			m.LP.ConstMatrix[m.capNz[i][j]].Val = -lam
		}
	}
	return nil
}

// robustColumnNoise is the largest entry of an output that Mechanism
// treats as the engine's rounding noise: such an output is dropped. Kept,
// its entries of 1e-12 next to exact zeros would make ALIP's lower level
// infinite, a level the LP's exact point does not have.
const robustColumnNoise = 1e-9

// Mechanism reads the mechanism off an LP point of the model: negative
// rounding noise becomes 0, outputs whose entries are all at most
// robustColumnNoise are dropped, and the rows are renormalised.
func (m *RobustModel) Mechanism(x []float64) mech.Mechanism {
	p := make(mech.Mechanism, m.N)
	for i := range p {
		p[i] = make([]float64, m.M)
		for j, c := range m.P[i] {
			if c >= 0 {
				p[i][j] = max(0, x[c])
			}
		}
	}
	for j, mx := range p.ColumnMax() {
		if mx <= robustColumnNoise {
			for i := range p {
				p[i][j] = 0
			}
		}
	}
	for i := range p {
		mech.Normalise(p[i])
	}
	return p
}

// Openings returns, for each of the m outputs, the least ε over the set
// at which it can carry mass: −log min_{π∈Π} π(A_j), A_j its allowed
// inputs (every input where pat is nil), +Inf where that least mass is
// not positive. BuildRobust prunes the outputs whose opening is above its
// level.
func Openings(set *mech.PriorSet, pat mech.Pattern, m int) []float64 {
	n := set.N()
	out := make([]float64, m)
	c := make([]float64, n)
	for j := range m {
		for i := range n {
			c[i] = 0
			if pat == nil || pat[i][j] {
				c[i] = 1
			}
		}
		out[j] = math.Inf(1)
		if low := set.MinMass(c); low > 0 {
			out[j] = -math.Log(low)
		}
	}
	return out
}

// RayMultipliers reads an infeasibility ray y of m's feasibility model as
// multipliers α on its rows Σ_j p_ij = 1, the shape of a proof with a
// prior per output: y's own entries there, and the same lowered by the
// part of the ray that leans on the bounds p_ij ≤ 1, which such a proof
// does not have (z = (Aᵀy)_ij > 0 on p_ij's column; the row sum, with
// p ≥ 0, holds the same bound, so α_i lowered by the row's largest such z
// leaves no column leaning on a bound and does not shrink the ray's gap:
// the row pays that z once where the bounds paid each). Each in both
// signs, since engines differ in theirs: four candidates, nil where y
// does not have one entry per row.
func (m *RobustModel) RayMultipliers(y []float64) [][]float64 {
	if len(y) != m.LP.NumRows() {
		return nil
	}
	z := make([]float64, m.LP.NumCols())
	for _, e := range m.LP.ConstMatrix {
		z[e.Col] += e.Val * y[e.Row]
	}
	var out [][]float64
	for _, sign := range []float64{1, -1} {
		raw, lean := make([]float64, m.N), make([]float64, m.N)
		for i, row := range m.Sum {
			raw[i] = sign * y[row]
			d := 0.0
			for _, c := range m.P[i] {
				if c >= 0 {
					d = max(d, sign*z[c])
				}
			}
			lean[i] = raw[i] - d
		}
		out = append(out, raw, lean)
	}
	return out
}

// addMechanism adds to x the columns p_ij of the pattern's pairs, leaving
// out the outputs pruned over the set (see BuildRobust), and the rows
// Σ_j p_ij = 1, recording their indices in mod.P and mod.Sum.
func addMechanism(x *lp.Model, s Spec, set *mech.PriorSet, b mech.Budget, mod *RobustModel) {
	n, m := mod.N, mod.M
	pruned := make([]bool, m)
	if b.Measure != mech.LDP {
		for j, o := range Openings(set, s.Pattern, m) {
			pruned[j] = math.IsInf(o, 1) || o > upperLevel(b)
		}
	}
	for i := range n {
		mod.P[i] = make([]int, m)
		for j := range m {
			mod.P[i][j] = -1
			if (s.Pattern != nil && !s.Pattern[i][j]) || pruned[j] {
				continue
			}
			cost := 0.0
			if s.Objective == ExpectedUtility {
				cost = s.Prior[i] * s.Utility[i][j]
			}
			mod.P[i][j] = x.AddCol(cost, 0, 1, "")
		}
	}
	for i := range n {
		var es []lp.Nonzero
		for j := range m {
			if c := mod.P[i][j]; c >= 0 {
				es = append(es, lp.Entry(c, 1))
			}
		}
		mod.Sum[i] = x.AddRow(1, 1, "", es...)
	}
}

// setSpecSize checks a spec over the prior set set and returns its N and
// M: the set must have the prior's letters, and Build checks the rest (its
// model is not used).
func setSpecSize(s Spec, set *mech.PriorSet) (n, m int, err error) {
	if set == nil {
		return 0, 0, &mech.FieldError{Field: "prior_set", Row: -1, Col: -1, Msg: "is nil"}
	}
	if len(set.Center) != len(s.Prior) {
		return 0, 0, &mech.FieldError{Field: "prior_set", Row: -1, Col: -1, Msg: fmt.Sprintf("has %d letters, the prior %d", len(set.Center), len(s.Prior))}
	}
	ref, err := Build(Spec{Prior: s.Prior, Budget: s.Budget, Pattern: s.Pattern, Objective: s.Objective, Utility: s.Utility, Outputs: s.Outputs})
	if err != nil {
		return 0, 0, err
	}
	return ref.N, ref.M, nil
}
