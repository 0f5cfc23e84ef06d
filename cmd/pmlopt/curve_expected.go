package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/figure"
	"github.com/pmlopt/pmlopt/internal/jsonout"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// expectedCurveHelp is appended to curve's help.
const expectedCurveHelp = `With --objective expected-utility, curve computes the best expected utility
for a range of budgets under one or more measures (--measure pml,lip,alip,ldp;
by default the file's measure, else pml): --epsilons 0.1,0.5,1 or --from A
--to B --steps K (K evenly spaced budgets, both ends included; by default 0 to
twice the file's budget, 11 steps). Each point has epsilon, expected_utility,
expected_utility_bound (a proven upper bound on the optimum, under every
measure; null where the method proves none) and worst_case_value. An ALIP
budget at ε is (ε_l, ε_u) = (r·ε, ε) with r = --alip-ratio; by default r is
the file's epsilon_lower/epsilon_upper when its budget is ALIP, else 1/2
(r = 1 would repeat LIP, which is ALIP with ε_l = ε_u). --plot draws every
measure on one figure (SVG, PNG or PDF). Example:

	pmlopt curve testdata/counting-query.yaml --objective expected-utility --measure pml,lip,alip,ldp --plot eu.svg` + "\n\n" + robustnessHelp

// expectedCurveFlags are curve's flags for --objective expected-utility.
type expectedCurveFlags struct {
	measures   *string
	epsilons   *string
	from, to   *float64
	steps      *int
	alipRatio  *float64
	mechanisms *bool
	robustness *string // curve_robustness.go
}

func addExpectedCurveFlags(fs *flagSet) *expectedCurveFlags {
	return &expectedCurveFlags{
		measures:   fs.String("measure", "", "expected-utility curves: comma-separated `measures` (pml, lip, alip, ldp; default: the file's measure, else pml)"),
		epsilons:   fs.String("epsilons", "", "expected-utility curves: comma-separated `budgets` (nats)"),
		from:       fs.budgetFloat64("from", 0, "expected-utility curves: first budget `A` (nats)"),
		to:         fs.budgetFloat64("to", math.NaN(), "expected-utility curves: last budget `B` (default twice the file's budget)"),
		steps:      fs.Int("steps", 11, "expected-utility curves: number of budgets `K` from --from to --to"),
		alipRatio:  fs.Float64("alip-ratio", math.NaN(), "expected-utility curves: ALIP budget (r·ε, ε) for this `r` (default: the file's ratio, else 0.5)"),
		mechanisms: mechanismsFlag(fs),
		robustness: fs.String("robustness", "", "expected-utility curves: the price of robustness, one curve per confidence `level` (comma-separated) of the file's prior set, beside the estimate and ldp"),
	}
}

// budgetAxis returns the budgets of the curve on the ε axis.
func (f *expectedCurveFlags) budgetAxis(fs *flagSet, p *problem.Problem) ([]float64, error) {
	if *f.epsilons != "" {
		if fs.isSet("from") || fs.isSet("to") || fs.isSet("steps") {
			return nil, usagef("give --epsilons or --from/--to/--steps, not both")
		}
		var eps []float64
		if n := strings.Count(*f.epsilons, ",") + 1; n > maxCurveBudgets {
			return nil, usagef("--epsilons gives %d budgets, more than %d", n, maxCurveBudgets)
		}
		for _, s := range strings.Split(*f.epsilons, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, usagef("--epsilons: %q is not a finite non-negative number", s)
			}
			if err := checkBudgetFlag("epsilons", v); err != nil {
				return nil, err
			}
			eps = append(eps, v)
		}
		return eps, nil
	}
	to := *f.to
	if math.IsNaN(to) {
		to = 2
		if p.Privacy != nil {
			if l := budgetLevel(*p.Privacy); l > 0 && !math.IsInf(l, 0) {
				// Within the budgets a file or --to may give.
				to = min(2*l, problem.MaxEpsilon)
			}
		}
	}
	switch {
	case *f.steps < 1 || *f.steps > maxCurveBudgets:
		return nil, usagef("--steps must be between 1 and %d, got %d", maxCurveBudgets, *f.steps)
	case !(*f.from >= 0) || math.IsInf(*f.from, 0) || !(to >= *f.from) || math.IsInf(to, 0):
		return nil, usagef("want 0 ≤ --from ≤ --to, finite; got %v and %v", *f.from, to)
	}
	if *f.steps == 1 {
		return []float64{*f.from}, nil
	}
	eps := make([]float64, *f.steps)
	for k := range eps {
		eps[k] = *f.from + (to-*f.from)*float64(k)/float64(*f.steps-1)
	}
	return eps, nil
}

