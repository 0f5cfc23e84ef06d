package pmlopt

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/verify"
	"github.com/pmlopt/pmlopt/worstcase"
)

// levelOver returns the level of b's measure that m reaches over every
// prior of the set: (ε_u, ε_l) for ALIP, (level, 0) otherwise.
func levelOver(s *mech.PriorSet, m mech.Mechanism, b mech.Budget) (level, lower float64) {
	level, lower, _ = leakage.LevelOver(s, m, b)
	return level, lower
}

// withinOver reports whether m keeps b over the set, up to
// certify.AuditTol.
func withinOver(s *mech.PriorSet, m mech.Mechanism, b mech.Budget) bool {
	_, _, excess := leakage.LevelOver(s, m, b)
	return excess <= certify.AuditTol
}

// VerifyPriorSet is s in the certificate's form (package verify); nil for
// a problem without a prior set.
func VerifyPriorSet(s *mech.PriorSet) *verify.PriorSet {
	return certificate.PriorSet(s)
}

// RobustSolver is the LP backend that solves a problem over a prior set
// with options o: the one named in o, else the pure-Go revised simplex. Clp stops on numerical
// errors (its status 4) on the dualised robust models of the tests, while
// the revised simplex solves them, so auto does not pick Clp here.
func RobustSolver(o Options) solver.Solver {
	if o.Solver != nil {
		return o.Solver
	}
	if s, err := solver.Get("revised"); err == nil {
		return s
	}
	return solver.Auto()
}

// solveRobustLP solves the LP of s over the set with the LP backend and
// returns its audited mechanism, or nil when the backend finds no point
// (a status other than Optimal: not a proof), the status and the number of
// LPs solved. LIP and ALIP, whose dualised model carries two mass bounds
// per output, and the ε-PML expected utility over an L1 ball, whose dual
// adds 3N rows per output, go to the cutting planes of
// polytope.SolveRobustCuts, which keep the LPs at the size of the LP at one
// prior and reach the same optimum; so does a problem with a start
// (Spec.Start, the point the interior points stalled at), whose worst
// priors are often every cut the rounds need. The rest goes to
// BuildRobust's dualised model, solved once (docs/performance.md,
// "Guarantees over a set of priors", has the measurements behind the
// split).
func solveRobustLP(ctx context.Context, s polytope.Spec, set *mech.PriorSet, slv solver.Solver) (mech.Mechanism, solver.Status, int, error) {
	return solveRobustLPFrom(ctx, s, set, slv, false)
}

// solveRobustLPFrom is solveRobustLP, on BuildRobust's model whatever the
// measure and set when dualise is set (lpStart).
func solveRobustLPFrom(ctx context.Context, s polytope.Spec, set *mech.PriorSet, slv solver.Solver, dualise bool) (mech.Mechanism, solver.Status, int, error) {
	var m mech.Mechanism
	var status solver.Status
	lps := 1
	cuts := len(s.Start) == len(s.Prior) || s.Budget.Measure == mech.LIP || s.Budget.Measure == mech.ALIP || (!set.IsBox() && s.Objective == polytope.ExpectedUtility)
	if cuts && !dualise {
		r, err := polytope.SolveRobustCuts(ctx, s, set, slv)
		if err != nil {
			return nil, 0, 0, err
		}
		m, status, lps = r.Mechanism, r.Status, r.LPs
	} else {
		mod, err := polytope.BuildRobust(s, set)
		if err != nil {
			return nil, 0, 0, err
		}
		sol, _, err := solver.SolveContext(ctx, slv, mod.LP, solver.Start{})
		if err != nil {
			return nil, 0, 0, err
		}
		status = sol.Status
		if status == solver.Optimal {
			m = mod.Mechanism(sol.X)
		}
	}
	if status != solver.Optimal {
		return nil, status, lps, nil
	}
	if s.Pattern != nil && !s.Pattern.Holds(m) {
		return nil, status, lps, fmt.Errorf("prior_set: the %s backend returned a mechanism that breaks the zero pattern", slv.Name())
	}
	if !withinOver(set, m, s.Budget) {
		// An engine holds every row to an absolute tolerance, so a LIP
		// or ALIP column at a large budget can end with entries at 0
		// where its lower caps, e^{−ε} times a mass, ask for 1e-18 or
		// less: its ratio is then infinite. The least mixture with the
		// outputs' marginal that keeps the budget mends such rounding at
		// a cost in utility of about that mixture's weight, and is kept
		// only where that cost is within mixValueTol of the LP's value and
		// the mixture keeps the zero pattern (it fills every zero of a
		// used output: a pattern that allows every pair there).
		within := func(q mech.Mechanism) bool { return withinOver(set, q, s.Budget) }
		q := clean.MixUntil(s.Prior, m, within)
		if within(q) && mixCostsLittle(s, m, q) && (s.Pattern == nil || s.Pattern.Holds(q)) {
			return q, status, lps, nil
		}
		level, _ := levelOver(set, m, s.Budget)
		return nil, status, lps, fmt.Errorf("prior_set: the %s backend returned a mechanism at %s %.10g over the prior set, above the budget", slv.Name(), s.Budget.Measure, level)
	}
	return m, status, lps, nil
}

