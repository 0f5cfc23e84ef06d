package jsonout

import (
	"encoding/json"
	"math"

	"github.com/pmlopt/pmlopt/verify"
)

// Reported are the numbers a JSON answer reports beside its certificate
// (solve --json, a curve's points), as verify reads them back to hold them
// to the certificate's (verify.Reported). A problem file reports none.
type Reported struct {
	Epsilon              *reportedFloat `json:"epsilon" yaml:"-"`
	OptimalEpsilon       *reportedFloat `json:"optimal_epsilon" yaml:"-"`
	AuditedEpsilon       *reportedFloat `json:"audited_epsilon" yaml:"-"`
	OptimalEpsilonLower  *reportedFloat `json:"optimal_epsilon_lower" yaml:"-"`
	LeastEpsilonLower    *reportedFloat `json:"least_epsilon_lower" yaml:"-"`
	ALIPLower            *reportedFloat `json:"alip_lower" yaml:"-"`
	ExpectedUtility      *reportedFloat `json:"expected_utility" yaml:"-"`
	ExpectedUtilityBound *reportedFloat `json:"expected_utility_bound" yaml:"-"`
	WorstCaseOrder       *int           `json:"worst_case_order" yaml:"-"`
	WorstCaseValue       *reportedFloat `json:"worst_case_value" yaml:"-"`
	// H and Threshold are a worst-case curve point's threshold: an order
	// (h) or a utility value (threshold).
	H         *int           `json:"h" yaml:"-"`
	Threshold *reportedFloat `json:"threshold" yaml:"-"`
}

// NoBudget reports whether n is a curve point that no budget reaches
// (its lower end +∞), and its threshold: an order, or a utility value
// with byValue.
func (n Reported) NoBudget() (order int, value float64, byValue, ok bool) {
	if l := n.OptimalEpsilonLower.get(); l == nil || !math.IsInf(*l, 1) {
		return 0, 0, false, false
	}
	switch {
	case n.Threshold != nil:
		return 0, float64(*n.Threshold), true, true
	case n.H != nil:
		return *n.H, 0, false, true
	}
	return 0, 0, false, false
}

// reportedFloat is a number of --json: a JSON number, or "inf" / "-inf".
type reportedFloat float64

func (f *reportedFloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"inf"`:
		*f = reportedFloat(math.Inf(1))
		return nil
	case `"-inf"`:
		*f = reportedFloat(math.Inf(-1))
		return nil
	}
	var x float64
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*f = reportedFloat(x)
	return nil
}

func (f *reportedFloat) get() *float64 {
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
// alip_lower; over a prior set it is left out, since the certificate
// states the level as the checker reads the set, which can differ from
// the engines' reading by more than rounding where an entry near 1e-18
// meets a letter the set lets reach 0. Then the lower end of a worst case
// (optimal_epsilon_lower, or least_epsilon_lower beside a worst case
// kept), the expected utility and its bound, and the worst case a
// worst-case objective reached.
func (n Reported) Of(c *verify.Certificate) *verify.Reported {
	r := &verify.Reported{}
	switch {
	case c.PriorSet != nil:
	case n.AuditedEpsilon != nil:
		r.Level = n.AuditedEpsilon.get()
	case n.OptimalEpsilon != nil:
		r.Level = n.OptimalEpsilon.get()
	default:
		r.Level, r.ALIPLower = n.Epsilon.get(), n.ALIPLower.get()
	}
	worst := c.Objective == "worst-case-order" || c.Objective == "worst-case-value"
	switch {
	case worst:
		r.OptimalEpsilonLower = n.OptimalEpsilonLower.get()
		r.WorstCaseOrder, r.WorstCaseValue = n.WorstCaseOrder, n.WorstCaseValue.get()
		if c.Objective == "worst-case-order" {
			r.WorstCaseValue = nil
		} else {
			r.WorstCaseOrder = nil
		}
	case c.Lower != nil:
		r.OptimalEpsilonLower = n.LeastEpsilonLower.get()
	}
	if c.Utility != nil {
		r.ExpectedUtility, r.ExpectedUtilityBound = n.ExpectedUtility.get(), n.ExpectedUtilityBound.get()
	}
	if c.Measure != "alip" {
		r.ALIPLower = nil
	}
	return r
}
