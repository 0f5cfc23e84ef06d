package verify

// Certificate is what a checker needs to re-check an answer of pmlopt,
// besides the problem: every claim and the multipliers that prove it. Keys
// are those of docs/certificates.md.
type Certificate struct {
	// Objective is worst-case-order, worst-case-value or
	// expected-utility; Measure is pml, lip, alip or ldp.
	Objective string `json:"objective" yaml:"objective"`
	Measure   string `json:"measure" yaml:"measure"`
	// Epsilon bounds the mechanism's level of Measure from above (for
	// ALIP the upper level ε_u; ALIPLower bounds ε_l).
	Epsilon   float64  `json:"epsilon" yaml:"epsilon"`
	ALIPLower *float64 `json:"alip_lower,omitempty" yaml:"alip_lower,omitempty"`
	// Budget is the budget the answer was computed for: the mechanism's
	// level is within it, and the expected-utility bound holds over it.
	Budget *Budget `json:"budget,omitempty" yaml:"budget,omitempty"`
	// WorstCaseOrder or WorstCaseValue (worst-case objectives) is the
	// worst case the mechanism's support reaches: the least order rank or
	// utility over the pairs it uses. The lower end is for it.
	WorstCaseOrder *int     `json:"worst_case_order,omitempty" yaml:"worst_case_order,omitempty"`
	WorstCaseValue *float64 `json:"worst_case_value,omitempty" yaml:"worst_case_value,omitempty"`
	// Lower proves the lower end of the ε bracket (worst-case objectives).
	Lower *Lower `json:"lower,omitempty" yaml:"lower,omitempty"`
	// Utility holds the expected utility and its bound (expected-utility).
	Utility *Utility `json:"utility,omitempty" yaml:"utility,omitempty"`
	// Mechanism is the mechanism certified, when the document carrying
	// the certificate has none of its own (curve points, solve --json).
	Mechanism [][]float64 `json:"mechanism,omitempty" yaml:"mechanism,omitempty"`
	// PriorSet is the set of priors the claims hold over (the problem's
	// prior_set); nil for claims at the problem's prior.
	PriorSet *PriorSet `json:"prior_set,omitempty" yaml:"prior_set,omitempty"`
}

// Budget is a privacy budget: Epsilon for pml, lip and ldp, EpsilonLower
// and EpsilonUpper for alip.
type Budget struct {
	Epsilon      float64 `json:"epsilon" yaml:"epsilon"`
	EpsilonLower float64 `json:"epsilon_lower,omitempty" yaml:"epsilon_lower,omitempty"`
	EpsilonUpper float64 `json:"epsilon_upper,omitempty" yaml:"epsilon_upper,omitempty"`
}

// Lower proves that no ε-PML mechanism reaching the worst case exists for
// ε < OptimalEpsilonLower: multipliers Alpha (one per input) with
// Σ_i Alpha_i > 0 and, for each output j, Nu[j] ≥ 0 with
// Σ_{i∈A_j} max(0, π_i + Nu[j]·Alpha_i) ≤ e^{−OptimalEpsilonLower}, A_j
// being the inputs allowed on output j. Alpha and Nu are absent when
// OptimalEpsilonLower is 0.
//
// Over a prior set, π is replaced on output j by Priors[j] (or Priors[0]
// for every output when there is one), a vector lying above some prior of
// the set; the problem's prior when Priors is empty.
type Lower struct {
	OptimalEpsilonLower float64     `json:"optimal_epsilon_lower" yaml:"optimal_epsilon_lower"`
	Alpha               []float64   `json:"alpha,omitempty" yaml:"alpha,omitempty"`
	Nu                  []float64   `json:"nu,omitempty" yaml:"nu,omitempty"`
	Priors              [][]float64 `json:"priors,omitempty" yaml:"priors,omitempty"`
}

// Utility is the expected utility of the mechanism and, when Alpha is
// given, an upper bound on the expected utility of every mechanism within
// the budget, proven by the multipliers Alpha of the rows Σ_j p_ij = 1.
//
// Over a prior set (pml budgets), Priors gives each output's prior in the
// bound's column constraint, as for Lower.
//
// Under LIP and ALIP over a prior set the upper and the lower caps of an
// output may need priors of their own: PriorsLower then gives each
// output's prior for the lower caps (Priors, one per output, the upper
// caps'), and CapWeights each output's pair [R, T] of the totals of the
// caps' multipliers, which prove its column's bound (see boxBound).
type Utility struct {
	ExpectedUtility float64     `json:"expected_utility" yaml:"expected_utility"`
	Bound           *float64    `json:"expected_utility_bound,omitempty" yaml:"expected_utility_bound,omitempty"`
	Alpha           []float64   `json:"alpha,omitempty" yaml:"alpha,omitempty"`
	Priors          [][]float64 `json:"priors,omitempty" yaml:"priors,omitempty"`
	PriorsLower     [][]float64 `json:"priors_lower,omitempty" yaml:"priors_lower,omitempty"`
	CapWeights      [][]float64 `json:"cap_weights,omitempty" yaml:"cap_weights,omitempty"`
}
