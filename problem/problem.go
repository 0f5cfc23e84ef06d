package problem

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/pmlopt/pmlopt/mech"
)

// Objective names what a solve optimises. The model builder (package
// polytope) takes the same type: ExpectedUtility, and the feasibility
// objectives its searches for the worst-case objectives use.
type Objective string

// The objectives a problem file can ask for. The empty Objective means the
// file does not say.
const (
	WorstCaseOrder  Objective = "worst-case-order" // maximise min over used pairs of the utility order U
	WorstCaseValue  Objective = "worst-case-value" // maximise min over used pairs of the utility u'
	ExpectedUtility Objective = "expected-utility" // maximise Σ π_i p_ij u'_ij
)

// ParseObjective returns the Objective named s.
func ParseObjective(s string) (Objective, error) {
	switch o := Objective(s); o {
	case WorstCaseOrder, WorstCaseValue, ExpectedUtility:
		return o, nil
	}
	return "", fmt.Errorf("unknown objective %q (want worst-case-order, worst-case-value or expected-utility)", s)
}

// Problem is the content of a problem file in the domain types of package
// mech. Fields that the file does not give are nil (or empty).
type Problem struct {
	Name    string
	Inputs  []string // labels of the N inputs, or nil
	Outputs []string // labels of the M outputs, or nil

	Prior   mech.Prior
	Utility mech.Utility // nil if absent
	// Rule, when the file gives its utility by a utility_rule, defines
	// the utility in O(N + M) memory. Utility and Order are then nil
	// until Materialize, or RequireUtility or RequireOrder, fills them in:
	// call Materialize before goroutines share p, as those methods write
	// the two fields.
	Rule *mech.UtilityRule
	// Order is the utility order: as given, or derived from Utility by
	// Utility.Order() when the file gives only a utility; nil if neither.
	Order     mech.Order
	Mechanism mech.Mechanism // nil if absent
	Privacy   *mech.Budget   // nil if absent
	Objective Objective      // empty if absent

	// PriorSet, when the file gives prior_set, is the set of priors the
	// guarantees must hold for (docs/theory.md, "When the prior is
	// estimated"); nil means the prior is taken as exact.
	PriorSet       *mech.PriorSet
	PriorSetSource *PriorSetSource // how the set was estimated, or nil

	// source names where the problem was read (see ParseSource), for the
	// messages of the Require methods; empty for a problem built in code.
	source string
	// memoryLimit bounds the dense utility of a rule (SetMemoryLimit).
	memoryLimit int64
}

// N returns the number of inputs, the length of the prior (0 for nil).
func (p *Problem) N() int {
	if p == nil {
		return 0
	}
	return len(p.Prior)
}

// M returns the number of outputs: the column count of the utility, order or
// mechanism, or the number of output labels when no matrix is given, or 0.
func (p *Problem) M() int {
	switch {
	case p == nil:
		return 0
	case len(p.Utility) > 0:
		return len(p.Utility[0])
	case p.Rule != nil:
		return p.Rule.Cols()
	case len(p.Order) > 0:
		return len(p.Order[0])
	case len(p.Mechanism) > 0:
		return len(p.Mechanism[0])
	}
	return len(p.Outputs)
}

// RequireUtility returns the utility matrix, or an error saying the problem
// has none.
func (p *Problem) RequireUtility() (mech.Utility, error) {
	return p.RequireUtilityContext(context.Background())
}

// RequireUtilityContext is RequireUtility stopping when ctx ends: a rule's
// utility comes with its order (MaterializeContext), whose derivation
// looks at ctx every few rows and returns ctx.Err() once it has ended.
func (p *Problem) RequireUtilityContext(ctx context.Context) (mech.Utility, error) {
	if err := p.MaterializeContext(ctx); err != nil {
		return nil, err
	}
	if p == nil || p.Utility == nil {
		return nil, p.from(missing("utility", "this command needs a utility matrix"))
	}
	return p.Utility, nil
}

// RequireOrder returns the utility order: the given one, or the one derived
// from the utility, or an error when the problem has neither.
func (p *Problem) RequireOrder() (mech.Order, error) {
	return p.RequireOrderContext(context.Background())
}

