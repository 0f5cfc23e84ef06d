package polytope

import (
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
)

// cutTol is the relative violation of a column's constraint over the set
// below which Separate adds no prior: a level over the set within about
// 1e-9 nats of the budget, well inside certify.AuditTol.
const cutTol = 1e-9

// CutModel is the LP of BuildRobust's polytope without the dual variables:
// each output's constraint over the set held for a short list of the
// set's priors, which Separate grows (the cutting planes over the set's
// extreme priors).
//
// Every output j gets a column L_j with p_ij ≤ e^ε L_j and L_j ≤ Σ_k π_k
// p_kj for each prior π of a list S_j, which starts as the estimate and,
// for ExpectedUtility, the worst prior of the output's utilities
// (seedColumn), and then Spec.Start's worst priors; for ALIP and LIP also
// H_j with e^{−ε_l} H_j ≤ p_ij and H_j ≥ Σ_k π_k p_kj for the priors of a
// second list. The LP over finitely many priors holds the robust
// polytope, so it is a relaxation of BuildRobust's model, of the size of
// the LP at one prior plus one row per prior added, against N + 1 or
// N + 2 extra columns and N to 3N extra rows per output in BuildRobust's.
// The set's extreme points are finitely many, so a loop that solves the
// LP and adds Separate's priors ends, with a mechanism that keeps the
// budget over the set; for ExpectedUtility its objective is then the
// robust optimum.
type CutModel struct {
	LP *lp.Model
	// Seeded is the number of priors Spec.Start added beyond the first
	// lists.
	Seeded int
	cuts   *cutModel
}

// BuildCuts writes the cut model of s over set, with the first lists and
// those of s.Start. The measure is PML, LIP or ALIP (LDP does not depend
// on the prior: BuildRobust's model is its own).
func BuildCuts(s Spec, set *mech.PriorSet) (*CutModel, error) {
	if s.Budget.Measure == mech.LDP {
		return nil, &mech.FieldError{Field: "privacy.measure", Row: -1, Col: -1, Msg: "ldp does not depend on the prior: no cut model"}
	}
	c, err := newCutModel(s, set)
	if err != nil {
		return nil, err
	}
	return &CutModel{LP: c.x, Seeded: c.seedStart(s.Start), cuts: c}, nil
}

// Mechanism reads a solution x of the LP as RobustModel.Mechanism does.
func (c *CutModel) Mechanism(x []float64) mech.Mechanism { return c.cuts.rm.Mechanism(x) }

// Separate adds to the LP, for each output whose constraint x breaks over
// the set by more than a relative 1e-9, the set's worst prior for its
// column (PriorSet.Extreme, the greedy closed form of docs/theory.md §7),
// and returns how many it added and how many such violations it could not
// cut away (the worst prior was already in the list: rounding). The new
// rows are appended after the LP's others.
func (c *CutModel) Separate(x []float64) (added, uncut int) {
	added = c.cuts.separate(x)
	return added, c.cuts.violated
}

// Proof reads the Multipliers of an optimal point x of the LP with its
// row duals y and reduced costs d (as RobustModel.Proof reads them), the
// caps' prior of each output its cuts' priors weighed by their duals (a
// prior of the set: the set is convex); ok is false when y does not fit
// the LP.
func (c *CutModel) Proof(x, y, d []float64) (Multipliers, bool) {
	m := c.cuts
	if !m.rm.provable(x, y) {
		return Multipliers{}, false
	}
	mix := func(priors [][]float64, rows []int) []float64 {
		w := 0.0
		v := make([]float64, m.rm.N)
		for t, r := range rows {
			a := math.Abs(y[r])
			w += a
			for k, q := range priors[t] {
				v[k] += a * q
			}
		}
		if !(w > 0) {
			return slices.Clone(m.set.Center)
		}
		for k := range v {
			v[k] /= w
		}
		return v
	}
	pr := newMultipliers(m.rm, x, y, d)
	for j := range m.rm.M {
		pr.Up[j] = mix(m.lowCuts[j], m.lowRows[j])
		if pr.Down != nil {
			pr.Down[j] = mix(m.hiCuts[j], m.hiRows[j])
		}
	}
	return pr, true
}

