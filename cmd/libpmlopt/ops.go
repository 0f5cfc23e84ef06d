package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/guarantee"
	"github.com/pmlopt/pmlopt/internal/jsonout"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/verify"
)

// input is the matrices of a call, row-major views of the caller's
// buffers (nil when not given).
type input struct {
	N, M                             int
	Prior, Utility, Order, Mechanism []float64
}

// jf is a float64 in the JSON a call returns, as the CLI writes it: ±Inf
// as "inf" and "-inf", NaN as null.
type jf = jsonout.Float

// argFloat is a float64 of a call's arguments: a number, "inf", "-inf", or
// null and "nan" for NaN.
type argFloat float64

func (f *argFloat) UnmarshalJSON(b []byte) error {
	switch s := string(b); s {
	case `"inf"`:
		*f = argFloat(math.Inf(1))
	case `"-inf"`:
		*f = argFloat(math.Inf(-1))
	case `null`, `"nan"`:
		*f = argFloat(math.NaN())
	default:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("not a number: %s", s)
		}
		*f = argFloat(v)
	}
	return nil
}

func opt(v float64) *jf { return jsonout.Opt(v) }

func jfs(v []float64) []jf { return jsonout.Floats(v) }

// args are a call's scalar parameters, named as the Python keywords.
type args struct {
	Path         string     `json:"path"`
	Name         string     `json:"name"`
	Inputs       []string   `json:"inputs"`
	Outputs      []string   `json:"outputs"`
	Objective    string     `json:"objective"`
	Measure      string     `json:"measure"`
	Epsilon      *argFloat  `json:"epsilon"`
	EpsilonLower *argFloat  `json:"epsilon_lower"`
	MinOrder     *int       `json:"min_order"`
	MinValue     *argFloat  `json:"min_value"`
	Solver       string     `json:"solver"`
	Tol          argFloat   `json:"tol"`
	Workers      int        `json:"workers"`
	Mechanisms   bool       `json:"mechanisms"`
	Measures     []string   `json:"measures"`
	Epsilons     []argFloat `json:"epsilons"`
	ALIPRatio    *argFloat  `json:"alip_ratio"`
	Alpha        *argFloat  `json:"alpha"`
	Beta         *argFloat  `json:"beta"`
	H            *int       `json:"h"`
	Baseline     string     `json:"baseline"`
	From         string     `json:"from"`
	PMin         *argFloat  `json:"pmin"`
	// Certificates asks curve for each point's certificate.
	Certificates bool `json:"certificates"`
	// The certificate verify re-checks (or Path names a file holding one),
	// and Problem the problem file it was computed for.
	Certificate json.RawMessage `json:"certificate"`
	Problem     string          `json:"problem"`
	// PriorSet, when given, is the set of priors solve, curve, baseline
	// and audit hold the budget over (a problem file's prior_set).
	PriorSet *priorSetArg `json:"prior_set"`
}

// priorSetArg is a call's prior set: a box (lower and upper) or the L1
// ball of radius l1_radius around the prior, as a problem file's
// prior_set (docs/problem-files.md).
type priorSetArg struct {
	Lower    []argFloat `json:"lower"`
	Upper    []argFloat `json:"upper"`
	L1Radius *argFloat  `json:"l1_radius"`
}

// set builds the prior set around prior, checked as a problem file's.
func (s *priorSetArg) set(prior mech.Prior) (*mech.PriorSet, error) {
	floats := func(v []argFloat) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x)
		}
		return out
	}
	switch {
	case s.L1Radius != nil && (s.Lower != nil || s.Upper != nil):
		return nil, errors.New("prior_set: gives both a box (lower, upper) and l1_radius; give one")
	case s.L1Radius != nil:
		return mech.NewL1Set(prior, float64(*s.L1Radius))
	case s.Lower == nil:
		return nil, errors.New("prior_set.lower: is missing; a box needs lower and upper (or give l1_radius)")
	case s.Upper == nil:
		return nil, errors.New("prior_set.upper: is missing; a box needs lower and upper (or give l1_radius)")
	}
	return mech.NewBoxSet(prior, floats(s.Lower), floats(s.Upper))
}

type opFunc func(ctx context.Context, a args, in input) (any, [][][]float64, error)

