package overset

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
)

// Route is the way an expected utility over a set was found, which says
// which of Expected's fields hold its proof.
type Route int

const (
	// AtEstimate is the optimum at the estimate, which keeps the budget
	// over the set and is then the optimum over it.
	AtEstimate Route = iota
	// InteriorPoint is ipm.SolveRobust's answer.
	InteriorPoint
	// LP is the LP backend's answer over the set.
	LP
)

// Expected is the expected-utility optimum over a prior set.
type Expected struct {
	Route Route
	// Mechanism keeps the budget over the set; Level and ALIPLower are its
	// levels over the set (ε_u and ε_l under ALIP).
	Mechanism        mech.Mechanism
	Level, ALIPLower float64
	// Bound is a proven upper bound on the optimum over the set: for
	// InteriorPoint at least the mechanism's value, for LP the least of
	// the bounds at the set's priors (NaN when none was proven); unset for
	// AtEstimate, whose bound is Estimate's.
	Bound float64
	// Proof is the prior and the multipliers of the bound (AtEstimate,
	// LP).
	Proof certificate.Hint
	// Estimate is the optimum at the estimate (AtEstimate).
	Estimate *expected.Result
	// Robust is the interior point's result, and Priors its priors per
	// output raised above the set, those its bound holds at
	// (InteriorPoint). For LP it is, when not nil, the interior points'
	// result the LP replaced: under LIP and ALIP its multipliers may
	// prove a lower bound than Bound (certificate.TwoPriorBound).
	Robust *ipm.RobustResult
	Priors [][]float64
	// LPs is the number of LPs solved (LP).
	LPs int
	// Duals is, for LP, the multipliers the last LP's row duals give, in
	// the interior point's shapes (Alpha, Priors, and under LIP and ALIP
	// PriorsUpper, PriorsLower and CapWeights): they may prove a bound far
	// below Bound, and the certificate keeps the one verify accepts.
	Duals *ipm.RobustResult
}

// MaximizeExpected maximises the expected utility u under the estimate
// over the mechanisms that keep b for every prior of p's set. The routes,
// the first that answers deciding: at a zero budget the optimum at the
// estimate (the interior points over the set find no interior there);
// the interior points over the set; the optimum at the estimate where it
// keeps the budget over the set; the LP backend, started from what the
// interior points left, its bound the least of those at the set's priors.
func MaximizeExpected(ctx context.Context, p *problem.Problem, u mech.Utility, b mech.Budget, o Options) (Expected, error) {
	var atEstimate *expected.Result // the optimum at the estimate, once solved
	tried := false
	if zeroBudget(b) {
		r, ok, err := fromEstimate(ctx, p, u, b, o)
		if ok || err != nil {
			return r, err
		}
		atEstimate, tried = r.Estimate, true
	}
	if n, m := len(p.Prior), len(u[0]); n*m >= noteExpectedPairs && o.Expected.Notify != nil {
		o.Expected.Notify(fmt.Sprintf("maximising the expected utility over the prior set by interior points on the %d×%d problem, with a prior of the set per output: at this size that can take a minute or more", n, m))
	}
	r, ok, start, err := byInteriorPoint(ctx, p, u, b, o)
	if ok || err != nil {
		return r, err
	}
	if !tried {
		r, ok, err := fromEstimate(ctx, p, u, b, o)
		if ok || err != nil {
			return r, err
		}
		atEstimate = r.Estimate
	}
	slv := o.Solver
	m, status, lps, proof, err := solveLPProof(ctx, polytope.Spec{Prior: p.Prior, Budget: b, Objective: polytope.ExpectedUtility, Utility: u, Start: start.point}, p.PriorSet, slv, start.dualise)
	if err != nil {
		return Expected{}, err
	}
	if m == nil {
		return Expected{}, fmt.Errorf("prior_set: the %s backend found no mechanism (status %v)", slv.Name(), status)
	}
	r = Expected{Route: LP, Mechanism: m, LPs: lps, Robust: start.robust}
	if proof != nil {
		r.Duals = &ipm.RobustResult{Alpha: proof.Alpha, Priors: proof.Up, PriorsUpper: proof.Up, PriorsLower: proof.Down, CapWeights: proof.Totals}
	}
	r.Level, r.ALIPLower = levelOver(p.PriorSet, m, b)
	r.Bound, r.Proof = ExpectedBound(ctx, p, u, b, nil, atEstimate, o)
	return r, nil
}

// noteExpectedPairs is the size (inputs × outputs) from which
// MaximizeExpected tells its caller that the interior points over the set
// can take a while: the users' progress note on long work.
const noteExpectedPairs = 500 * 500

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

