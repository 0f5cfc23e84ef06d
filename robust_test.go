package pmlopt_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/figure"
	"github.com/pmlopt/pmlopt/guarantee"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/sample"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/worstcase"
)

// Malformed inputs, each named. The good ones are 2 × 2 and agree with one
// another, so that a call given one bad argument and good others fails
// because of that argument.
var (
	goodPrior = mech.Prior{0.6, 0.4}
	goodMech  = mech.Mechanism{{0.7, 0.3}, {0.2, 0.8}}
	goodUtil  = mech.Utility{{1, 0}, {0, 1}}
	goodOrder = mech.Order{{1, 2}, {2, 1}}
	goodPat   = mech.Pattern{{true, false}, {true, true}}
	goodPML   = mech.Budget{Measure: mech.PML, Epsilon: 1}

	nan, inf = math.NaN(), math.Inf(1)

	badPriors = map[string]mech.Prior{
		"nil":         nil,
		"empty":       {},
		"NaN":         {nan, 0.5},
		"+Inf":        {inf, 0},
		"negative":    {-0.5, 1.5},
		"not summing": {0.2, 0.2},
		"3 entries":   {0.2, 0.3, 0.5},
	}
	badMechs = map[string]mech.Mechanism{
		"nil":        nil,
		"empty":      {},
		"no columns": {{}, {}},
		"ragged":     {{1}, {0.5, 0.5}},
		"ragged 2":   {{0.5, 0.5}, {1}},
		"nil row":    {{0.5, 0.5}, nil},
		"NaN":        {{nan, 0.5}, {0.5, 0.5}},
		"Inf":        {{inf, 0}, {0.5, 0.5}},
		"negative":   {{-1, 2}, {0.5, 0.5}},
		"3 rows":     {{1, 0}, {0, 1}, {0.5, 0.5}},
	}
	badUtils = map[string]mech.Utility{
		"nil":    nil,
		"empty":  {},
		"ragged": {{1}, {0, 1}},
		"NaN":    {{nan, 0}, {0, 1}},
		"Inf":    {{inf, 0}, {0, 1}},
		"3 rows": {{1, 0}, {0, 1}, {1, 1}},
	}
	badOrders = map[string]mech.Order{
		"nil":          nil,
		"empty":        {},
		"ragged":       {{1}, {2, 1}},
		"out of range": {{0, 9}, {2, 1}},
		"3 rows":       {{1, 2}, {2, 1}, {1, 1}},
	}
	badPatterns = map[string]mech.Pattern{
		"nil":       nil,
		"empty":     {},
		"ragged":    {{true}, {true, true}},
		"empty row": {{false, false}, {true, true}},
		"3 rows":    {{true, true}, {true, true}, {true, true}},
	}
	badBudgets = map[string]mech.Budget{
		"zero":          {},
		"unknown":       {Measure: "xyz", Epsilon: 1},
		"NaN":           {Measure: mech.PML, Epsilon: nan},
		"negative":      {Measure: mech.PML, Epsilon: -1},
		"LDP NaN":       {Measure: mech.LDP, Epsilon: nan},
		"ALIP NaN":      {Measure: mech.ALIP, EpsilonLower: nan, EpsilonUpper: 1},
		"ALIP negative": {Measure: mech.ALIP, EpsilonLower: -1, EpsilonUpper: 1},
	}
	badEps    = map[string]float64{"NaN": nan, "-Inf": math.Inf(-1), "negative": -1}
	badAlphas = map[string][]float64{"nil": nil, "short": {1}, "NaN": {nan, 1}, "long": {1, 1, 1}}
	badVecs   = map[string][]float64{"nil": nil, "short": {1}, "NaN": {nan, nan, nan}, "long": make([]float64, 1000)}
)

// call is one library call with malformed input. wantErr says the call
// returns an error and must return one; calls whose result has no error
// (a leakage measure, say) must only not panic.
type call struct {
	name    string
	wantErr bool
	run     func() error
}

func noErr(f func()) func() error { return func() error { f(); return nil } }

// callList collects the calls of badCalls, one group of functions (and of
// malformed inputs) per method, so that each group reads on its own.
type callList struct {
	cs   []call
	ctx  context.Context
	ctxs map[string]context.Context // malformed contexts
}

// add returns a function that appends the call it is given, named by
// format and args.
func (l *callList) add(wantErr bool, format string, args ...any) func(func() error) {
	return func(f func() error) { l.cs = append(l.cs, call{fmt.Sprintf(format, args...), wantErr, f}) }
}

// badCalls lists every exported function that takes user data, called
// with each malformed argument in turn.
func badCalls() []call {
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	l := &callList{ctx: ctx, ctxs: map[string]context.Context{"nil": nil, "cancelled": cancelled}} //nolint:staticcheck // a nil context is the input under test
	l.mechanisms()
	l.priors()
	l.utilitiesAndOrders()
	l.patternsAndLevels()
	l.instances()
	l.problems()
	l.sampling()
	l.lpModels()
	l.polytopeModels()
	l.figures()
	return l.cs
}