var ops = map[string]opFunc{
	"load":     opLoad,
	"solve":    opSolve,
	"curve":    opCurve,
	"audit":    opAudit,
	"safe":     opSafe,
	"baseline": opBaseline,
	"convert":  opConvert,
	"verify":   opVerify,
}

func rows(v []float64, n, m int) [][]float64 {
	if v == nil {
		return nil
	}
	out := make([][]float64, n)
	for i := range out {
		out[i] = append([]float64(nil), v[i*m:(i+1)*m]...)
	}
	return out
}

// problemOf builds the problem of a call from its matrices and its
// measure, epsilon and objective, checked by the rules of a problem file.
// Deriving the order of a utility and checking it rank every row, so both
// stop with ctx (the call's cancellation token): errInterrupted then.
func problemOf(ctx context.Context, a args, in input, needBudget bool) (*problem.Problem, error) {
	p := &problem.Problem{Name: a.Name, Inputs: a.Inputs, Outputs: a.Outputs}
	if in.Prior != nil {
		p.Prior = mech.Prior(append([]float64(nil), in.Prior...))
	}
	p.Utility = mech.Utility(rows(in.Utility, in.N, in.M))
	p.Mechanism = mech.Mechanism(rows(in.Mechanism, in.N, in.M))
	if in.Order != nil {
		o := make(mech.Order, in.N)
		for i := range o {
			o[i] = make([]int, in.M)
			for j := range o[i] {
				v := in.Order[i*in.M+j]
				if v != math.Trunc(v) || math.Abs(v) > 1<<31 {
					return nil, &mech.FieldError{Field: "order", Row: i, Col: j, Msg: fmt.Sprintf("is %v, not an integer", v)}
				}
				o[i][j] = int(v)
			}
		}
		p.Order = o
	}
	if a.Objective != "" {
		o, err := problem.ParseObjective(a.Objective)
		if err != nil {
			return nil, fmt.Errorf("objective: %v", err)
		}
		p.Objective = o
	}
	if a.Epsilon != nil || a.Measure != "" {
		b, err := budgetOf(a)
		if err != nil {
			return nil, err
		}
		p.Privacy = &b
	} else if needBudget {
		return nil, errors.New("epsilon: missing; give the privacy budget (epsilon=, and measure= other than pml)")
	}
	if p.Utility != nil && p.Order == nil {
		o, err := p.Utility.OrderContext(ctx)
		if err != nil {
			return nil, errInterrupted
		}
		p.Order = o
	}
	if err := p.ValidateContext(ctx); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, errInterrupted
		}
		return nil, err
	}
	if a.PriorSet != nil {
		set, err := a.PriorSet.set(p.Prior)
		if err != nil {
			return nil, err
		}
		p.PriorSet = set
	}
	return p, nil
}

// budgetOf is the budget of measure and epsilon (ε_u for ALIP, with
// epsilon_lower its ε_l).
func budgetOf(a args) (mech.Budget, error) {
	name := a.Measure
	if name == "" {
		name = string(mech.PML)
	}
	m, err := mech.ParseMeasure(name)
	if err != nil {
		return mech.Budget{}, fmt.Errorf("measure: %v", err)
	}
	if a.Epsilon == nil {
		return mech.Budget{}, fmt.Errorf("epsilon: missing; measure %s needs a budget", m)
	}
	eps := float64(*a.Epsilon)
	if !(eps >= 0 && eps <= problem.MaxEpsilon) {
		return mech.Budget{}, fmt.Errorf("epsilon must be a number in [0, %g], got %v", float64(problem.MaxEpsilon), eps)
	}
	if m == mech.ALIP {
		if a.EpsilonLower == nil {
			return mech.Budget{}, errors.New("epsilon_lower: missing; an alip budget needs epsilon_lower (ε_l) and epsilon (ε_u)")
		}
		lo := float64(*a.EpsilonLower)
		if !(lo >= 0 && lo <= problem.MaxEpsilon) {
			return mech.Budget{}, fmt.Errorf("epsilon_lower must be a number in [0, %g], got %v", float64(problem.MaxEpsilon), lo)
		}
		return mech.Budget{Measure: m, EpsilonLower: lo, EpsilonUpper: eps}, nil
	}
	if a.EpsilonLower != nil {
		return mech.Budget{}, errors.New("epsilon_lower is only for measure alip")
	}
	return mech.Budget{Measure: m, Epsilon: eps}, nil
}