// cutModel is the LP of CutModel and the priors each output's rows
// hold.
type cutModel struct {
	x       *lp.Model
	set     *mech.PriorSet
	rm      *RobustModel // P, Low, High, Sum, Cap, floorRows, kappa as in BuildRobust
	lam     float64      // e^{ε} (ε_u for ALIP and LIP)
	lowCuts [][][]float64
	hiCuts  [][][]float64
	// lowRows and hiRows are the rows of the cuts, in the lists' order
	// (the caps and floors are rm's Cap and floorRows).
	lowRows, hiRows [][]int
	// violated counts the columns whose violation separate could not cut
	// away (the worst prior was already in the list).
	violated int
}

func newCutModel(s Spec, set *mech.PriorSet) (*cutModel, error) {
	n, m, err := setSpecSize(s, set)
	if err != nil {
		return nil, err
	}
	b := normBudget(s.Budget)
	x := &lp.Model{Maximize: s.Objective == ExpectedUtility}
	rm := &RobustModel{LP: x, N: n, M: m, P: make([][]int, n), Low: make([]int, m), High: make([]int, m), Sum: make([]int, n),
		Cap: newCaps(n, m), floorRows: make([][]int, m), set: set}
	c := &cutModel{x: x, set: set, rm: rm, lam: math.Exp(upperLevel(b)),
		lowCuts: make([][][]float64, m), hiCuts: make([][][]float64, m),
		lowRows: make([][]int, m), hiRows: make([][]int, m)}
	hasHigh := b.Measure == mech.ALIP || b.Measure == mech.LIP
	if hasHigh {
		rm.kappa = math.Exp(-b.EpsilonLower)
	}
	addMechanism(x, s, set, b, rm)
	for j := range m {
		rm.Low[j], rm.High[j] = -1, -1
		used := false
		for i := range n {
			used = used || rm.P[i][j] >= 0
		}
		if !used {
			continue
		}
		rm.Low[j] = x.AddCol(0, 0, 1, "")
		for i := range n {
			if col := rm.P[i][j]; col >= 0 {
				rm.Cap[i][j] = x.AddRow(-lp.Inf, 0, "", lp.Entry(col, 1), lp.Entry(rm.Low[j], -c.lam))
			}
		}
		c.addCut(j, set.Center, false)
		seed := seedColumn(s, rm.P, j)
		if seed != nil {
			c.addNew(j, set.Extreme(seed, false), false)
		}
		if hasHigh {
			rm.High[j] = x.AddCol(0, 0, 1, "")
			for i := range n {
				col := rm.P[i][j]
				if col < 0 {
					// a forbidden pair: κ H_j ≤ p_ij = 0 empties the column
					x.ColUpper[rm.High[j]] = 0
					continue
				}
				rm.floorRows[j] = append(rm.floorRows[j], addFloor(x, col, rm.High[j], rm.kappa))
			}
			c.addCut(j, set.Center, true)
			if seed != nil {
				c.addNew(j, set.Extreme(seed, true), true)
			}
		}
	}
	return c, nil
}

// seedColumn is a guess at output j's column for ExpectedUtility: the
// utilities of the allowed pairs, shifted to be positive (an optimal
// mechanism puts more of a row on the outputs it values more); nil for
// the other objectives.
func seedColumn(s Spec, P [][]int, j int) []float64 {
	if s.Objective != ExpectedUtility {
		return nil
	}
	lo := math.Inf(1)
	for i := range P {
		if P[i][j] >= 0 {
			lo = min(lo, s.Utility[i][j])
		}
	}
	c := make([]float64, len(P))
	for i := range P {
		if P[i][j] >= 0 {
			c[i] = 1 + s.Utility[i][j] - lo
		}
	}
	return c
}

