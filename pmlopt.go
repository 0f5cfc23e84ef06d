package pmlopt

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/verify"
	"github.com/pmlopt/pmlopt/worstcase"
)

// LoadProblem reads a problem file (YAML or JSON; docs/problem-files.md lists its keys).
func LoadProblem(path string) (*problem.Problem, error) { return problem.Load(path) }

// Options configures Solve and Curve. The zero value is ready to use.
type Options struct {
	// Solver is the LP backend; nil means solver.Auto(). An ε-PML
	// expected-utility problem is solved by an interior-point method
	// certified by its own upper bound: with Solver nil an optimal vertex
	// of its face is the answer; with a Solver, that backend finds an
	// optimal vertex on the point's support, kept when it lies in the
	// point's certified bracket. LIP, ALIP and LDP budgets are solved the
	// same way, a Solver solving their whole LP (see package expected).
	Solver solver.Solver
	// FullLP solves the whole expected-utility LP with Solver even for
	// ε-PML, without the interior point: for cross-checks.
	FullLP bool
	// Tol is the width of the ε brackets of the worst-case objectives;
	// 0 means worstcase.DefaultTol (1e-9).
	Tol float64
	// Workers is the number of thresholds a curve solves at once, and the
	// goroutines over which a single solve spreads its passes (a worst-case
	// solve's column generation, an expected-utility solve's interior
	// points; the same result for any number); 0 means GOMAXPROCS.
	Workers int
	// Progress, if not nil, is called as a curve advances.
	Progress func(done, total int)
	// Stand, if not nil, is told where a worst-case Solve stands: after
	// each decision of its search for the strongest worst case the budget
	// keeps, then with the bracket of the least ε as it narrows; and
	// where SolveJoint searches the least ε of its floor, that bracket.
	// Calls come from the solving goroutine, one at a time.
	Stand func(worstcase.Stand)
	// Settled, if not nil, is called with each threshold's point of a
	// curve as soon as it is settled (in the order they settle; calls are
	// serialised), so that a caller can keep each point before the curve
	// completes. For worst-case-value every threshold is reported, not
	// only the first of each step.
	Settled func(Point)
	// Shard, if set, makes Curve solve only that shard's thresholds
	// (worstcase.Shard: the K-th of N contiguous blocks), each certified as
	// on the whole curve; for worst-case-value every threshold of the
	// shard is returned, not steps. The zero value solves the whole curve.
	Shard worstcase.Shard
	// Notify, if not nil, is told before Solve starts a step that can take
	// long (an expected-utility LP: its size, and why it is solved).
	Notify func(msg string)
}

func (o Options) solver() solver.Solver {
	if o.Solver == nil {
		return solver.Auto()
	}
	return o.Solver
}

// workers is o.Workers with 0 read as GOMAXPROCS, as Options says:
// package worstcase reads 0 so itself, package expected as one goroutine.
func (o Options) workers() int {
	if o.Workers == 0 {
		return runtime.GOMAXPROCS(0)
	}
	return o.Workers
}

func (o Options) worstCase() worstcase.Options {
	w := worstcase.Options{Solver: o.solver(), Tol: o.Tol, Workers: o.Workers, Progress: o.Progress, Stand: o.Stand, Shard: o.Shard}
	if o.Settled != nil {
		w.Settled = func(p worstcase.Point) { o.Settled(fromWorstCase(p)) }
	}
	return w
}

// Solution is an optimal mechanism and what it achieves.
type Solution struct {
	Objective problem.Objective // what was optimised
	Measure   mech.Measure      // the budget's measure
	// Epsilon is the audited level of Measure reached by Mechanism (for
	// ALIP the upper level ε_u; ALIPLower holds ε_l).
	Epsilon float64
	// OptimalEpsilonLower is a certified lower bound: for the worst-case
	// objectives the least ε at which the reported worst case is reachable
	// lies in [OptimalEpsilonLower, Epsilon]; for expected utility it equals
	// Epsilon.
	OptimalEpsilonLower float64
	ALIPLower           float64 // audited ε_l when Measure is ALIP, else 0

	// WorstCaseOrder is h(P) (0 without an order); WorstCaseValue and
	// ExpectedUtility are NaN without utilities.
	WorstCaseOrder  int
	WorstCaseValue  float64
	ExpectedUtility float64
	// ExpectedUtilityBound is a proven upper bound on the optimal expected
	// utility when the method certifies one (the interior point; for
	// ε-PML also the LP's duals), else NaN: the optimum lies in
	// [ExpectedUtility, ExpectedUtilityBound].
	ExpectedUtilityBound float64

	Mechanism mech.Mechanism
	Solver    string // the backend's name, or "ipm"
	LPSolves  int
	// FullLP reports an expected-utility optimum of the whole LP rather
	// than a vertex of the interior point's face.
	FullLP bool

	// Certificate holds what a checker needs to re-check the answer in
	// exact arithmetic (package verify, docs/certificates.md): the claimed
	// levels and worst case, and the multipliers behind OptimalEpsilonLower and
	// ExpectedUtilityBound.
	Certificate *verify.Certificate

	proof []float64 // multipliers behind OptimalEpsilonLower (worstcase.Result.Proof)
	alpha []float64 // multipliers behind ExpectedUtilityBound, in the engine's units
}