// mechanisms adds calls of the functions of a prior and a mechanism, of a
// mechanism alone, and of the audit with bad budgets.
func (l *callList) mechanisms() {
	add := l.add
	pm := map[string]func(mech.Prior, mech.Mechanism) error{
		"leakage.Audit": func(pi mech.Prior, p mech.Mechanism) error {
			_, err := leakage.Audit(pi, p, 2, 1)
			return err
		},
		"leakage.MaximalAlphaLeakage": func(pi mech.Prior, p mech.Mechanism) error {
			_, err := leakage.MaximalAlphaLeakage(pi, p, 2)
			return err
		},
		"leakage.MaximalAlphaLeakageBounds": func(pi mech.Prior, p mech.Mechanism) error {
			_, _, err := leakage.MaximalAlphaLeakageBounds(pi, p, 2)
			return err
		},
		"leakage.MaximalAlphaBetaLeakage": func(pi mech.Prior, p mech.Mechanism) error {
			_, err := leakage.MaximalAlphaBetaLeakage(pi, p, 3, 2)
			return err
		},
		"leakage.MaximalAlphaBetaLeakageBounds": func(pi mech.Prior, p mech.Mechanism) error {
			_, _, err := leakage.MaximalAlphaBetaLeakageBounds(pi, p, 3, 2)
			return err
		},
		"certify.Audit": func(pi mech.Prior, p mech.Mechanism) error {
			_, err := certify.Audit(pi, p, goodPML)
			return err
		},
		"clean.Vertex": func(pi mech.Prior, p mech.Mechanism) error {
			return clean.Vertex(pi, p.Clone(), goodPML)
		},
		"clean.Interior": func(pi mech.Prior, p mech.Mechanism) error {
			_, err := clean.Interior(pi, p.Clone(), 1)
			return err
		},
		"clean.DropNoise": func(pi mech.Prior, p mech.Mechanism) error {
			return clean.DropNoise(pi, p.Clone(), goodPML, 1e-9)
		},
		"clean.WithoutNoise": func(pi mech.Prior, p mech.Mechanism) error {
			_, err := clean.WithoutNoise(pi, p, 1)
			return err
		},
		"clean.MixToBudget": func(pi mech.Prior, p mech.Mechanism) error {
			_, err := clean.MixToBudget(pi, p.Clone(), 1)
			return err
		},
	}
	pmNoErr := map[string]func(mech.Prior, mech.Mechanism){
		"leakage.Lift":                        func(pi mech.Prior, p mech.Mechanism) { leakage.Lift(pi, p) },
		"leakage.BayesCapacity":               func(pi mech.Prior, p mech.Mechanism) { leakage.BayesCapacity(pi, p) },
		"leakage.MaximalLeakage":              func(pi mech.Prior, p mech.Mechanism) { leakage.MaximalLeakage(pi, p) },
		"leakage.PosteriorBayesVulnerability": func(pi mech.Prior, p mech.Mechanism) { leakage.PosteriorBayesVulnerability(pi, p) },
		"leakage.BayesLeakage":                func(pi mech.Prior, p mech.Mechanism) { leakage.BayesLeakage(pi, p) },
		"leakage.LDP":                         func(pi mech.Prior, p mech.Mechanism) { leakage.LDP(pi, p) },
		"leakage.PMCPerOutput":                func(pi mech.Prior, p mech.Mechanism) { leakage.PMCPerOutput(pi, p) },
		"leakage.PMC":                         func(pi mech.Prior, p mech.Mechanism) { leakage.PMC(pi, p) },
		"leakage.ALIP":                        func(pi mech.Prior, p mech.Mechanism) { leakage.ALIP(pi, p) },
		"leakage.LIP":                         func(pi mech.Prior, p mech.Mechanism) { leakage.LIP(pi, p) },
		"leakage.PMLPerOutput":                func(pi mech.Prior, p mech.Mechanism) { leakage.PMLPerOutput(pi, p) },
		"leakage.PML":                         func(pi mech.Prior, p mech.Mechanism) { leakage.PML(pi, p) },
		"certify.Within":                      func(pi mech.Prior, p mech.Mechanism) { certify.Within(pi, p, 1) },
		"mech.Mechanism.Marginal":             func(pi mech.Prior, p mech.Mechanism) { p.Marginal(pi) },
		"mech.Mechanism.Posterior":            func(pi mech.Prior, p mech.Mechanism) { p.Posterior(pi) },
		"mech.Mechanism.InformationDensity":   func(pi mech.Prior, p mech.Mechanism) { p.InformationDensity(pi) },
		"mech.Utility.ExpectedUtility":        func(pi mech.Prior, p mech.Mechanism) { goodUtil.ExpectedUtility(pi, p) },
	}
	for name, f := range pm {
		for bn, pi := range badPriors {
			// The certify and clean functions take priors off by rounding.
			wantErr := !(bn == "not summing" && (strings.HasPrefix(name, "certify.") || strings.HasPrefix(name, "clean.")))
			add(wantErr, "%s(prior %s)", name, bn)(func() error { return f(pi, goodMech) })
		}
		for bn, p := range badMechs {
			add(true, "%s(mechanism %s)", name, bn)(func() error { return f(goodPrior, p) })
		}
	}
	for name, f := range pmNoErr {
		for bn, pi := range badPriors {
			add(false, "%s(prior %s)", name, bn)(noErr(func() { f(pi, goodMech) }))
		}
		for bn, p := range badMechs {
			add(false, "%s(mechanism %s)", name, bn)(noErr(func() { f(goodPrior, p) }))
		}
	}
	for bn, b := range badBudgets {
		add(true, "certify.Audit(budget %s)", bn)(func() error { _, err := certify.Audit(goodPrior, goodMech, b); return err })
		add(true, "clean.Vertex(budget %s)", bn)(func() error { return clean.Vertex(goodPrior, goodMech.Clone(), b) })
	}
	for bn, p := range badMechs {
		// A mechanism of 3 rows is one; it only disagrees with the prior.
		alone := bn != "3 rows"
		shapeBad := bn != "NaN" && bn != "Inf" && bn != "negative"
		add(shapeBad, "mech.Mechanism.CheckPrior(mechanism %s)", bn)(func() error { return p.CheckPrior(goodPrior) })
		add(alone, "leakage.LRDP(mechanism %s)", bn)(func() error { _, err := leakage.LRDP(p, 2); return err })
		add(false, "certify.RowsSumToOne(mechanism %s)", bn)(noErr(func() { certify.RowsSumToOne(p) }))
		add(alone, "clean.WithoutDust(mechanism %s)", bn)(func() error { _, err := clean.WithoutDust(p); return err })
		add(false, "clean.ClearTiny(mechanism %s)", bn)(noErr(func() { clean.ClearTiny(p.Clone(), 1e-9) }))
		add(false, "mech.Mechanism.Dims(mechanism %s)", bn)(noErr(func() { p.Dims() }))
		add(false, "mech.Mechanism.Clone(mechanism %s)", bn)(noErr(func() { p.Clone() }))
		add(alone, "mech.NewMechanism(%s)", bn)(func() error { _, err := mech.NewMechanism(p); return err })
		add(alone, "sample.NewSampler(%s)", bn)(func() error { _, err := sample.NewSampler(p); return err })
		add(false, "goodUtil.WorstCaseValue(mechanism %s)", bn)(noErr(func() { goodUtil.WorstCaseValue(p) }))
		add(false, "goodOrder.WorstCaseOrder(mechanism %s)", bn)(noErr(func() { goodOrder.WorstCaseOrder(p) }))
		add(false, "goodPat.Holds(mechanism %s)", bn)(noErr(func() { goodPat.Holds(p) }))
		add(true, "pmlopt.Audit(mechanism %s)", bn)(func() error {
			_, err := pmlopt.Audit(&problem.Problem{Prior: goodPrior, Mechanism: p}, 2, 1)
			return err
		})
	}
	add(true, "mech.Mechanism.CheckPrior(prior 3 entries)")(func() error { return goodMech.CheckPrior(badPriors["3 entries"]) })
}

