package pmlopt

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/bisect"
	"github.com/pmlopt/pmlopt/ipm"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// LoadProblem reads a problem file (YAML or JSON, SPEC §7).
func LoadProblem(path string) (*problem.Problem, error) { return problem.Load(path) }

// Options configures Solve and Curve. The zero value is ready to use.
type Options struct {
	// Solver is the LP backend; nil means solver.Auto(). An ε-PML
	// expected-utility problem is solved by package ipm's structured
	// interior-point method, certified by its upper bound: with Solver nil
	// ipm.SolveVertex turns its point into an optimal vertex; with a
	// Solver, that backend then finds an
	// optimal vertex on the point's support (an LP of about a tenth of the
	// pairs). Should ipm fail to certify, the full LP is solved. LIP, ALIP
	// and LDP budgets go to ipm.SolveRatio when Solver is nil.
	Solver solver.Solver
	// FullLP solves the whole expected-utility LP with Solver even for
	// ε-PML, without package ipm: for cross-checks.
	FullLP bool
	// Tol is the width of the ε brackets of the worst-case objectives;
	// 0 means bisect.DefaultTol (1e-9).
	Tol float64
	// Workers is the number of thresholds a curve solves at once; 0 means
	// GOMAXPROCS.
	Workers int
	// Progress, if not nil, is called as a curve advances.
	Progress func(done, total int)
	// Probes says who answers the worst-case searches' probes (see
	// bisect.Options.Probes); the zero value asks the column generation
	// first below bisect.IPMLetters letters and ipm.Probe from there.
	Probes bisect.Probes
}

func (o Options) solver() solver.Solver {
	if o.Solver == nil {
		return solver.Auto()
	}
	return o.Solver
}

func (o Options) bisect() bisect.Options {
	return bisect.Options{Solver: o.solver(), Tol: o.Tol, Workers: o.Workers, Progress: o.Progress, Probes: o.Probes}
}

// Solution is an optimal mechanism and what it achieves (SPEC §8).
type Solution struct {
	Status    string            // "optimal"
	Objective problem.Objective // what was optimised
	Measure   mech.Measure      // the budget's measure
	// Epsilon is the audited level of Measure reached by Mechanism (for
	// ALIP the upper level ε_u; ALIPLower holds ε_l).
	Epsilon float64
	// EpsilonLower is a certified lower bound: for the worst-case
	// objectives the least ε at which the reported worst case is reachable
	// lies in [EpsilonLower, Epsilon]; for expected utility it equals
	// Epsilon.
	EpsilonLower float64
	ALIPLower    float64 // audited ε_l when Measure is ALIP, else 0

	// WorstCaseOrder is h(P) (0 without an order); WorstCaseValue and
	// ExpectedUtility are NaN without utilities.
	WorstCaseOrder  int
	WorstCaseValue  float64
	ExpectedUtility float64
	// ExpectedUtilityBound is a proven upper bound on the optimal expected
	// utility when the method certifies one (ipm), else NaN: the optimum
	// lies in [ExpectedUtility, ExpectedUtilityBound].
	ExpectedUtilityBound float64

	Mechanism mech.Mechanism
	Solver    string // the backend's name, or "ipm"
	LPSolves  int
}

// ErrNoObjective is returned when a problem names no objective.
var ErrNoObjective = errors.New("objective: missing (want worst-case-order, worst-case-value or expected-utility)")

// Solve computes the optimal mechanism of p for its privacy budget and
// objective. Every returned mechanism has been audited: Solve fails rather
// than return a mechanism that breaks its zero pattern or budget.
func Solve(ctx context.Context, p *problem.Problem, opt Options) (*Solution, error) {
	b, err := p.RequirePrivacy()
	if err != nil {
		return nil, err
	}
	slv := opt.solver()
	var sol *Solution
	switch p.Objective {
	case problem.ExpectedUtility:
		if b.Measure == mech.PML && !opt.FullLP {
			if sol, err = solveStructured(p, b, opt.Solver); err == nil {
				break
			}
			if !errors.Is(err, errUncertified) {
				return nil, err
			}
		}
		if b.Measure != mech.PML && !opt.FullLP && opt.Solver == nil {
			if sol, err = solveRatio(p, b); err == nil {
				break
			}
		}
		sol, err = solveExpected(p, b, slv)
	case problem.WorstCaseOrder, problem.WorstCaseValue:
		if b.Measure != mech.PML {
			return nil, fmt.Errorf("objective: %s is defined for pml budgets (seed 002), the file's measure is %s", p.Objective, b.Measure)
		}
		sol, err = solveWorstCase(ctx, p, b.Epsilon, opt)
	case "":
		return nil, ErrNoObjective
	default:
		return nil, fmt.Errorf("objective: unknown %q", p.Objective)
	}
	if err != nil {
		return nil, err
	}
	sol.Objective, sol.Measure, sol.Status = p.Objective, b.Measure, "optimal"
	if sol.Solver == "" {
		sol.Solver = slv.Name()
	}
	describe(p, sol)
	return sol, nil
}