// mixValueTol is the relative loss of expected utility within which
// solveRobustLPFrom keeps a mixture that mends an LP mechanism's rounding:
// the 1e-9 pmlopt's answers are held to.
const mixValueTol = 1e-9

// mixCostsLittle reports whether the mixture q of s's LP mechanism m loses
// at most mixValueTol of m's expected utility (always, for the worst-case
// objectives, which a mixture does not change beyond the pattern).
func mixCostsLittle(s polytope.Spec, m, q mech.Mechanism) bool {
	if s.Objective != polytope.ExpectedUtility {
		return true
	}
	v := s.Utility.ExpectedUtility(s.Prior, m)
	return v-s.Utility.ExpectedUtility(s.Prior, q) <= mixValueTol*math.Max(1, math.Abs(v))
}

// solveOverPriorSet is Solve for a problem with a prior set: the budget
// must hold for every prior of p.PriorSet. The expected utility under
// PML, LIP and ALIP goes to the interior point over the set
// (solveExpectedOverSetIPM), the worst cases to column generation over
// the set; what they leave goes through the LP backend, on the robust
// constraints made linear by dualisation (polytope.BuildRobust).
//
// Certificates: the upper ends are audited over the set (leakage.PMLOver
// and friends). A robust mechanism is feasible for every prior of the set,
// so the least ε over the set is at least the least ε at any one prior of
// it, and OptimalEpsilonLower is the largest of the point lower bounds that
// certify.DualBound proves (through package worstcase) at the estimate and at the
// set's extreme priors — valid, but possibly below the robust optimum. In
// the same way the robust expected-utility optimum is at most the
// certified optimum at any one prior of the set (expectedBoundOverSet):
// valid, possibly loose.
func solveOverPriorSet(ctx context.Context, p *problem.Problem, b mech.Budget, opt Options) (*Solution, error) {
	sol, err := solveOverPriorSetUnchecked(ctx, p, b, opt)
	if err == nil && ctx.Err() != nil {
		// A step that ended with the context (a bound's solves) left the
		// answer short of what it claims: the context's error instead.
		return nil, ctx.Err()
	}
	return sol, err
}