// priors adds calls of every function of a prior, with each malformed prior.
func (l *callList) priors() {
	add, ctx := l.add, l.ctx
	for bn, pi := range badPriors {
		add(bn != "3 entries", "mech.NewPrior(%s)", bn)(func() error { _, err := mech.NewPrior(pi); return err })
		add(false, "mech.Prior.Min/Max(%s)", bn)(noErr(func() { pi.Min(); pi.Max() }))
		add(false, "closedform.ExtremalLimit(%s)", bn)(noErr(func() { closedform.ExtremalLimit(pi) }))
		add(bn != "3 entries", "closedform.Extremal(%s)", bn)(func() error { _, err := closedform.Extremal(pi, 0.1); return err })
		add(false, "closedform.RandomizedResponsePMC(%s)", bn)(noErr(func() { closedform.RandomizedResponsePMC(pi, 1) }))
		add(true, "closedform.SafeEpsilon(prior %s)", bn)(func() error { _, err := closedform.SafeEpsilon(pi, goodOrder, 1); return err })
		add(true, "closedform.SafeCurve(prior %s)", bn)(func() error { _, err := closedform.SafeCurve(pi, goodOrder); return err })
		add(false, "closedform.SafeSchedule(prior %s)", bn)(noErr(func() { closedform.SafeSchedule(pi, goodOrder, 1) }))
		add(true, "closedform.SafeValueCurve(prior %s)", bn)(func() error { _, err := closedform.SafeValueCurve(pi, goodUtil); return err })
		add(false, "goodPat.OutputBounds(prior %s)", bn)(noErr(func() { goodPat.OutputBounds(pi) }))
		add(false, "certify.DualBound(prior %s)", bn)(noErr(func() { certify.DualBound(pi, goodPat, []float64{1, 1}) }))
		add(false, "certify.RatioUpperBound(prior %s)", bn)(noErr(func() { certify.RatioUpperBound(pi, goodUtil, goodPML, []float64{1, 1}) }))
		add(false, "certify.UpperBound(prior %s)", bn)(noErr(func() { certify.UpperBound(pi, goodUtil, goodPat, 1, []float64{1, 1}) }))
		add(true, "expected.Maximize(prior %s)", bn)(func() error {
			_, err := expected.Maximize(ctx, pi, goodUtil, goodPML, expected.Options{})
			return err
		})
		add(true, "worstcase.LeastEpsilon(prior %s)", bn)(func() error { _, err := worstcase.LeastEpsilon(ctx, pi, goodPat, worstcase.Options{}); return err })
		add(true, "worstcase.OrderCurve(prior %s)", bn)(func() error { _, err := worstcase.OrderCurve(ctx, pi, goodOrder, worstcase.Options{}); return err })
		add(true, "worstcase.ValueCurve(prior %s)", bn)(func() error { _, err := worstcase.ValueCurve(ctx, pi, goodUtil, worstcase.Options{}); return err })
		add(true, "worstcase.BestOrder(prior %s)", bn)(func() error { _, _, err := worstcase.BestOrder(ctx, pi, goodOrder, 1, worstcase.Options{}); return err })
		add(true, "worstcase.BestValue(prior %s)", bn)(func() error { _, _, err := worstcase.BestValue(ctx, pi, goodUtil, 1, worstcase.Options{}); return err })
		add(true, "polytope.Build(prior %s)", bn)(func() error { _, err := polytope.Build(polytope.Spec{Prior: pi, Budget: goodPML}); return err })
	}
}

// utilitiesAndOrders adds calls of the functions of a utility or an order,
// and of the utility-safe order level h.
func (l *callList) utilitiesAndOrders() {
	add, ctx := l.add, l.ctx
	for bn, u := range badUtils {
		alone := bn != "3 rows" // a utility of 3 rows is one; it only disagrees with the prior
		add(alone, "mech.NewUtility(%s)", bn)(func() error { _, err := mech.NewUtility(u); return err })
		add(false, "mech.Utility methods(%s)", bn)(noErr(func() {
			u.Dims()
			u.Order()
			u.Values()
			u.ReachableValues()
			u.Pattern(0.5)
			u.WorstCaseValue(goodMech)
			u.ExpectedUtility(goodPrior, goodMech)
		}))
		add(false, "closedform.Sensitivity(%s)", bn)(noErr(func() { closedform.Sensitivity(u) }))
		add(alone, "closedform.Exponential(%s)", bn)(func() error { _, err := closedform.Exponential(u, 1, 1); return err })
		add(true, "closedform.SafeValueCurve(utility %s)", bn)(func() error { _, err := closedform.SafeValueCurve(goodPrior, u); return err })
		add(false, "certify.RatioUpperBound(utility %s)", bn)(noErr(func() { certify.RatioUpperBound(goodPrior, u, goodPML, []float64{1, 1}) }))
		add(false, "certify.UpperBound(utility %s)", bn)(noErr(func() { certify.UpperBound(goodPrior, u, goodPat, 1, []float64{1, 1}) }))
		add(true, "expected.Maximize(utility %s)", bn)(func() error {
			_, err := expected.Maximize(ctx, goodPrior, u, goodPML, expected.Options{})
			return err
		})
		add(true, "worstcase.ValueCurve(utility %s)", bn)(func() error { _, err := worstcase.ValueCurve(ctx, goodPrior, u, worstcase.Options{}); return err })
		add(true, "worstcase.BestValue(utility %s)", bn)(func() error { _, _, err := worstcase.BestValue(ctx, goodPrior, u, 1, worstcase.Options{}); return err })
		add(true, "polytope.Build(utility %s)", bn)(func() error {
			_, err := polytope.Build(polytope.Spec{Prior: goodPrior, Budget: goodPML, Objective: polytope.ExpectedUtility, Utility: u})
			return err
		})
	}
	for bn, o := range badOrders {
		alone := bn != "3 rows"
		add(alone, "mech.NewOrder(%s)", bn)(func() error { _, err := mech.NewOrder(o); return err })
		add(false, "mech.Order methods(%s)", bn)(noErr(func() {
			o.Dims()
			o.Pattern(1)
			o.WorstCaseOrder(goodMech)
		}))
		add(alone, "closedform.UtilitySafe(%s)", bn)(func() error { _, err := closedform.UtilitySafe(o, 1); return err })
		add(true, "closedform.SafeEpsilon(order %s)", bn)(func() error { _, err := closedform.SafeEpsilon(goodPrior, o, 1); return err })
		add(true, "closedform.SafeCurve(order %s)", bn)(func() error { _, err := closedform.SafeCurve(goodPrior, o); return err })
		add(false, "closedform.SafeSchedule(order %s)", bn)(noErr(func() { closedform.SafeSchedule(goodPrior, o, 1) }))
		add(true, "worstcase.OrderCurve(order %s)", bn)(func() error { _, err := worstcase.OrderCurve(ctx, goodPrior, o, worstcase.Options{}); return err })
		add(true, "worstcase.BestOrder(order %s)", bn)(func() error { _, _, err := worstcase.BestOrder(ctx, goodPrior, o, 1, worstcase.Options{}); return err })
	}
	for _, h := range []int{-1, 0, 3, math.MaxInt} {
		add(true, "closedform.UtilitySafe(h %d)", h)(func() error { _, err := closedform.UtilitySafe(goodOrder, h); return err })
		add(true, "closedform.SafeEpsilon(h %d)", h)(func() error { _, err := closedform.SafeEpsilon(goodPrior, goodOrder, h); return err })
		add(false, "mech.Order.Pattern(h %d)", h)(noErr(func() { goodOrder.Pattern(h) }))
	}
}

