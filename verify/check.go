package verify

import (
	"fmt"
	"math"
	"math/big"
	"strings"
)

// Problem is what a certificate is checked against: the prior as written
// (each π_i the dyadic rational its float64 is), the utility or order the
// objective needs, and the mechanism.
type Problem struct {
	Prior     []float64
	Utility   [][]float64 // nil if absent
	Order     [][]int     // nil if absent
	Mechanism [][]float64
	// PriorSet is the problem's set of priors (prior_set), nil if absent:
	// the levels, the lower end and the bound are then over the set.
	PriorSet *PriorSet
	// Stated is what the problem file that holds the certificate says of
	// its own objective and budget (solve --out), nil for a certificate
	// checked apart from one: a file whose objective or budget no longer
	// is the certificate's fails ClaimFile, since its budget is the one a
	// reader of the file takes the mechanism to keep.
	Stated *Stated
	// Reported is what the document prints beside the certificate as its
	// answer (solve --json's epsilon and optimal_epsilon_lower, a curve
	// point's), nil for none: each number given must be the
	// certificate's, or ClaimReported fails, since a reader takes those
	// numbers for what verify checked.
	Reported *Reported
}

// Reported holds the numbers a document reports beside a certificate;
// nil ones are not reported. Level is the reported level of the
// certificate's measure (ALIP: ε_u, ALIPLower ε_l), which the
// certificate states rounded up (by at most 2^-44·ε + 2e-12); the others
// are the certificate's own numbers. WorstCaseOrder and WorstCaseValue
// are set only for the worst case the certificate's lower end is for.
type Reported struct {
	Level, ALIPLower, OptimalEpsilonLower *float64
	ExpectedUtility, ExpectedUtilityBound *float64
	WorstCaseOrder                        *int
	WorstCaseValue                        *float64
}

// Stated is a problem file's objective ("" when it names none) and
// budget (nil when it names none), with the budget's measure.
type Stated struct {
	Objective string
	Measure   string
	Budget    *Budget
}

// Claim is one checked statement: OK, or Detail says which inequality
// fails.
type Claim struct {
	Name   string
	OK     bool
	Detail string
}

func (c Claim) String() string {
	if c.OK {
		return fmt.Sprintf("verified  %s: %s", c.Name, c.Detail)
	}
	return fmt.Sprintf("FAILED    %s: %s", c.Name, c.Detail)
}

// AllOK reports whether every claim holds (and there is at least one).
func AllOK(cs []Claim) bool {
	for _, c := range cs {
		if !c.OK {
			return false
		}
	}
	return len(cs) > 0
}

// The tolerances of the claims, documented in docs/certificates.md.
const (
	// PriorTol bounds |Σ_i π_i − 1|: the problem files' own rule.
	PriorTol = 1e-9
	// RowTol bounds |Σ_j p_ij − 1| for each row of the mechanism.
	RowTol = 0x1p-38
	// BudgetTol is how far above its budget a returned mechanism's level
	// may lie (the engines' feasibility tolerance).
	BudgetTol = 1e-7
	// LevelTol: the stated level exceeds the mechanism's exact level by at
	// most this (the stated one rounds the audited level up).
	LevelTol = 1e-9
	// UtilityTol bounds |reported − exact| expected utility relative to
	// Σ_ij |π_i u_ij p_ij|: the rounding of the reported float sum. Among
	// subnormal numbers rounding is absolute: a term rounded there, as
	// π_i p_ij and then times u_ij, may be off by (1 + |u_ij|) times
	// SubnormalSpacing more.
	UtilityTol = 0x1p-36
	// SubnormalSpacing is the spacing of the subnormal float64 numbers.
	SubnormalSpacing = 0x1p-1074
)

// Names of the claims.
const (
	ClaimShape    = "shape"
	ClaimFile     = "file"
	ClaimReported = "reported"
	ClaimPrior    = "prior"
	ClaimRows     = "rows"
	ClaimPattern  = "zero pattern"
	ClaimWorst    = "worst case"
	ClaimLevel    = "level"
	ClaimBudget   = "budget"
	ClaimLower    = "lower end"
	ClaimExpected = "expected utility"
	ClaimBound    = "expected utility bound"
	// ClaimExact is reported, verified, only when the bracket closes in
	// exact arithmetic (an informative claim; its absence is no failure).
	ClaimExact = "exact optimum"
)