func solverOf(name string) (solver.Solver, error) {
	if name == "" || name == "auto" {
		return nil, nil
	}
	s, err := solver.Get(name)
	if err != nil {
		return nil, fmt.Errorf("solver: unknown backend %q (built in: auto, %s)", name, strings.Join(solver.Names(), ", "))
	}
	return s, nil
}

func options(a args) (pmlopt.Options, error) {
	s, err := solverOf(a.Solver)
	if err != nil {
		return pmlopt.Options{}, err
	}
	tol := float64(a.Tol)
	if tol == 0 {
		tol = 1e-9
	}
	if !(tol > 0) || math.IsInf(tol, 0) {
		return pmlopt.Options{}, fmt.Errorf("tol must be a positive number, got %v", tol)
	}
	if a.Workers < 0 {
		return pmlopt.Options{}, fmt.Errorf("workers must be ≥ 0, got %d", a.Workers)
	}
	return pmlopt.Options{Solver: s, Tol: tol, Workers: a.Workers}, nil
}

// toBudget is b's JSON, nil for no budget.
func toBudget(b *mech.Budget) *jsonout.Budget {
	if b == nil {
		return nil
	}
	j := jsonout.BudgetOf(*b)
	return &j
}

// opLoad reads a problem file: its scalars, and prior, utility, order and
// mechanism as matrices (index -1 when absent).
func opLoad(ctx context.Context, a args, _ input) (any, [][][]float64, error) {
	p, err := problem.Load(a.Path)
	if err != nil {
		return nil, nil, err
	}
	// A utility_rule is handed over as the matrix it defines; deriving its
	// order stops with the call's cancellation token.
	if err := p.MaterializeContext(ctx); err != nil {
		return nil, nil, err
	}
	var mats [][][]float64
	add := func(m [][]float64) int {
		if m == nil {
			return -1
		}
		mats = append(mats, m)
		return len(mats) - 1
	}
	var order [][]float64
	if p.Order != nil {
		order = make([][]float64, len(p.Order))
		for i, row := range p.Order {
			order[i] = make([]float64, len(row))
			for j, v := range row {
				order[i][j] = float64(v)
			}
		}
	}
	var set map[string]any
	if s := p.PriorSet; s != nil {
		set = map[string]any{"l1_radius": jf(s.Radius)}
		if s.IsBox() {
			set = map[string]any{"lower": jfs(s.Lower), "upper": jfs(s.Upper)}
		}
		if src := p.PriorSetSource; src != nil {
			set["method"], set["samples"], set["confidence"] = src.Method, src.Samples, jf(src.Confidence)
		}
	}
	out := map[string]any{
		"name": p.Name, "inputs": p.Inputs, "outputs": p.Outputs, "objective": string(p.Objective),
		"prior_set": set,
		"privacy":   toBudget(p.Privacy),
		"prior":     add([][]float64{p.Prior}),
		"utility":   add(p.Utility),
		"order":     add(order),
		"mechanism": add(p.Mechanism),
	}
	return out, mats, nil
}

type solveOut struct {
	jsonout.Solution
	ExpectedUtilityBound *jf    `json:"expected_utility_bound"`
	Mechanism            int    `json:"mechanism"`
	Solver               string `json:"solver"`
	LPSolves             int    `json:"lp_solves"`
	// The joint solve's keys (min_order=, min_value=).
	MinOrder          *int `json:"min_order,omitempty"`
	MinValue          *jf  `json:"min_value,omitempty"`
	LeastEpsilonLower *jf  `json:"least_epsilon_lower,omitempty"`
	LeastEpsilonUpper *jf  `json:"least_epsilon_upper,omitempty"`
	// The baseline's keys.
	Baseline       string `json:"baseline,omitempty"`
	Parameter      *jf    `json:"parameter,omitempty"`
	ParameterName  string `json:"parameter_name,omitempty"`
	ParameterStart *jf    `json:"parameter_start,omitempty"`
	Audits         *int   `json:"audits,omitempty"`
	// Certificate is what verify re-checks (docs/certificates.md), as in
	// solve --json.
	Certificate *verify.Certificate `json:"certificate,omitempty"`
}

func toSolve(p *problem.Problem, sol *pmlopt.Solution, status string) solveOut {
	return solveOut{Solution: jsonout.NewSolution(status, sol, p.Order != nil),
		ExpectedUtilityBound: opt(sol.ExpectedUtilityBound), Solver: sol.Solver, LPSolves: sol.LPSolves}
}

