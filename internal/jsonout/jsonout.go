// Package jsonout holds the JSON shapes that pmlopt's command line (--json)
// and its C library (the Python package's calls) both write, so that the
// two speak one format (docs/cli.md, "JSON output"): numbers as Float
// (±Inf as "inf" and "-inf", NaN as null), privacy budgets in the keys of a
// problem file, the guarantees an audit's levels imply, the audit report
// and a point of a worst-case curve.
package jsonout

import (
	"fmt"
	"math"
	"strconv"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/guarantee"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
)

// Float is a float64 in JSON as pmlopt writes it: a number in the shortest
// form that reads back exactly, "inf" and "-inf" for the infinities, null
// for NaN (JSON has none of the three).
type Float float64

// MarshalJSON writes f: a number, "inf", "-inf" or null.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsInf(v, 1):
		return []byte(`"inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-inf"`), nil
	case math.IsNaN(v):
		return []byte(`null`), nil
	}
	return []byte(strconv.FormatFloat(v, 'g', -1, 64)), nil
}

// UnmarshalJSON reads what MarshalJSON writes: a number, "inf" or "-inf";
// null leaves f as it is.
func (f *Float) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "null":
		return nil
	case `"inf"`:
		*f = Float(math.Inf(1))
		return nil
	case `"-inf"`:
		*f = Float(math.Inf(-1))
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("not a number: %s", b)
	}
	*f = Float(v)
	return nil
}

// Floats converts v.
func Floats(v []float64) []Float {
	out := make([]Float, len(v))
	for i, x := range v {
		out[i] = Float(x)
	}
	return out
}

// Matrix converts a, row by row.
func Matrix(a [][]float64) [][]Float {
	out := make([][]Float, len(a))
	for i, row := range a {
		out[i] = Floats(row)
	}
	return out
}

// Opt is v for a key that is left out when v is NaN (no such value): nil
// then.
func Opt(v float64) *Float {
	if math.IsNaN(v) {
		return nil
	}
	j := Float(v)
	return &j
}

// Budget is a privacy budget in the keys of a problem file's privacy:
// epsilon, or epsilon_lower and epsilon_upper for ALIP.
type Budget struct {
	Measure      string `json:"measure"`
	Epsilon      *Float `json:"epsilon,omitempty"`
	EpsilonLower *Float `json:"epsilon_lower,omitempty"`
	EpsilonUpper *Float `json:"epsilon_upper,omitempty"`
}

// BudgetOf is b's JSON.
func BudgetOf(b mech.Budget) Budget {
	j := Budget{Measure: string(b.Measure)}
	if b.Measure == mech.ALIP {
		j.EpsilonLower, j.EpsilonUpper = Opt(b.EpsilonLower), Opt(b.EpsilonUpper)
	} else {
		j.Epsilon = Opt(b.Epsilon)
	}
	return j
}

// Implied is one implied guarantee in an audit's "implied" object.
type Implied struct {
	Measure string `json:"measure"`
	// The levels are absent when the guarantee does not hold; a level of
	// 0 is a level, so they are pointers rather than omitempty numbers.
	Epsilon      *Float `json:"epsilon,omitempty"`
	EpsilonLower *Float `json:"epsilon_lower,omitempty"`
	EpsilonUpper *Float `json:"epsilon_upper,omitempty"`
	Holds        bool   `json:"holds"`
	Regime       string `json:"regime"`
}

// ImpliedOf is imps' JSON.
func ImpliedOf(imps []guarantee.Implication) []Implied {
	out := make([]Implied, len(imps))
	for k, im := range imps {
		g := im.Implied
		out[k] = Implied{Measure: string(g.Measure), Holds: im.Holds, Regime: im.Regime}
		if !im.Holds {
			continue
		}
		if g.Measure == mech.ALIP {
			lo, up := Float(g.EpsilonLower), Float(g.EpsilonUpper)
			out[k].EpsilonLower, out[k].EpsilonUpper = &lo, &up
		} else {
			e := Float(g.Epsilon)
			out[k].Epsilon = &e
		}
	}
	return out
}

// ImpliedFrom lists the measured guarantees whose implications an audit
// reports, in order.
var ImpliedFrom = []mech.Measure{mech.PML, mech.PMC, mech.LDP}

// ImpliedBy derives what r's PML, PMC and LDP imply for a prior of least
// mass pmin (guarantee.Implied); an infinite level implies nothing and is
// left out.
func ImpliedBy(r leakage.Report, pmin float64) (map[mech.Measure][]guarantee.Implication, error) {
	out := map[mech.Measure][]guarantee.Implication{}
	for _, from := range ImpliedFrom {
		var eps float64
		switch from {
		case mech.PML:
			eps = r.PML
		case mech.PMC:
			eps = r.PMC
		case mech.LDP:
			eps = r.LDP
		}
		if math.IsInf(eps, 1) {
			continue // an infinite guarantee implies nothing
		}
		imps, err := guarantee.Implied(mech.Budget{Measure: from, Epsilon: eps}, pmin)
		if err != nil {
			return nil, err
		}
		out[from] = imps
	}
	return out, nil
}