type checker struct {
	a     arith
	p     Problem
	c     Certificate
	n, m  int
	out   []Claim
	prior []*big.Float
	mass  *big.Float // Σ_i π_i, exact

	rowsExact bool     // every row sums to 1 exactly
	pmlRatio  *big.Rat // max_j t_j / q_j over used outputs, exact (pml)
}

func (k *checker) claim(name string, ok bool, format string, args ...any) {
	k.out = append(k.out, Claim{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)})
}

// Check re-checks every claim of c against p, in exact arithmetic, and
// returns them in order. The mechanism is c.Mechanism when p has none.
func Check(p Problem, c Certificate) []Claim {
	if p.Mechanism == nil {
		p.Mechanism = c.Mechanism
	}
	k := &checker{p: p, c: c}
	if !k.shape() {
		return k.out
	}
	k.priorClaim()
	k.setClaim()
	if p.Stated != nil {
		k.stated()
	}
	if p.Reported != nil {
		k.reported()
	}
	k.rows()
	worst := c.Objective == "worst-case-order" || c.Objective == "worst-case-value"
	if worst || k.floor() {
		k.pattern(worst)
	}
	k.level()
	if c.Budget != nil {
		k.budget()
	}
	if worst || (k.floor() && c.Lower != nil) {
		k.lower()
	}
	if c.Utility != nil {
		k.expected()
		if c.Utility.Bound != nil {
			k.bound()
		}
	}
	if k.a.inexact {
		k.claim("exact arithmetic", false, "an operation was rounded: the numbers lie beyond the checker's precision")
	}
	return k.out
}

