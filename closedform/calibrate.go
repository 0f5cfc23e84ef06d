package closedform

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/guarantee"
	"github.com/pmlopt/pmlopt/mech"
)

// Family names a closed-form mechanism family that Calibrate tunes to a
// budget.
type Family string

// The families Calibrate knows, in the order the CLI's help gives them.
const (
	FamilyRandomizedResponse Family = "randomized-response" // k-ary randomized response, parameter ε̄ (N = M)
	FamilyExponential        Family = "exponential"         // exponential mechanism, parameter ε̄, Δ = Sensitivity
	FamilyExtremal           Family = "extremal"            // PML-extremal mechanism, parameter ε ≤ log 1/(1−p_min) (N = M)
	FamilyUtilitySafe        Family = "utility-safe"        // utility-safe M*(h), parameter h
)

// calibrationRelTol is the relative width at which the bisection on a
// continuous parameter stops: below it the audited level no longer moves
// in floating point.
const calibrationRelTol = 1e-13

// Problem is what a calibration reads of a problem (problem.Problem has
// it): its sizes, and its utility or utility order where the family needs
// one, with the error to report when the problem has none. Both are asked
// with Calibrate's context: building a large grid's utility and deriving
// its order rank every row, and a stopped caller should not wait for it.
type Problem interface {
	N() int
	M() int
	RequireUtilityContext(ctx context.Context) (mech.Utility, error)
	RequireOrderContext(ctx context.Context) (mech.Order, error)
}

// Calibration is a mechanism of a family calibrated to a budget.
type Calibration struct {
	Mechanism mech.Mechanism
	// Parameter is the family's parameter (ε̄, ε or h; +Inf for ε̄ means
	// the family's limit, every level of the budget being met there), the
	// largest whose mechanism is within the budget.
	Parameter float64
	// ParameterName is "ε̄", "ε" or "h".
	ParameterName string
	// Start is the parameter the conversions of package guarantee give
	// (safe without an audit), NaN when there is none; Parameter ≥ Start.
	Start float64
	// Audits counts the mechanisms the calibration audited (calls of
	// within).
	Audits int
}

// Calibrate tunes the family kind tightly to the budget b: the largest
// parameter whose mechanism within reports within the budget (the caller
// audits: over the prior pi, or over a prior set). It starts from the
// guarantee the conversions give (randomized response and the exponential
// mechanism are ε̄-LDP, which implies PML, LIP and ALIP levels by Saeidian
// et al. (2024), Prop 1; the extremal mechanism's PML is its parameter) and
// closes the gap by bisection on the audit, which assumes the level grows
// with the parameter (as for these families). M*(h) is examined at every
// h, as its PML need not grow with h; the thresholds unreachable proves
// beyond the budget are passed over without an audit, so within must be at
// least as strict as the exact level of b at pi (or over a set holding pi)
// with a slack below 1e-9·max(1, ε).
//
// set, if not nil, is the prior set within audits over (holding pi): the
// LDP conversions then read the least mass any prior of the set gives a
// letter, and the extremal mechanism and M*(h), whose levels the
// conversions know only at pi, start from no proven parameter.
func Calibrate(ctx context.Context, kind Family, pi mech.Prior, set *mech.PriorSet, p Problem, b mech.Budget, within func(mech.Mechanism) bool) (*Calibration, error) {
	n, m := p.N(), p.M()
	var fam func(theta float64) (mech.Mechanism, error)
	c := &Calibration{ParameterName: "ε̄", Start: math.NaN()}
	hi := math.Inf(1)
	pmin := pi.Min()
	if set != nil {
		pmin = leastLetterMass(set)
	}
	switch kind {
	case FamilyRandomizedResponse:
		if m != n {
			return nil, fmt.Errorf("mechanism: randomized response needs as many outputs as inputs, the problem has %d and %d", n, m)
		}
		fam = func(t float64) (mech.Mechanism, error) { return RandomizedResponse(n, t) }
		c.Start = ldpStart(b, pmin)
	case FamilyExponential:
		u, err := p.RequireUtilityContext(ctx)
		if err != nil {
			return nil, err
		}
		delta := Sensitivity(u)
		if delta == 0 {
			delta = 1 // every column constant: every ε̄ gives the same mechanism
		}
		fam = func(t float64) (mech.Mechanism, error) { return Exponential(u, t, delta) }
		c.Start = ldpStart(b, pmin)
	case FamilyExtremal:
		if m != n {
			return nil, fmt.Errorf("mechanism: the extremal mechanism needs as many outputs as inputs, the problem has %d and %d", n, m)
		}
		c.ParameterName = "ε"
		hi = ExtremalLimit(pi)
		fam = func(t float64) (mech.Mechanism, error) { return Extremal(pi, t) }
		if b.Measure == mech.PML && set == nil {
			c.Start = min(b.Epsilon, hi)
		}
	case FamilyUtilitySafe:
		return calibrateSafe(ctx, pi, set != nil, p, b, within, c)
	default:
		return nil, fmt.Errorf("mechanism: unknown baseline %q (want randomized-response, exponential, extremal or utility-safe)", kind)
	}
	theta, q, audits, err := calibrate(ctx, fam, within, c.Start, hi)
	if err != nil {
		return nil, err
	}
	c.Parameter, c.Audits, c.Mechanism = theta, audits, q
	return c, nil
}