// patternsAndLevels adds calls of the functions of a zero pattern,
// multipliers α, a budget or a level ε.
func (l *callList) patternsAndLevels() {
	add, ctx := l.add, l.ctx
	for bn, pat := range badPatterns {
		add(true, "mech.Pattern.Check(%s)", bn)(func() error { return pat.Check(2) })
		add(false, "mech.Pattern methods(%s)", bn)(noErr(func() { pat.Holds(goodMech); pat.Columns(); pat.OutputBounds(goodPrior) }))
		add(false, "closedform.UniformOnAllowed(%s)", bn)(noErr(func() { closedform.UniformOnAllowed(pat) }))
		add(false, "certify.DualBound(pattern %s)", bn)(noErr(func() { certify.DualBound(goodPrior, pat, []float64{1, 1}) }))
		add(false, "certify.UpperBound(pattern %s)", bn)(noErr(func() { certify.UpperBound(goodPrior, goodUtil, pat, 1, []float64{1, 1}) }))
		add(true, "worstcase.LeastEpsilon(pattern %s)", bn)(func() error { _, err := worstcase.LeastEpsilon(ctx, goodPrior, pat, worstcase.Options{}); return err })
		add(bn != "empty row", "polytope.Build(pattern %s)", bn)(func() error {
			_, err := polytope.Build(polytope.Spec{Prior: goodPrior, Budget: goodPML, Pattern: pat})
			return err
		})
	}
	for bn, a := range badAlphas {
		add(false, "certify.DualBound(alpha %s)", bn)(noErr(func() { certify.DualBound(goodPrior, goodPat, a) }))
		add(false, "certify.RatioUpperBound(alpha %s)", bn)(noErr(func() { certify.RatioUpperBound(goodPrior, goodUtil, goodPML, a) }))
		add(false, "certify.UpperBound(alpha %s)", bn)(noErr(func() { certify.UpperBound(goodPrior, goodUtil, goodPat, 1, a) }))
	}
	for bn, b := range badBudgets {
		add(true, "expected.Maximize(budget %s)", bn)(func() error {
			_, err := expected.Maximize(ctx, goodPrior, goodUtil, b, expected.Options{})
			return err
		})
		add(true, "polytope.Build(budget %s)", bn)(func() error { _, err := polytope.Build(polytope.Spec{Prior: goodPrior, Budget: b}); return err })
		add(false, "certify.RatioUpperBound(budget %s)", bn)(noErr(func() { certify.RatioUpperBound(goodPrior, goodUtil, b, []float64{1, 1}) }))
	}
	for bn, e := range badEps {
		add(true, "closedform.Extremal(eps %s)", bn)(func() error { _, err := closedform.Extremal(goodPrior, e); return err })
		add(true, "closedform.RandomizedResponse(eps %s)", bn)(func() error { _, err := closedform.RandomizedResponse(2, e); return err })
		add(true, "closedform.Exponential(eps %s)", bn)(func() error { _, err := closedform.Exponential(goodUtil, e, 1); return err })
		add(true, "worstcase.BestOrder(eps %s)", bn)(func() error {
			_, _, err := worstcase.BestOrder(ctx, goodPrior, goodOrder, e, worstcase.Options{})
			return err
		})
		add(true, "worstcase.BestValue(eps %s)", bn)(func() error {
			_, _, err := worstcase.BestValue(ctx, goodPrior, goodUtil, e, worstcase.Options{})
			return err
		})
		add(false, "certify.Within(eps %s)", bn)(noErr(func() { certify.Within(goodPrior, goodMech, e) }))
		add(false, "guarantee functions(eps %s)", bn)(noErr(func() {
			guarantee.HighPrivacyBound(e)
			guarantee.PMCFromPML(e, 0.4)
			guarantee.PMLFromPMC(e, 0.4)
			guarantee.FromLDP(e, 0.4)
			guarantee.PMLFromLDP(e, 0.4)
			guarantee.LDPForPML(e, 0.4)
			guarantee.PMCFromPML(1, e)
			guarantee.PMLFromPMC(1, e)
			guarantee.FromLDP(1, e)
			guarantee.PMLFromLDP(1, e)
			guarantee.LDPForPML(1, e)
			closedform.LDPForPML(e, e)
		}))
		add(true, "guarantee.Implied(eps %s)", bn)(func() error {
			_, err := guarantee.Implied(mech.Budget{Measure: mech.PML, Epsilon: e}, 0.4)
			return err
		})
		add(true, "guarantee.Implied(pmin %s)", bn)(func() error {
			_, err := guarantee.Implied(mech.Budget{Measure: mech.PML, Epsilon: 1}, e)
			return err
		})
		add(false, "leakage.LRDP(alpha %s)", bn)(func() error { _, err := leakage.LRDP(goodMech, e); return err })
		add(true, "leakage.Audit(alpha %s)", bn)(func() error { _, err := leakage.Audit(goodPrior, goodMech, e, 1); return err })
		add(true, "leakage.Audit(beta %s)", bn)(func() error { _, err := leakage.Audit(goodPrior, goodMech, 2, e); return err })
	}
}

