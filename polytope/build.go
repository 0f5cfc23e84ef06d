package polytope

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
)

// build is Build with the lower level above which ALIP, LIP and LDP models
// take the floored form as a parameter, so that tests can compare the two
// forms. It takes the steps below in order; the order of the columns and
// rows they add is the layout the package documentation derives.
func build(s Spec, floorAbove float64) (*Model, error) {
	// 1. The spec: prior, budget, pattern, objective, utility, M.
	m, err := s.outputs()
	if err != nil {
		return nil, err
	}
	b := normBudget(s.Budget)
	mod := &Model{
		LP:      &lp.Model{Maximize: s.Objective == ExpectedUtility},
		N:       len(s.Prior),
		M:       m,
		P:       make([][]int, len(s.Prior)),
		Aux:     make([]int, m),
		Dropped: make([]bool, m),
		Budget:  s.Budget,
		prior:   s.Prior,
		pattern: s.Pattern,
		pruned:  make([]bool, m),
		Floored: b.Measure != mech.PML && lowerLevel(b) > floorAbove,
	}
	// 2. The outputs without variables.
	mod.drop(s, b)
	// 3. The columns p[i,j], row-major.
	if err := mod.addEntries(s); err != nil {
		return nil, err
	}
	// 4. The auxiliary columns of each output, then the slacks.
	mod.addAuxiliaries(s, b)
	// 5. The rows sum[i].
	mod.addSums(b)
	// 6. The rows of each output, in the form of its measure.
	for j := range m {
		if mod.Dropped[j] {
			continue
		}
		if s.Stop != nil && j%64 == 0 && s.Stop() {
			return nil, errStopped
		}
		switch {
		case mod.Floored && b.Measure == mech.LDP:
			mod.addFlooredLDPRows(b, j)
		case mod.Floored:
			mod.addFlooredRows(s, b, j)
		case b.Measure == mech.PML, b.Measure == mech.ALIP, b.Measure == mech.LIP:
			mod.addMargRows(s, b, j)
		case b.Measure == mech.LDP:
			mod.addLDPRows(b, j)
		}
	}
	return mod, nil
}