// BoundHolds reports whether c's expected-utility bound passes the check
// Check makes of it (ClaimBound) on p, the other claims left unchecked: a
// solver's test of a bound it is about to put in a certificate. It is
// false without a bound, and for a bound that keeps a worst case (whose
// check needs the pattern Check derives first).
func BoundHolds(p Problem, c Certificate) bool {
	if p.Mechanism == nil {
		p.Mechanism = c.Mechanism
	}
	k := &checker{p: p, c: c}
	if !k.shape() || c.Utility == nil || c.Utility.Bound == nil || c.Budget == nil || k.floor() {
		return false
	}
	k.bound()
	if k.a.inexact {
		return false
	}
	for _, cl := range k.out {
		if cl.Name == ClaimBound {
			return cl.OK
		}
	}
	return false
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// shape checks the sizes and that every number is finite; the other claims
// need them.
func (k *checker) shape() bool {
	p, c := k.p, k.c
	fail := func(format string, args ...any) bool {
		k.claim(ClaimShape, false, format, args...)
		return false
	}
	k.n = len(p.Prior)
	if k.n == 0 {
		return fail("the prior is empty")
	}
	if len(p.Mechanism) != k.n {
		return fail("the mechanism has %d rows, the prior %d letters", len(p.Mechanism), k.n)
	}
	k.m = len(p.Mechanism[0])
	for i, row := range p.Mechanism {
		if len(row) != k.m || k.m == 0 {
			return fail("mechanism row %d has %d entries, row 0 has %d", i, len(row), k.m)
		}
	}
	switch c.Measure {
	case "pml", "lip", "ldp":
	case "alip":
		if c.ALIPLower == nil {
			return fail("an alip certificate needs alip_lower")
		}
	default:
		return fail("unknown measure %q (want pml, lip, alip or ldp)", c.Measure)
	}
	if !finite(c.Epsilon) || c.Epsilon < 0 || (c.ALIPLower != nil && (!finite(*c.ALIPLower) || *c.ALIPLower < 0)) {
		return fail("the claimed level is not a finite non-negative number")
	}
	needU := c.Objective == "worst-case-value" || c.Objective == "expected-utility"
	switch c.Objective {
	case "worst-case-order":
		if p.Order == nil || c.WorstCaseOrder == nil {
			return fail("a worst-case-order certificate needs the problem's order and worst_case_order")
		}
	case "worst-case-value":
		if c.WorstCaseValue == nil || !finite(*c.WorstCaseValue) {
			return fail("a worst-case-value certificate needs a finite worst_case_value")
		}
	case "expected-utility":
		if c.Utility == nil {
			return fail("an expected-utility certificate needs utility")
		}
		if k.floor() && c.Measure != "pml" {
			return fail("a worst case to keep is for pml budgets, not %s", c.Measure)
		}
		if c.WorstCaseOrder != nil && p.Order == nil {
			return fail("a worst_case_order to keep needs the problem's order")
		}
		if c.WorstCaseValue != nil && !finite(*c.WorstCaseValue) {
			return fail("worst_case_value is not finite")
		}
		if c.Utility.Bound != nil && c.Budget == nil {
			return fail("an expected-utility bound needs the budget it holds for")
		}
	default:
		return fail("unknown objective %q", c.Objective)
	}
	if c.Objective != "expected-utility" && c.Measure != "pml" {
		return fail("the worst-case objectives are for pml budgets, not %s", c.Measure)
	}
	if needU || c.Utility != nil {
		if len(p.Utility) != k.n {
			return fail("the certificate needs the problem's utility (%d rows for %d letters)", len(p.Utility), k.n)
		}
		for i, row := range p.Utility {
			if len(row) != k.m {
				return fail("utility row %d has %d entries, the mechanism %d", i, len(row), k.m)
			}
		}
	}
	if c.WorstCaseOrder != nil {
		if len(p.Order) != k.n {
			return fail("the order has %d rows for %d letters", len(p.Order), k.n)
		}
		for i, row := range p.Order {
			if len(row) != k.m {
				return fail("order row %d has %d entries, the mechanism %d", i, len(row), k.m)
			}
		}
	}
	nums := [][]float64{p.Prior}
	nums = append(nums, p.Mechanism...)
	if needU {
		nums = append(nums, p.Utility...)
	}
	if l := c.Lower; l != nil {
		if !finite(l.OptimalEpsilonLower) {
			return fail("lower.optimal_epsilon_lower is not finite")
		}
		if l.Alpha != nil || l.Nu != nil {
			if len(l.Alpha) != k.n || len(l.Nu) != k.m {
				return fail("lower: %d multipliers alpha for %d letters and %d nu for %d outputs", len(l.Alpha), k.n, len(l.Nu), k.m)
			}
			nums = append(nums, l.Alpha, l.Nu)
		}
	}
	if u := c.Utility; u != nil {
		if !finite(u.ExpectedUtility) || (u.Bound != nil && !finite(*u.Bound)) {
			return fail("utility: the expected utility and its bound must be finite")
		}
		if u.Alpha != nil && len(u.Alpha) != k.n {
			return fail("utility: %d multipliers alpha for %d letters", len(u.Alpha), k.n)
		}
		nums = append(nums, u.Alpha)
	}
	if b := c.Budget; b != nil {
		nums = append(nums, []float64{b.Epsilon, b.EpsilonLower, b.EpsilonUpper})
	}
	if msg := k.setShape(p.PriorSet, "the problem's prior_set"); msg != "" {
		return fail("%s", msg)
	}
	if msg := k.setShape(c.PriorSet, "prior_set"); msg != "" {
		return fail("%s", msg)
	}
	if l := c.Lower; l != nil {
		if msg := k.priorsShape(l.Priors, "lower.priors"); msg != "" {
			return fail("%s", msg)
		}
	}
	if u := c.Utility; u != nil {
		if msg := k.priorsShape(u.Priors, "utility.priors"); msg != "" {
			return fail("%s", msg)
		}
		if msg := k.lowerPriorsShape(c.Measure, u); msg != "" {
			return fail("%s", msg)
		}
	}
	for _, row := range nums {
		for _, v := range row {
			if !finite(v) {
				return fail("a number of the problem or certificate is not finite (%v)", v)
			}
		}
	}
	for _, l := range []*Lower{c.Lower} {
		if l != nil {
			for j, v := range l.Nu {
				if v < 0 {
					return fail("lower: nu[%d] = %v is negative", j, v)
				}
			}
		}
	}
	k.readPrior()
	k.claim(ClaimShape, true, "%d inputs, %d outputs, every number finite", k.n, k.m)
	return true
}

// readPrior reads the prior as the rationals its float64s are, and their
// total S.
func (k *checker) readPrior() {
	k.prior = make([]*big.Float, k.n)
	k.mass = k.a.zero()
	for i, v := range k.p.Prior {
		k.prior[i] = k.a.num(v)
		k.a.add(k.mass, k.mass, k.prior[i])
	}
}

// priorClaim: every π_i > 0 and |Σ_i π_i − 1| ≤ PriorTol.
func (k *checker) priorClaim() {
	for i, v := range k.p.Prior {
		if !(v > 0) {
			k.claim(ClaimPrior, false, "π_%d = %v is not positive", i, v)
			return
		}
	}
	d := k.a.sub(k.a.zero(), k.mass, k.a.num(1))
	if d.Abs(d).Cmp(k.a.num(PriorTol)) > 0 {
		k.claim(ClaimPrior, false, "|Σ_i π_i − 1| = %.3g > %g", f64(d), PriorTol)
		return
	}
	k.claim(ClaimPrior, true, "π_i > 0 and |Σ_i π_i − 1| = %.3g ≤ %g", f64(d), PriorTol)
}

func f64(x *big.Float) float64 { v, _ := x.Float64(); return v }

// rows: p_ij ≥ 0 and |Σ_j p_ij − 1| ≤ RowTol for every row.
func (k *checker) rows() {
	worst := 0.0
	tol := k.a.num(RowTol)
	one := k.a.num(1)
	s := k.a.zero()
	for i, row := range k.p.Mechanism {
		s.SetFloat64(0)
		var x big.Float
		for j, v := range row {
			if v < 0 {
				k.claim(ClaimRows, false, "p_%d,%d = %v is negative", i, j, v)
				return
			}
			k.a.add(s, s, x.SetFloat64(v))
		}
		d := k.a.sub(k.a.zero(), s, one)
		if d.Abs(d).Cmp(tol) > 0 {
			k.claim(ClaimRows, false, "row %d: |Σ_j p_%d,j − 1| = %.3g > 2^-38", i, i, f64(d))
			return
		}
		worst = max(worst, f64(d))
	}
	k.rowsExact = worst == 0
	k.claim(ClaimRows, true, "p_ij ≥ 0 and every |Σ_j p_ij − 1| ≤ %.3g ≤ 2^-38", worst)
}

// floor reports whether an expected-utility certificate keeps a worst case
// (pmlopt solve --min-order / --min-value): its mechanism and its bound are
// then over the mechanisms that use only pairs reaching it.
func (k *checker) floor() bool {
	return k.c.Objective == "expected-utility" && (k.c.WorstCaseOrder != nil || k.c.WorstCaseValue != nil)
}

// allowed reports whether the pair (i, j) reaches the certificate's worst
// case: order rank or utility at least the threshold.
func (k *checker) allowed(i, j int) bool {
	if k.c.WorstCaseOrder != nil {
		return k.p.Order[i][j] >= *k.c.WorstCaseOrder
	}
	return k.p.Utility[i][j] >= *k.c.WorstCaseValue
}

// pattern: the mechanism uses only allowed pairs and, when exact, some used
// pair sits at the threshold, so that the threshold is the support's worst
// case.
func (k *checker) pattern(exact bool) {
	at := false
	for i, row := range k.p.Mechanism {
		for j, v := range row {
			if v == 0 {
				continue
			}
			if !k.allowed(i, j) {
				k.claim(ClaimPattern, false, "p_%d,%d = %v > 0 on a pair below the worst case %s", i, j, v, k.threshold())
				return
			}
			if k.c.WorstCaseOrder != nil {
				at = at || k.p.Order[i][j] == *k.c.WorstCaseOrder
			} else {
				at = at || k.p.Utility[i][j] == *k.c.WorstCaseValue
			}
		}
	}
	k.claim(ClaimPattern, true, "every used pair reaches %s", k.threshold())
	if !exact {
		return
	}
	if !at {
		k.claim(ClaimWorst, false, "no used pair sits at %s: the support's worst case is better than the one reported", k.threshold())
		return
	}
	k.claim(ClaimWorst, true, "the support's worst case is %s", k.threshold())
}

func (k *checker) threshold() string {
	if k.c.WorstCaseOrder != nil {
		return fmt.Sprintf("order %d", *k.c.WorstCaseOrder)
	}
	return fmt.Sprintf("utility %v", *k.c.WorstCaseValue)
}

// columns returns q_j = Σ_i π_i p_ij, the largest and least entry and the
// sum of each column, exactly.
func (k *checker) columns() (q, top, low, sum []*big.Float) {
	q, top, low, sum = make([]*big.Float, k.m), make([]*big.Float, k.m), make([]*big.Float, k.m), make([]*big.Float, k.m)
	t := k.a.zero()
	for j := range k.m {
		q[j], sum[j] = k.a.zero(), k.a.zero()
		hi, lo := math.Inf(-1), math.Inf(1)
		for i, row := range k.p.Mechanism {
			v := row[j]
			hi, lo = max(hi, v), min(lo, v)
			if v == 0 {
				continue
			}
			k.a.add(q[j], q[j], k.a.mulf(t, k.p.Prior[i], v))
			k.a.add(sum[j], sum[j], t.SetFloat64(v))
		}
		top[j], low[j] = k.a.num(hi), k.a.num(lo)
	}
	return q, top, low, sum
}

// level: the mechanism's level of the measure is at most the claimed one,
// and more than the claimed one less LevelTol.
// PML: max_i p_ij ≤ e^ε q_j; LIP: also q_j ≤ e^ε min_i p_ij; ALIP: the
// same with ε_u above and ε_l below; LDP: max_i p_ij ≤ e^ε min_i p_ij —
// each checked against a lower bound on the exponential.
//
// Over a prior set, q_j is min_{π∈Π} Σ_i π_i p_ij in the first inequality
// and max_{π∈Π} Σ_i π_i p_ij in the second (massOver).
func (k *checker) level() {
	qa, top, low, _ := k.columns()
	q, qhi := qa, qa // q: the mass bounding t_j, qhi: the one bounded by b_j
	qname := "q_j"
	if k.p.PriorSet != nil && k.c.Measure != "ldp" {
		q, qhi = make([]*big.Float, k.m), make([]*big.Float, k.m)
		col := make([]float64, k.n)
		for j := range k.m {
			if top[j].Sign() == 0 {
				q[j], qhi[j] = qa[j], qa[j]
				continue
			}
			for i := range k.n {
				col[i] = k.p.Mechanism[i][j]
			}
			q[j] = k.massOver(col, false)
			if k.c.Measure != "pml" {
				qhi[j] = k.massOver(col, true)
			}
		}
		qname = "min_{π∈Π} q_j"
	}
	if k.c.Measure == "pml" {
		for j := range k.m {
			if top[j].Sign() == 0 {
				continue
			}
			if q[j].Sign() == 0 {
				k.pmlRatio = nil // an infinite level, which the level claim refuses
				break
			}
			t, _ := top[j].Rat(nil)
			qj, _ := q[j].Rat(nil)
			r := t.Quo(t, qj)
			if k.pmlRatio == nil || r.Cmp(k.pmlRatio) > 0 {
				k.pmlRatio = r
			}
		}
	}
	eps := k.c.Epsilon
	up, _ := expBounds(eps)
	below := up // the factor bounding q_j / min_i p_ij
	if k.c.Measure == "alip" {
		below, _ = expBounds(*k.c.ALIPLower)
	}
	l, r := k.a.zero(), k.a.zero()
	for j := range k.m {
		if top[j].Sign() == 0 {
			continue // an unused output
		}
		switch k.c.Measure {
		case "pml", "lip", "alip":
			if q[j].Sign() <= 0 || k.a.mul(r, up, q[j]).Cmp(top[j]) < 0 {
				k.claim(ClaimLevel, false, "output %d: max_i p_ij / %s = %.17g > e^%v", j, qname, ratio(top[j], q[j]), eps)
				return
			}
			if k.c.Measure != "pml" && k.a.mul(l, below, low[j]).Cmp(qhi[j]) < 0 {
				what := fmt.Sprint(eps)
				if k.c.Measure == "alip" {
					what = fmt.Sprint(*k.c.ALIPLower)
				}
				name := "q_j"
				if k.p.PriorSet != nil {
					name = "max_{π∈Π} q_j"
				}
				k.claim(ClaimLevel, false, "output %d: %s / min_i p_ij = %.17g > e^%s", j, name, ratio(qhi[j], low[j]), what)
				return
			}
		case "ldp":
			if k.a.mul(r, up, low[j]).Cmp(top[j]) < 0 {
				k.claim(ClaimLevel, false, "output %d: max_i p_ij / min_i p_ij = %.17g > e^%v", j, ratio(top[j], low[j]), eps)
				return
			}
		}
	}
	// The level is attained, to within LevelTol: some output's ratio
	// exceeds e^{ε − LevelTol} (for ALIP each level by its own side).
	attained := func(eps float64, num, den func(j int) *big.Float) bool {
		_, f := expBounds(eps - LevelTol)
		for j := range k.m {
			if top[j].Sign() == 0 {
				continue
			}
			if num(j).Cmp(k.a.mul(r, f, den(j))) > 0 {
				return true
			}
		}
		return false
	}
	at := func(x []*big.Float) func(int) *big.Float { return func(j int) *big.Float { return x[j] } }
	var ok bool
	switch k.c.Measure {
	case "pml":
		ok = attained(eps, at(top), at(q))
	case "lip":
		ok = attained(eps, at(top), at(q)) || attained(eps, at(qhi), at(low))
	case "alip":
		ok = attained(eps, at(top), at(q)) && attained(*k.c.ALIPLower, at(qhi), at(low))
	case "ldp":
		ok = attained(eps, at(top), at(low))
	}
	if !ok {
		k.claim(ClaimLevel, false, "the mechanism's level lies more than %g below the stated %v: it is not the mechanism's level", LevelTol, eps)
		return
	}
	if k.c.Measure == "alip" {
		k.claim(ClaimLevel, true, "the mechanism's ALIP levels%s are (%v, %v), within %g below", map[bool]string{true: " over the prior set"}[k.p.PriorSet != nil], *k.c.ALIPLower, eps, LevelTol)
		return
	}
	over := ""
	if k.p.PriorSet != nil && k.c.Measure != "ldp" {
		over = " over the prior set"
	}
	k.claim(ClaimLevel, true, "the mechanism's %s level%s is %v, within %g below", k.c.Measure, over, eps, LevelTol)
}

func ratio(x, y *big.Float) float64 {
	if y.Sign() == 0 {
		return math.Inf(1)
	}
	r := new(big.Float).SetPrec(64).Quo(x, y)
	return f64(r)
}

// budget: the claimed level lies within the budget, up to BudgetTol.
func (k *checker) budget() {
	b := *k.c.Budget
	if k.c.Measure == "alip" {
		if !(k.c.Epsilon <= b.EpsilonUpper+BudgetTol) || !(*k.c.ALIPLower <= b.EpsilonLower+BudgetTol) {
			k.claim(ClaimBudget, false, "levels (%v, %v) exceed the budget (%v, %v) by more than %g", *k.c.ALIPLower, k.c.Epsilon, b.EpsilonLower, b.EpsilonUpper, BudgetTol)
			return
		}
		k.claim(ClaimBudget, true, "levels (%v, %v) within the budget (%v, %v) + %g", *k.c.ALIPLower, k.c.Epsilon, b.EpsilonLower, b.EpsilonUpper, BudgetTol)
		return
	}
	if !(k.c.Epsilon <= b.Epsilon+BudgetTol) {
		k.claim(ClaimBudget, false, "level %v exceeds the budget %v by more than %g", k.c.Epsilon, b.Epsilon, BudgetTol)
		return
	}
	k.claim(ClaimBudget, true, "level %v ≤ budget %v + %g", k.c.Epsilon, b.Epsilon, BudgetTol)
}

// stated: the file's objective, measure and budget are the certificate's,
// number for number.
func (k *checker) stated() {
	st, c := k.p.Stated, k.c
	var diff []string
	if st.Objective != "" && st.Objective != c.Objective {
		diff = append(diff, fmt.Sprintf("objective %s, the certificate's %s", st.Objective, c.Objective))
	}
	if st.Budget != nil {
		switch {
		case st.Measure != c.Measure:
			diff = append(diff, fmt.Sprintf("measure %s, the certificate's %s", st.Measure, c.Measure))
		case c.Budget == nil:
			diff = append(diff, "a budget, the certificate none")
		case st.Measure == "alip" && (st.Budget.EpsilonLower != c.Budget.EpsilonLower || st.Budget.EpsilonUpper != c.Budget.EpsilonUpper):
			diff = append(diff, fmt.Sprintf("budget (%v, %v), the certificate's (%v, %v)", st.Budget.EpsilonLower, st.Budget.EpsilonUpper, c.Budget.EpsilonLower, c.Budget.EpsilonUpper))
		case st.Measure != "alip" && st.Budget.Epsilon != c.Budget.Epsilon:
			diff = append(diff, fmt.Sprintf("budget %v, the certificate's %v", st.Budget.Epsilon, c.Budget.Epsilon))
		}
	}
	if len(diff) > 0 {
		k.claim(ClaimFile, false, "the file states %s", strings.Join(diff, "; "))
		return
	}
	k.claim(ClaimFile, true, "the file's objective and budget are the certificate's")
}

// reported: each number the document reports is the certificate's.
func (k *checker) reported() {
	r, c := k.p.Reported, k.c
	var diff []string
	level := func(name string, rep, claimed *float64) {
		switch {
		case rep == nil:
		case claimed == nil:
			diff = append(diff, fmt.Sprintf("%s %v, the certificate none", name, *rep))
		case !(*rep <= *claimed && *claimed <= *rep+0x1p-44*math.Abs(*rep)+2e-12):
			diff = append(diff, fmt.Sprintf("%s %v, the certificate's %v", name, *rep, *claimed))
		}
	}
	same := func(name string, rep, cert *float64) {
		switch {
		case rep == nil:
		case cert == nil:
			diff = append(diff, fmt.Sprintf("%s %v, the certificate none", name, *rep))
		case *rep != *cert:
			diff = append(diff, fmt.Sprintf("%s %v, the certificate's %v", name, *rep, *cert))
		}
	}
	// The certificate's own numbers, nil where it has none.
	var lower, eu, bound *float64
	if c.Lower != nil {
		lower = &c.Lower.OptimalEpsilonLower
	}
	if c.Utility != nil {
		eu, bound = &c.Utility.ExpectedUtility, c.Utility.Bound
	}
	level("level", r.Level, &c.Epsilon)
	level("ε_l", r.ALIPLower, c.ALIPLower)
	same("lower end", r.OptimalEpsilonLower, lower)
	same("expected utility", r.ExpectedUtility, eu)
	same("expected utility bound", r.ExpectedUtilityBound, bound)
	same("worst-case value", r.WorstCaseValue, c.WorstCaseValue)
	if r.WorstCaseOrder != nil && (c.WorstCaseOrder == nil || *r.WorstCaseOrder != *c.WorstCaseOrder) {
		diff = append(diff, fmt.Sprintf("worst-case order %d, not the certificate's", *r.WorstCaseOrder))
	}
	if len(diff) > 0 {
		k.claim(ClaimReported, false, "the document reports %s", strings.Join(diff, "; "))
		return
	}
	k.claim(ClaimReported, true, "the numbers reported beside the certificate are its own")
}

// lower: no ε-PML mechanism reaching the worst case exists for ε < L. With
// Σ_i α_i > 0 and, on every output j whose allowed inputs A_j include an
// α_i > 0, g_j = Σ_{i∈A_j} max(0, π_i + ν_j α_i) ≤ e^{−L} (checked against
// a lower bound on e^{−L}), the Lagrangian argument of docs/certificates.md
// holds.
func (k *checker) lower() {
	l := k.c.Lower
	if l == nil {
		k.claim(ClaimLower, false, "the certificate has no lower end")
		return
	}
	if l.OptimalEpsilonLower > k.c.Epsilon {
		k.claim(ClaimLower, false, "the lower end %v exceeds the upper end %v", l.OptimalEpsilonLower, k.c.Epsilon)
		return
	}
	if l.OptimalEpsilonLower <= 0 {
		k.claim(ClaimLower, true, "ε* ≥ %v (a PML is never negative)", l.OptimalEpsilonLower)
		return
	}
	if l.Alpha == nil {
		k.claim(ClaimLower, false, "a positive lower end %v without multipliers", l.OptimalEpsilonLower)
		return
	}
	s := k.a.zero()
	for _, v := range l.Alpha {
		k.a.add(s, s, k.a.num(v))
	}
	if s.Sign() <= 0 {
		k.claim(ClaimLower, false, "Σ_i α_i = %.3g is not positive", f64(s))
		return
	}
	priors, ok := k.columnPriors(ClaimLower, l.Priors)
	if !ok {
		return
	}
	bound, _ := expBounds(-l.OptimalEpsilonLower)
	g, t := k.a.zero(), k.a.zero()
	alpha := make([]*big.Float, k.n)
	for i, v := range l.Alpha {
		alpha[i] = k.a.num(v)
	}
	worst := 0.0
	maxg := k.a.zero()
	for j := range k.m {
		pos := false
		for i := range k.n {
			pos = pos || (l.Alpha[i] > 0 && k.allowed(i, j))
		}
		if !pos {
			continue // λ_j = 0 works: Σ_{i∈A_j} max(0, α_i) = 0
		}
		g.SetFloat64(0)
		nu := k.a.num(l.Nu[j])
		for i := range k.n {
			if !k.allowed(i, j) {
				continue
			}
			k.a.mul(t, nu, alpha[i])
			k.a.add(t, t, k.a.num(priors[j][i]))
			if t.Sign() > 0 {
				k.a.add(g, g, t)
			}
		}
		if g.Cmp(bound) > 0 {
			k.claim(ClaimLower, false, "output %d: Σ_{i∈A_j} max(0, π^(j)_i + ν_j α_i) = %.17g > e^-%v", j, f64(g), l.OptimalEpsilonLower)
			return
		}
		worst = max(worst, f64(g))
		if g.Cmp(maxg) > 0 {
			maxg.Set(g)
		}
	}
	k.claim(ClaimLower, true, "ε* ≥ %v: Σ_i α_i > 0 and max_j g_j = %.6g ≤ e^-%v", l.OptimalEpsilonLower, worst, l.OptimalEpsilonLower)
	// The bracket closes exactly when the mechanism (rows summing to 1
	// exactly, on the pattern) has PML log r with r·max_j g_j = 1: the
	// multipliers rule out every ε < −log max_j g_j = log r, and the
	// mechanism reaches log r.
	if k.rowsExact && k.pmlRatio != nil && maxg.Sign() > 0 && k.c.Objective != "expected-utility" {
		g, _ := maxg.Rat(nil)
		if prod := new(big.Rat).Mul(g, k.pmlRatio); prod.Cmp(big.NewRat(1, 1)) == 0 {
			k.claim(ClaimExact, true, "ε* = log %s exactly: the mechanism's PML equals the proven lower bound", k.pmlRatio.RatString())
		}
	}
}

// expected: the reported expected utility is within UtilityTol (relative
// to Σ|π_i u_ij p_ij|) of the mechanism's exact one.
func (k *checker) expected() {
	sum, abs, t := k.a.zero(), k.a.zero(), k.a.zero()
	spacings := 0.0 // Σ (1 + |u_ij|) over the nonzero terms
	for i, row := range k.p.Mechanism {
		for j, v := range row {
			if v == 0 || k.p.Utility[i][j] == 0 {
				continue
			}
			spacings += 1 + math.Abs(k.p.Utility[i][j])
			k.a.mulf(t, k.p.Utility[i][j], v)
			k.a.mul(t, t, k.prior[i])
			k.a.add(sum, sum, t)
			if t.Sign() > 0 {
				k.a.add(abs, abs, t)
			} else {
				k.a.sub(abs, abs, t)
			}
		}
	}
	rep := k.c.Utility.ExpectedUtility
	d := k.a.sub(k.a.zero(), sum, k.a.num(rep))
	d.Abs(d)
	tol := k.a.mul(k.a.zero(), abs, k.a.num(UtilityTol))
	k.a.add(tol, tol, k.a.mul(k.a.zero(), k.a.num(spacings), k.a.num(SubnormalSpacing)))
	if d.Cmp(tol) > 0 {
		k.claim(ClaimExpected, false, "the mechanism's expected utility is %.17g, not %v (|difference| %.3g > 2^-36·Σ|π u p| + Σ(1 + |u|)·2^-1074)", f64(sum), rep, f64(d))
		return
	}
	k.claim(ClaimExpected, true, "Σ_ij π_i u_ij p_ij = %.17g, as reported (%v)", f64(sum), rep)
}