func opSolve(ctx context.Context, a args, in input) (any, [][][]float64, error) {
	p, err := problemOf(ctx, a, in, true)
	if err != nil {
		return nil, nil, err
	}
	if p.Objective == "" {
		p.Objective = problem.WorstCaseOrder
	}
	o, err := options(a)
	if err != nil {
		return nil, nil, err
	}
	if a.MinOrder != nil || a.MinValue != nil {
		var f pmlopt.Floor
		switch {
		case a.MinOrder != nil && a.MinValue != nil:
			return nil, nil, errors.New("give min_order or min_value, not both")
		case p.Objective != problem.ExpectedUtility:
			// As the CLI's --min-order: the floor is for the expected
			// utility, and a worst-case objective would be answered as one.
			return nil, nil, fmt.Errorf("min_order and min_value keep a worst case while maximising the expected utility: give objective=\"expected-utility\" (the objective is %q)", p.Objective)
		case a.MinOrder != nil:
			f = pmlopt.Floor{Order: *a.MinOrder}
		default:
			f = pmlopt.Floor{Value: float64(*a.MinValue), ByValue: true}
		}
		js, err := pmlopt.SolveJoint(ctx, p, f, o)
		if err != nil {
			return nil, nil, err
		}
		j := toSolve(p, &js.Solution, "optimal")
		j.MinOrder = a.MinOrder
		if a.MinValue != nil {
			j.MinValue = opt(float64(*a.MinValue))
		}
		j.LeastEpsilonLower, j.LeastEpsilonUpper = opt(js.LeastEpsilonLower), opt(js.LeastEpsilonUpper)
		j.Certificate = js.Certificate
		return j, [][][]float64{js.Mechanism}, nil
	}
	sol, err := pmlopt.Solve(ctx, p, o)
	if err != nil {
		return nil, nil, err
	}
	j := toSolve(p, sol, "optimal")
	j.Certificate = sol.Certificate
	return j, [][][]float64{sol.Mechanism}, nil
}

func opBaseline(ctx context.Context, a args, in input) (any, [][][]float64, error) {
	p, err := problemOf(ctx, a, in, true)
	if err != nil {
		return nil, nil, err
	}
	if p.Objective == "" {
		p.Objective = problem.WorstCaseOrder
	}
	known := false
	for _, b := range pmlopt.Baselines {
		known = known || string(b) == a.Baseline
	}
	if !known {
		names := make([]string, len(pmlopt.Baselines))
		for k, b := range pmlopt.Baselines {
			names[k] = string(b)
		}
		return nil, nil, fmt.Errorf("mechanism: unknown baseline %q (want %s)", a.Baseline, strings.Join(names, ", "))
	}
	sol, err := pmlopt.SolveBaseline(ctx, p, pmlopt.Baseline(a.Baseline))
	if err != nil {
		return nil, nil, err
	}
	j := toSolve(p, &sol.Solution, "calibrated")
	j.ExpectedUtilityBound = nil
	audits := sol.Audits
	j.Baseline, j.Parameter, j.ParameterName, j.ParameterStart, j.Audits = string(sol.Kind), opt(sol.Parameter), sol.ParameterName, opt(sol.Start), &audits
	return j, [][][]float64{sol.Mechanism}, nil
}

// pointOut is a point of a worst-case curve, its mechanism an index into
// the matrices handed over.
type pointOut = jsonout.CurvePoint[*int]

// expectedPointOut is a point of an expected-utility curve, its mechanism
// an index into the matrices handed over.
type expectedPointOut = jsonout.ExpectedPoint[*int]

type seriesOut struct {
	Measure   string             `json:"measure"`
	ALIPRatio *jf                `json:"alip_ratio,omitempty"`
	Points    []expectedPointOut `json:"points"`
}

// errInterrupted is a call's error when its token was cancelled: the
// caller drops what it has.
var errInterrupted = errors.New("interrupted")