// errUncertified means that package ipm could not certify the optimum, or
// that the LP on its support disagreed with its certificate: the full LP
// decides.
var errUncertified = errors.New("pmlopt: the structured solve was not certified")

// solveStructured maximises the expected utility over the ε-PML polytope
// with package ipm. With slv nil the answer is the optimal vertex
// ipm.SolveVertex finds on the certified interior point's face. With a backend, the backend finishes the solve on the LP
// restricted to the pairs the interior point uses (entries above 1e-9:
// its optimal face, about 10 % of the pairs at N = 128). Its optimum is
// accepted when its value lies within ipm's bracket [value, bound] (up to
// 1e-9): it is then optimal for the full LP to within that bracket, and
// it is a vertex, which Clp finds in a few hundredths of a second where
// the full LP takes seconds.
func solveStructured(p *problem.Problem, b mech.Budget, slv solver.Solver) (*Solution, error) {
	u, err := p.RequireUtility()
	if err != nil {
		return nil, err
	}
	solve := ipm.Solve // a backend finishes on the interior point's support
	if slv == nil {
		solve = ipm.SolveVertex // an optimal vertex, purified in pure Go
	}
	r, err := solve(ipm.Problem{Prior: p.Prior, Utility: u, Epsilon: b.Epsilon}, ipm.Options{})
	if errors.Is(err, ipm.ErrNotConverged) {
		return nil, errUncertified
	}
	if err != nil {
		return nil, err
	}
	if slv == nil {
		lvl, lower, _, err := audited(p.Prior, r.Mechanism, b)
		if err != nil {
			return nil, errUncertified
		}
		return &Solution{Mechanism: r.Mechanism, Epsilon: lvl, EpsilonLower: lvl, ALIPLower: lower,
			ExpectedUtilityBound: r.Bound, Solver: "ipm"}, nil
	}
	support := make(mech.Pattern, len(r.Mechanism))
	for i, row := range r.Mechanism {
		support[i] = make([]bool, len(row))
		for j, v := range row {
			support[i][j] = v > supportEntry
		}
	}
	mod, err := polytope.Build(polytope.Spec{Prior: p.Prior, Budget: b, Objective: polytope.ExpectedUtility, Utility: u, Pattern: support})
	if err != nil {
		return nil, err
	}
	sol, err := solveModel(p.Prior, b, mod, slv)
	if err != nil {
		return nil, errUncertified
	}
	v := u.ExpectedUtility(p.Prior, sol.Mechanism)
	slack := 1e-9 * math.Max(1, math.Abs(r.Value))
	if v < r.Value-slack || v > r.Bound+slack {
		return nil, errUncertified
	}
	sol.Solver, sol.ExpectedUtilityBound = slv.Name(), math.Max(r.Bound, v)
	return sol, nil
}

// solveRatio maximises the expected utility under a LIP, ALIP or LDP
// budget with ipm.SolveRatio, certified by its upper bound; any failure
// leaves the problem to the full LP.
func solveRatio(p *problem.Problem, b mech.Budget) (*Solution, error) {
	u, err := p.RequireUtility()
	if err != nil {
		return nil, err
	}
	r, err := ipm.SolveRatio(ipm.RatioProblem{Prior: p.Prior, Utility: u, Budget: b}, ipm.Options{})
	if err != nil {
		return nil, errUncertified
	}
	lvl, lower, _, err := audited(p.Prior, r.Mechanism, b)
	if err != nil {
		return nil, errUncertified
	}
	return &Solution{Mechanism: r.Mechanism, Epsilon: lvl, EpsilonLower: lvl, ALIPLower: lower,
		ExpectedUtilityBound: r.Bound, Solver: "ipm"}, nil
}

// supportEntry is the size above which an entry of ipm's interior point
// counts as used: entries off the optimal face are about 1e-13.
const supportEntry = 1e-9