// maxCurveBudgets bounds the budgets of an expected-utility curve: each
// is a solve and a point held until the curve is written, so that a
// --steps of 10^8 would take gigabytes before the first point.
const maxCurveBudgets = 4096

func budgetLevel(b mech.Budget) float64 {
	if b.Measure == mech.ALIP {
		return b.EpsilonUpper
	}
	return b.Epsilon
}

// expectedPointJSON is a point of an expected-utility curve, with its
// mechanism itself (--mechanisms).
type expectedPointJSON = jsonout.ExpectedPoint[jmech]

type expectedSeriesJSON struct {
	Measure   string  `json:"measure"`
	ALIPRatio *jfloat `json:"alip_ratio,omitempty"`
	// Over, Confidence and PriorSet say, with --robustness, for which
	// priors the series' budget holds (curve_robustness.go).
	Over       string              `json:"over,omitempty"`
	Confidence *jfloat             `json:"confidence,omitempty"`
	PriorSet   *priorSetJSON       `json:"prior_set,omitempty"`
	Points     []expectedPointJSON `json:"points"`
	// EpsilonsLeft are the budgets a stopped curve did not reach ([]
	// when complete).
	EpsilonsLeft []jfloat `json:"epsilons_left"`
}

type expectedCurveJSON struct {
	Objective string `json:"objective"`
	// Complete is false for a curve stopped by a signal.
	Complete bool                 `json:"complete"`
	Curves   []expectedSeriesJSON `json:"curves"`
}

// expectedSeries is one measure's curve.
type expectedSeries struct {
	measure mech.Measure
	ratio   float64 // ALIP only
	pts     []pmlopt.ExpectedPoint
	// prob is the problem the series is computed for: the file's, or with
	// --robustness the file's under another set of priors (over).
	prob *problem.Problem
	over *robustness
}