// ErrNoObjective is returned when a problem names no objective.
var ErrNoObjective = errors.New("objective: missing (want worst-case-order, worst-case-value or expected-utility)")

// Solve computes the optimal mechanism of p for its privacy budget and
// objective. Every returned mechanism has been audited: Solve fails rather
// than return a mechanism that breaks its zero pattern or budget. Its
// entries are 0 or at least certify.DustEntry, unless the budget needs a
// smaller one (a positive entry bounds its output's ratio from below under
// LIP, ALIP and LDP), as for Curve, SolveJoint and ExpectedCurve.
func Solve(ctx context.Context, p *problem.Problem, opt Options) (*Solution, error) {
	if err := ready(ctx, p); err != nil {
		return nil, err
	}
	b, err := p.RequirePrivacy()
	if err != nil {
		return nil, err
	}
	if p.PriorSet != nil {
		return solveOverPriorSet(ctx, p, b, opt)
	}
	// The engines see utilities of extreme magnitude scaled exactly by a
	// power of two (problem.ScaleExtremeUtility); what the solution
	// reaches is measured on the caller's p. A rule the active set reads
	// a column at a time is left as it is (ruleColumns).
	q := *p
	scale := 0
	if ruleColumns(p, opt) {
		// Refused before any work when its dense mechanism would not fit.
		if err := p.CheckColumns(); err != nil {
			return nil, err
		}
	} else {
		// A rule's matrix is built here, before it is scaled, for the
		// objectives solved below.
		solved := p.Objective == problem.ExpectedUtility ||
			(b.Measure == mech.PML && (p.Objective == problem.WorstCaseOrder || p.Objective == problem.WorstCaseValue))
		if solved {
			if err := q.MaterializeContext(ctx); err != nil {
				return nil, err
			}
		}
		if scale, err = q.ScaleExtremeUtility(); err != nil {
			return nil, err
		}
	}
	slv := opt.solver()
	var sol *Solution
	switch p.Objective {
	case problem.ExpectedUtility:
		sol, err = solveExpected(ctx, &q, b, opt)
	case problem.WorstCaseOrder, problem.WorstCaseValue:
		if b.Measure != mech.PML {
			return nil, fmt.Errorf("objective: %s is defined for pml budgets (Song & Oechtering 2026), the budget's measure is %s", p.Objective, b.Measure)
		}
		sol, err = solveWorstCase(ctx, &q, b.Epsilon, opt)
	case "":
		return nil, ErrNoObjective
	default:
		return nil, fmt.Errorf("objective: unknown %q", p.Objective)
	}
	if err != nil {
		return nil, err
	}
	// No dust, whatever the objective; the level reported is the cleaned
	// mechanism's audited one (worst cases: within the budget's PML, the
	// certified lower end unchanged).
	if m, r, ok := clean.DustFree(p.Prior, sol.Mechanism, b); ok {
		sol.Mechanism, sol.Epsilon, sol.ALIPLower = m, r.Level, r.ALIPLower
		if p.Objective == problem.ExpectedUtility {
			sol.OptimalEpsilonLower = r.Level
		}
	}
	sol.Objective, sol.Measure = p.Objective, b.Measure
	if sol.Solver == "" {
		sol.Solver = slv.Name()
	}
	sol.ExpectedUtilityBound = math.Ldexp(sol.ExpectedUtilityBound, scale)
	describe(p, sol)
	sol.Certificate = certificate.Solution(p, b, sol.Objective, sol.answer(), scale)
	return sol, nil
}

