package pmlopt

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/guarantee"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// Baseline names a closed-form mechanism family of package closedform.
type Baseline string

// The baselines SolveBaseline calibrates.
const (
	RandomizedResponse Baseline = "randomized-response" // k-ary randomized response, parameter ε̄ (N = M)
	Exponential        Baseline = "exponential"         // exponential mechanism, parameter ε̄, Δ = closedform.Sensitivity
	Extremal           Baseline = "extremal"            // PML-extremal mechanism, parameter ε ≤ log 1/(1−p_min) (N = M)
	UtilitySafe        Baseline = "utility-safe"        // utility-safe M*(h), parameter h
)

// Baselines lists the baselines in the order the CLI's help gives them.
var Baselines = []Baseline{RandomizedResponse, Exponential, Extremal, UtilitySafe}

// calibrationRelTol is the relative width at which the bisection on a
// continuous parameter stops: below it the audited level no longer moves
// in floating point.
const calibrationRelTol = 1e-13

// BaselineSolution is a closed-form mechanism calibrated to a budget. Its
// EpsilonLower is 0 for the worst-case objectives (a closed form certifies
// no least ε) and Epsilon for expected utility, as for Solve.
type BaselineSolution struct {
	Solution
	Kind Baseline
	// Parameter is the family's parameter (ε̄, ε or h; +Inf for ε̄ means
	// the family's limit, every level of the budget being met there), the
	// largest whose audited level is within the budget.
	Parameter float64
	// ParameterName is "ε̄", "ε" or "h".
	ParameterName string
	// Start is the parameter the conversions of package guarantee give
	// (safe without an audit), NaN when there is none; Parameter ≥ Start.
	Start float64
	// Audits counts the mechanisms audited by the calibration.
	Audits int
}

// SolveBaseline calibrates the baseline kind tightly to p's budget: the
// largest parameter whose mechanism's audited level of the budget's
// measure is within the budget. It starts from the guarantee the
// conversions give (randomized response and the exponential mechanism are
// ε̄-LDP, which implies PML, LIP and ALIP levels by Saeidian et al. (2024),
// Prop 1; the extremal mechanism's PML is its parameter) and closes the gap
// by bisection on the audit, which assumes the level grows with the
// parameter (as for these families). M*(h) is examined at every h, as its
// PML need not grow with h.
func SolveBaseline(ctx context.Context, p *problem.Problem, kind Baseline) (*BaselineSolution, error) {
	if err := check(p); err != nil {
		return nil, err
	}
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	b, err := p.RequirePrivacy()
	if err != nil {
		return nil, err
	}
	n, m := p.N(), p.M()
	within := func(q mech.Mechanism) bool { return excessFor(p, q, b) <= 0 }
	var fam func(theta float64) (mech.Mechanism, error)
	sol := &BaselineSolution{Kind: kind, ParameterName: "ε̄", Start: math.NaN()}
	hi := math.Inf(1)
	switch kind {
	case RandomizedResponse:
		if m != n {
			return nil, fmt.Errorf("mechanism: randomized response needs as many outputs as inputs, the problem has %d and %d", n, m)
		}
		fam = func(t float64) (mech.Mechanism, error) { return closedform.RandomizedResponse(n, t) }
		sol.Start = ldpStart(b, p.Prior.Min())
	case Exponential:
		u, err := p.RequireUtility()
		if err != nil {
			return nil, err
		}
		delta := closedform.Sensitivity(u)
		if delta == 0 {
			delta = 1 // every column constant: every ε̄ gives the same mechanism
		}
		fam = func(t float64) (mech.Mechanism, error) { return closedform.Exponential(u, t, delta) }
		sol.Start = ldpStart(b, p.Prior.Min())
	case Extremal:
		if m != n {
			return nil, fmt.Errorf("mechanism: the extremal mechanism needs as many outputs as inputs, the problem has %d and %d", n, m)
		}
		sol.ParameterName = "ε"
		hi = closedform.ExtremalLimit(p.Prior)
		fam = func(t float64) (mech.Mechanism, error) { return closedform.Extremal(p.Prior, t) }
		if b.Measure == mech.PML {
			sol.Start = math.Min(b.Epsilon, hi)
		}
	case UtilitySafe:
		return safeBaseline(ctx, p, b, sol)
	default:
		return nil, fmt.Errorf("mechanism: unknown baseline %q (want randomized-response, exponential, extremal or utility-safe)", kind)
	}
	theta, q, audits, err := calibrate(ctx, fam, within, sol.Start, hi)
	if err != nil {
		return nil, err
	}
	sol.Parameter, sol.Audits = theta, audits
	return finishBaseline(p, b, sol, q), nil
}

// ldpStart is the ε̄ of an ε̄-LDP mechanism that the implications of
// Saeidian et al. (2024), Prop 1 (guarantee.FromLDP) prove within b.
func ldpStart(b mech.Budget, pmin float64) float64 {
	// lip inverts ε1 = log(p_min + e^{ε̄}(1 − p_min)).
	lip := func(e float64) float64 {
		if pmin >= 1 {
			return math.Inf(1)
		}
		return math.Log(math.Max(1, (math.Exp(e)-pmin)/(1-pmin)))
	}
	switch b.Measure {
	case mech.LDP:
		return b.Epsilon
	case mech.PML:
		return guarantee.LDPForPML(b.Epsilon, pmin)
	case mech.LIP:
		return lip(b.Epsilon)
	case mech.ALIP:
		return math.Min(lip(b.EpsilonLower), guarantee.LDPForPML(b.EpsilonUpper, pmin))
	}
	return math.NaN()
}