// runExpectedCurve is curve --objective expected-utility.
func (f *expectedCurveFlags) run(ctx context.Context, e *env, fs *flagSet, p *problem.Problem, slv solver.Solver, out outputs) error {
	if out.jsonl {
		return usagef("--jsonl is for the worst-case curves; use --json or --csv")
	}
	// The file's measure is the default, as its objective is.
	list := *f.measures
	if !fs.isSet("measure") {
		list = string(mech.PML)
		if p.Privacy != nil {
			list = string(p.Privacy.Measure)
		}
	}
	var measures []mech.Measure
	for _, s := range strings.Split(list, ",") {
		m, err := mech.ParseMeasure(strings.TrimSpace(s))
		if err != nil {
			return usagef("--measure: %v", err)
		}
		if slices.Contains(measures, m) {
			// A second curve of the same measure would repeat the first.
			return usagef("--measure: %s is given twice", m)
		}
		measures = append(measures, m)
	}
	if _, err := p.RequireUtility(); err != nil {
		return err
	}
	eps, err := f.budgetAxis(fs, p)
	if err != nil {
		return err
	}
	ratio := *f.alipRatio
	if math.IsNaN(ratio) {
		ratio = 0.5
		if p.Privacy != nil && p.Privacy.Measure == mech.ALIP && p.Privacy.EpsilonUpper > 0 && !math.IsInf(p.Privacy.EpsilonUpper, 0) {
			ratio = p.Privacy.EpsilonLower / p.Privacy.EpsilonUpper
		}
	} else if !(ratio > 0) || math.IsInf(ratio, 0) {
		return usagef("--alip-ratio must be positive and finite, got %v", ratio)
	}
	// One series per measure, or with --robustness one per set of priors
	// (curve_robustness.go); each is computed in the order of the list.
	var series []expectedSeries
	if fs.isSet("robustness") {
		if series, err = f.robustnessSeries(p, measures); err != nil {
			return err
		}
	} else {
		for _, m := range measures {
			series = append(series, expectedSeries{measure: m, prob: p})
		}
	}
	for k := range series {
		series[k].ratio = ratio
	}
	prog := newProgress(e.stderr, "curve", out.quiet, e.terminal)
	total := len(eps) * len(series)
	var stopped error
	for k := range series {
		s := &series[k]
		budgets := make([]mech.Budget, len(eps))
		for i, v := range eps {
			budgets[i] = mech.Budget{Measure: s.measure, Epsilon: v}
			if s.measure == mech.ALIP {
				budgets[i] = pmlopt.ALIPBudget(v, ratio)
			}
		}
		base := k * len(eps)
		pts, err := pmlopt.ExpectedCurve(ctx, s.prob, budgets, pmlopt.Options{Solver: slv,
			Progress: func(done, _ int) { prog.update(base+done, total) }})
		for k := range pts {
			if !out.certs {
				pts[k].Certificate = nil
			}
		}
		s.pts = pts
		if err != nil {
			if ctx.Err() == nil {
				prog.done()
				if s.over != nil {
					return fmt.Errorf("%s: %w", s.over.label(), err)
				}
				return err
			}
			stopped = err
			break
		}
	}
	prog.done()
	// A stopped curve lists every measure, those it did not reach without
	// points, and says which budgets it left (curve_partial.go).
	var left *curveLeft
	if stopped != nil {
		left = expectedCurveLeft(ctx, series, eps)
	}
	var b buffered
	switch {
	case out.json:
		err = writeJSON(&b, toExpectedCurveJSON(series, *f.mechanisms, left))
	case out.csv:
		if left != nil {
			b.WriteString(left.csvComment())
		}
		err = writeExpectedCSV(&b, series)
	default:
		writeExpectedTable(&b, series)
		if left != nil {
			b.WriteString(left.tableNote())
		}
	}
	if err != nil {
		return err
	}
	if stopped != nil {
		// The points are on stdout first: they are what the work was for.
		if err := b.commit(e.stdout); err != nil {
			return err
		}
		if out.plot != "" {
			if err := settledPlotError(plotExpectedCurves(out.plot, left.title(expectedTitle(p, series)), series)); err != nil {
				return err
			}
		}
		return fmt.Errorf("interrupted: %d points written, %d left", total-left.count(), left.count())
	}
	if out.plot != "" {
		if err := plotExpectedCurves(out.plot, expectedTitle(p, series), series); err != nil {
			return err
		}
	}
	return b.commit(e.stdout)
}

// outputs are the output flags curve shares between its objectives.
type outputs struct {
	json, csv, jsonl, quiet bool
	plot                    string
	certs                   bool // --certificates
}

func seriesName(s expectedSeries) string {
	if s.measure == mech.ALIP {
		return fmt.Sprintf("alip (ε_l = %s·ε_u)", num(s.ratio))
	}
	return string(s.measure)
}

// toExpectedCurveJSON is the JSON of the series; left, when not nil, is
// what a stopped curve left (one group per series).
func toExpectedCurveJSON(series []expectedSeries, withMech bool, left *curveLeft) expectedCurveJSON {
	j := expectedCurveJSON{Objective: string(problem.ExpectedUtility), Complete: left == nil, Curves: []expectedSeriesJSON{}}
	for k, s := range series {
		sj := expectedSeriesJSON{Measure: string(s.measure), Points: []expectedPointJSON{}, EpsilonsLeft: []jfloat{}}
		if left != nil {
			sj.EpsilonsLeft = left.groups[k].json()
		}
		if s.measure == mech.ALIP {
			sj.ALIPRatio = optFloat(s.ratio)
		}
		s.over.addJSON(&sj)
		for _, pt := range s.pts {
			pj := jsonout.ExpectedPointOf[jmech](pt)
			if withMech {
				pj.Mechanism = jmatrix(pt.Mechanism)
			}
			sj.Points = append(sj.Points, pj)
		}
		j.Curves = append(j.Curves, sj)
	}
	return j
}