// addCut adds L_j ≤ Σ_k π_k p_kj (H_j ≥ Σ_k π_k p_kj when high) for the
// prior pi, the first multiplied by MassScale(e^ε): its error then
// reaches the caps p_ij ≤ e^ε L_j as about 1e-9 (see addMassBound).
func (c *cutModel) addCut(j int, pi []float64, high bool) {
	bcol := c.rm.Low[j]
	if high {
		bcol = c.rm.High[j]
	}
	scale := 1.0 // the least mass's rows are scaled as in BuildRobust
	if !high {
		scale = MassScale(c.lam)
	}
	es := []lp.Nonzero{lp.Entry(bcol, scale)}
	for k := range c.rm.N {
		if col := c.rm.P[k][j]; col >= 0 && pi[k] != 0 {
			es = append(es, lp.Entry(col, -scale*pi[k]))
		}
	}
	if high {
		c.hiRows[j] = append(c.hiRows[j], c.x.AddRow(0, lp.Inf, "", es...))
		c.hiCuts[j] = append(c.hiCuts[j], pi)
	} else {
		c.lowRows[j] = append(c.lowRows[j], c.x.AddRow(-lp.Inf, 0, "", es...))
		c.lowCuts[j] = append(c.lowCuts[j], pi)
	}
}

// separate adds the worst prior of each output whose constraint the point
// x breaks over the set by more than cutTol, and returns how many it
// added.
func (c *cutModel) separate(x []float64) int {
	n := c.rm.N
	added := 0
	c.violated = 0
	col := make([]float64, n)
	for j := range c.rm.M {
		if c.rm.Low[j] < 0 {
			continue
		}
		mx, mn := c.column(j, col, func(k, v int) float64 { return x[v] })
		if mx <= robustColumnNoise {
			continue // an unused output keeps every budget
		}
		// p_ij ≤ e^ε min_π m_j(π)
		if lo := c.set.Extreme(col, false); mx > c.lam*dot(lo, col)*(1+cutTol) {
			if c.addNew(j, lo, false) {
				added++
			} else {
				c.violated++
			}
		}
		if c.rm.High[j] >= 0 {
			// e^{−ε_l} max_π m_j(π) ≤ p_ij
			if hi := c.set.Extreme(col, true); c.rm.kappa*dot(hi, col) > mn*(1+cutTol) {
				if c.addNew(j, hi, true) {
					added++
				} else {
					c.violated++
				}
			}
		}
	}
	return added
}

// column fills col with output j's entries, at(k, v) for the letters k
// whose p_kj is the LP's column v, clipped at 0, and 0 for the others, and
// returns their largest and smallest.
func (c *cutModel) column(j int, col []float64, at func(k, v int) float64) (mx, mn float64) {
	mn = math.Inf(1)
	for k := range col {
		col[k] = 0
		if v := c.rm.P[k][j]; v >= 0 {
			col[k] = max(0, at(k, v))
		}
		mx, mn = max(mx, col[k]), min(mn, col[k])
	}
	return mx, mn
}

// seedStart adds, for every output that start (Spec.Start) uses, the
// priors of the set worst for its column: the one of least mass and, under
// ALIP and LIP, the one of most. Near the optimum these are the cuts the
// rounds would otherwise find one round at a time. It returns the number
// added.
func (c *cutModel) seedStart(start mech.Mechanism) int {
	n := c.rm.N
	if len(start) != n {
		return 0
	}
	added := 0
	col := make([]float64, n)
	for j := range c.rm.M {
		if c.rm.Low[j] < 0 {
			continue
		}
		mx, _ := c.column(j, col, func(k, _ int) float64 {
			if j < len(start[k]) {
				return start[k][j]
			}
			return 0
		})
		if mx <= robustColumnNoise {
			continue
		}
		if c.addNew(j, c.set.Extreme(col, false), false) {
			added++
		}
		if c.rm.High[j] >= 0 && c.addNew(j, c.set.Extreme(col, true), true) {
			added++
		}
	}
	return added
}

// addNew adds the cut for pi unless output j already has it.
func (c *cutModel) addNew(j int, pi []float64, high bool) bool {
	list := c.lowCuts[j]
	if high {
		list = c.hiCuts[j]
	}
	for _, q := range list {
		if sameVec(q, pi) {
			return false
		}
	}
	c.addCut(j, pi, high)
	return true
}

func sameVec(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