// instances adds calls of package instance's generators, with bad sizes and
// parameters.
func (l *callList) instances() {
	add := l.add
	for _, k := range []int{-1, 0} {
		add(true, "closedform.RandomizedResponse(k %d)", k)(func() error { _, err := closedform.RandomizedResponse(k, 1); return err })
	}
	for _, n := range []int{-1, 0} {
		add(false, "mech.Zeros(%d)", n)(noErr(func() { mech.Zeros(n, n) }))
		add(false, "mech.Uniform(%d)", n)(noErr(func() { mech.Uniform(n) }))
		add(true, "instance.Uniform(%d)", n)(func() error { _, err := instance.Uniform(n); return err })
		add(n < 0, "instance.Binomial(%d)", n)(func() error { _, err := instance.Binomial(n, 0.5); return err })
		add(true, "instance.Zipf(%d)", n)(func() error { _, err := instance.Zipf(n, 1); return err })
		add(true, "instance.Geometric(%d)", n)(func() error { _, err := instance.Geometric(n, 0.5); return err })
		add(true, "instance.Dirichlet(%d)", n)(func() error { _, err := instance.Dirichlet(rand.New(rand.NewPCG(1, 2)), n, 1); return err })
		add(true, "instance.Counting(%d)", n)(func() error { _, err := instance.Counting(n); return err })
		add(true, "instance.AbsLoss(%d)", n)(func() error { _, err := instance.AbsLoss(n); return err })
		add(true, "instance.SquareLoss(%d)", n)(func() error { _, err := instance.SquareLoss(n); return err })
		add(true, "instance.Hamming(%d)", n)(func() error { _, err := instance.Hamming(n); return err })
		add(true, "instance.Grid(%d)", n)(func() error { _, err := instance.Grid(n, n); return err })
		add(false, "instance.GridSides(%d)", n)(noErr(func() { instance.GridSides(n) }))
		add(false, "instance.GridLabels(%d)", n)(noErr(func() { instance.GridLabels(n, n) }))
		add(true, "instance.Bands(%d)", n)(func() error { _, err := instance.Bands(n, n); return err })
		add(true, "instance.Buckets(%d)", n)(func() error { _, err := instance.Buckets(n, n); return err })
		add(true, "instance.Random(%d)", n)(func() error { _, err := instance.Random(rand.New(rand.NewPCG(1, 2)), n, n); return err })
		for _, fam := range instance.Families() {
			add(true, "instance family %s.New(%d)", fam.Name, n)(func() error { _, err := fam.New(n, 1); return err })
		}
	}
	add(true, "instance.Random(nil rng)")(func() error { _, err := instance.Random(nil, 2, 2); return err })
	add(true, "instance.Dirichlet(nil rng)")(func() error { _, err := instance.Dirichlet(nil, 2, 1); return err })
	add(true, "instance.Binomial(p NaN)")(func() error { _, err := instance.Binomial(3, nan); return err })
	add(true, "instance.Zipf(s NaN)")(func() error { _, err := instance.Zipf(3, nan); return err })
	add(true, "instance.Geometric(r NaN)")(func() error { _, err := instance.Geometric(3, nan); return err })
	add(true, "instance.Dirichlet(a NaN)")(func() error { _, err := instance.Dirichlet(rand.New(rand.NewPCG(1, 2)), 3, nan); return err })
	add(true, "instance.FromCounts(nil)")(func() error { _, err := instance.FromCounts(nil, 1); return err })
	add(true, "instance.FromCounts(NaN)")(func() error { _, err := instance.FromCounts([]float64{nan, 1}, 1); return err })
	add(true, "instance.OnLine(nil loss)")(func() error { _, err := instance.OnLine(nil, []float64{1}, []float64{1}); return err })
	add(true, "instance.OnLine(empty)")(func() error { _, err := instance.OnLine(instance.CountingLoss, nil, nil); return err })
	add(true, "instance.HammingLabels(empty)")(func() error { _, err := instance.HammingLabels(nil, nil); return err })
	add(false, "instance.Positions(nil)")(noErr(func() { instance.Positions(nil) }))
	add(true, "instance.Lookup(empty)")(func() error { _, err := instance.Lookup(""); return err })
	add(false, "instance zero Family.New")(func() error { _, err := instance.Family{}.New(2, 1); return err })
}