// RequireOrderContext is RequireOrder stopping when ctx ends: deriving the
// order (of a rule, or of a utility given without one) looks at ctx every
// few rows (mech.PollRows) and returns ctx.Err() once it has ended.
func (p *Problem) RequireOrderContext(ctx context.Context) (mech.Order, error) {
	if err := p.MaterializeContext(ctx); err != nil {
		return nil, err
	}
	switch {
	case p == nil:
	case p.Order != nil:
		return p.Order, nil
	case p.Utility != nil:
		return p.Utility.OrderContext(ctx)
	}
	return nil, p.from(missing("order", "this command needs a utility order (give order or utility)"))
}

// RequireMechanism returns the mechanism, or an error saying the problem has
// none.
func (p *Problem) RequireMechanism() (mech.Mechanism, error) {
	if p == nil || p.Mechanism == nil {
		return nil, p.from(missing("mechanism", "this command needs a mechanism"))
	}
	return p.Mechanism, nil
}

// RequirePrivacy returns the privacy budget, or an error saying the problem
// has none.
func (p *Problem) RequirePrivacy() (mech.Budget, error) {
	if p == nil || p.Privacy == nil {
		return mech.Budget{}, p.from(missing("privacy", "this command needs a privacy budget (measure and epsilon)"))
	}
	return *p.Privacy, nil
}

// from prefixes err with the problem's source, when it has one, so that a
// message about a key that the file lacks names the file.
func (p *Problem) from(err error) error {
	if p == nil || p.source == "" {
		return err
	}
	return fmt.Errorf("%s: %w", p.source, err)
}

// Source returns where the problem was read: the path given to Load, the
// name given to ParseSource, or "" for a problem built in code or read by
// Parse.
func (p *Problem) Source() string {
	if p == nil {
		return ""
	}
	return p.source
}

func missing(field, why string) error {
	return &mech.FieldError{Field: field, Row: -1, Col: -1, Msg: "is missing; " + why}
}