// fromEstimate answers the expected utility over p's set with the optimum
// at the estimate π̂ when that optimum keeps the budget over the set: the
// robust feasible set lies inside the one at π̂, so it is then the robust
// optimum, and the bound proven at π̂ holds over the set. At a zero budget
// it does (zeroBudget: its rows are equal), and at budgets near zero it
// does to within the audit's tolerance, where the interior points over
// the set find no interior and the LP over it stalls on its degenerate
// vertices. r.Estimate is that optimum (nil when not found); ok is false,
// with no error, when it is not found or breaks the budget over the set:
// the other routes then decide.
func fromEstimate(ctx context.Context, p *problem.Problem, u mech.Utility, b mech.Budget, o Options) (r Expected, ok bool, err error) {
	res, err := expected.Maximize(ctx, p.Prior, u, b, o.Expected)
	if err != nil {
		if ctx.Err() != nil {
			return r, false, ctx.Err()
		}
		return r, false, nil
	}
	r.Estimate = &res
	level, lower, excess := leakage.LevelOver(p.PriorSet, res.Mechanism, b)
	if !(excess <= certify.AuditTol) {
		return r, false, nil
	}
	r = Expected{Route: AtEstimate, Mechanism: res.Mechanism, Level: level, ALIPLower: lower, Estimate: &res,
		Proof: certificate.Hint{Prior: p.Prior, Alpha: res.Alpha}}
	return r, true, nil
}

// ExpectedBound is a proven upper bound on the expected-utility optimum
// over p's set with the pattern (nil: none): the least of the certified
// optima at the estimate and at priors π of the set's extreme points,
// each for the objective Σ π̂_i u_ij p_ij written as Σ π_i (u_ij π̂_i/π_i)
// p_ij. A mechanism that keeps the budget for every prior of the set keeps
// it at π, so each of these optima bounds the robust one (docs/theory.md
// §7). The hint holds the prior and the multipliers of the bound
// returned, for its certificate; the bound is NaN when none was proven.
// atEstimate, when not nil, is the optimum at the estimate already solved
// (without a pattern), which is not solved again.
func ExpectedBound(ctx context.Context, p *problem.Problem, u mech.Utility, b mech.Budget, pat mech.Pattern, atEstimate *expected.Result, o Options) (float64, certificate.Hint) {
	best := math.Inf(1)
	var hint certificate.Hint
	for k, pi := range setPriors(p.Prior, p.PriorSet) {
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
		r, err := expected.Maximize(ctx, pi, w, b, expected.Options{Solver: o.Expected.Solver, Pattern: pat, Workers: o.Expected.Workers})
		if err == nil && r.Bound < best {
			best, hint = r.Bound, certificate.Hint{Prior: pi, Alpha: r.Alpha}
		}
	}
	if math.IsInf(best, 1) {
		return math.NaN(), certificate.Hint{}
	}
	return best, hint
}

// Joint is the expected-utility optimum over a prior set among the
// mechanisms with a zero pattern: the bracket of the least PML over the
// set of that pattern, and the optimum at the budget.
type Joint struct {
	Least Bracket
	// Mechanism keeps the budget and the pattern over the set; Level is
	// its PML over the set.
	Mechanism mech.Mechanism
	Level     float64
	// LPs is the number of LPs of the optimum, Least.LPs not included.
	LPs int
	// Bound and Proof are ExpectedBound's with the pattern.
	Bound float64
	Proof certificate.Hint
}

// MaximizeJoint maximises the expected utility u over the mechanisms with
// the pattern that keep the ε-PML budget b over p's set: the least PML
// over the set of the pattern is bracketed by LeastEpsilon, and the
// expected utility is maximised by the LP backend over the dualised
// polytope with the pattern. The error is expected.ErrBelowLeastEpsilon,
// with r.Least set, when b is below the bracket's lower end, or below its
// upper end and the LP finds no mechanism.
func MaximizeJoint(ctx context.Context, p *problem.Problem, u mech.Utility, b mech.Budget, pat mech.Pattern, o Options) (r Joint, err error) {
	r.Least, err = LeastEpsilon(ctx, p, pat, nil, o)
	if err != nil {
		return r, err
	}
	if b.Epsilon < r.Least.Lower {
		return r, expected.ErrBelowLeastEpsilon
	}
	slv := o.Solver
	m, status, lps, err := solveLP(ctx, polytope.Spec{Prior: p.Prior, Budget: b, Pattern: pat, Objective: polytope.ExpectedUtility, Utility: u}, p.PriorSet, slv)
	if err != nil {
		return r, err
	}
	if m == nil {
		if b.Epsilon < r.Least.Upper {
			return r, expected.ErrBelowLeastEpsilon
		}
		return r, fmt.Errorf("prior_set: the %s backend found no mechanism (status %v) at a budget above an audited one", slv.Name(), status)
	}
	r.Mechanism, r.LPs = m, lps
	r.Level, _ = levelOver(p.PriorSet, m, b)
	r.Bound, r.Proof = ExpectedBound(ctx, p, u, b, pat, nil, o)
	return r, nil
}