// solveOverPriorSetUnchecked is solveOverPriorSet without its last check
// of the context.
func solveOverPriorSetUnchecked(ctx context.Context, p *problem.Problem, b mech.Budget, opt Options) (*Solution, error) {
	set := p.PriorSet
	slv := RobustSolver(opt)
	switch p.Objective {
	case problem.ExpectedUtility:
		u, err := p.RequireUtility()
		if err != nil {
			return nil, err
		}
		var atEstimate *expected.Result // the optimum at the estimate, once solved
		tried := false
		if zeroBudget(b) {
			sol, r, ok, err := expectedFromEstimate(ctx, p, u, b, opt)
			if ok || err != nil {
				return sol, err
			}
			atEstimate, tried = r, true
		}
		sol, ok, start, err := solveExpectedOverSetIPM(ctx, p, u, b, opt)
		if ok || err != nil {
			return sol, err
		}
		if !tried {
			sol, r, ok, err := expectedFromEstimate(ctx, p, u, b, opt)
			if ok || err != nil {
				return sol, err
			}
			atEstimate = r
		}
		m, status, lps, err := solveRobustLPFrom(ctx, polytope.Spec{Prior: p.Prior, Budget: b, Objective: polytope.ExpectedUtility, Utility: u, Start: start.point}, set, slv, start.dualise)
		if err != nil {
			return nil, err
		}
		if m == nil {
			return nil, fmt.Errorf("prior_set: the %s backend found no mechanism (status %v)", slv.Name(), status)
		}
		level, lower := levelOver(set, m, b)
		sol = &Solution{Mechanism: m, Epsilon: level, OptimalEpsilonLower: level, ALIPLower: lower, Solver: slv.Name(), LPSolves: lps,
			FullLP: true, ExpectedUtilityBound: math.NaN()}
		var hint certificate.Hint
		sol.ExpectedUtilityBound, hint = expectedBoundOverSet(ctx, p, u, b, nil, atEstimate, opt)
		sol.Objective, sol.Measure = p.Objective, b.Measure
		describe(p, sol)
		sol.Certificate = certificate.ExpectedOver(p, b, sol.answer(), hint)
		sol.ExpectedUtilityBound = certificate.TightenExpectedOver(p, u, b, nil, sol.Mechanism, sol.Certificate)
		return sol, nil
	case problem.WorstCaseOrder, problem.WorstCaseValue:
		if b.Measure != mech.PML {
			return nil, fmt.Errorf("objective: %s is defined for pml budgets (Song & Oechtering 2026), the file's measure is %s", p.Objective, b.Measure)
		}
		return solveWorstCaseOverSet(ctx, p, b.Epsilon, opt)
	case "":
		return nil, ErrNoObjective
	}
	return nil, fmt.Errorf("objective: unknown %q", p.Objective)
}

// zeroBudget reports whether b allows only mechanisms whose rows are all
// equal: ε = 0 under PML or LIP, or either end 0 under ALIP. Such a cap,
// weighed with the estimate (a prior of the set, with full support),
// leaves no room: Σ_i π̂_i p_ij = q_j with every p_ij ≤ q_j (or ≥ q_j)
// makes every row the output marginal q, whatever the other priors of the
// set.
func zeroBudget(b mech.Budget) bool {
	switch b.Measure {
	case mech.PML, mech.LIP:
		return b.Epsilon == 0
	case mech.ALIP:
		return b.EpsilonLower == 0 || b.EpsilonUpper == 0
	}
	return false
}

// expectedFromEstimate answers the expected utility over p's set with
// the optimum at the estimate π̂ when that optimum keeps the budget over
// the set: the robust feasible set lies inside the one at π̂, so it is
// then the robust optimum, and the bound proven at π̂ holds over the set.
// At a zero budget it does (zeroBudget: its rows are equal), and at
// budgets near zero it does to within the audit's tolerance, where the
// interior points over the set find no interior and the LP over it
// stalls on its degenerate vertices. r is that optimum (nil when not
// found); ok is false, with no error, when it is not found or breaks the
// budget over the set: the other routes then decide.
func expectedFromEstimate(ctx context.Context, p *problem.Problem, u mech.Utility, b mech.Budget, opt Options) (sol *Solution, r *expected.Result, ok bool, err error) {
	res, err := expected.Maximize(ctx, p.Prior, u, b, expectedOptions(opt))
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, false, ctx.Err()
		}
		return nil, nil, false, nil
	}
	r = &res
	level, lower, excess := leakage.LevelOver(p.PriorSet, r.Mechanism, b)
	if !(excess <= certify.AuditTol) {
		return nil, r, false, nil
	}
	sol = expectedSolution(res)
	sol.Epsilon, sol.ALIPLower = level, lower
	sol.OptimalEpsilonLower = sol.Epsilon
	sol.Objective, sol.Measure = p.Objective, b.Measure
	describe(p, sol)
	sol.Certificate = certificate.ExpectedOver(p, b, sol.answer(), certificate.Hint{Prior: p.Prior, Alpha: r.Alpha})
	return sol, r, true, nil
}