// solveExpected maximises the expected utility with package expected.
func solveExpected(ctx context.Context, p *problem.Problem, b mech.Budget, opt Options) (*Solution, error) {
	if ruleColumns(p, opt) {
		r, err := expected.MaximizeColumns(ctx, p.Prior, p.Rule, func() (mech.Utility, error) { return p.RequireUtilityContext(ctx) }, b, expectedOptions(opt))
		if err != nil {
			return nil, err
		}
		return expectedSolution(r), nil
	}
	u, err := p.RequireUtilityContext(ctx)
	if err != nil {
		return nil, err
	}
	r, err := expected.Maximize(ctx, p.Prior, u, b, expectedOptions(opt))
	if err != nil {
		return nil, err
	}
	return expectedSolution(r), nil
}

// expectedOptions are the options of package expected that opt gives.
func expectedOptions(opt Options) expected.Options {
	return expected.Options{Solver: opt.Solver, FullLP: opt.FullLP, Notify: opt.Notify, Workers: opt.workers()}
}

// SolvesByRule reports whether Solve answers p, under opt, reading the
// utility of p's rule a column at a time, without its N×M matrix: an
// expected utility that the active set over outputs answers (package
// expected), with no Solver or FullLP. Such a solve needs the memory of
// p.ColumnsNeed, not p.DenseNeed; a caller that loads large rules checks
// the one that applies (p.CheckColumns or p.Materialize) before the work.
func SolvesByRule(p *problem.Problem, opt Options) bool { return ruleColumns(p, opt) }

// ruleColumns reports whether the expected-utility solve of p reads the
// utility of its rule a column at a time (expected.MaximizeColumns)
// rather than as an N×M matrix: a problem of a rule without its dense
// utility that the active set over outputs answers, whose utilities are
// of moderate size (problem.Problem.ScaleExtremeUtility would leave them
// as they are). Such a solve holds O(N + M) numbers of the utility
// besides the restricted problems' columns.
func ruleColumns(p *problem.Problem, opt Options) bool {
	r := p.Rule
	if r == nil || p.Utility != nil || p.Objective != problem.ExpectedUtility || p.PriorSet != nil {
		return false
	}
	if n, m := r.Dims(); !expected.UsesColumns(n, m, expectedOptions(opt)) {
		return false
	}
	return r.MaxAbsWithin(1/moderateUtility, moderateUtility)
}

// moderateUtility bounds the utility magnitudes the engines take as they
// are: problem.Problem.ScaleExtremeUtility's range [2^−20, 2^20].
const moderateUtility = 0x1p20

// expectedSolution is the Solution of the expected-utility optimum r (its
// objective, measure and description are the caller's to fill).
func expectedSolution(r expected.Result) *Solution {
	return &Solution{Mechanism: r.Mechanism, Epsilon: r.Epsilon, OptimalEpsilonLower: r.Epsilon, ALIPLower: r.ALIPLower,
		ExpectedUtilityBound: r.Bound, Solver: r.Solver, LPSolves: r.LPSolves, FullLP: r.FullLP, alpha: r.Alpha}
}

// solveWorstCase answers problem (1) of Song & Oechtering (2026) with package worstcase.
func solveWorstCase(ctx context.Context, p *problem.Problem, eps float64, opt Options) (*Solution, error) {
	var r worstcase.Result
	var err error
	if p.Objective == problem.WorstCaseOrder {
		var o mech.Order
		if o, err = p.RequireOrderContext(ctx); err != nil {
			return nil, err
		}
		_, r, err = worstcase.BestOrder(ctx, p.Prior, o, eps, opt.worstCase())
	} else {
		var u mech.Utility
		if u, err = p.RequireUtilityContext(ctx); err != nil {
			return nil, err
		}
		_, r, err = worstcase.BestValue(ctx, p.Prior, u, eps, opt.worstCase())
	}
	if err != nil {
		return nil, err
	}
	return &Solution{Mechanism: r.Mechanism, Epsilon: r.OptimalEpsilon, OptimalEpsilonLower: r.OptimalEpsilonLower, LPSolves: r.LPSolves,
		ExpectedUtilityBound: math.NaN(), proof: r.Proof}, nil
}

// describe fills the utility summaries of sol from p: from its rule,
// an entry at a time, when p holds no dense utility (ruleColumns).
func describe(p *problem.Problem, sol *Solution) {
	sol.WorstCaseValue, sol.ExpectedUtility = math.NaN(), math.NaN()
	if r := p.Rule; r != nil && p.Utility == nil && p.Order == nil {
		sol.WorstCaseOrder = r.WorstCaseOrder(sol.Mechanism)
		sol.WorstCaseValue = r.WorstCaseValue(sol.Mechanism)
		sol.ExpectedUtility = r.ExpectedUtility(p.Prior, sol.Mechanism)
		return
	}
	if p.Order != nil {
		sol.WorstCaseOrder = p.Order.WorstCaseOrder(sol.Mechanism)
	}
	if p.Utility != nil {
		sol.WorstCaseValue = p.Utility.WorstCaseValue(sol.Mechanism)
		sol.ExpectedUtility = p.Utility.ExpectedUtility(p.Prior, sol.Mechanism)
	}
}