func opCurve(ctx context.Context, a args, in input) (any, [][][]float64, error) {
	p, err := problemOf(ctx, a, in, false)
	if err != nil {
		return nil, nil, err
	}
	o, err := options(a)
	if err != nil {
		return nil, nil, err
	}
	obj := problem.WorstCaseOrder
	if a.Objective != "" {
		obj = problem.Objective(a.Objective)
	}
	var mats [][][]float64
	keep := func(m mech.Mechanism) *int {
		if !a.Mechanisms || m == nil {
			return nil
		}
		mats = append(mats, m)
		k := len(mats) - 1
		return &k
	}
	if obj == problem.ExpectedUtility {
		return expectedCurve(ctx, a, p, o, keep, &mats)
	}
	pts, err := pmlopt.Curve(ctx, p, obj, o)
	if ctx.Err() != nil {
		return nil, nil, errInterrupted
	}
	if err != nil {
		return nil, nil, err
	}
	name := "auto"
	if o.Solver != nil {
		name = o.Solver.Name()
	}
	out := make([]pointOut, len(pts))
	for k, pt := range pts {
		c := jsonout.CurvePointOf[*int](obj, pt)
		c.Mechanism = keep(pt.Mechanism)
		if !a.Certificates {
			c.Certificate = nil
		}
		out[k] = c
	}
	return map[string]any{"objective": string(obj), "solver": name, "points": out}, mats, nil
}

func expectedCurve(ctx context.Context, a args, p *problem.Problem, o pmlopt.Options, keep func(mech.Mechanism) *int, mats *[][][]float64) (any, [][][]float64, error) {
	if _, err := p.RequireUtilityContext(ctx); err != nil {
		return nil, nil, err
	}
	names := a.Measures
	if len(names) == 0 {
		names = []string{string(mech.PML)}
	}
	if len(a.Epsilons) == 0 {
		return nil, nil, errors.New("epsilons: give the budgets of an expected-utility curve")
	}
	ratio := 0.5
	if a.ALIPRatio != nil {
		ratio = float64(*a.ALIPRatio)
		if !(ratio > 0) || math.IsInf(ratio, 0) {
			return nil, nil, fmt.Errorf("alip_ratio must be positive and finite, got %v", ratio)
		}
	}
	var series []seriesOut
	for _, name := range names {
		m, err := mech.ParseMeasure(name)
		if err != nil {
			return nil, nil, fmt.Errorf("measure: %v", err)
		}
		budgets := make([]mech.Budget, len(a.Epsilons))
		for i, v := range a.Epsilons {
			e := float64(v)
			if !(e >= 0 && e <= problem.MaxEpsilon) {
				return nil, nil, fmt.Errorf("epsilons: entry %d must be a number in [0, %g], got %v", i, float64(problem.MaxEpsilon), e)
			}
			budgets[i] = mech.Budget{Measure: m, Epsilon: e}
			if m == mech.ALIP {
				budgets[i] = pmlopt.ALIPBudget(e, ratio)
			}
		}
		pts, err := pmlopt.ExpectedCurve(ctx, p, budgets, o)
		if ctx.Err() != nil {
			return nil, nil, errInterrupted
		}
		if err != nil {
			return nil, nil, err
		}
		s := seriesOut{Measure: string(m), Points: []expectedPointOut{}}
		if m == mech.ALIP {
			s.ALIPRatio = opt(ratio)
		}
		for _, pt := range pts {
			pj := jsonout.ExpectedPointOf[*int](pt)
			pj.Mechanism = keep(pt.Mechanism)
			if !a.Certificates {
				pj.Certificate = nil
			}
			s.Points = append(s.Points, pj)
		}
		series = append(series, s)
	}
	return map[string]any{"objective": string(problem.ExpectedUtility), "curves": series}, *mats, nil
}

// auditOut is what audit returns: the CLI's audit --json, with the levels
// over the prior set when the call gives one (the budget's verdict then
// taken over the set).
type auditOut struct {
	jsonout.Audit
	jsonout.OverSet
	Privacy      *jsonout.Budget `json:"privacy,omitempty"`
	WithinBudget *bool           `json:"within_budget,omitempty"`
	BudgetExcess *jf             `json:"budget_excess,omitempty"`
}