// problems adds calls of the functions of a problem: nil, empty, and with
// each bad field.
func (l *callList) problems() {
	add, ctx, ctxs := l.add, l.ctx, l.ctxs
	probs := map[string]*problem.Problem{
		"nil":   nil,
		"empty": {},
	}
	// A nil utility, order or mechanism is one the problem does not have.
	for bn, pi := range badPriors {
		probs["prior "+bn] = &problem.Problem{Prior: pi, Utility: goodUtil, Order: goodOrder, Mechanism: goodMech, Privacy: &goodPML, Objective: problem.ExpectedUtility}
	}
	for bn, u := range badUtils {
		if u == nil {
			continue
		}
		probs["utility "+bn] = &problem.Problem{Prior: goodPrior, Utility: u, Privacy: &goodPML, Objective: problem.ExpectedUtility}
	}
	for bn, o := range badOrders {
		if o == nil {
			continue
		}
		probs["order "+bn] = &problem.Problem{Prior: goodPrior, Order: o, Privacy: &goodPML, Objective: problem.WorstCaseOrder}
	}
	for bn, m := range badMechs {
		if m == nil {
			continue
		}
		probs["mechanism "+bn] = &problem.Problem{Prior: goodPrior, Mechanism: m, Utility: goodUtil, Privacy: &goodPML, Objective: problem.ExpectedUtility}
	}
	for bn, b := range badBudgets {
		probs["budget "+bn] = &problem.Problem{Prior: goodPrior, Utility: goodUtil, Privacy: &b, Objective: problem.ExpectedUtility}
	}
	probs["labels"] = &problem.Problem{Prior: goodPrior, Utility: goodUtil, Inputs: []string{"a"}, Privacy: &goodPML, Objective: problem.ExpectedUtility}
	probs["objective"] = &problem.Problem{Prior: goodPrior, Utility: goodUtil, Privacy: &goodPML, Objective: "bogus"}
	for bn, p := range probs {
		add(true, "problem.Validate(%s)", bn)(func() error { return p.Validate() })
		add(false, "problem.N/M(%s)", bn)(noErr(func() { p.N(); p.M() }))
		add(false, "problem.Require*(%s)", bn)(noErr(func() { p.RequireUtility(); p.RequireOrder(); p.RequireMechanism(); p.RequirePrivacy() }))
		add(false, "problem.ScaleUtility(%s)", bn)(func() error { p := clone(p); _, err := p.ScaleUtility(); return err })
		add(false, "problem.ScaleExtremeUtility(%s)", bn)(func() error { p := clone(p); _, err := p.ScaleExtremeUtility(); return err })
		add(true, "problem.Marshal(%s)", bn)(func() error {
			_, err := problem.Marshal(p, problem.JSON)
			if err == nil {
				// A problem that marshals must be one that reads back.
				b, _ := problem.Marshal(p, problem.JSON)
				_, err = problem.Parse(b, problem.JSON)
			}
			return err
		})
		add(true, "pmlopt.Solve(%s)", bn)(func() error { _, err := pmlopt.Solve(ctx, p, pmlopt.Options{}); return err })
		add(true, "pmlopt.Curve(%s)", bn)(func() error { _, err := pmlopt.Curve(ctx, p, problem.WorstCaseOrder, pmlopt.Options{}); return err })
		add(true, "pmlopt.Audit(%s)", bn)(func() error { _, err := pmlopt.Audit(p, 2, 1); return err })
		add(true, "pmlopt.ExpectedCurve(%s)", bn)(func() error {
			_, err := pmlopt.ExpectedCurve(ctx, p, []mech.Budget{goodPML}, pmlopt.Options{})
			return err
		})
		add(true, "pmlopt.SolveJoint(%s)", bn)(func() error {
			_, err := pmlopt.SolveJoint(ctx, p, pmlopt.Floor{Order: 1}, pmlopt.Options{})
			return err
		})
		for _, kind := range []pmlopt.Baseline{pmlopt.RandomizedResponse, pmlopt.Exponential, pmlopt.Extremal, pmlopt.UtilitySafe, "bogus"} {
			add(true, "pmlopt.SolveBaseline(%s, %s)", bn, kind)(func() error { _, err := pmlopt.SolveBaseline(ctx, p, kind); return err })
		}
	}
	good := &problem.Problem{Prior: goodPrior, Utility: goodUtil, Order: goodOrder, Mechanism: goodMech, Privacy: &goodPML, Objective: problem.ExpectedUtility}
	for cn, c := range ctxs {
		// A nil context is an error; a cancelled one is, except for the
		// curves and searches, which return what needs no LP (here, all).
		wantErr := true
		add(wantErr, "pmlopt.Solve(ctx %s)", cn)(func() error { _, err := pmlopt.Solve(c, good, pmlopt.Options{}); return err })
		add(cn == "nil", "pmlopt.Curve(ctx %s)", cn)(func() error {
			_, err := pmlopt.Curve(c, good, problem.WorstCaseOrder, pmlopt.Options{Workers: 2})
			return err
		})
		add(wantErr, "pmlopt.ExpectedCurve(ctx %s)", cn)(func() error {
			_, err := pmlopt.ExpectedCurve(c, good, []mech.Budget{goodPML, {Measure: mech.PML, Epsilon: 2}}, pmlopt.Options{Workers: 2})
			return err
		})
		add(wantErr, "pmlopt.AuditContext(ctx %s)", cn)(func() error { _, err := pmlopt.AuditContext(c, good, 2, 1); return err })
		add(wantErr, "pmlopt.SolveJoint(ctx %s)", cn)(func() error {
			_, err := pmlopt.SolveJoint(c, good, pmlopt.Floor{Order: 1}, pmlopt.Options{})
			return err
		})
		add(wantErr, "pmlopt.SolveBaseline(ctx %s)", cn)(func() error { _, err := pmlopt.SolveBaseline(c, good, pmlopt.Exponential); return err })
		add(wantErr, "leakage.AuditContext(ctx %s)", cn)(func() error { _, err := leakage.AuditContext(c, goodPrior, goodMech, 2, 1); return err })
		add(wantErr, "expected.Maximize(ctx %s)", cn)(func() error {
			_, err := expected.Maximize(c, goodPrior, goodUtil, goodPML, expected.Options{})
			return err
		})
		add(cn == "nil", "worstcase.OrderCurve(ctx %s)", cn)(func() error {
			_, err := worstcase.OrderCurve(c, goodPrior, goodOrder, worstcase.Options{Workers: 2})
			return err
		})
		add(cn == "nil", "worstcase.ValueCurve(ctx %s)", cn)(func() error {
			_, err := worstcase.ValueCurve(c, goodPrior, goodUtil, worstcase.Options{Workers: 2})
			return err
		})
		add(cn == "nil", "worstcase.LeastEpsilon(ctx %s)", cn)(func() error { _, err := worstcase.LeastEpsilon(c, goodPrior, goodPat, worstcase.Options{}); return err })
		add(cn == "nil", "worstcase.BestOrder(ctx %s)", cn)(func() error {
			_, _, err := worstcase.BestOrder(c, goodPrior, goodOrder, 1, worstcase.Options{})
			return err
		})
		add(cn == "nil", "worstcase.BestValue(ctx %s)", cn)(func() error {
			_, _, err := worstcase.BestValue(c, goodPrior, goodUtil, 1, worstcase.Options{})
			return err
		})
	}
	for bn, pat := range badPatterns {
		add(true, "expected.Maximize(opt.Pattern %s)", bn)(func() error {
			_, err := expected.Maximize(ctx, goodPrior, goodUtil, goodPML, expected.Options{Pattern: pat})
			if bn == "nil" {
				return errors.New("a nil pattern is no pattern")
			}
			return err
		})
	}
	for bn, o := range map[string]worstcase.Options{"Tol NaN": {Tol: nan}, "Tol negative": {Tol: -1}, "Workers negative": {Workers: -3}, "Probes unknown": {Probes: 99}} {
		add(true, "worstcase.OrderCurve(%s)", bn)(func() error { _, err := worstcase.OrderCurve(ctx, goodPrior, goodOrder, o); return err })
		add(true, "worstcase.LeastEpsilon(%s)", bn)(func() error { _, err := worstcase.LeastEpsilon(ctx, goodPrior, goodPat, o); return err })
	}
	add(true, "pmlopt.Curve(bogus objective)")(func() error { _, err := pmlopt.Curve(ctx, good, "bogus", pmlopt.Options{}); return err })
	add(true, "pmlopt.Curve(negative workers)")(func() error {
		_, err := pmlopt.Curve(ctx, good, problem.WorstCaseOrder, pmlopt.Options{Workers: -1})
		return err
	})
	for bn, b := range badBudgets {
		add(true, "pmlopt.ExpectedCurve(budget %s)", bn)(func() error {
			_, err := pmlopt.ExpectedCurve(ctx, good, []mech.Budget{b}, pmlopt.Options{})
			return err
		})
	}
	add(true, "pmlopt.SolveJoint(floor 0)")(func() error { _, err := pmlopt.SolveJoint(ctx, good, pmlopt.Floor{}, pmlopt.Options{}); return err })
	add(true, "pmlopt.SolveJoint(floor NaN)")(func() error {
		_, err := pmlopt.SolveJoint(ctx, good, pmlopt.Floor{ByValue: true, Value: nan}, pmlopt.Options{})
		return err
	})
	add(true, "pmlopt.LoadProblem(empty path)")(func() error { _, err := pmlopt.LoadProblem(""); return err })
	add(true, "problem.LoadLimit(negative limit)")(func() error { _, err := problem.LoadLimit("testdata/example1.yaml", -1); return err })
	add(true, "problem.Parse(nil)")(func() error { _, err := problem.Parse(nil, problem.JSON); return err })
	add(true, "problem.Parse(bogus format)")(func() error { _, err := problem.Parse([]byte("{}"), "bogus"); return err })
}

