package pmlopt

import (
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
	"github.com/pmlopt/pmlopt/worstcase"
)

// claimedLevel rounds an audited level up so that it bounds the exact
// level: the audit's float sums q_j = Σ_i π_i p_ij err by a few units of
// roundoff per letter, which shifts a log-ratio by far less than 1e-12 +
// 2^-45 ε at the sizes pmlopt solves.
func claimedLevel(eps float64) float64 {
	return eps + 0x1p-45*eps + 1e-12
}

// worstPattern is the zero pattern of the worst case w: pairs whose order
// rank (objective worst-case-order) or utility is at least w.
func worstPattern(p *problem.Problem, objective problem.Objective, order int, value float64) mech.Pattern {
	if objective == problem.WorstCaseOrder {
		return p.Order.Pattern(order)
	}
	pat := make(mech.Pattern, len(p.Utility))
	for i, row := range p.Utility {
		pat[i] = make([]bool, len(row))
		for j, v := range row {
			pat[i][j] = v >= value
		}
	}
	return pat
}

// lowerCertificate writes out the proof of the lower end L for the pattern
// pat: from the multipliers proof (an engine's, via certify.DualCertificate)
// or, failing that, from the pruning argument, which is DualBound's with α
// the unit vector of the letter whose allowed outputs all have the least
// prior mass. Without a proof of about L the Lower has no multipliers,
// and verify refuses it.
func lowerCertificate(pi mech.Prior, pat mech.Pattern, proof []float64, L float64) *verify.Lower {
	if !(L > 0) {
		return &verify.Lower{OptimalEpsilonLower: math.Max(L, 0)}
	}
	for _, a := range [][]float64{proof, nil} {
		if a == nil {
			a = pruningVector(pi, pat) // only when the engine's proof falls short
		}
		if a == nil {
			continue
		}
		// DualCertificate's float margins may leave it a hair below an L
		// found otherwise (pruning's −log of a prior mass): the exact
		// check, not this one, decides.
		if c, ok := certify.DualCertificate(pi, pat, a); ok && c.Epsilon >= L-1e-12*math.Max(1, L) {
			return &verify.Lower{OptimalEpsilonLower: L, Alpha: c.Alpha, Nu: c.Nu}
		}
	}
	return &verify.Lower{OptimalEpsilonLower: L}
}

// pruningVector returns the unit vector e_i of the letter i whose allowed
// outputs' largest prior mass π(A_j) is least (worstcase.BoundPruning's
// argument), or nil without a pattern.
func pruningVector(pi mech.Prior, pat mech.Pattern) []float64 {
	if len(pat) == 0 {
		return nil
	}
	n, m := len(pat), len(pat[0])
	mass := make([]float64, m)
	for j := range m {
		for i := range n {
			if pat[i][j] {
				mass[j] += pi[i]
			}
		}
	}
	_, bi := leastLargestMass(pat, mass)
	if bi < 0 {
		return nil
	}
	e := make([]float64, n)
	e[bi] = 1
	return e
}

// worstCaseCertificate is the certificate of a worst-case answer: the
// mechanism m at level eps, its support's worst case, and the lower end L
// proven from proof. budget is nil for a curve's point.
func worstCaseCertificate(p *problem.Problem, objective problem.Objective, m mech.Mechanism, eps, L float64, proof []float64, budget *mech.Budget) *verify.Certificate {
	if m == nil {
		return nil
	}
	c := &verify.Certificate{Objective: string(objective), Measure: string(mech.PML), Epsilon: claimedLevel(eps)}
	if budget != nil {
		c.Budget = &verify.Budget{Epsilon: budget.Epsilon}
	}
	var pat mech.Pattern
	if objective == problem.WorstCaseOrder {
		if p.Order == nil {
			return nil
		}
		h := p.Order.WorstCaseOrder(m)
		c.WorstCaseOrder = &h
		pat = worstPattern(p, objective, h, 0)
	} else {
		if p.Utility == nil {
			return nil
		}
		v := p.Utility.WorstCaseValue(m)
		c.WorstCaseValue = &v
		pat = worstPattern(p, objective, 0, v)
	}
	c.Lower = lowerCertificate(p.Prior, pat, proof, L)
	return c
}