// solveExpected maximises the expected utility over the budget's polytope.
func solveExpected(p *problem.Problem, b mech.Budget, slv solver.Solver) (*Solution, error) {
	u, err := p.RequireUtility()
	if err != nil {
		return nil, err
	}
	mod, err := polytope.Build(polytope.Spec{Prior: p.Prior, Budget: b, Objective: polytope.ExpectedUtility, Utility: u})
	if err != nil {
		return nil, err
	}
	return solveModel(p.Prior, b, mod, slv)
}

// solveModel solves an expected-utility model with slv and audits the
// optimum, polished if it exceeds the budget.
func solveModel(pi mech.Prior, b mech.Budget, mod *polytope.Model, slv solver.Solver) (*Solution, error) {
	// The model as built first. Engines keep each row feasible to an
	// absolute 1e-9, which lets an output of little mass exceed the budget
	// by far more (Clp's optimum audited 1.6e-8 above ε at N = 32, 4.5e-6
	// at 40, 2.6e-8 at 128). If it does by more than polishTol, or fails
	// the audit, the optimum is polished: the same LP is solved again with
	// every row multiplied by polytope.RowScale (exact; a 1024× tighter
	// tolerance), starting from the first solve's basis where the backend
	// gives one (Clp: a few iterations). Scaling from the start would slow the
	// pure-Go backend 15× (its optimum is exact here anyway) and gonum's
	// Simplex finds the scaled basis singular.
	res, basis, err := solveFrom(slv, mod.LP, nil)
	if err := optimal(slv, res, err); err != nil {
		return nil, err
	}
	sol, x, auditErr := assess(pi, b, mod, res)
	sol.LPSolves = 1
	if auditErr == nil && x <= polishTol {
		return sol, nil
	}
	res, _, err = solveFrom(slv, mod.LP.ScaledRows(polytope.RowScale), basis)
	if optimal(slv, res, err) == nil {
		// Both are optima of the same LP: keep the one nearer the budget.
		if sol2, x2, err2 := assess(pi, b, mod, res); err2 == nil && (auditErr != nil || x2 < x) {
			sol, auditErr = sol2, nil
		}
	}
	if auditErr != nil {
		return nil, auditErr
	}
	sol.LPSolves = 2
	return sol, nil
}

// optimal turns a solve that did not end optimal into an error: every
// polytope holds the independent mechanism, so that is an engine failure,
// not a property of the problem.
func optimal(slv solver.Solver, res *solver.Solution, err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("solver %s: %w", slv.Name(), err)
	case res.Status != solver.Optimal:
		return fmt.Errorf("solver %s: %s on a feasible problem", slv.Name(), res.Status)
	}
	return nil
}

// assess extracts and audits the mechanism of an optimal solution, and
// returns how far it exceeds the budget.
func assess(pi mech.Prior, b mech.Budget, mod *polytope.Model, res *solver.Solution) (*Solution, float64, error) {
	m := mod.Mechanism(res.X)
	lvl, lower, x, err := audited(pi, m, b)
	return &Solution{Mechanism: m, Epsilon: lvl, EpsilonLower: lvl, ALIPLower: lower, ExpectedUtilityBound: math.NaN()}, x, err
}

// polishTol is the excess over the budget above which an expected-utility
// optimum is polished by a solve of the row-scaled LP.
const polishTol = 1e-9

// solveFrom solves lpm with slv, starting from basis start when the backend
// takes one (row scaling changes no basis status), and returns the final
// basis when the backend gives one.
func solveFrom(slv solver.Solver, lpm *lp.Model, start *solver.Basis) (*solver.Solution, *solver.Basis, error) {
	ws, ok := slv.(solver.WarmSolver)
	if !ok {
		res, err := slv.Solve(lpm)
		return res, nil, err
	}
	sess, err := ws.Load(lpm)
	if err != nil {
		return nil, nil, err
	}
	defer sess.Close()
	bs, ok := sess.(solver.BasisSession)
	if ok && start != nil {
		_ = bs.SetBasis(*start) // a refused basis only costs the warm start
	}
	res, err := sess.Solve()
	if err != nil || !ok {
		return res, nil, err
	}
	if b, ok := bs.Basis(); ok {
		return res, &b, nil
	}
	return res, nil, nil
}