// sampling adds calls of sampling and CSV privatisation.
func (l *callList) sampling() {
	add := l.add
	s, err := sample.NewSampler(goodMech)
	if err != nil {
		panic(err)
	}
	add(true, "sample.PrivatizeCSV(nil reader)")(func() error { return sample.PrivatizeCSV(nil, &bytes.Buffer{}, "c", nil, nil, s) })
	add(true, "sample.PrivatizeCSV(nil writer)")(func() error {
		return sample.PrivatizeCSV(strings.NewReader("c\n0\n"), nil, "c", nil, nil, s)
	})
	add(true, "sample.PrivatizeCSV(nil sampler)")(func() error {
		return sample.PrivatizeCSV(strings.NewReader("c\n0\n"), &bytes.Buffer{}, "c", nil, nil, nil)
	})
	add(true, "sample.PrivatizeCSV(zero sampler)")(func() error {
		return sample.PrivatizeCSV(strings.NewReader("c\n0\n"), &bytes.Buffer{}, "c", nil, nil, &sample.Sampler{})
	})
	add(true, "sample.SampleAll(out of range)")(func() error { _, err := s.SampleAll([]int{0, 5}); return err })
	add(true, "sample.SampleAll(zero sampler)")(func() error { _, err := (&sample.Sampler{}).SampleAll([]int{0}); return err })
	add(true, "sample.SampleAll(nil sampler)")(func() error { _, err := (*sample.Sampler)(nil).SampleAll([]int{0}); return err })
}

// lpModels adds calls of LP models' methods and of the solver registry.
func (l *callList) lpModels() {
	add := l.add
	lps := map[string]*lp.Model{
		"nil": nil,
		"ragged": {ColCosts: []float64{1}, ColLower: []float64{0}, ColUpper: []float64{1, 2},
			RowLower: []float64{0}, RowUpper: []float64{1}},
		"bad index": {ColCosts: []float64{1}, ColLower: []float64{0}, ColUpper: []float64{1},
			RowLower: []float64{0}, RowUpper: []float64{1}, ConstMatrix: []lp.Nonzero{{Row: 3, Col: -1, Val: 1}}},
		"NaN": {ColCosts: []float64{nan}, ColLower: []float64{0}, ColUpper: []float64{1}},
	}
	for bn, m := range lps {
		add(true, "lp.Model.Validate(%s)", bn)(func() error { return m.Validate() })
		add(false, "lp.Model.CSC(%s)", bn)(noErr(func() { m.CSC() }))
		add(false, "lp.Model.Clone(%s)", bn)(noErr(func() { m.Clone() }))
		add(false, "lp.Model.Eval(%s)", bn)(noErr(func() { m.Where(m.Eval([]float64{1})) }))
		add(false, "lp.Model.counts(%s)", bn)(noErr(func() { m.NumCols(); m.NumRows(); m.NumNonzeros() }))
		add(false, "lp.Model.ScaledRows(%s)", bn)(noErr(func() { m.ScaledRows(2) }))
		add(true, "lp.Model.WriteMPS(%s)", bn)(func() error { return m.WriteMPS(&bytes.Buffer{}) })
		add(false, "solver.FarkasGap(%s)", bn)(noErr(func() { solver.FarkasGap(m, []float64{1, 2}) }))
		for _, name := range solver.Names() {
			add(true, "solver %s.Solve(%s)", name, bn)(func() error {
				sv, err := solver.Get(name)
				if err != nil {
					return nil
				}
				_, err = sv.Solve(m)
				return err
			})
			add(true, "solver.ColdSession(%s, %s)", name, bn)(func() error {
				sv, err := solver.Get(name)
				if err != nil {
					return nil
				}
				_, err = solver.ColdSession(sv, m)
				return err
			})
		}
	}
	good2 := &lp.Model{ColCosts: []float64{1}, ColLower: []float64{0}, ColUpper: []float64{1}}
	for bn, x := range badVecs {
		add(false, "lp.Model.Eval(x %s)", bn)(noErr(func() { good2.Where(good2.Eval(x)); good2.Objective(x); good2.Activity(x); good2.MaxViolation(x) }))
		add(false, "solver.FarkasGap(y %s)", bn)(noErr(func() { solver.FarkasGap(good2, x) }))
	}
	add(false, "lp.Model.AddRow(bad column)")(noErr(func() { good2.Clone().AddRow(0, 1, "r", lp.Entry(7, 1)) }))
	add(false, "mech.Normalise(nil, NaN)")(noErr(func() { mech.Normalise(nil); mech.Normalise([]float64{nan, -1}) }))
	add(true, "mech.ParseMeasure(empty)")(func() error { _, err := mech.ParseMeasure(""); return err })
	add(true, "problem.ParseObjective(bogus)")(func() error { _, err := problem.ParseObjective("bogus"); return err })
	add(false, "problem.FormatOf(empty)")(noErr(func() { problem.FormatOf("") }))
	add(false, "pmlopt.ALIPBudget(NaN)")(noErr(func() { pmlopt.ALIPBudget(nan, nan) }))
	add(false, "instance losses(NaN)")(noErr(func() {
		instance.CountingLoss(nan, inf)
		instance.AbsoluteLoss(nan, inf)
		instance.SquaredLoss(nan, inf)
	}))
	add(true, "lp.Model.WriteMPS(nil writer)")(func() error { return good2.WriteMPS(nil) })
	add(true, "lp.ReadMPS(nil)")(func() error { _, err := lp.ReadMPS(nil); return err })
	add(true, "solver.Get(bogus)")(func() error { _, err := solver.Get("bogus"); return err })
	add(true, "solver.ColdSession(nil solver)")(func() error { _, err := solver.ColdSession(nil, good2); return err })
}