// expectedCertificate is the certificate of an expected-utility answer:
// the level within budget b, the expected utility and its bound with the
// multipliers alpha that prove it (in the problem's units).
func expectedCertificate(b mech.Budget, sol *Solution, alpha []float64) *verify.Certificate {
	c := &verify.Certificate{Objective: string(problem.ExpectedUtility), Measure: string(b.Measure), Epsilon: claimedLevel(sol.Epsilon),
		Budget:  &verify.Budget{Epsilon: b.Epsilon, EpsilonLower: b.EpsilonLower, EpsilonUpper: b.EpsilonUpper},
		Utility: &verify.Utility{ExpectedUtility: sol.ExpectedUtility}}
	if b.Measure == mech.ALIP {
		lo := claimedLevel(sol.ALIPLower)
		c.ALIPLower = &lo
	}
	// A bound without multipliers (the active set's, proven for the
	// prior normalised in floating point when that differs from the
	// prior as given) is stated all the same, and verify says it is not
	// certified.
	if !math.IsNaN(sol.ExpectedUtilityBound) {
		bound := sol.ExpectedUtilityBound
		c.Utility.Bound = &bound
		c.Utility.Alpha = alpha
	}
	return c
}

// solutionCertificate is the certificate of Solve's answer sol to p under
// budget b; scale is the power of two the engines' utility was scaled by.
func solutionCertificate(p *problem.Problem, b mech.Budget, sol *Solution, scale int) *verify.Certificate {
	switch sol.Objective {
	case problem.ExpectedUtility:
		var alpha []float64
		if sol.alpha != nil {
			alpha = make([]float64, len(sol.alpha))
			for i, a := range sol.alpha {
				alpha[i] = math.Ldexp(a, scale)
			}
		}
		return expectedCertificate(b, sol, alpha)
	case problem.WorstCaseOrder, problem.WorstCaseValue:
		return worstCaseCertificate(p, sol.Objective, sol.Mechanism, sol.Epsilon, sol.OptimalEpsilonLower, sol.proof, &b)
	}
	return nil
}

// pointCertificate is the certificate of a curve's point (objective ""
// is worst-case-order, as for Curve).
func pointCertificate(p *problem.Problem, objective problem.Objective, pt Point) *verify.Certificate {
	if objective == "" {
		objective = problem.WorstCaseOrder
	}
	c := worstCaseCertificate(p, objective, pt.Mechanism, pt.OptimalEpsilon, pt.OptimalEpsilonLower, pt.proof, nil)
	if c != nil {
		c.Mechanism = pt.Mechanism
	}
	return c
}

// jointCertificate is the certificate of SolveJoint's answer: that of an
// expected-utility answer whose bound holds over the mechanisms keeping
// the floor (the pattern pat, which the mechanism must respect), with the
// proof of least's lower end on the least ε that reaches the floor.
func jointCertificate(p *problem.Problem, b mech.Budget, sol *Solution, floor Floor, pat mech.Pattern, least worstcase.Result) *verify.Certificate {
	c := expectedCertificate(b, sol, sol.alpha)
	if floor.ByValue {
		v := floor.Value
		c.WorstCaseValue = &v
	} else {
		h := floor.Order
		c.WorstCaseOrder = &h
	}
	c.Lower = lowerCertificate(p.Prior, pat, least.Proof, least.OptimalEpsilonLower)
	return c
}

// leastLargestMass returns the input whose allowed outputs' largest mass
// is the least, and that mass: the input a single-letter lower bound
// proves the most for (−log of the mass). bi is −1 when no input exists.
func leastLargestMass(pat mech.Pattern, mass []float64) (best float64, bi int) {
	best, bi = math.Inf(1), -1
	for i, row := range pat {
		w := math.Inf(-1)
		for j, ok := range row {
			if ok {
				w = math.Max(w, mass[j])
			}
		}
		if w < best {
			best, bi = w, i
		}
	}
	return best, bi
}