func fieldErr(field string, row, col int, format string, args ...any) *mech.FieldError {
	return &mech.FieldError{Field: field, Row: row, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// Validate checks a problem built in code by the rules a problem file
// obeys: a valid prior; a valid utility, order and mechanism when present,
// each with one row per prior letter and all with the same number of
// columns; an order that equals the utility's order when both are present;
// label counts that match; labels of printable UTF-8 text (see
// checkLabel) and a name without control characters other than tabs and
// line breaks; a complete privacy budget; a known objective.
// It returns the first problem found as a *mech.FieldError. Validate does
// not modify p.
func (p *Problem) Validate() error {
	return p.ValidateContext(context.Background())
}

// ValidateContext is Validate stopping when ctx ends: the checks of the
// order, which rank every row of the order and of the utility, look at ctx
// every few rows (mech.PollRows) and return ctx.Err() once it has ended.
func (p *Problem) ValidateContext(ctx context.Context) error {
	if p == nil {
		return fieldErr("problem", -1, -1, "is nil")
	}
	if p.Prior == nil {
		return missing("prior", "every problem needs a prior")
	}
	if _, err := mech.NewPrior(p.Prior); err != nil {
		return err
	}
	n := len(p.Prior)
	m, mField := -1, ""
	shape := func(field string, rows, cols int) error {
		if rows != n {
			return fieldErr(field, -1, -1, "has %d rows, but the prior has %d letters", rows, n)
		}
		if m >= 0 && cols != m {
			return fieldErr(field, -1, -1, "has %d columns, but %s has %d", cols, mField, m)
		}
		if m < 0 {
			m, mField = cols, field
		}
		return nil
	}
	if p.Utility != nil {
		if _, err := mech.NewUtility(p.Utility); err != nil {
			return err
		}
		if err := shape("utility", len(p.Utility), len(p.Utility[0])); err != nil {
			return err
		}
	}
	if p.Rule != nil {
		if err := p.Rule.Validate(); err != nil {
			return err
		}
		if err := shape("utility_rule", p.Rule.Rows(), p.Rule.Cols()); err != nil {
			return err
		}
	}
	if p.Order != nil {
		if _, err := mech.NewOrderContext(ctx, p.Order); err != nil {
			return err
		}
		if err := shape("order", len(p.Order), len(p.Order[0])); err != nil {
			return err
		}
		if p.Utility != nil {
			want, err := p.Utility.OrderContext(ctx)
			if err != nil {
				return err
			}
			for i, row := range p.Order {
				for j, v := range row {
					if v != want[i][j] {
						return fieldErr("order", i, j, "is %d, but the utility ranks this entry %d (an order given with a utility must equal its ranks)", v, want[i][j])
					}
				}
			}
		}
	}
	if p.Mechanism != nil {
		if _, err := mech.NewMechanism(p.Mechanism); err != nil {
			return err
		}
		if err := shape("mechanism", len(p.Mechanism), len(p.Mechanism[0])); err != nil {
			return err
		}
	}
	if !utf8.ValidString(p.Name) {
		return fieldErr("name", -1, -1, "%s is not valid UTF-8", quote(p.Name))
	}
	if err := checkName(p.Name); err != nil {
		return err
	}
	for _, l := range []struct {
		field  string
		labels []string
	}{{"inputs", p.Inputs}, {"outputs", p.Outputs}} {
		for i, s := range l.labels {
			if err := checkLabel(l.field, i, s); err != nil {
				return err
			}
		}
	}
	if p.Inputs != nil {
		if len(p.Inputs) != n {
			return fieldErr("inputs", -1, -1, "has %d labels, but the prior has %d letters", len(p.Inputs), n)
		}
		if err := distinct("inputs", p.Inputs); err != nil {
			return err
		}
	}
	if p.Outputs != nil {
		if m >= 0 && len(p.Outputs) != m {
			return fieldErr("outputs", -1, -1, "has %d labels, but %s has %d columns", len(p.Outputs), mField, m)
		}
		if len(p.Outputs) == 0 {
			return fieldErr("outputs", -1, -1, "is empty")
		}
		if err := distinct("outputs", p.Outputs); err != nil {
			return err
		}
	}
	if p.Privacy != nil {
		if err := CheckBudget(*p.Privacy); err != nil {
			return err
		}
	}
	if p.Objective != "" {
		if _, err := ParseObjective(string(p.Objective)); err != nil {
			return fieldErr("objective", -1, -1, "%s is not one of worst-case-order, worst-case-value, expected-utility", quote(string(p.Objective)))
		}
	}
	return p.validatePriorSet()
}

func distinct(field string, labels []string) error {
	seen := make(map[string]int, len(labels))
	for i, s := range labels {
		if k, ok := seen[s]; ok {
			return fieldErr(field, -1, i, "%s repeats entry %d", quote(s), k+1)
		}
		seen[s] = i
	}
	return nil
}

// CheckBudget refuses a budget that a problem file could not hold: an
// unknown measure, a level that is NaN, infinite, negative or above
// MaxEpsilon, or a level the measure does not use. Library callers that
// build budgets themselves check them here, as the loader does.
func CheckBudget(b mech.Budget) error {
	if _, err := mech.ParseMeasure(string(b.Measure)); err != nil {
		if b.Measure == "" {
			return missing("privacy.measure", "want pml, alip, lip or ldp")
		}
		return fieldErr("privacy.measure", -1, -1, "%s is not one of pml, alip, lip, ldp", quote(string(b.Measure)))
	}
	type eps struct {
		name string
		v    float64
	}
	all := []eps{{"epsilon", b.Epsilon}, {"epsilon_lower", b.EpsilonLower}, {"epsilon_upper", b.EpsilonUpper}}
	for _, e := range all {
		used := (b.Measure == mech.ALIP) != (e.name == "epsilon")
		if !used {
			if e.v != 0 {
				return fieldErr("privacy."+e.name, -1, -1, "is not used by measure %s (%s)", b.Measure, usesOf(b.Measure))
			}
			continue
		}
		if msg := checkEpsilon(e.v); msg != "" {
			return fieldErr("privacy."+e.name, -1, -1, "%s", msg)
		}
	}
	return nil
}

func usesOf(m mech.Measure) string {
	if m == mech.ALIP {
		return "it uses epsilon_lower and epsilon_upper"
	}
	return "it uses epsilon"
}

func checkEpsilon(v float64) string {
	switch {
	case v != v:
		return "is NaN"
	case v > maxFinite || v < -maxFinite:
		return "is infinite"
	case v < 0:
		return fmt.Sprintf("is negative (%g)", v)
	case v > MaxEpsilon:
		return fmt.Sprintf("is %g, beyond the largest budget %g nats (the LPs use e^ε, which must stay far from overflow)", v, MaxEpsilon)
	}
	return ""
}

// MaxEpsilon is the largest privacy level a budget may give, in nats.
// e^700 ≈ 1e304 is still a float64, with room for the products the
// polytopes form; a budget this large constrains nothing in practice.
const MaxEpsilon = 700.0

const maxFinite = 1.7976931348623157e308