// polytopeModels adds calls of polytope.Build and the models' methods.
func (l *callList) polytopeModels() {
	add := l.add
	pmod, err := polytope.Build(polytope.Spec{Prior: goodPrior, Budget: goodPML, Outputs: 2})
	if err != nil {
		panic(err)
	}
	for bn, x := range badVecs {
		add(true, "polytope.Model.Mechanism(x %s)", bn)(func() error { _, err := pmod.Mechanism(x); return err })
		add(false, "polytope.Model.LowerBound(duals %s)", bn)(noErr(func() { pmod.LowerBound(x) }))
	}
	for bn, p := range badMechs {
		add(bn != "NaN" && bn != "Inf" && bn != "negative", "polytope.Model.Point(%s)", bn)(func() error { _, err := pmod.Point(p); return err })
	}
	for bn, b := range badBudgets {
		add(true, "polytope.Model.SetBudget(%s)", bn)(func() error {
			sess, err := solver.ColdSession(solver.Revised(), pmod.LP)
			if err != nil {
				return err
			}
			defer sess.Close()
			return pmod.SetBudget(sess, b)
		})
	}
	add(false, "polytope.Model.SetBudget(nil session)")(func() error { return pmod.SetBudget(nil, goodPML) })
	add(true, "polytope.Build(zero spec)")(func() error { _, err := polytope.Build(polytope.Spec{}); return err })
	add(true, "polytope.Build(negative outputs)")(func() error {
		_, err := polytope.Build(polytope.Spec{Prior: goodPrior, Budget: goodPML, Outputs: -1})
		return err
	})
	add(false, "zero polytope.Model")(func() error {
		var z polytope.Model
		z.LowerBound(nil)
		if _, err := z.Mechanism(nil); err != nil {
			return err
		}
		_, err := z.Point(goodMech)
		return err
	})
}

// figures adds calls that write figures, heat maps and bar charts.
func (l *callList) figures() {
	add := l.add
	badFigs := map[string]figure.Figure{
		"empty":        {},
		"unequal":      {Series: []figure.Series{{X: []float64{1, 2}, Y: []float64{1}}}},
		"NaN only":     {Series: []figure.Series{{X: []float64{nan}, Y: []float64{nan}}}},
		"huge":         {Series: []figure.Series{{X: []float64{0, 1}, Y: []float64{-math.MaxFloat64, math.MaxFloat64}}}},
		"negative log": {LogY: true, Series: []figure.Series{{X: []float64{0, 1}, Y: []float64{-1, -2}}}},
		"bad size":     {Width: -1, Height: nan, Series: []figure.Series{{X: []float64{0, 1}, Y: []float64{0, 1}}}},
		"bad legend":   {Legend: "middle", Series: []figure.Series{{X: []float64{0, 1}, Y: []float64{0, 1}}}},
	}
	for bn, f := range badFigs {
		add(false, "figure.Figure.Write(%s)", bn)(func() error { return f.Write(&bytes.Buffer{}, figure.SVG) })
		add(false, "figure.Figure.Plot(%s)", bn)(func() error { _, err := f.Plot(); return err })
		add(false, "figure.Staircase(%s)", bn)(func() error { return figure.Staircase(&bytes.Buffer{}, figure.SVG, "", "", "", f.Series...) })
	}
	okFig := figure.Figure{Series: []figure.Series{{X: []float64{0, 1}, Y: []float64{0, 1}}}}
	add(true, "figure.Figure.Write(nil writer)")(func() error { return okFig.Write(nil, figure.SVG) })
	add(true, "figure.Figure.Write(bogus format)")(func() error { return okFig.Write(&bytes.Buffer{}, "bogus") })
	add(true, "figure.Figure.Save(empty path)")(func() error { return okFig.Save("") })
	add(true, "figure.ParseFormat(empty)")(func() error { _, err := figure.ParseFormat(""); return err })
	badHeat := map[string]figure.Heatmap{
		"empty":   {},
		"ragged":  {Z: [][]float64{{1}, {1, 2}}},
		"NaN":     {Z: [][]float64{{nan, nan}}},
		"labels":  {Z: [][]float64{{1, 2}}, RowLabels: []string{"a", "b", "c"}},
		"marks":   {Z: [][]float64{{1, 2}}, Marks: [][2]int{{5, -1}}},
		"huge":    {Z: [][]float64{{-math.MaxFloat64, math.MaxFloat64}}},
		"min/max": {Z: [][]float64{{1, 2}}, Min: nan, Max: inf},
	}
	for bn, h := range badHeat {
		add(false, "figure.Heatmap.Write(%s)", bn)(func() error { return h.Write(&bytes.Buffer{}, figure.SVG) })
	}
	add(true, "figure.Heatmap.Write(nil writer)")(func() error { return figure.Heatmap{Z: [][]float64{{1}}}.Write(nil, figure.SVG) })
	add(true, "figure.Heatmap.Write(huge)")(func() error { return badHeat["huge"].Write(&bytes.Buffer{}, figure.SVG) })
	badBars := map[string]figure.BarFigure{
		"empty":   {},
		"no bars": {Panels: []figure.Bars{{}}},
		"short":   {Panels: []figure.Bars{{Groups: []string{"a", "b"}, Series: []figure.BarSeries{{Values: []float64{1}}}}}},
		"NaN":     {Panels: []figure.Bars{{Groups: []string{"a"}, Series: []figure.BarSeries{{Values: []float64{nan}}}}}},
		"huge":    {Panels: []figure.Bars{{Groups: []string{"a", "b"}, Series: []figure.BarSeries{{Values: []float64{math.MaxFloat64, -math.MaxFloat64}}}}}},
	}
	for bn, b := range badBars {
		add(false, "figure.BarFigure.Write(%s)", bn)(func() error { return b.Write(&bytes.Buffer{}, figure.SVG) })
	}
	add(true, "figure.BarFigure.Write(nil writer)")(func() error { return badBars["NaN"].Write(nil, figure.SVG) })
}

func clone(p *problem.Problem) *problem.Problem {
	if p == nil {
		return nil
	}
	c := *p
	c.Utility = nil
	for _, row := range p.Utility {
		c.Utility = append(c.Utility, append([]float64(nil), row...))
	}
	return &c
}

// TestNoPanicOnBadInput calls every exported function that takes user
// data with malformed input: none may panic, and those that return an
// error must return one.
func TestNoPanicOnBadInput(t *testing.T) {
	calls := badCalls()
	t.Logf("%d calls", len(calls))
	for _, c := range calls {
		var err error
		panicked := func() (msg string) {
			defer func() {
				if r := recover(); r != nil {
					msg = fmt.Sprintf("%v\n%s", r, debug.Stack())
				}
			}()
			err = c.run()
			return ""
		}()
		if panicked != "" {
			t.Errorf("%s panicked: %s", c.name, firstLines(panicked, 12))
			continue
		}
		if c.wantErr && err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
