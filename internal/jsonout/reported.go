package jsonout

import (
	"math"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
)

// Reported are the numbers a JSON answer reports beside its certificate
// (solve --json, a curve's points), as verify reads them back to hold them
// to the certificate's (verify.Reported). A problem file reports none.
type Reported struct {
	Epsilon              *Float `json:"epsilon" yaml:"-"`
	OptimalEpsilon       *Float `json:"optimal_epsilon" yaml:"-"`
	AuditedEpsilon       *Float `json:"audited_epsilon" yaml:"-"`
	OptimalEpsilonLower  *Float `json:"optimal_epsilon_lower" yaml:"-"`
	LeastEpsilonLower    *Float `json:"least_epsilon_lower" yaml:"-"`
	ALIPLower            *Float `json:"alip_lower" yaml:"-"`
	ExpectedUtility      *Float `json:"expected_utility" yaml:"-"`
	ExpectedUtilityBound *Float `json:"expected_utility_bound" yaml:"-"`
	WorstCaseOrder       *int   `json:"worst_case_order" yaml:"-"`
	WorstCaseValue       *Float `json:"worst_case_value" yaml:"-"`
	// H and Threshold are a worst-case curve point's threshold: an order
	// (h) or a utility value (threshold).
	H         *int   `json:"h" yaml:"-"`
	Threshold *Float `json:"threshold" yaml:"-"`
}

// NoBudgetPattern is the zero pattern of a curve point of p that no
// budget reaches over p's prior set (its lower end +∞, so that it has no
// mechanism to certify): its threshold's pattern, on p's order (h) or
// utility (threshold). It is nil for any other point.
func (n Reported) NoBudgetPattern(p *problem.Problem) mech.Pattern {
	if p.PriorSet == nil || n.OptimalEpsilonLower == nil || !math.IsInf(float64(*n.OptimalEpsilonLower), 1) {
		return nil
	}
	switch {
	case n.Threshold != nil && p.Utility != nil:
		return p.Utility.Pattern(float64(*n.Threshold))
	case n.Threshold == nil && n.H != nil && p.Order != nil:
		return p.Order.Pattern(*n.H)
	}
	return nil
}

// float is f as a *float64, nil for nil.
func (f *Float) float() *float64 {
	if f == nil {
		return nil
	}
	x := float64(*f)
	return &x
}

// Of maps the numbers of n onto those of certificate c that they
// report, as each kind of document writes them. The level is
// audited_epsilon where there is one (an expected-utility curve's point,
// whose epsilon is the budget on the axis), else optimal_epsilon (a
// worst-case curve's point), else epsilon (solve --json), with ALIP's
// alip_lower (over a prior set too: the engines' audit reads the set as
// the checker does, to the last bit). Then the lower end of a worst case
// (optimal_epsilon_lower, or least_epsilon_lower beside a worst case
// kept), the expected utility and its bound, and the worst case a
// worst-case objective reached.
func (n Reported) Of(c *verify.Certificate) *verify.Reported {
	r := &verify.Reported{}
	switch {
	case n.AuditedEpsilon != nil:
		r.Level = n.AuditedEpsilon.float()
	case n.OptimalEpsilon != nil:
		r.Level = n.OptimalEpsilon.float()
	default:
		r.Level = n.Epsilon.float()
		if c.Measure == "alip" {
			r.ALIPLower = n.ALIPLower.float()
		}
	}
	switch {
	case c.Objective == "worst-case-order":
		r.OptimalEpsilonLower, r.WorstCaseOrder = n.OptimalEpsilonLower.float(), n.WorstCaseOrder
	case c.Objective == "worst-case-value":
		r.OptimalEpsilonLower, r.WorstCaseValue = n.OptimalEpsilonLower.float(), n.WorstCaseValue.float()
	case c.Lower != nil:
		r.OptimalEpsilonLower = n.LeastEpsilonLower.float()
	}
	if c.Utility != nil {
		r.ExpectedUtility, r.ExpectedUtilityBound = n.ExpectedUtility.float(), n.ExpectedUtilityBound.float()
	}
	return r
}