// Audit is the report of an audit: every measure of leakage.Report, the
// least prior mass and what the levels imply. The command line's audit
// adds the levels over a prior set and the budget's verdict after it.
type Audit struct {
	PML                          Float                `json:"pml"`
	PMLPerOutput                 []Float              `json:"pml_per_output"`
	PMC                          Float                `json:"pmc"`
	PMCPerOutput                 []Float              `json:"pmc_per_output"`
	ALIPLower                    Float                `json:"alip_lower"`
	ALIPUpper                    Float                `json:"alip_upper"`
	LIP                          Float                `json:"lip"`
	LDP                          Float                `json:"ldp"`
	Lift                         Float                `json:"lift"`
	BayesCapacity                Float                `json:"bayes_capacity"`
	MaximalLeakage               Float                `json:"maximal_leakage"`
	PosteriorBayesVulnerability  Float                `json:"posterior_bayes_vulnerability"`
	BayesLeakage                 Float                `json:"bayes_leakage"`
	MaximalAlphaLeakage          Float                `json:"maximal_alpha_leakage"`
	MaximalAlphaBetaLeakage      Float                `json:"maximal_alpha_beta_leakage"`
	MaximalAlphaLeakageUpper     Float                `json:"maximal_alpha_leakage_upper"`
	MaximalAlphaBetaLeakageUpper Float                `json:"maximal_alpha_beta_leakage_upper"`
	Notes                        []string             `json:"notes,omitempty"`
	LRDP                         Float                `json:"lrdp"`
	Alpha                        Float                `json:"alpha"`
	Beta                         Float                `json:"beta"`
	Marginal                     []Float              `json:"output_marginal"`
	PMin                         Float                `json:"p_min"`
	Implied                      map[string][]Implied `json:"implied"`
}

// AuditOf is the report of r for a prior of least mass pmin, with what
// its levels imply (ImpliedBy).
func AuditOf(r leakage.Report, pmin float64, implied map[mech.Measure][]guarantee.Implication) Audit {
	j := Audit{
		PML: Float(r.PML), PMLPerOutput: Floats(r.PMLPerOutput),
		PMC: Float(r.PMC), PMCPerOutput: Floats(r.PMCPerOutput),
		ALIPLower: Float(r.ALIPLower), ALIPUpper: Float(r.ALIPUpper),
		LIP: Float(r.LIP), LDP: Float(r.LDP), Lift: Float(r.Lift),
		BayesCapacity: Float(r.BayesCapacity), MaximalLeakage: Float(r.MaximalLeakage),
		PosteriorBayesVulnerability: Float(r.PosteriorBayesVulnerability), BayesLeakage: Float(r.BayesLeakage),
		MaximalAlphaLeakage: Float(r.MaximalAlphaLeakage), MaximalAlphaBetaLeakage: Float(r.MaximalAlphaBetaLeakage),
		MaximalAlphaLeakageUpper: Float(r.MaximalAlphaLeakageUpper), MaximalAlphaBetaLeakageUpper: Float(r.MaximalAlphaBetaLeakageUpper),
		Notes: r.Notes,
		LRDP:  Float(r.LRDP), Alpha: Float(r.Alpha), Beta: Float(r.Beta),
		Marginal: Floats(r.Marginal), PMin: Float(pmin),
		Implied: map[string][]Implied{},
	}
	for from, imps := range implied {
		j.Implied[string(from)] = ImpliedOf(imps)
	}
	return j
}

// CurvePoint is a point of a worst-case curve. M is how the writer gives
// the point's mechanism: the matrix itself (the command line) or an index
// into the matrices handed over beside the JSON (the C library).
type CurvePoint[M any] struct {
	H         *int   `json:"h,omitempty"`
	Threshold *Float `json:"threshold,omitempty"`
	// WorstCaseValue is what the point's mechanism reaches (the step's
	// best worst case), when the problem has a utility.
	WorstCaseValue      *Float `json:"worst_case_value,omitempty"`
	SafeEpsilon         Float  `json:"safe_epsilon"`
	OptimalEpsilon      Float  `json:"optimal_epsilon"`
	OptimalEpsilonLower Float  `json:"optimal_epsilon_lower"`
	LPSolves            int    `json:"lp_solves"`
	// Failure is the engine error that left the bracket wider than the
	// tolerance after every other route was tried; the bracket is
	// certified.
	Failure string `json:"failure,omitempty"`
	// Mechanism is the point's mechanism (at optimal_epsilon), when asked
	// for.
	Mechanism M `json:"mechanism,omitempty"`
	// Certificate is the point's certificate, when asked for.
	Certificate *verify.Certificate `json:"certificate,omitempty"`
}