func writeExpectedCSV(w io.Writer, series []expectedSeries) error {
	cw := csv.NewWriter(w)
	// With --robustness, over and confidence lead each row.
	robust := len(series) > 0 && series[0].over != nil
	header := []string{"measure", "epsilon", "epsilon_lower", "audited_epsilon", "expected_utility", "expected_utility_bound", "worst_case_value", "worst_case_order"}
	if robust {
		header = append([]string{"over", "confidence"}, header...)
	}
	cw.Write(header)
	for _, s := range series {
		for _, pt := range s.pts {
			lower := ""
			if s.measure == mech.ALIP {
				lower = fullNum(pt.Budget.EpsilonLower)
			}
			rec := []string{string(s.measure), fullNum(pt.Epsilon), lower, fullNum(pt.Audited), fullNum(pt.ExpectedUtility),
				csvNum(pt.ExpectedUtilityBound), fullNum(pt.WorstCaseValue), strconv.Itoa(pt.WorstCaseOrder)}
			if robust {
				rec = append(s.over.csvCells(), rec...)
			}
			cw.Write(rec)
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvNum is fullNum with NaN (no value) as an empty cell.
func csvNum(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return fullNum(v)
}

func writeExpectedTable(w io.Writer, series []expectedSeries) {
	t := newTable(w)
	// With --robustness the first column says for which priors the budget
	// holds, and "audited" is the level over them.
	robust := len(series) > 0 && series[0].over != nil
	head := []string{"measure", "ε", "expected utility", "optimum at most", "worst-case value", "worst-case order", "audited"}
	if robust {
		head = append([]string{"priors"}, head...)
	}
	t.row(head...)
	for _, s := range series {
		for _, pt := range s.pts {
			bound := "-"
			if !math.IsNaN(pt.ExpectedUtilityBound) {
				bound = num(pt.ExpectedUtilityBound)
			}
			row := []string{seriesName(s), num(pt.Epsilon), num(pt.ExpectedUtility), bound, num(pt.WorstCaseValue),
				strconv.Itoa(pt.WorstCaseOrder), num(pt.Audited)}
			if robust {
				row = append([]string{s.over.label()}, row...)
			}
			t.row(row...)
		}
	}
	t.flush()
	if robust {
		fmt.Fprintf(w, "\nvalues in nats; expected utility at the estimate, audited over the priors of the row\n")
		return
	}
	fmt.Fprintf(w, "\nvalues in nats; for alip ε is ε_u\n")
}

// plotExpectedCurves draws the expected utility against the budget, one
// line per measure.
func plotExpectedCurves(path, title string, series []expectedSeries) error {
	if len(series) > 0 && series[0].over != nil {
		return robustnessFigure(title, series).Save(path)
	}
	f := figure.Figure{Title: title, XLabel: "budget ε (nats; ALIP: ε_u)", YLabel: "best expected utility"}
	for k, s := range series {
		xs, ys := make([]float64, len(s.pts)), make([]float64, len(s.pts))
		for i, pt := range s.pts {
			xs[i], ys[i] = pt.Epsilon, pt.ExpectedUtility
		}
		f.Series = append(f.Series, figure.Series{Name: seriesName(s), X: xs, Y: ys, Marks: true, Dashed: k%2 == 1})
	}
	return f.Save(path)
}

// withMechanism adds pt's mechanism to c when asked (--mechanisms).
func withMechanism(c curvePointJSON, pt pmlopt.Point, want bool) curvePointJSON {
	if want && pt.Mechanism != nil {
		c.Mechanism = jmatrix(pt.Mechanism)
	}
	return c
}

// onlyExpected refuses the flags that only expected-utility curves read.
func (f *expectedCurveFlags) onlyExpected(fs *flagSet) error {
	if fs.isSet("robustness") {
		return usagef("--robustness is for --objective expected-utility: it compares expected-utility curves")
	}
	for _, name := range []string{"measure", "epsilons", "from", "to", "steps", "alip-ratio"} {
		if fs.isSet(name) {
			return usagef("--%s is for --objective expected-utility: the worst-case curves are over PML budgets", name)
		}
	}
	return nil
}