// answer is what sol's certificate restates.
func (sol *Solution) answer() certificate.Answer {
	return certificate.Answer{Mechanism: sol.Mechanism, Epsilon: sol.Epsilon, ALIPLower: sol.ALIPLower,
		Lower: sol.OptimalEpsilonLower, Proof: sol.proof,
		Value: sol.ExpectedUtility, Bound: sol.ExpectedUtilityBound, Alpha: sol.alpha}
}

// Point is one point of a trade-off curve.
//
// For worst-case-order, H is the order threshold h and Threshold =
// float64(H). For worst-case-value, Threshold is a utility value v (pairs
// with u'_ij < v are forbidden) and H is its 1-based position among the
// reachable distinct values. ThresholdMax is the largest threshold with the
// same optimal ε: the best worst case reachable at OptimalEpsilon (for
// worst-case-order, ThresholdMax = Threshold).
//
// SafeEpsilon is the PML of the utility-safe mechanism of the threshold.
// The least PML ε* of a mechanism reaching the threshold lies in
// [OptimalEpsilonLower, OptimalEpsilon]: the lower end is certified, the
// upper one is the audited PML of Mechanism. LPSolves counts the LPs spent
// on this point (0 when its bracket followed from its neighbours').
// Failure is the engine error that left the bracket wider than the
// tolerance after every other route was tried (nil when settled); the
// bracket is certified all the same.
type Point struct {
	H                   int
	Threshold           float64
	ThresholdMax        float64
	SafeEpsilon         float64
	OptimalEpsilon      float64
	OptimalEpsilonLower float64
	Mechanism           mech.Mechanism
	// WorstCaseValue is the worst-case utility value Mechanism reaches
	// (at least ThresholdMax); NaN without a utility or a mechanism.
	WorstCaseValue float64
	LPSolves       int
	Failure        error
	// Certificate is the point's certificate (package verify): its
	// mechanism, the worst case it reaches and the multipliers behind
	// OptimalEpsilonLower; nil without a mechanism.
	Certificate *verify.Certificate

	proof []float64 // worstcase.Point.Proof
}

// ValueSteps forms the steps of a value curve from every threshold's
// point, as worstcase.ValueCurve does: a step starts at the first
// threshold and wherever a threshold's upper end exceeds the step's first
// lower end by more than tol (worstcase.LeavesStep; thresholds that no
// budget reaches, [+Inf, +Inf], form one step). It is reported at its
// first threshold with that threshold's utility-safe ε, reaching to its
// last threshold, whose bracket, mechanism, worst case and certificate it
// carries, with the LP solves of all its thresholds.
func ValueSteps(all []Point, tol float64) []Point {
	var starts []int
	for k, pt := range all {
		if k == 0 || worstcase.LeavesStep(all[starts[len(starts)-1]].OptimalEpsilonLower, pt.OptimalEpsilon, tol) {
			starts = append(starts, k)
		}
	}
	out := make([]Point, 0, len(starts))
	for s, k := range starts {
		last := len(all) - 1
		if s+1 < len(starts) {
			last = starts[s+1] - 1
		}
		pt := all[last]
		pt.H, pt.Threshold, pt.SafeEpsilon = all[k].H, all[k].Threshold, all[k].SafeEpsilon
		pt.LPSolves = 0
		for _, q := range all[k : last+1] {
			pt.LPSolves += q.LPSolves
		}
		out = append(out, pt)
	}
	return out
}

// answer is what pt's certificate restates.
func (pt Point) answer() certificate.Answer {
	return certificate.Answer{Mechanism: pt.Mechanism, Epsilon: pt.OptimalEpsilon, Lower: pt.OptimalEpsilonLower, Proof: pt.proof}
}

func fromWorstCase(pt worstcase.Point) Point {
	return Point{H: pt.H, Threshold: pt.Threshold, ThresholdMax: pt.ThresholdMax, SafeEpsilon: pt.SafeEpsilon,
		OptimalEpsilon: pt.OptimalEpsilon, OptimalEpsilonLower: pt.OptimalEpsilonLower,
		Mechanism: pt.Mechanism, LPSolves: pt.LPSolves, Failure: pt.Failure, WorstCaseValue: math.NaN(), proof: pt.Proof}
}