// leastLetterMass is the least mass a prior of the set gives any one
// letter: the p_min the LDP conversions need for every prior of the set.
func leastLetterMass(set *mech.PriorSet) float64 {
	least := math.Inf(1)
	e := make([]float64, set.N())
	for k := range e {
		e[k] = 1
		least = min(least, set.MinMass(e))
		e[k] = 0
	}
	return least
}

// ldpStart is the ε̄ of an ε̄-LDP mechanism that the implications of
// Saeidian et al. (2024), Prop 1 (guarantee.FromLDP) prove within b.
func ldpStart(b mech.Budget, pmin float64) float64 {
	// lip inverts ε1 = log(p_min + e^{ε̄}(1 − p_min)).
	lip := func(e float64) float64 {
		if pmin >= 1 {
			return math.Inf(1)
		}
		return math.Log(max(1, (math.Exp(e)-pmin)/(1-pmin)))
	}
	switch b.Measure {
	case mech.LDP:
		return b.Epsilon
	case mech.PML:
		return guarantee.LDPForPML(b.Epsilon, pmin)
	case mech.LIP:
		return lip(b.Epsilon)
	case mech.ALIP:
		return min(lip(b.EpsilonLower), guarantee.LDPForPML(b.EpsilonUpper, pmin))
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
		up = max(1, 2*lo)
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
	for up-lo > calibrationRelTol*max(1, up) {
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

// calibrateSafe picks the largest h whose M*(h) is within the budget.
func calibrateSafe(ctx context.Context, pi mech.Prior, overSet bool, p Problem, b mech.Budget, within func(mech.Mechanism) bool, c *Calibration) (*Calibration, error) {
	o, err := p.RequireOrderContext(ctx)
	if err != nil {
		return nil, err
	}
	c.ParameterName = "h"
	if b.Measure == mech.PML && !overSet {
		h, _ := SafeSchedule(pi, o, b.Epsilon)
		c.Start = float64(h)
	}
	skip := unreachable(pi, o, b)
	if len(skip) != p.M()+1 {
		skip = make([]bool, p.M()+1) // UtilitySafe refuses the order
	}
	for h := p.M(); h >= 1; h-- {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if skip[h] {
			continue
		}
		q, err := UtilitySafe(o, h)
		if err != nil {
			return nil, err
		}
		c.Audits++
		if within(q) {
			c.Parameter, c.Mechanism = float64(h), q
			return c, nil
		}
	}
	return nil, fmt.Errorf("mechanism: no utility-safe mechanism is within the budget")
}

// unreachable marks the thresholds h (index 1..M) whose M*(h) the finite
// budget b certainly does not admit, so that calibrateSafe need not build
// and audit them:
//
//   - PML: those with ε_S(h) above the budget (by more than rounding).
//     ε_S(h) is a lower bound on the PML of M*(h) at the prior (SafeEpsilon),
//     so also on its PML over any set of priors holding the prior; the whole
//     curve costs one sweep (SafeCurve).
//   - LIP, ALIP, LDP: those where some output is allowed for one letter of
//     positive mass (U_ij ≥ h) and not for another (U_i'j < h). That column
//     has p_ij > 0 and p_i'j = 0, so its ratio p_i'j / q_j is 0 (LIP and
//     ALIP's lower side) and p_ij / p_i'j infinite (LDP): the level is
//     unbounded at the prior, and so over any set of priors holding it.
//
// On a location grid this leaves a few thresholds to audit out of M (under
// LIP, ALIP and LDP only h = 1, the constant mechanism), where each audit
// reads N·M entries.
func unreachable(pi mech.Prior, o mech.Order, b mech.Budget) []bool {
	n, m := o.Dims()
	out := make([]bool, m+1)
	if _, _, err := checkOrder(o); err != nil || len(pi) != n {
		return out
	}
	finite := func(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }
	switch b.Measure {
	case mech.PML:
		if !finite(b.Epsilon) {
			return out
		}
		curve, err := SafeCurve(pi, o)
		if err != nil {
			return out
		}
		for h := 1; h <= m; h++ {
			out[h] = curve[h-1] > b.Epsilon+safeRounding*max(1, b.Epsilon)
		}
		return out
	case mech.LIP, mech.LDP:
		if !finite(b.Epsilon) {
			return out
		}
	case mech.ALIP:
		if !finite(b.EpsilonLower) {
			return out
		}
	default:
		return out
	}
	for j := range m {
		lo, hi := math.MaxInt, math.MinInt
		for i := range n {
			if pi[i] > 0 {
				lo, hi = min(lo, o[i][j]), max(hi, o[i][j])
			}
		}
		// Letter i allows j iff U_ij ≥ h: both kinds exist for lo < h ≤ hi.
		for h := max(lo+1, 1); h <= min(hi, m); h++ {
			out[h] = true
		}
	}
	return out
}

// safeRounding, times max(1, ε), is the margin by which ε_S(h) must exceed
// a PML budget for unreachable to pass over h: the curve's sums and the
// audit's round differently in the last bits.
const safeRounding = 1e-9
