package certificate

import (
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
)

// Answer is what a certificate restates of an answer: its mechanism and
// audited level and, by objective, the lower end of the least ε with the
// multipliers that prove it, or the expected utility with its bound and
// the multipliers that prove the bound.
type Answer struct {
	Mechanism mech.Mechanism
	Epsilon   float64 // the audited level (ε_u under ALIP)
	ALIPLower float64 // ε_l under ALIP

	Lower float64   // a worst case's lower end on the least ε
	Proof []float64 // multipliers behind Lower (certify.DualBound)

	Value float64   // the expected utility
	Bound float64   // its proven upper bound; NaN for none
	Alpha []float64 // multipliers behind Bound (certify.UpperBound)
}

// Floor is the worst case a joint answer keeps: the order rank Order, or
// with ByValue the utility Value.
type Floor struct {
	Order   int
	Value   float64
	ByValue bool
}

// claimedLevel rounds an audited level up so that it bounds the exact
// level: the audit's float sums q_j = Σ_i π_i p_ij err by a few units of
// roundoff per letter, which shifts a log-ratio by far less than 1e-12 +
// 2^-45 ε at the sizes pmlopt solves.
func claimedLevel(eps float64) float64 {
	return eps + 0x1p-45*eps + 1e-12
}

// WorstPattern is the zero pattern of a worst case: the pairs whose order
// rank is at least order (objective worst-case-order) or whose utility is
// at least value (worst-case-value).
func WorstPattern(p *problem.Problem, objective problem.Objective, order int, value float64) mech.Pattern {
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

// Lower writes out the proof of the lower end L for the pattern pat at
// the prior pi: from the multipliers proof (an engine's, via
// certify.DualCertificate) or, failing that, from the pruning argument,
// which is DualBound's with α the unit vector of the letter whose allowed
// outputs all have the least prior mass. Without a proof of about L the
// Lower has no multipliers, and verify refuses it.
func Lower(pi mech.Prior, pat mech.Pattern, proof []float64, L float64) *verify.Lower {
	if !(L > 0) {
		return &verify.Lower{OptimalEpsilonLower: max(L, 0)}
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
		if c, ok := certify.DualCertificate(pi, pat, a); ok && c.Epsilon >= L-1e-12*max(1, L) {
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

// WorstCase is the certificate of a worst-case answer: the mechanism
// a.Mechanism at level a.Epsilon, its support's worst case, and the lower
// end a.Lower proven from a.Proof. budget is nil for a curve's point.
func WorstCase(p *problem.Problem, objective problem.Objective, a Answer, budget *mech.Budget) *verify.Certificate {
	m := a.Mechanism
	if m == nil {
		return nil
	}
	c := &verify.Certificate{Objective: string(objective), Measure: string(mech.PML), Epsilon: claimedLevel(a.Epsilon)}
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
		pat = WorstPattern(p, objective, h, 0)
	} else {
		if p.Utility == nil {
			return nil
		}
		v := p.Utility.WorstCaseValue(m)
		c.WorstCaseValue = &v
		pat = WorstPattern(p, objective, 0, v)
	}
	c.Lower = Lower(p.Prior, pat, a.Proof, a.Lower)
	return c
}

// Expected is the certificate of an expected-utility answer: the level
// within budget b, the expected utility and its bound with the
// multipliers a.Alpha that prove it (in the problem's units).
func Expected(b mech.Budget, a Answer) *verify.Certificate {
	c := &verify.Certificate{Objective: string(problem.ExpectedUtility), Measure: string(b.Measure), Epsilon: claimedLevel(a.Epsilon),
		Budget:  &verify.Budget{Epsilon: b.Epsilon, EpsilonLower: b.EpsilonLower, EpsilonUpper: b.EpsilonUpper},
		Utility: &verify.Utility{ExpectedUtility: a.Value}}
	if b.Measure == mech.ALIP {
		lo := claimedLevel(a.ALIPLower)
		c.ALIPLower = &lo
	}
	// A bound without multipliers is stated all the same, and verify
	// says it is not certified.
	if !math.IsNaN(a.Bound) {
		bound := a.Bound
		c.Utility.Bound = &bound
		c.Utility.Alpha = a.Alpha
	}
	return c
}

// Solution is the certificate of the answer a to p under budget b for
// p's objective; scale is the power of two the engines' utility was
// scaled by, which a.Alpha is in the units of.
func Solution(p *problem.Problem, b mech.Budget, objective problem.Objective, a Answer, scale int) *verify.Certificate {
	switch objective {
	case problem.ExpectedUtility:
		if a.Alpha != nil {
			alpha := make([]float64, len(a.Alpha))
			for i, v := range a.Alpha {
				alpha[i] = math.Ldexp(v, scale)
			}
			a.Alpha = alpha
		}
		return Expected(b, a)
	case problem.WorstCaseOrder, problem.WorstCaseValue:
		return WorstCase(p, objective, a, &b)
	}
	return nil
}

// Point is the certificate of a curve's point a, with its mechanism
// (objective "" is worst-case-order, as for a curve).
func Point(p *problem.Problem, objective problem.Objective, a Answer) *verify.Certificate {
	if objective == "" {
		objective = problem.WorstCaseOrder
	}
	c := WorstCase(p, objective, a, nil)
	if c != nil {
		c.Mechanism = a.Mechanism
	}
	return c
}

// Joint is the certificate of a joint answer: that of an expected-utility
// answer whose bound holds over the mechanisms keeping the floor (the
// pattern pat, which the mechanism must respect), with the proof of the
// lower end L on the least ε that reaches the floor from the multipliers
// proof.
func Joint(pi mech.Prior, b mech.Budget, a Answer, floor Floor, pat mech.Pattern, proof []float64, L float64) *verify.Certificate {
	c := Expected(b, a)
	floor.state(c)
	c.Lower = Lower(pi, pat, proof, L)
	return c
}

// state writes the floor into c as the worst case it keeps.
func (f Floor) state(c *verify.Certificate) {
	if f.ByValue {
		v := f.Value
		c.WorstCaseValue = &v
	} else {
		h := f.Order
		c.WorstCaseOrder = &h
	}
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
				w = max(w, mass[j])
			}
		}
		if w < best {
			best, bi = w, i
		}
	}
	return best, bi
}

// Stated is what problem file p states of its own objective and budget,
// for verify to hold its certificate to (verify.Problem.Stated).
func Stated(p *problem.Problem) *verify.Stated {
	st := &verify.Stated{Objective: string(p.Objective)}
	if b := p.Privacy; b != nil {
		st.Measure = string(b.Measure)
		if st.Measure == "" {
			st.Measure = string(mech.PML)
		}
		st.Budget = &verify.Budget{Epsilon: b.Epsilon, EpsilonLower: b.EpsilonLower, EpsilonUpper: b.EpsilonUpper}
		if b.Measure != mech.ALIP {
			st.Budget.EpsilonLower, st.Budget.EpsilonUpper = 0, 0
		}
	}
	return st
}