// reached fills pt.WorstCaseValue from u: what the point's mechanism
// reaches, which may lie above the step's lowest threshold.
func reached(u mech.Utility, pt Point) Point {
	if u != nil && pt.Mechanism != nil {
		pt.WorstCaseValue = u.WorstCaseValue(pt.Mechanism)
	}
	return pt
}

// Curve computes the trade-off curve of p for a worst-case objective: for
// every order h (worst-case-order) or every reachable utility value where
// the optimal ε changes (worst-case-value), the utility-safe ε and the
// optimal ε with its certified lower bound. An empty objective means
// worst-case-order. If ctx is cancelled, Curve returns the points resolved
// so far with ctx.Err().
func Curve(ctx context.Context, p *problem.Problem, objective problem.Objective, opt Options) ([]Point, error) {
	if ctx == nil {
		if err := check(p); err != nil {
			return nil, err
		}
		// A done context is no error here: the curve has the points that
		// need no LP.
		return nil, errNilContext
	}
	// A context done before the call asks for the points that need no LP,
	// which need the whole check and a rule's order; one that ends during
	// the check or the derivation ends the curve there, with no point
	// resolved.
	vctx := ctx
	if ctx.Err() != nil {
		vctx = context.Background()
	}
	if err := p.ValidateContext(vctx); err != nil {
		return nil, err
	}
	if p.PriorSet != nil {
		return curveOverSet(ctx, p, objective, opt)
	}
	// As in Solve: extreme utilities are scaled exactly for the engines,
	// thresholds are reported in p's units.
	q := *p
	scale, err := q.ScaleExtremeUtility()
	if err != nil {
		return nil, err
	}
	inUnits := func(pt Point) Point {
		pt.Threshold, pt.ThresholdMax = math.Ldexp(pt.Threshold, scale), math.Ldexp(pt.ThresholdMax, scale)
		// No dust (as in Solve): the cleaned copy must audit within the
		// point's upper end (certify.AuditTol), which becomes its level.
		if pt.Mechanism != nil {
			if m, r, ok := clean.DustFree(p.Prior, pt.Mechanism, mech.Budget{Measure: mech.PML, Epsilon: pt.OptimalEpsilon}); ok {
				pt.Mechanism, pt.OptimalEpsilon = m, r.Level
			}
		}
		pt = reached(p.Utility, pt)
		pt.Certificate = certificate.Point(p, objective, pt.answer())
		return pt
	}
	var pts []worstcase.Point
	if settled := opt.Settled; settled != nil {
		opt.Settled = func(pt Point) { settled(inUnits(pt)) }
	}
	switch objective {
	case problem.WorstCaseOrder, "":
		var o mech.Order
		if o, err = p.RequireOrderContext(vctx); err != nil {
			return nil, err
		}
		pts, err = worstcase.OrderCurve(ctx, p.Prior, o, opt.worstCase())
	case problem.WorstCaseValue:
		var u mech.Utility
		if u, err = q.RequireUtilityContext(vctx); err != nil {
			return nil, err
		}
		pts, err = worstcase.ValueCurve(ctx, p.Prior, u, opt.worstCase())
	default:
		return nil, fmt.Errorf("objective: curves are for worst-case-order or worst-case-value, not %q", objective)
	}
	// A cancelled curve returns the points resolved so far with ctx.Err().
	out := make([]Point, len(pts))
	for k, pt := range pts {
		out[k] = inUnits(fromWorstCase(pt))
	}
	if pts == nil {
		out = nil
	}
	return out, err
}

// Audit computes every measure of docs/theory.md §2 for p's prior and mechanism, with
// maximal α-leakage, (α,β)-leakage and LRDP at the given orders.
func Audit(p *problem.Problem, alpha, beta float64) (leakage.Report, error) {
	return AuditContext(context.Background(), p, alpha, beta)
}

// AuditContext is Audit stopping when ctx ends: maximal α- and
// (α,β)-leakage are maximisations that take seconds at a thousand letters.
func AuditContext(ctx context.Context, p *problem.Problem, alpha, beta float64) (leakage.Report, error) {
	if err := ready(ctx, p); err != nil {
		return leakage.Report{}, err
	}
	m, err := p.RequireMechanism()
	if err != nil {
		return leakage.Report{}, err
	}
	return leakage.AuditContext(ctx, p.Prior, m, alpha, beta)
}