// expectedBoundOverSet is a proven upper bound on the robust
// expected-utility optimum: the least of the certified optima at the
// estimate and at priors π of the set's extreme points, each for the
// objective Σ π̂_i u_ij p_ij written as Σ π_i (u_ij π̂_i/π_i) p_ij. A
// mechanism that keeps the budget for every prior of the set keeps it at
// π, so each of these optima bounds the robust one (docs/theory.md §7).
// The hint holds the prior and the multipliers of the bound returned, for
// its certificate. atEstimate, when not nil, is the optimum at the
// estimate already solved (without a pattern), which is not solved again.
func expectedBoundOverSet(ctx context.Context, p *problem.Problem, u mech.Utility, b mech.Budget, pat mech.Pattern, atEstimate *expected.Result, opt Options) (float64, certificate.Hint) {
	best := math.Inf(1)
	var hint certificate.Hint
	for k, pi := range setPriors(p) {
		if ctx.Err() != nil {
			break
		}
		if k == 0 && atEstimate != nil && pat == nil {
			if atEstimate.Bound < best {
				best, hint = atEstimate.Bound, certificate.Hint{Prior: pi, Alpha: atEstimate.Alpha}
			}
			continue
		}
		w := make(mech.Utility, len(u))
		for i := range u {
			w[i] = make([]float64, len(u[i]))
			for j := range u[i] {
				w[i][j] = u[i][j] * (p.Prior[i] / pi[i])
			}
		}
		r, err := expected.Maximize(ctx, pi, w, b, expected.Options{Solver: opt.Solver, Pattern: pat, Workers: opt.workers()})
		if err == nil && r.Bound < best {
			best, hint = r.Bound, certificate.Hint{Prior: pi, Alpha: r.Alpha}
		}
	}
	if math.IsInf(best, 1) {
		return math.NaN(), certificate.Hint{}
	}
	return best, hint
}

// setPriors returns the estimate and the extreme priors of the set that
// put the least and the most mass on each letter, those with full support.
func setPriors(p *problem.Problem) []mech.Prior {
	set := p.PriorSet
	priors := []mech.Prior{p.Prior}
	n := len(p.Prior)
	for k := range n {
		c := make([]float64, n)
		c[k] = 1
		for _, hi := range []bool{false, true} {
			x := set.Extreme(c, hi)
			if _, err := mech.NewPrior(x); err == nil {
				priors = append(priors, x)
			}
		}
	}
	return priors
}

// patterns returns the zero patterns of p's worst-case objective, from the
// weakest (every pair allowed) to the strongest, and the threshold each
// stands for.
func patterns(p *problem.Problem) ([]mech.Pattern, []float64, error) {
	var pats []mech.Pattern
	var th []float64
	if p.Objective == problem.WorstCaseOrder {
		o, err := p.RequireOrder()
		if err != nil {
			return nil, nil, err
		}
		for h := 1; h <= len(o[0]); h++ {
			pats, th = append(pats, o.Pattern(h)), append(th, float64(h))
		}
		return pats, th, nil
	}
	u, err := p.RequireUtility()
	if err != nil {
		return nil, nil, err
	}
	seen := map[float64]bool{}
	var vals []float64
	for _, row := range u {
		for _, v := range row {
			if !seen[v] {
				seen[v] = true
				vals = append(vals, v)
			}
		}
	}
	sortFloats(vals)
	for _, v := range vals {
		pat := u.Pattern(v)
		if !everyRowOpen(pat) {
			break
		}
		pats, th = append(pats, pat), append(th, v)
	}
	return pats, th, nil
}