// CurvePointOf is pt's JSON on a curve of objective obj (h for the order,
// threshold for the value), with its certificate and without its
// mechanism.
func CurvePointOf[M any](obj problem.Objective, pt pmlopt.Point) CurvePoint[M] {
	c := CurvePoint[M]{
		SafeEpsilon: Float(pt.SafeEpsilon), OptimalEpsilon: Float(pt.OptimalEpsilon),
		OptimalEpsilonLower: Float(pt.OptimalEpsilonLower), LPSolves: pt.LPSolves,
		WorstCaseValue: Opt(pt.WorstCaseValue), Certificate: pt.Certificate,
	}
	if obj == problem.WorstCaseOrder {
		h := pt.H
		c.H = &h
	} else {
		v := Float(pt.Threshold)
		c.Threshold = &v
	}
	if pt.Failure != nil {
		c.Failure = pt.Failure.Error()
	}
	return c
}

// ExpectedPoint is a point of an expected-utility curve; M is how the
// writer gives the point's mechanism, as for CurvePoint.
type ExpectedPoint[M any] struct {
	Epsilon              Float  `json:"epsilon"`
	EpsilonLower         *Float `json:"epsilon_lower,omitempty"`
	Audited              Float  `json:"audited_epsilon"`
	ExpectedUtility      Float  `json:"expected_utility"`
	ExpectedUtilityBound Float  `json:"expected_utility_bound"`
	WorstCaseValue       Float  `json:"worst_case_value"`
	WorstCaseOrder       int    `json:"worst_case_order"`
	Solver               string `json:"solver"`
	// Mechanism is the point's mechanism, when asked for.
	Mechanism M `json:"mechanism,omitempty"`
	// Certificate is the point's certificate, when asked for.
	Certificate *verify.Certificate `json:"certificate,omitempty"`
}

// ExpectedPointOf is pt's JSON (epsilon_lower for an ALIP budget), with
// its certificate and without its mechanism.
func ExpectedPointOf[M any](pt pmlopt.ExpectedPoint) ExpectedPoint[M] {
	j := ExpectedPoint[M]{Epsilon: Float(pt.Epsilon), Audited: Float(pt.Audited),
		ExpectedUtility: Float(pt.ExpectedUtility), ExpectedUtilityBound: Float(pt.ExpectedUtilityBound),
		WorstCaseValue: Float(pt.WorstCaseValue), WorstCaseOrder: pt.WorstCaseOrder, Solver: pt.Solver,
		Certificate: pt.Certificate}
	if pt.Budget.Measure == mech.ALIP {
		j.EpsilonLower = Opt(pt.Budget.EpsilonLower)
	}
	return j
}

// Solution is the head of a solve's JSON, the keys the command line and
// the C library share: the status, what was optimised, the audited level
// and the certified lower end of the least ε, and the objectives reached
// (worst_case_order present only for a problem with an order; alip_lower
// only under ALIP).
type Solution struct {
	Status              string `json:"status"`
	Objective           string `json:"objective"`
	Measure             string `json:"measure"`
	Epsilon             Float  `json:"epsilon"`
	OptimalEpsilonLower Float  `json:"optimal_epsilon_lower"`
	ALIPLower           *Float `json:"alip_lower,omitempty"`
	WorstCaseOrder      *int   `json:"worst_case_order"`
	WorstCaseValue      *Float `json:"worst_case_value"`
	ExpectedUtility     *Float `json:"expected_utility"`
}

// NewSolution is the head of sol's JSON with the given status; hasOrder
// says whether the problem has an order (worst_case_order is then set).
func NewSolution(status string, sol *pmlopt.Solution, hasOrder bool) Solution {
	j := Solution{Status: status, Objective: string(sol.Objective), Measure: string(sol.Measure),
		Epsilon: Float(sol.Epsilon), OptimalEpsilonLower: Float(sol.OptimalEpsilonLower),
		WorstCaseValue: Opt(sol.WorstCaseValue), ExpectedUtility: Opt(sol.ExpectedUtility)}
	if hasOrder {
		h := sol.WorstCaseOrder
		j.WorstCaseOrder = &h
	}
	if sol.Measure == mech.ALIP {
		j.ALIPLower = Opt(sol.ALIPLower)
	}
	return j
}

// OverSet is audit's keys for the levels over a problem's prior set: the
// largest PML, LIP and ALIP (ε_l, ε_u) over every prior of the set.
type OverSet struct {
	PMLOverPriorSet  *Float  `json:"pml_over_prior_set,omitempty"`
	LIPOverPriorSet  *Float  `json:"lip_over_prior_set,omitempty"`
	ALIPOverPriorSet []Float `json:"alip_over_prior_set,omitempty"`
}

// OverSetOf is m's levels over s; none (the zero OverSet) without a set.
func OverSetOf(s *mech.PriorSet, m mech.Mechanism) OverSet {
	if s == nil {
		return OverSet{}
	}
	l, u := leakage.ALIPOver(s, m)
	return OverSet{PMLOverPriorSet: Opt(u), LIPOverPriorSet: Opt(max(l, u)), ALIPOverPriorSet: []Float{Float(l), Float(u)}}
}