// solveWorstCase answers problem (1) of seed 002 with bisect.
func solveWorstCase(ctx context.Context, p *problem.Problem, eps float64, opt Options) (*Solution, error) {
	var r bisect.Result
	var err error
	if p.Objective == problem.WorstCaseOrder {
		var o mech.Order
		if o, err = p.RequireOrder(); err != nil {
			return nil, err
		}
		_, r, err = bisect.BestOrder(ctx, p.Prior, o, eps, opt.bisect())
	} else {
		var u mech.Utility
		if u, err = p.RequireUtility(); err != nil {
			return nil, err
		}
		_, r, err = bisect.BestValue(ctx, p.Prior, u, eps, opt.bisect())
	}
	if err != nil {
		return nil, err
	}
	return &Solution{Mechanism: r.Mechanism, Epsilon: r.EpsUpper, EpsilonLower: r.EpsLower, LPSolves: r.LPSolves,
		ExpectedUtilityBound: math.NaN()}, nil
}

// auditTol is the slack within which a returned mechanism must meet its
// budget; the LP engines work to 1e-9 feasibility.
const auditTol = 1e-7

// audited returns the level of b's measure that m reaches (ε_u and ε_l for
// ALIP) and how far it exceeds the budget (negative below it; for ALIP the
// larger of the two excesses), and fails if it exceeds the budget by more
// than auditTol.
func audited(pi mech.Prior, m mech.Mechanism, b mech.Budget) (level, alipLower, excess float64, err error) {
	var limit float64
	excess = math.Inf(-1)
	switch b.Measure {
	case mech.PML:
		level, limit = leakage.PML(pi, m), b.Epsilon
	case mech.LIP:
		level, limit = leakage.LIP(pi, m), b.Epsilon
	case mech.LDP:
		level, limit = leakage.LDP(pi, m), b.Epsilon
	case mech.ALIP:
		alipLower, level = leakage.ALIP(pi, m)
		if excess = alipLower - b.EpsilonLower; excess > auditTol {
			return 0, 0, 0, fmt.Errorf("audit: the solver's mechanism has ALIP ε_l = %g above the budget %g", alipLower, b.EpsilonLower)
		}
		limit = b.EpsilonUpper
	default:
		return 0, 0, 0, fmt.Errorf("privacy.measure: unknown %q", b.Measure)
	}
	if level > limit+auditTol {
		return 0, 0, 0, fmt.Errorf("audit: the solver's mechanism has %s %g above the budget %g", b.Measure, level, limit)
	}
	return level, alipLower, math.Max(excess, level-limit), nil
}

// describe fills the utility summaries of sol from p.
func describe(p *problem.Problem, sol *Solution) {
	sol.WorstCaseValue, sol.ExpectedUtility = math.NaN(), math.NaN()
	if p.Order != nil {
		sol.WorstCaseOrder = p.Order.WorstCaseOrder(sol.Mechanism)
	}
	if p.Utility != nil {
		sol.WorstCaseValue = p.Utility.WorstCaseValue(sol.Mechanism)
		sol.ExpectedUtility = p.Utility.ExpectedUtility(p.Prior, sol.Mechanism)
	}
}

// Curve computes the trade-off curve of p for a worst-case objective: for
// every order h (worst-case-order) or every reachable utility value where
// the optimal ε changes (worst-case-value), the utility-safe ε and the
// optimal ε with its certified lower bound. An empty objective means
// worst-case-order.
func Curve(ctx context.Context, p *problem.Problem, objective problem.Objective, opt Options) ([]bisect.Point, error) {
	switch objective {
	case problem.WorstCaseOrder, "":
		o, err := p.RequireOrder()
		if err != nil {
			return nil, err
		}
		return bisect.OrderCurve(ctx, p.Prior, o, opt.bisect())
	case problem.WorstCaseValue:
		u, err := p.RequireUtility()
		if err != nil {
			return nil, err
		}
		return bisect.ValueCurve(ctx, p.Prior, u, opt.bisect())
	}
	return nil, fmt.Errorf("objective: curves are for worst-case-order or worst-case-value, not %q", objective)
}

// Audit computes every measure of SPEC §2 for p's prior and mechanism, with
// maximal α-leakage, (α,β)-leakage and LRDP at the given orders.
func Audit(p *problem.Problem, alpha, beta float64) (leakage.Report, error) {
	m, err := p.RequireMechanism()
	if err != nil {
		return leakage.Report{}, err
	}
	return leakage.Audit(p.Prior, m, alpha, beta)
}