func sortFloats(v []float64) {
	for i := 1; i < len(v); i++ {
		for k := i; k > 0 && v[k] < v[k-1]; k-- {
			v[k], v[k-1] = v[k-1], v[k]
		}
	}
}

func everyRowOpen(pat mech.Pattern) bool {
	for _, row := range pat {
		open := false
		for _, a := range row {
			open = open || a
		}
		if !open {
			return false
		}
	}
	return true
}

// solveWorstCaseOverSet finds the strongest pattern for which the robust
// LP finds an ε-PML mechanism over the set, then the least ε over the set
// for that pattern by bisection on the robust LP (upper end audited), and
// the lower end as solveOverPriorSet says.
func solveWorstCaseOverSet(ctx context.Context, p *problem.Problem, eps float64, opt Options) (*Solution, error) {
	set := p.PriorSet
	slv := RobustSolver(opt)
	pats, _, err := patterns(p)
	if err != nil {
		return nil, err
	}
	lps := 0
	probe := func(pat mech.Pattern, e float64) (mech.Mechanism, *colgen.RobustMaster, error) {
		if m, g, ok := probeOverSetColumns(ctx, p, pat, e); ok {
			return m, g, nil
		}
		m, _, n, err := solveRobustLP(ctx, polytope.Spec{Prior: p.Prior, Budget: mech.Budget{Measure: mech.PML, Epsilon: e}, Pattern: pat}, set, slv)
		lps += n
		return m, nil, err
	}
	// Feasibility falls as the pattern strengthens; the weakest pattern
	// (every pair allowed) always holds the independent mechanism.
	best, bestM := -1, mech.Mechanism(nil)
	var bestG *colgen.RobustMaster // the master that found bestM, if one did
	lo, hi := 0, len(pats)-1
	for lo <= hi {
		if err := checkContext(ctx); err != nil {
			return nil, err
		}
		mid := (lo + hi) / 2
		m, g, err := probe(pats[mid], eps)
		if err != nil {
			return nil, err
		}
		if m != nil {
			best, bestM, bestG = mid, m, g
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	if best < 0 {
		return nil, fmt.Errorf("prior_set: the %s backend found no mechanism over the prior set, not even the independent one", slv.Name())
	}
	r, ok, err := leastOverSetFrom(ctx, p, pats[best], bestG, bestM, opt)
	if !ok && err == nil {
		r, err = leastOverSet(ctx, p, pats[best], bestM, opt)
	}
	if err != nil {
		return nil, err
	}
	sol := &Solution{Mechanism: r.m, Epsilon: r.upper, OptimalEpsilonLower: r.lower, Solver: slv.Name(), LPSolves: lps + r.lps,
		ExpectedUtilityBound: math.NaN(), Objective: p.Objective, Measure: mech.PML}
	describe(p, sol)
	sol.Certificate = certificate.WorstCaseOver(p, p.Objective, certificate.Answer{Mechanism: r.m, Epsilon: r.upper, Lower: r.lower}, r.hints, &mech.Budget{Measure: mech.PML, Epsilon: eps})
	if sol.Certificate != nil && sol.Certificate.Lower.Alpha != nil {
		sol.OptimalEpsilonLower = sol.Certificate.Lower.OptimalEpsilonLower // what the certificate proves
	}
	return sol, nil
}

// overSetResult is the least PML over a prior set for one pattern:
// [lower, upper] with m audited at upper over the set (upper +Inf and m
// nil when the backend finds no mechanism even at maxOverSetEpsilon; both
// +Inf when certificate.Unreachable proves that none exists).
type overSetResult struct {
	lower, upper float64
	m            mech.Mechanism
	lps          int
	hints        []certificate.Hint // the proofs behind lower, for its certificate
}

// maxOverSetEpsilon is the budget (nats) at which leastOverSet first looks
// for a mechanism when it is given none. A pattern that needs outputs some
// prior of the set never produces has none at any ε, and is answered
// before (certificate.Unreachable); one whose outputs some prior of the set
// makes rarer than e^-50 is taken for one of those.
const maxOverSetEpsilon = 50

// overSetTol is the default width of the brackets over a prior set, that
// of the searches at one prior: the robust master's last probe, just
// below an upper end that Newton's estimate reached with an audited
// mechanism, closes them there with its proof. The LP fallback's probes
// only steer its bisection.
const overSetTol = 1e-9

// leastOverSet brackets the least PML over p's prior set of a mechanism
// with the pattern: the upper end by bisection on the robust LP (each
// mechanism audited over the set), the lower end by certifiedLowerOverSet;
// both ends are +Inf, with no search, when certificate.Unreachable proves it.
// start, if not nil, is a mechanism with the pattern that keeps some
// budget over the set.
func leastOverSet(ctx context.Context, p *problem.Problem, pat mech.Pattern, start mech.Mechanism, opt Options) (overSetResult, error) {
	if start == nil && certificate.Unreachable(p, pat) {
		return overSetResult{lower: math.Inf(1), upper: math.Inf(1)}, nil
	}
	if r, ok, err := leastOverSetColumns(ctx, p, pat, opt); ok || err != nil {
		return r, err
	}
	set := p.PriorSet
	slv := RobustSolver(opt)
	var r overSetResult
	rp := &robustProber{ctx: ctx, prior: p.Prior, pat: pat, set: set, slv: slv}
	defer rp.close()
	probe := func(e float64) (mech.Mechanism, error) {
		m, n, err := rp.probe(e)
		r.lps += n
		return m, err
	}
	var hint certificate.Hint
	r.lower, hint = certifiedLowerOverSet(ctx, p, pat, opt)
	r.hints = []certificate.Hint{hint}
	r.upper, r.m = math.Inf(1), start
	if start == nil {
		m, err := probe(math.Max(r.lower, maxOverSetEpsilon))
		if err != nil {
			return r, err
		}
		r.m = m
	}
	if r.m == nil {
		return r, nil
	}
	r.upper = leakage.PMLOver(set, r.m)
	tol := opt.Tol
	if tol <= 0 {
		tol = overSetTol
	}
	a := r.lower
	for it := 0; it < 80 && r.upper-a > tol; it++ {
		if err := checkContext(ctx); err != nil {
			return r, err
		}
		mid := (a + r.upper) / 2
		m, err := probe(mid)
		if err != nil {
			return r, err
		}
		if m == nil {
			a = mid // the backend's word, not a proof: it only steers the search
			continue
		}
		r.upper, r.m = leakage.PMLOver(set, m), m
	}
	r.lower = math.Min(r.lower, r.upper)
	return r, nil
}

// curveOverSet is Curve over p's prior set: one point per threshold (for
// worst-case-value, per step of reachable utility values with the same
// ε*, ValueSteps), each with the utility-safe ε over the set (for values,
// the PML over the set of the mechanism uniform on each row's allowed
// outputs, as at one prior) and the bracket of leastOverSet.
func curveOverSet(ctx context.Context, p *problem.Problem, objective problem.Objective, opt Options) ([]Point, error) {
	q := *p
	q.Objective = objective
	if objective == "" {
		q.Objective = problem.WorstCaseOrder
	}
	if q.Objective != problem.WorstCaseOrder && q.Objective != problem.WorstCaseValue {
		return nil, fmt.Errorf("objective: curves are for worst-case-order or worst-case-value, not %q", objective)
	}
	pats, th, err := patterns(&q)
	if err != nil {
		return nil, err
	}
	if err := opt.Shard.Check(); err != nil {
		return nil, err
	}
	idx := opt.Shard.Indices(len(pats))
	var pts []Point
	// A value curve is reported by its steps of ε*, as at one prior; a
	// shard's thresholds one by one, for merge to form the steps.
	steps := func(pts []Point) []Point {
		if q.Objective != problem.WorstCaseValue || !opt.Shard.All() {
			return pts
		}
		tol := opt.Tol
		if tol <= 0 {
			tol = overSetTol
		}
		return ValueSteps(pts, tol)
	}
	for done, k := range idx {
		pat := pats[k]
		if err := checkContext(ctx); err != nil {
			return steps(pts), err
		}
		r, err := leastOverSet(ctx, &q, pat, nil, opt)
		if err != nil {
			if ctx.Err() != nil {
				return steps(pts), ctx.Err()
			}
			return steps(pts), err
		}
		safe := closedform.SafeEpsilonOver(p.PriorSet, pat)
		if q.Objective == problem.WorstCaseValue {
			safe = leakage.PMLOver(p.PriorSet, closedform.UniformOnAllowed(pat))
		}
		pt := Point{H: k + 1, Threshold: th[k], ThresholdMax: th[k], SafeEpsilon: safe,
			OptimalEpsilon: r.upper, OptimalEpsilonLower: r.lower, Mechanism: r.m, LPSolves: r.lps, WorstCaseValue: math.NaN()}
		pt = reached(p.Utility, pt)
		if q.Objective == problem.WorstCaseOrder {
			pt.H = int(th[k])
		}
		if r.m != nil {
			pt.Certificate = certificate.WorstCaseOver(&q, q.Objective, certificate.Answer{Mechanism: r.m, Epsilon: r.upper, Lower: r.lower}, r.hints, nil)
			if pt.Certificate != nil {
				pt.Certificate.Mechanism = r.m
				if pt.Certificate.Lower.Alpha != nil {
					pt.OptimalEpsilonLower = pt.Certificate.Lower.OptimalEpsilonLower
				}
			}
		}
		pts = append(pts, pt)
		if opt.Settled != nil {
			opt.Settled(pt)
		}
		if opt.Progress != nil {
			opt.Progress(done+1, len(idx))
		}
	}
	return steps(pts), nil
}

// certifiedLowerOverSet is the largest proven lower bound on the least PML
// with the pattern at the estimate and at the set's extreme priors for a
// few directions (each column of the identity, cheapest and dearest): a
// mechanism that is ε-PML for every prior of the set is ε-PML at each of
// them. The hint holds the prior and the multipliers of the bound
// returned, for its certificate.
func certifiedLowerOverSet(ctx context.Context, p *problem.Problem, pat mech.Pattern, opt Options) (float64, certificate.Hint) {
	priors := setPriors(p)
	best := 0.0
	var hint certificate.Hint
	bo := worstcase.Options{Solver: opt.solver(), Tol: opt.Tol}
	for _, pi := range priors {
		r, err := worstcase.LeastEpsilon(ctx, pi, pat, bo)
		if err == nil && r.OptimalEpsilonLower > best {
			best, hint = r.OptimalEpsilonLower, certificate.Hint{Prior: pi, Alpha: r.Proof}
		}
	}
	return best, hint
}

// solveJointOverSet is SolveJoint over p's prior set: the least PML over
// the set of the floor's pattern is bracketed by leastOverSet, a budget
// below its lower end is refused, and the expected utility is maximised
// over the dualised polytope with the pattern.
func solveJointOverSet(ctx context.Context, p *problem.Problem, floor Floor, opt Options) (*JointSolution, error) {
	b, u, pat, err := jointParts(p, floor)
	if err != nil {
		return nil, err
	}
	least, err := leastOverSet(ctx, p, pat, nil, opt)
	if err != nil {
		return nil, err
	}
	refuse := &BelowLeastEpsilonError{Epsilon: b.Epsilon, Floor: floor, Lower: least.lower, Upper: least.upper}
	if b.Epsilon < least.lower {
		return nil, refuse
	}
	slv := RobustSolver(opt)
	m, status, lps, err := solveRobustLP(ctx, polytope.Spec{Prior: p.Prior, Budget: b, Pattern: pat, Objective: polytope.ExpectedUtility, Utility: u}, p.PriorSet, slv)
	if err != nil {
		return nil, err
	}
	if m == nil {
		if b.Epsilon < least.upper {
			return nil, refuse
		}
		return nil, fmt.Errorf("prior_set: the %s backend found no mechanism (status %v) at a budget above an audited one", slv.Name(), status)
	}
	level, _ := levelOver(p.PriorSet, m, b)
	sol := Solution{Mechanism: m, Epsilon: level, OptimalEpsilonLower: level, Solver: slv.Name(), LPSolves: lps + least.lps, FullLP: true,
		Objective: problem.ExpectedUtility, Measure: b.Measure}
	var hint certificate.Hint
	sol.ExpectedUtilityBound, hint = expectedBoundOverSet(ctx, p, u, b, pat, nil, opt)
	describe(p, &sol)
	sol.Certificate = certificate.JointOver(p, b, sol.answer(), certificate.Floor(floor), pat, least.lower, least.upper, least.hints, hint)
	sol.ExpectedUtilityBound = certificate.TightenExpectedOver(p, u, b, pat, sol.Mechanism, sol.Certificate)
	if sol.Certificate.Lower.Alpha != nil {
		least.lower = sol.Certificate.Lower.OptimalEpsilonLower
	}
	return &JointSolution{Solution: sol, LeastEpsilonLower: least.lower, LeastEpsilonUpper: least.upper}, nil
}

// excessFor is how far q exceeds b: over p's prior set when it has one
// (the baselines are calibrated on it), at its prior otherwise.
func excessFor(p *problem.Problem, q mech.Mechanism, b mech.Budget) float64 {
	if p.PriorSet == nil {
		return excess(p.Prior, q, b)
	}
	level, lower := levelOver(p.PriorSet, q, b)
	if b.Measure == mech.ALIP {
		return math.Max(lower-b.EpsilonLower, level-b.EpsilonUpper)
	}
	return level - b.Epsilon
}

// expectedCurveOverSet is ExpectedCurve over p's prior set: each budget is
// solved by solveOverPriorSet.
func expectedCurveOverSet(ctx context.Context, p *problem.Problem, budgets []mech.Budget, opt Options) ([]ExpectedPoint, error) {
	pts := make([]ExpectedPoint, 0, len(budgets))
	for k, b := range budgets {
		if err := ctx.Err(); err != nil {
			return pts, err
		}
		q := *p
		q.Privacy, q.Objective = &b, problem.ExpectedUtility
		sol, err := solveOverPriorSet(ctx, &q, b, opt)
		if err != nil {
			if ctx.Err() != nil {
				return pts, ctx.Err()
			}
			return pts, fmt.Errorf("%s budget %g: %w", b.Measure, axis(b), err)
		}
		if sol.Certificate != nil {
			sol.Certificate.Mechanism = sol.Mechanism
		}
		pts = append(pts, ExpectedPoint{Budget: b, Epsilon: axis(b), Audited: sol.Epsilon, ExpectedUtility: sol.ExpectedUtility,
			ExpectedUtilityBound: sol.ExpectedUtilityBound, WorstCaseValue: sol.WorstCaseValue, WorstCaseOrder: sol.WorstCaseOrder,
			Mechanism: sol.Mechanism, Solver: sol.Solver, Certificate: sol.Certificate})
		if opt.Progress != nil {
			opt.Progress(k+1, len(budgets))
		}
	}
	return pts, nil
}