func opAudit(ctx context.Context, a args, in input) (any, [][][]float64, error) {
	p, err := problemOf(ctx, a, in, false)
	if err != nil {
		return nil, nil, err
	}
	m, err := p.RequireMechanism()
	if err != nil {
		return nil, nil, err
	}
	alpha, beta := 2.0, 1.0
	if a.Alpha != nil {
		alpha = float64(*a.Alpha)
	}
	if a.Beta != nil {
		beta = float64(*a.Beta)
	}
	if !(alpha > 1) {
		return nil, nil, fmt.Errorf("alpha must be > 1, got %v", alpha)
	}
	if !(beta >= 1) {
		return nil, nil, fmt.Errorf("beta must be ≥ 1, got %v", beta)
	}
	r, err := leakage.AuditContext(ctx, p.Prior, m, alpha, beta)
	if ctx.Err() != nil {
		return nil, nil, errInterrupted
	}
	if err != nil {
		return nil, nil, err
	}
	pmin := p.Prior.Min()
	implied, err := jsonout.ImpliedBy(r, pmin)
	if err != nil {
		return nil, nil, err
	}
	out := auditOut{Audit: jsonout.AuditOf(r, pmin, implied), OverSet: jsonout.OverSetOf(p.PriorSet, m)}
	if b := p.Privacy; b != nil {
		_, _, e := leakage.Level(p.Prior, m, *b)
		if p.PriorSet != nil {
			_, _, e = leakage.LevelOver(p.PriorSet, m, *b)
		}
		within, excess := e <= certify.AuditTol, jf(e)
		out.Privacy, out.WithinBudget, out.BudgetExcess = toBudget(b), &within, &excess
	}
	return out, nil, nil
}

func opSafe(ctx context.Context, a args, in input) (any, [][][]float64, error) {
	// safe takes h or a pml epsilon, not a budget of the problem.
	eps := a.Epsilon
	a.Epsilon, a.Measure = nil, ""
	if a.PriorSet != nil {
		return nil, nil, errors.New("prior_set: safe works at one prior; baseline utility-safe gives the utility-safe mechanism over the set")
	}
	p, err := problemOf(ctx, a, in, false)
	if err != nil {
		return nil, nil, err
	}
	o, err := p.RequireOrderContext(ctx)
	if err != nil {
		return nil, nil, err
	}
	var h int
	switch {
	case a.H != nil && eps != nil:
		return nil, nil, errors.New("give h or epsilon, not both")
	case a.H != nil:
		h = *a.H
	case eps != nil:
		e := float64(*eps)
		if math.IsNaN(e) || e < 0 {
			return nil, nil, fmt.Errorf("epsilon must be a non-negative number, got %v", e)
		}
		h, _ = closedform.SafeSchedule(p.Prior, o, e)
	default:
		return nil, nil, errors.New("give h or epsilon")
	}
	epsS, err := closedform.SafeEpsilon(p.Prior, o, h)
	if err != nil {
		return nil, nil, fmt.Errorf("h: %v", err)
	}
	m, err := closedform.UtilitySafe(o, h)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]any{"h": h, "epsilon": jf(leakage.PML(p.Prior, m)), "safe_epsilon": jf(epsS), "mechanism": 0,
		"pml_per_output": jfs(leakage.PMLPerOutput(p.Prior, m)), "output_marginal": jfs(m.Marginal(p.Prior))}
	return out, [][][]float64{m}, nil
}

func opConvert(_ context.Context, a args, _ input) (any, [][][]float64, error) {
	if a.From == "" {
		return nil, nil, errors.New("from is required")
	}
	if a.Epsilon == nil {
		return nil, nil, errors.New("epsilon is required")
	}
	if a.PMin == nil {
		return nil, nil, errors.New("pmin is required")
	}
	g := mech.Budget{Measure: mech.Measure(a.From), Epsilon: float64(*a.Epsilon)}
	switch {
	case g.Measure == mech.ALIP:
		if a.EpsilonLower == nil {
			return nil, nil, errors.New("from alip needs epsilon_lower (ε_l) and epsilon (ε_u)")
		}
		g = mech.Budget{Measure: mech.ALIP, EpsilonLower: float64(*a.EpsilonLower), EpsilonUpper: float64(*a.Epsilon)}
	case a.EpsilonLower != nil:
		return nil, nil, errors.New("epsilon_lower is only for from alip")
	}
	imps, err := guarantee.Implied(g, float64(*a.PMin))
	if err != nil {
		return nil, nil, err
	}
	src := jsonout.ImpliedOf([]guarantee.Implication{{Implied: g, Holds: true, Regime: "given"}})[0]
	return map[string]any{"from": src, "p_min": jf(*a.PMin), "implied": jsonout.ImpliedOf(imps)}, nil, nil
}
