package polytope

import (
	"errors"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// The objectives the model takes are problem.Objective's, the type a problem
// file's objective is parsed into: expected utility as a file asks for it,
// and the two cost vectors the searches for the worst-case objectives use.
const (
	// Feasibility, the zero Objective, gives every column cost zero: the
	// model only asks whether the privacy polytope is non-empty.
	Feasibility problem.Objective = ""
	// ExpectedUtility maximises Σ_ij π_i u'_ij p_ij.
	ExpectedUtility = problem.ExpectedUtility
	// Infeasibility (PML only) relaxes the marg rows by a slack r_j ≥ 0
	// per output and minimises Σ_j r_j: with s = e^{−ε}, the optimum is
	// G(s) = min over mechanisms with the pattern of
	// Σ_j max(0, s max_i p_ij − q_j), which is 0 exactly when an ε-PML
	// mechanism exists. See the package documentation.
	Infeasibility problem.Objective = "infeasibility"
)

// Spec describes a privacy polytope and what to optimise over it.
type Spec struct {
	Prior     mech.Prior
	Budget    mech.Budget  // PML: Epsilon; ALIP: EpsilonLower/EpsilonUpper; LIP, LDP: Epsilon
	Pattern   mech.Pattern // nil = every pair allowed; false entries are forced to zero
	Objective problem.Objective
	Utility   mech.Utility // required for ExpectedUtility
	// Prune (PML only) drops the outputs j whose −log Σ_{i allowed} π_i
	// exceeds ε: no ε-PML mechanism can use them (Song & Oechtering (2026), Sec. III-B). For
	// ALIP, LIP and LDP it changes nothing: see the package documentation.
	Prune bool
	// Outputs is the number of outputs M. It may be left 0 when Pattern or
	// Utility gives it; when set, it must agree with them.
	Outputs int
	// Start, if not nil, is a mechanism near the optimum (an interior
	// point that stalled short of its proof, say): BuildCuts starts each
	// output's list of priors with the worst ones for Start's column, so
	// that the cutting planes' first LP is near the last. The answer is
	// the robust optimum with or without it, to the cutting planes'
	// tolerance.
	Start mech.Mechanism
	// Stop, if not nil, is polled as Build goes over the pairs and the
	// outputs (seconds at a few thousand letters): once it reports true,
	// Build ends with an error, so that a cancelled run does not wait.
	Stop func() bool
}

// errStopped is Build's error when Spec.Stop ended it.
var errStopped = errors.New("polytope: stopped")

// Model is a privacy polytope written as a sparse LP, with the map from
// mechanism entries to LP columns.
type Model struct {
	LP   *lp.Model
	N, M int
	P    [][]int // P[i][j] = column of p_ij in LP, or -1 when the pair is forbidden/pruned (never a column)
	Aux  []int   // column of the auxiliary variable of output j (q_j-like for PML/ALIP/LIP, l_j for LDP), -1 if none

	// Aux2 is the second auxiliary column of output j, -1 if none: s_j
	// (= e^{−ε_l} q_j) for ALIP and LIP, u_j (= e^ε l_j) for LDP; nil for
	// PML.
	Aux2 []int
	// Dropped[j] reports that output j has no variables at all: every
	// feasible mechanism has p_ij = 0 for all i. Dropped outputs are those
	// whose pairs are all forbidden, pruned outputs (PML), and for ALIP,
	// LIP and LDP outputs with at least one forbidden pair.
	Dropped []bool
	// Slack is the column of the slack r_j of output j's marg row for the
	// Infeasibility objective, -1 for a dropped output; nil for the other
	// objectives.
	Slack []int
	// Marg is the row of output j's marg row (PML, ALIP, LIP), -1 for a
	// dropped output; nil for LDP. The rows sum[i] are rows 0..N−1.
	Marg []int
	// Up[i][j] is the row up[i,j] (p_ij − t_j ≤ 0, or p_ij − u_j ≤ 0 for
	// LDP), -1 when p_ij has no column.
	Up [][]int
	// Budget is the budget the coefficients currently encode.
	Budget mech.Budget

	// Floored reports the form of ALIP, LIP and LDP models whose lower
	// level exceeds 5 nats (see the package documentation): the column
	// P[i][j] then holds r_ij = p_ij − e^{−ε_l} σ_j, with σ_j in Aux2[j].
	Floored bool

	prior   mech.Prior
	pattern mech.Pattern // the spec's pattern; nil when every pair is allowed
	bound   []float64    // −log Σ_{i allowed} π_i per output (mech.Pattern.OutputBounds)
	pruned  []bool
	eps     []epsCoef // the coefficients that depend on the budget
}

// wideBudget is the upper level ε_u (nats) above which the marg rows of the
// ALIP, LIP and PML expected-utility models become inequalities with
// t_j ≤ 1 (see Build): e^5 ≈ 148 keeps t_j = e^{ε_u} q_j well scaled.
const wideBudget = 5

// epsCoef is one budget-dependent coefficient: ConstMatrix[idx] at
// (row, col), or the cost of col when cost is set. Its value is
// scale·e^x, or 1 − scale·e^x when oneMinus is set, with
// x = sign_u ε_u + sign_l ε_l for ALIP and LIP (after normBudget) and
// x = sign_u ε for PML and LDP; a zero scale means 1 in the matrix.
type epsCoef struct {
	idx, row, col int
	su, sl        float64
	scale         float64
	oneMinus      bool
	cost          bool
}

func (c epsCoef) value(b mech.Budget) float64 {
	x := c.su * b.Epsilon
	if b.Measure == mech.ALIP || b.Measure == mech.LIP {
		x = c.su*b.EpsilonUpper + c.sl*b.EpsilonLower
	}
	scale := c.scale
	if scale == 0 && !c.cost {
		scale = 1
	}
	switch {
	case c.oneMinus && scale == 1:
		return -math.Expm1(x) // 1 − e^x without cancellation
	case c.oneMinus:
		return 1 - scale*math.Exp(x)
	}
	return scale * math.Exp(x)
}

// margMass is the mass Σ_{i∈A_j} π_i below which a PML output's marg row is
// scaled (margScale).
const margMass = 0x1p-10

// margScale returns the power of two e_j by which a PML output's marg row
// is multiplied, given the output's bound c_j = −log Σ_{i∈A_j} π_i: 0 for
// ALIP, LIP and outputs of mass at least margMass, else the e_j that brings
// the mass into [1/2, 1). An output open only to letters of mass 1e-30 has
// entries π_k ≈ 1e-30 and e^{−ε} ≈ 1e-26 in its row, far below the engines'
// absolute tolerances (about 1e-9): unscaled, Clp and the revised simplex
// return points that audit 8 nats above the budget on such patterns.
// Multiplying a row by a power of 2 is exact and keeps the feasible set;
// scaled, the row's entries are at most 1 (e^{−ε} 2^{e_j} ≤ 2 e^{c_j − ε} for an output
// that is not pruned).
func margScale(b mech.Budget, bound float64) int {
	if b.Measure != mech.PML || !(math.Exp(-bound) < margMass) {
		return 0
	}
	_, e := math.Frexp(math.Exp(-bound))
	return -e
}

// setLower makes c's exponent sign·(the lower level of b): ε_l for ALIP and
// LIP, ε for LDP.
func (c *epsCoef) setLower(b mech.Budget, sign float64) {
	if b.Measure == mech.LDP {
		c.su = sign
	} else {
		c.sl = sign
	}
}

// lowerLevel is the level that bounds the entries of a used column from
// below: ε_l for ALIP and LIP, ε for LDP; PML has none (0).
func lowerLevel(b mech.Budget) float64 {
	switch b.Measure {
	case mech.ALIP, mech.LIP:
		return b.EpsilonLower
	case mech.LDP:
		return b.Epsilon
	}
	return 0
}

// upperLevel is the upper level of a normalised budget: ε_u for ALIP and
// LIP, ε for PML and LDP.
func upperLevel(b mech.Budget) float64 {
	if b.Measure == mech.ALIP || b.Measure == mech.LIP {
		return b.EpsilonUpper
	}
	return b.Epsilon
}

// normBudget returns b with LIP's ε copied into both ALIP fields, so that
// ALIP and LIP share one formulation.
func normBudget(b mech.Budget) mech.Budget {
	if b.Measure == mech.LIP {
		b.EpsilonLower, b.EpsilonUpper = b.Epsilon, b.Epsilon
	}
	return b
}

// Build validates s and writes its privacy polytope as an LP. The
// formulations are documented in the package documentation. Errors are
// *mech.FieldError values naming the field of s at fault.
func Build(s Spec) (*Model, error) {
	return build(s, wideBudget)
}

// Mechanism extracts the mechanism of a solution x of the LP. Negative
// entries become 0, and the rest is cleaned by clean.Vertex: for
// PML, rounding-level entries are cleared unless that is what makes their
// output break the budget, and outputs of solver noise that break the
// model's budget are dropped whole, rows renormalised. Outputs that meet
// the budget are never dropped, so a clean solution passes through
// unchanged up to the renormalisation.
// Forbidden and dropped pairs are 0. A row with nothing left (impossible
// for a feasible x) stays all zero. It fails if len(x) is not the number of
// LP columns or an entry is NaN.
func (m *Model) Mechanism(x []float64) (mech.Mechanism, error) {
	if err := m.built(); err != nil {
		return nil, err
	}
	if len(x) != m.LP.NumCols() {
		return nil, &mech.FieldError{Field: "solution", Row: -1, Col: -1,
			Msg: fmt.Sprintf("has %d entries, the LP has %d columns", len(x), m.LP.NumCols())}
	}
	for k, v := range x {
		if math.IsNaN(v) {
			return nil, &mech.FieldError{Field: "solution", Row: -1, Col: k, Msg: "is NaN"}
		}
	}
	p := mech.Zeros(m.N, m.M)
	b := normBudget(m.Budget)
	for i, row := range m.P {
		for j, c := range row {
			if c >= 0 && x[c] > 0 {
				p[i][j] = x[c]
			}
		}
	}
	if m.Floored {
		m.addFloors(p, x, b)
	}
	if err := clean.Vertex(m.prior, p, b); err != nil {
		return nil, err
	}
	return p, nil
}

// built checks that m was made by Build: the zero Model has no LP.
func (m *Model) built() error {
	if m == nil || m.LP == nil || len(m.P) != m.N || len(m.prior) != m.N {
		return errors.New("polytope: the model was not made by Build")
	}
	return nil
}

// RowScale (2^10) is the factor by which callers multiply every row of a
// model (lp.Model.ScaledRows) to tighten an engine's feasibility tolerance.
// Engines check rows with an absolute tolerance τ (about 1e-9), and a row
// violated by τ moves the PML of an output of mass q_j by about τ/q_j;
// multiplying by a power of 2 is exact in floating point, keeps the feasible
// set and every basis status, and divides that error by 1024.
const RowScale = 1024

// addFloors turns the r_ij of a floored model's solution x, already in p,
// into p_ij = r_ij + e^{−ε_l} σ_j. The engine's σ_j is only feasible to its
// tolerances (Clp's σ_j lay 1.3e-9 below q_j at ε_l = 20, and the PMC with
// it), so σ_j is recomputed from the r_ij: for ALIP and LIP as the
// solution of σ_j = q_j = Σ_i π_i r_ij + Π e^{−ε_l} σ_j, which makes
// p_ij ≥ e^{−ε_l} q_j hold by construction; for LDP as the larger of the
// engine's u_j and max_i r_ij / (1 − e^{−ε}), which makes
// e^{−ε} u_j ≤ p_ij ≤ u_j hold.
func (m *Model) addFloors(p mech.Mechanism, x []float64, b mech.Budget) {
	f := m.floor(b)
	var colMax []float64 // u_j ≥ max_i r_ij, read before any floor is added
	if b.Measure == mech.LDP {
		colMax = p.ColumnMax()
	}
	pisum := 0.0
	for _, v := range m.prior {
		pisum += v
	}
	for j := range m.M {
		if m.Aux2[j] < 0 {
			continue
		}
		var sig float64
		if b.Measure == mech.LDP {
			sig = max(0, x[m.Aux2[j]])
			if r := colMax[j]; r > 0 {
				sig = max(sig, r/-math.Expm1(-lowerLevel(b)))
			}
		} else {
			for i := range m.N {
				sig += m.prior[i] * p[i][j]
			}
			sig /= 1 - pisum*f
		}
		for i := range m.N {
			if m.P[i][j] >= 0 {
				p[i][j] += f * sig
			}
		}
	}
}

// floor returns e^{−ε_l} (e^{−ε} for LDP), the factor of σ_j in the
// entries p_ij = r_ij + e^{−ε_l} σ_j of a floored model.
func (m *Model) floor(b mech.Budget) float64 {
	return math.Exp(-lowerLevel(b))
}

// Point returns the LP point of mechanism p: p_ij in the column of each
// pair that has one, and the auxiliary variables set to the values the
// formulation gives them (t_j = e^{ε_u} q_j, s_j = e^{−ε_l} q_j for
// PML/ALIP/LIP; l_j = min_i p_ij, u_j = e^ε l_j for LDP), with q_j the
// output marginal of p. Entries of p on forbidden or dropped pairs have no
// column, so such a p gives a point that violates its row's sum: the point
// is feasible (lp.Model.MaxViolation ≈ 0) exactly when p satisfies the
// pattern and the budget. It fails if p is not N×M.
func (m *Model) Point(p mech.Mechanism) ([]float64, error) {
	if err := m.built(); err != nil {
		return nil, err
	}
	if n, mm := p.Dims(); n != m.N || mm != m.M {
		return nil, &mech.FieldError{Field: "mechanism", Row: -1, Col: -1,
			Msg: fmt.Sprintf("is %d×%d, the model is %d×%d", n, mm, m.N, m.M)}
	}
	for i, row := range p {
		if len(row) != m.M {
			return nil, &mech.FieldError{Field: "mechanism", Row: i, Col: -1,
				Msg: fmt.Sprintf("has %d entries, the model has %d outputs", len(row), m.M)}
		}
	}
	x := make([]float64, m.LP.NumCols())
	b := normBudget(m.Budget)
	var colMax []float64
	if m.Floored && b.Measure == mech.LDP {
		colMax = p.ColumnMax()
	}
	for j := range m.M {
		q, lo := 0.0, math.Inf(1)
		for i := range m.N {
			if c := m.P[i][j]; c >= 0 {
				x[c] = p[i][j]
				q += m.prior[i] * p[i][j]
				lo = min(lo, p[i][j])
			}
		}
		if m.Floored && m.Aux2[j] >= 0 {
			// σ_j = q_j (u_j = max_i p_ij for LDP), r_ij = p_ij − e^{−ε_l} σ_j.
			sig := q
			if b.Measure == mech.LDP {
				sig = colMax[j]
			} else {
				x[m.Aux[j]] = min(m.LP.ColUpper[m.Aux[j]], math.Exp(b.EpsilonUpper)*q)
			}
			x[m.Aux2[j]] = sig
			for i := range m.N {
				if c := m.P[i][j]; c >= 0 {
					x[c] = p[i][j] - m.floor(b)*sig
				}
			}
			continue
		}
		if m.Aux[j] < 0 {
			continue
		}
		switch b.Measure {
		case mech.PML:
			// t_j is bounded by 1 where the marg row is an inequality.
			x[m.Aux[j]] = min(m.LP.ColUpper[m.Aux[j]], math.Exp(b.Epsilon)*q)
		case mech.ALIP, mech.LIP:
			x[m.Aux[j]] = min(m.LP.ColUpper[m.Aux[j]], math.Exp(b.EpsilonUpper)*q)
			x[m.Aux2[j]] = math.Exp(-b.EpsilonLower) * q
		case mech.LDP:
			x[m.Aux[j]] = lo
			x[m.Aux2[j]] = math.Exp(b.Epsilon) * lo
		}
	}
	return x, nil
}

// SetBudget changes the budget of the model and of sess, a session into
// which m.LP was loaded, in place: only the budget-dependent coefficients
// change (M of them for PML and LDP, 2M for ALIP and LIP), so a warm
// backend can re-solve from its last basis. b must have the model's
// measure. For a pruned PML model, b may not raise ε so far that a pruned
// output becomes usable (−log Σ_{i allowed} π_i ≤ ε): rebuild the model
// instead. The form of the marg rows (an equality, or above 5 nats an
// inequality with t_j ≤ 1) is chosen by Build from its budget and stays:
// both are correct at any budget, only the scaling differs. sess may be
// nil to update only m.LP.
func (m *Model) SetBudget(sess CoefSetter, b mech.Budget) error {
	if err := m.built(); err != nil {
		return err
	}
	if b.Measure != m.Budget.Measure {
		return &mech.FieldError{Field: "budget.measure", Row: -1, Col: -1,
			Msg: fmt.Sprintf("is %q, the model was built for %q", b.Measure, m.Budget.Measure)}
	}
	if err := b.Check(); err != nil {
		return err
	}
	if b.Measure == mech.PML {
		for j, pr := range m.pruned {
			if pr && m.bound[j] <= b.Epsilon {
				return &mech.FieldError{Field: "budget.epsilon", Row: -1, Col: -1,
					Msg: fmt.Sprintf("%g makes pruned output %d usable; rebuild the model", b.Epsilon, j+1)}
			}
		}
	}
	nb := normBudget(b)
	for _, c := range m.eps {
		v := c.value(nb)
		if c.cost {
			m.LP.ColCosts[c.col] = v
			if sess != nil {
				sess.SetColCost(c.col, v)
			}
			continue
		}
		m.LP.ConstMatrix[c.idx].Val = v
		if sess != nil {
			sess.SetCoef(c.row, c.col, v)
		}
	}
	m.Budget = b
	return nil
}

// CoefSetter is the part of a solver.Session that SetBudget uses: a
// backend's copy of m.LP whose coefficients change in place.
type CoefSetter interface {
	SetCoef(row, col int, val float64)
	SetColCost(col int, cost float64)
}

// LowerBound turns a dual point of a PML model into a proof that no ε-PML
// mechanism with the model's pattern exists for ε < the returned value. It
// returns ok = false when the dual point proves nothing.
//
// Only the duals α_i of the rows sum[i] (rows 0..N−1) are used, in any sign
// convention that makes Σ_i α_i > 0 the claim; the proof is DualBound's,
// checked in floating point with a safety margin, so it does not rely on
// the solver's tolerances: the duals of an optimal solution of the
// Infeasibility model and an engine's Farkas ray of the feasibility model
// are the intended inputs, but any vector is accepted. The proof covers the
// whole pattern, pruned outputs included.
func (m *Model) LowerBound(rowDuals []float64) (eps float64, ok bool) {
	if m.Budget.Measure != mech.PML || len(rowDuals) != m.LP.NumRows() {
		return 0, false
	}
	return certify.DualBound(m.prior, m.pattern, rowDuals[:m.N])
}