// fieldErr is the error of a field of the spec, so that a caller can name
// what is wrong in its own terms.
func fieldErr(field string, row, col int, format string, args ...any) error {
	return &mech.FieldError{Field: field, Row: row, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// outputs validates s and returns the number of outputs M, which the
// pattern or the utility give when s.Outputs is 0: every later step
// indexes the pattern, the utility and the prior by N and M without
// checks.
func (s Spec) outputs() (int, error) {
	if _, err := mech.NewPrior(s.Prior); err != nil {
		return 0, err
	}
	if err := s.Budget.Check(); err != nil {
		return 0, err
	}
	n := len(s.Prior)
	m := s.Outputs
	if m < 0 {
		return 0, fieldErr("outputs", -1, -1, "is negative (%d)", m)
	}
	if s.Pattern != nil {
		if len(s.Pattern) != n {
			return 0, fieldErr("pattern", -1, -1, "has %d rows but the prior has %d letters", len(s.Pattern), n)
		}
		if m == 0 {
			m = len(s.Pattern[0])
		}
		for i, row := range s.Pattern {
			if len(row) != m {
				return 0, fieldErr("pattern", i, -1, "has %d entries, want %d", len(row), m)
			}
		}
	}
	switch s.Objective {
	case Feasibility:
	case ExpectedUtility:
		if s.Utility == nil {
			return 0, fieldErr("utility", -1, -1, "is required for the expected-utility objective")
		}
	case Infeasibility:
		if s.Budget.Measure != mech.PML {
			return 0, fieldErr("objective", -1, -1, "infeasibility is defined for the pml measure only, not %q", s.Budget.Measure)
		}
	default:
		return 0, fieldErr("objective", -1, -1, "unknown objective %q", string(s.Objective))
	}
	if s.Utility != nil {
		if _, err := mech.NewUtility(s.Utility); err != nil {
			return 0, err
		}
		if len(s.Utility) != n {
			return 0, fieldErr("utility", -1, -1, "has %d rows but the prior has %d letters", len(s.Utility), n)
		}
		if m == 0 {
			m = len(s.Utility[0])
		}
		if len(s.Utility[0]) != m {
			return 0, fieldErr("utility", -1, -1, "has %d columns, want %d", len(s.Utility[0]), m)
		}
	}
	if m == 0 {
		return 0, fieldErr("outputs", -1, -1, "unknown: give a pattern, a utility or the number of outputs")
	}
	return m, nil
}

// allowed reports whether the pattern of s allows the pair (i, j).
func (s Spec) allowed(i, j int) bool { return s.Pattern == nil || s.Pattern[i][j] }

// drop marks the outputs that get no variables, since every feasible
// mechanism has p_ij = 0 there: those whose pairs are all forbidden, those
// pruned (PML: −log Σ_{i allowed} π_i > ε), and for ALIP, LIP and LDP
// those with a forbidden pair (a zero entry forces the whole column to
// zero).
func (mod *Model) drop(s Spec, b mech.Budget) {
	n, m := mod.N, mod.M
	full := make([]bool, m) // no forbidden pair in the column
	for j := range m {
		full[j] = true
		for i := range n {
			if !s.allowed(i, j) {
				full[j] = false
			}
		}
	}
	mod.bound = make([]float64, m) // every output open to every input: 0
	if s.Pattern != nil {
		mod.bound = s.Pattern.OutputBounds(s.Prior)
	}
	for j := range m {
		switch {
		case math.IsInf(mod.bound[j], 1):
			mod.Dropped[j] = true
		case b.Measure == mech.PML:
			if s.Prune && mod.bound[j] > b.Epsilon {
				mod.Dropped[j], mod.pruned[j] = true, true
			}
		default: // ALIP, LIP, LDP: a forbidden pair forces the column to zero.
			mod.Dropped[j] = !full[j]
		}
	}
}

// addEntries adds a column p[i,j] for each allowed pair of a kept output,
// with the cost π_i u_ij of the expected utility, and sets P and the empty
// Up the output rows fill.
func (mod *Model) addEntries(s Spec) error {
	n, m, l := mod.N, mod.M, mod.LP
	mod.Up = make([][]int, n)
	for i := range n {
		if s.Stop != nil && s.Stop() {
			return errStopped
		}
		mod.Up[i] = make([]int, m)
		for j := range mod.Up[i] {
			mod.Up[i][j] = -1
		}
		mod.P[i] = make([]int, m)
		for j := range m {
			mod.P[i][j] = -1
			if mod.Dropped[j] || !s.allowed(i, j) {
				continue
			}
			cost := 0.0
			if s.Objective == ExpectedUtility {
				cost = s.Prior[i] * s.Utility[i][j]
			}
			mod.P[i][j] = l.AddCol(cost, 0, lp.Inf, fmt.Sprintf("p[%d,%d]", i+1, j+1))
		}
	}
	return nil
}

// addAuxiliaries adds each kept output's auxiliary columns, named for the
// form of its measure (t; t and s for ALIP and LIP; l and u for LDP; t and
// σ floored, u alone for floored LDP), then, for the Infeasibility
// objective, the slacks r_j of the marg rows. Floored, the column σ_j (u_j
// for LDP) enters p_ij = r_ij + e^{−ε_l} σ_j, so it carries the utility of
// the floor of its whole column, a budget-dependent cost.
func (mod *Model) addAuxiliaries(s Spec, b mech.Budget) {
	n, m, l := mod.N, mod.M, mod.LP
	auxName, aux2Name := "t", ""
	switch {
	case mod.Floored && b.Measure == mech.LDP:
		auxName, aux2Name = "", "u"
	case mod.Floored:
		aux2Name = "sigma"
	case b.Measure == mech.ALIP, b.Measure == mech.LIP:
		aux2Name = "s"
	case b.Measure == mech.LDP:
		auxName, aux2Name = "l", "u"
	}
	floorCost := func(j int) float64 {
		if s.Objective != ExpectedUtility {
			return 0
		}
		c := 0.0
		for i := range n {
			c += s.Prior[i] * s.Utility[i][j]
		}
		return c
	}
	if aux2Name != "" {
		mod.Aux2 = make([]int, m)
	}
	if b.Measure != mech.LDP {
		mod.Marg = make([]int, m)
		for j := range mod.Marg {
			mod.Marg[j] = -1
		}
	}
	for j := range m {
		mod.Aux[j] = -1
		if mod.Aux2 != nil {
			mod.Aux2[j] = -1
		}
		if mod.Dropped[j] {
			continue
		}
		if auxName != "" {
			mod.Aux[j] = l.AddCol(0, 0, lp.Inf, fmt.Sprintf("%s[%d]", auxName, j+1))
		}
		if mod.Aux2 != nil {
			mod.Aux2[j] = l.AddCol(0, 0, lp.Inf, fmt.Sprintf("%s[%d]", aux2Name, j+1))
			if mod.Floored {
				c := epsCoef{col: mod.Aux2[j], scale: floorCost(j), cost: true}
				c.setLower(b, -1)
				l.ColCosts[c.col] = c.value(b)
				mod.eps = append(mod.eps, c)
			}
		}
	}
	if s.Objective == Infeasibility {
		mod.Slack = make([]int, m)
		for j := range m {
			mod.Slack[j] = -1
			if !mod.Dropped[j] {
				mod.Slack[j] = l.AddCol(1, 0, lp.Inf, fmt.Sprintf("r[%d]", j+1))
			}
		}
	}
}

// addSums adds the rows sum[i]: Σ_j p_ij = 1 for every input, since each
// row of a mechanism is a distribution; floored, Σ_j r_ij + e^{−ε_l} Σ_j
// σ_j = 1, whose σ coefficients depend on the budget.
func (mod *Model) addSums(b mech.Budget) {
	n, m, l := mod.N, mod.M, mod.LP
	for i := range n {
		var e []lp.Nonzero
		for j := range m {
			if c := mod.P[i][j]; c >= 0 {
				e = append(e, lp.Entry(c, 1))
			}
		}
		base := len(l.ConstMatrix)
		var floors []epsCoef
		if mod.Floored {
			for j := range m {
				if mod.Dropped[j] {
					continue
				}
				c := epsCoef{idx: base + len(e), col: mod.Aux2[j]}
				c.setLower(b, -1)
				e = append(e, lp.Entry(c.col, c.value(b)))
				floors = append(floors, c)
			}
		}
		r := l.AddRow(1, 1, fmt.Sprintf("sum[%d]", i+1), e...)
		for _, c := range floors {
			c.row = r
			mod.eps = append(mod.eps, c)
		}
	}
}

// epsRow adds a row whose first entry is budget-dependent and records
// that entry, so that SetBudget can rewrite it in place.
func (mod *Model) epsRow(b mech.Budget, lo, up float64, name string, c epsCoef, rest ...lp.Nonzero) {
	l := mod.LP
	c.idx = len(l.ConstMatrix)
	c.row = l.AddRow(lo, up, name, append([]lp.Nonzero{lp.Entry(c.col, c.value(b))}, rest...)...)
	mod.eps = append(mod.eps, c)
}

// aux2 is output j's second auxiliary column, -1 if none.
func (mod *Model) aux2(j int) int {
	if mod.Aux2 == nil {
		return -1
	}
	return mod.Aux2[j]
}

// addFlooredLDPRows adds output j's rows of the floored LDP form:
// up[i,j]: (1 − e^{−ε}) u_j − r_ij ≥ 0, i.e. p_ij ≤ u_j.
func (mod *Model) addFlooredLDPRows(b mech.Budget, j int) {
	a2 := mod.aux2(j)
	for i := range mod.N {
		if c := mod.P[i][j]; c >= 0 {
			mod.Up[i][j] = len(mod.LP.RowLower)
			mod.epsRow(b, 0, lp.Inf, fmt.Sprintf("up[%d,%d]", i+1, j+1), epsCoef{col: a2, su: -1, oneMinus: true}, lp.Entry(c, -1))
		}
	}
}

// addFlooredRows adds output j's rows of the floored ALIP and LIP form,
// with q_j = Σ_k π_k r_kj + Π e^{−ε_l} σ_j and Π = Σ_k π_k: marg[j],
// floor[j] and up[i,j].
func (mod *Model) addFlooredRows(s Spec, b mech.Budget, j int) {
	l := mod.LP
	a, a2 := mod.Aux[j], mod.aux2(j)
	var e []lp.Nonzero
	for i := range mod.N {
		if c := mod.P[i][j]; c >= 0 {
			e = append(e, lp.Entry(c, -s.Prior[i]))
		}
	}
	pisum := 0.0
	for _, v := range s.Prior {
		pisum += v
	}
	// marg[j]: e^{−ε_u} t_j − q_j ≤ 0 with t_j ≤ 1 above
	// wideBudget (= 0 below it, as in the other forms).
	lo := 0.0
	if upperLevel(b) > wideBudget {
		lo = math.Inf(-1)
		l.ColUpper[a] = 1
	}
	base := len(l.ConstMatrix)
	sig := epsCoef{idx: base + 1 + len(e), col: a2, sl: -1, scale: -pisum}
	mod.epsRow(b, lo, 0, fmt.Sprintf("marg[%d]", j+1), epsCoef{col: a, su: -1}, append(append([]lp.Nonzero(nil), e...), lp.Entry(a2, sig.value(b)))...)
	sig.row = mod.eps[len(mod.eps)-1].row
	mod.eps = append(mod.eps, sig)
	mod.Marg[j] = sig.row
	// floor[j]: (1 − Π e^{−ε_l}) σ_j − Σ_k π_k r_kj = 0, i.e.
	// σ_j = q_j, so p_ij ≥ e^{−ε_l} q_j. An equality: the
	// inequality σ_j ≥ q_j (the same polytope) lets gonum's Simplex
	// cycle or report phase I unbounded at large LIP budgets.
	mod.epsRow(b, 0, 0, fmt.Sprintf("floor[%d]", j+1), epsCoef{col: a2, sl: -1, scale: pisum, oneMinus: true}, e...)
	// up[i,j]: r_ij + e^{−ε_l} σ_j − t_j ≤ 0, i.e. p_ij ≤ t_j.
	for i := range mod.N {
		if c := mod.P[i][j]; c >= 0 {
			base := len(l.ConstMatrix)
			fl := epsCoef{idx: base + 1, col: a2, sl: -1}
			mod.Up[i][j] = l.AddRow(math.Inf(-1), 0, fmt.Sprintf("up[%d,%d]", i+1, j+1), lp.Entry(c, 1), lp.Entry(a2, fl.value(b)), lp.Entry(a, -1))
			fl.row = mod.Up[i][j]
			mod.eps = append(mod.eps, fl)
		}
	}
}

// addMargRows adds output j's rows of the PML, ALIP and LIP form: marg[j],
// link[j] (ALIP and LIP), up[i,j] and lo[i,j] (ALIP and LIP).
func (mod *Model) addMargRows(s Spec, b mech.Budget, j int) {
	l := mod.LP
	a, a2 := mod.Aux[j], mod.aux2(j)
	// marg[j]: e^{−ε_u} t_j − Σ_k π_k p_kj = 0, so t_j = e^{ε_u} q_j,
	// multiplied by 2^{−e_j} (exact) for a PML output of small mass.
	sc := margScale(b, mod.bound[j])
	var e []lp.Nonzero
	for i := range mod.N {
		if c := mod.P[i][j]; c >= 0 {
			e = append(e, lp.Entry(c, -math.Ldexp(s.Prior[i], sc)))
		}
	}
	switch {
	case mod.Slack != nil:
		// Infeasibility: e^{−ε} t_j − Σ_k π_k p_kj − r_j ≤ 0.
		e = append(e, lp.Entry(mod.Slack[j], -1))
		mod.epsRow(b, math.Inf(-1), 0, fmt.Sprintf("marg[%d]", j+1), epsCoef{col: a, su: -1, scale: math.Ldexp(1, sc)}, e...)
	case upperLevel(b) > wideBudget:
		// e^{−ε_u} t_j ≤ q_j with t_j ≤ 1: the same polytope
		// (t_j = min(1, e^{ε_u} q_j) ≥ max_i p_ij), but t_j stays
		// of order one at a large ε_u. The equality t_j = e^ε q_j
		// grows like e^ε, and a simplex backend then loses the
		// optimum's digits (optima well below the true one,
		// feasible patterns with tiny letters called infeasible).
		// Below wideBudget the equality stays: with the inequality
		// gonum's Simplex meets singular bases.
		l.ColUpper[a] = 1
		mod.epsRow(b, math.Inf(-1), 0, fmt.Sprintf("marg[%d]", j+1), epsCoef{col: a, su: -1, scale: math.Ldexp(1, sc)}, e...)
	default:
		mod.epsRow(b, 0, 0, fmt.Sprintf("marg[%d]", j+1), epsCoef{col: a, su: -1, scale: math.Ldexp(1, sc)}, e...)
	}
	mod.Marg[j] = mod.eps[len(mod.eps)-1].row
	if a2 >= 0 {
		// link[j]: e^{ε_l} s_j − Σ_k π_k p_kj = 0, so s_j =
		// e^{−ε_l} q_j. Tying s_j to t_j instead (one
		// coefficient e^{−ε_l−ε_u}) put 4e-18 into the matrix
		// at ε_l = ε_u = 20, below the engines' tolerances.
		mod.epsRow(b, 0, 0, fmt.Sprintf("link[%d]", j+1), epsCoef{col: a2, sl: 1}, e...)
	}
	for i := range mod.N {
		if c := mod.P[i][j]; c >= 0 {
			mod.Up[i][j] = l.AddRow(math.Inf(-1), 0, fmt.Sprintf("up[%d,%d]", i+1, j+1), lp.Entry(c, 1), lp.Entry(a, -1))
			if a2 >= 0 {
				l.AddRow(0, lp.Inf, fmt.Sprintf("lo[%d,%d]", i+1, j+1), lp.Entry(c, 1), lp.Entry(a2, -1))
			}
		}
	}
}

// addLDPRows adds output j's rows of the LDP form: link[j]:
// e^ε l_j − u_j = 0; then l_j ≤ p_ij ≤ u_j (up[i,j], lo[i,j]).
func (mod *Model) addLDPRows(b mech.Budget, j int) {
	l := mod.LP
	a, a2 := mod.Aux[j], mod.aux2(j)
	mod.epsRow(b, 0, 0, fmt.Sprintf("link[%d]", j+1), epsCoef{col: a, su: 1}, lp.Entry(a2, -1))
	for i := range mod.N {
		if c := mod.P[i][j]; c >= 0 {
			mod.Up[i][j] = l.AddRow(math.Inf(-1), 0, fmt.Sprintf("up[%d,%d]", i+1, j+1), lp.Entry(c, 1), lp.Entry(a2, -1))
			l.AddRow(0, lp.Inf, fmt.Sprintf("lo[%d,%d]", i+1, j+1), lp.Entry(c, 1), lp.Entry(a, -1))
		}
	}
}