// calibrate returns the largest θ in [0, hi] whose mechanism is within the
// budget, to calibrationRelTol, by bisection from start (or 0).
func calibrate(ctx context.Context, fam func(float64) (mech.Mechanism, error), within func(mech.Mechanism) bool, start, hi float64) (float64, mech.Mechanism, int, error) {
	audits := 0
	try := func(t float64) (mech.Mechanism, bool, error) {
		q, err := fam(t)
		if err != nil {
			return nil, false, err
		}
		audits++
		return q, within(q), nil
	}
	// 1. The largest parameter (the family's limit) may be within.
	if q, ok, err := try(hi); err != nil || ok {
		return hi, q, audits, err
	}
	// 2. A parameter within: the conversion's start, else 0.
	lo := 0.0
	if start > 0 && start < hi {
		lo = start
	}
	qlo, ok, err := try(lo)
	if err != nil {
		return 0, nil, audits, err
	}
	if !ok && lo > 0 {
		lo = 0
		if qlo, ok, err = try(0); err != nil {
			return 0, nil, audits, err
		}
	}
	if !ok {
		return 0, nil, audits, fmt.Errorf("mechanism: even the parameter 0 exceeds the budget")
	}
	// 3. A parameter above the budget, by doubling when hi is infinite.
	up := hi
	if math.IsInf(up, 1) {
		up = math.Max(1, 2*lo)
		for {
			if err := ctx.Err(); err != nil {
				return 0, nil, audits, err
			}
			_, ok, err := try(up)
			if err != nil {
				return 0, nil, audits, err
			}
			if !ok {
				break
			}
			lo, up = up, 2*up
			if up > 1e6 {
				break // the level no longer changes in floating point
			}
		}
		if qlo, _, err = try(lo); err != nil {
			return 0, nil, audits, err
		}
	}
	// 4. Bisection on the audit.
	for up-lo > calibrationRelTol*math.Max(1, up) {
		if err := ctx.Err(); err != nil {
			return lo, qlo, audits, err
		}
		mid := lo + (up-lo)/2
		q, ok, err := try(mid)
		if err != nil {
			return 0, nil, audits, err
		}
		if ok {
			lo, qlo = mid, q
		} else {
			up = mid
		}
	}
	return lo, qlo, audits, nil
}

// safeBaseline picks the largest h whose M*(h) is within the budget.
func safeBaseline(ctx context.Context, p *problem.Problem, b mech.Budget, sol *BaselineSolution) (*BaselineSolution, error) {
	o, err := p.RequireOrder()
	if err != nil {
		return nil, err
	}
	sol.ParameterName = "h"
	if b.Measure == mech.PML {
		h, _ := closedform.SafeSchedule(p.Prior, o, b.Epsilon)
		sol.Start = float64(h)
	}
	for h := p.M(); h >= 1; h-- {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		q, err := closedform.UtilitySafe(o, h)
		if err != nil {
			return nil, err
		}
		sol.Audits++
		if excessFor(p, q, b) <= 0 {
			sol.Parameter = float64(h)
			return finishBaseline(p, b, sol, q), nil
		}
	}
	return nil, fmt.Errorf("mechanism: no utility-safe mechanism is within the budget")
}

// finishBaseline audits q and fills sol.
func finishBaseline(p *problem.Problem, b mech.Budget, sol *BaselineSolution, q mech.Mechanism) *BaselineSolution {
	sol.Mechanism, sol.Measure, sol.Objective = q, b.Measure, p.Objective
	switch b.Measure {
	case mech.ALIP:
		sol.ALIPLower, sol.Epsilon = leakage.ALIP(p.Prior, q)
	default:
		sol.Epsilon = measureLevel(p.Prior, q, b.Measure)
	}
	if p.PriorSet != nil {
		sol.Epsilon, sol.ALIPLower = levelOver(p.PriorSet, q, b)
	}
	sol.EpsilonLower, sol.ExpectedUtilityBound, sol.Solver = sol.Epsilon, math.NaN(), "closed form"
	if sol.Objective == problem.WorstCaseOrder || sol.Objective == problem.WorstCaseValue {
		// A closed form proves nothing about the least ε of its worst
		// case (randomized response reaches order 1, whose ε* is 0, at
		// its ε̄-dependent level): the only certified lower end is 0.
		sol.EpsilonLower = 0
	}
	describe(p, &sol.Solution)
	return sol
}

// measureLevel is the level of measure m (not ALIP) reached by q.
func measureLevel(pi mech.Prior, q mech.Mechanism, m mech.Measure) float64 {
	switch m {
	case mech.PML:
		return leakage.PML(pi, q)
	case mech.LIP:
		return leakage.LIP(pi, q)
	case mech.LDP:
		return leakage.LDP(pi, q)
	}
	return math.NaN()
}

// excess is how far q exceeds b (≤ 0 when within; for ALIP the larger of
// the two excesses).
func excess(pi mech.Prior, q mech.Mechanism, b mech.Budget) float64 {
	if b.Measure == mech.ALIP {
		lo, up := leakage.ALIP(pi, q)
		return math.Max(lo-b.EpsilonLower, up-b.EpsilonUpper)
	}
	return measureLevel(pi, q, b.Measure) - b.Epsilon
}
