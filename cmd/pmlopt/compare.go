package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/figure"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

var cmdCompare = &command{
	name:  "compare",
	usage: "FILE [FILE...] [--optimum] [--baseline LIST] [--measure M --epsilon E] [--json] [--plot out.svg|png|pdf]",
	short: "audit several mechanisms of one problem side by side",
	long:  compareHelp,
	nargs: -1,
	flags: compareFlags,
}

const compareHelp = `Audits several mechanisms of one problem side by side: PML, LIP, LDP,
ALIP (ε_l, ε_u), expected utility, worst-case value and order, and whether
each is within the budget of the first file. Each FILE with a mechanism is
one column; every FILE must have the first one's prior. --optimum adds the
optimal mechanism of the first file (its objective or --objective;
expected-utility if neither names one), and --baseline adds closed-form mechanisms calibrated to its
budget (as the baseline command does). --measure and --epsilon replace the
first file's budget, as in solve (a --measure other than the file's needs
--epsilon): every column is judged against it, and the optimum and the
baselines are computed for it. --plot draws the measures and the expected
utilities as bar charts (.svg, .png or .pdf). Example:

	pmlopt compare testdata/counting-query.yaml --optimum --baseline randomized-response,exponential --plot compare.svg`

// compared is one mechanism of a comparison and what the audit found.
type compared struct {
	name          string
	m             mech.Mechanism
	pml, lip, ldp float64
	alipL, alipU  float64
	eu, wcValue   float64
	wcOrder       int
	within        bool
	excess        float64
	hasOrder      bool
}

type compareJSON struct {
	Name            string  `json:"name"`
	PML             jfloat  `json:"pml"`
	LIP             jfloat  `json:"lip"`
	LDP             jfloat  `json:"ldp"`
	ALIPLower       jfloat  `json:"alip_lower"`
	ALIPUpper       jfloat  `json:"alip_upper"`
	ExpectedUtility *jfloat `json:"expected_utility"`
	WorstCaseValue  *jfloat `json:"worst_case_value"`
	WorstCaseOrder  *int    `json:"worst_case_order"`
	WithinBudget    *bool   `json:"within_budget"`
	Excess          *jfloat `json:"budget_excess,omitempty"`
	Mechanism       jmech   `json:"mechanism"`
}

type compareReportJSON struct {
	Budget     *budgetJSON   `json:"budget"`
	Mechanisms []compareJSON `json:"mechanisms"`
}

// compareFlags declares compare's flags on fs and returns its run function.
func compareFlags(fs *flagSet) runFunc {
	optimum := fs.Bool("optimum", false, "add the optimal mechanism of the first file")
	objective := fs.String("objective", "", "with --optimum: the `objective` to optimise instead of the file's: "+objectiveNames)
	budget := newBudgetFlags(fs)
	baselines := fs.String("baseline", "", "add calibrated closed-form `mechanisms` (comma-separated: randomized-response, exponential, extremal, utility-safe)")
	asJSON := jsonFlag(fs)
	plotPath := plotFlag(fs)
	load := loaderFlag(fs)
	getWorkers := workersFlag(fs)
	return func(ctx context.Context, e *env, pos []string) error {
		workers, restore, err := getWorkers()
		if err != nil {
			return err
		}
		defer restore()
		if len(pos) == 0 {
			return usagef("missing problem FILE")
		}
		if *plotPath != "" {
			if err := checkPlotPath(*plotPath, pos...); err != nil {
				return err
			}
		}
		if *objective != "" && !*optimum {
			return usagef("--objective is for --optimum: it names what the optimum optimises")
		}
		var kinds []string
		if *baselines != "" {
			for _, k := range strings.Split(*baselines, ",") {
				k = strings.TrimSpace(k)
				if err := checkBaseline("--baseline", k); err != nil {
					return err
				}
				kinds = append(kinds, k)
			}
		}
		if err := stdinOnce(pos); err != nil {
			return err
		}
		ref, err := load(pos[0])
		if err != nil {
			return err
		}
		// The budget every column is judged against, and the optimum's and
		// the baselines' budget: the first file's, or the flags' as in solve.
		if err := budget.apply(ref, *objective); err != nil {
			return err
		}
		var items []compared
		for _, path := range pos {
			p := ref
			if path != pos[0] {
				if p, err = load(path); err != nil {
					return err
				}
				if err := sameProblem(ref, p, pos[0], path); err != nil {
					return err
				}
			}
			if p.Mechanism == nil {
				if len(pos) > 1 || (!*optimum && *baselines == "") {
					return fmt.Errorf("%s: no mechanism to compare", path)
				}
				continue
			}
			items = append(items, audit(ref, displayName(p, path), p.Mechanism))
		}
		if *optimum {
			q := *ref
			if q.Objective == "" {
				q.Objective = problem.ExpectedUtility
			}
			sol, err := pmlopt.Solve(ctx, &q, pmlopt.Options{Workers: workers})
			if err != nil {
				return fmt.Errorf("--optimum: %w", err)
			}
			items = append(items, audit(ref, "optimum ("+string(q.Objective)+")", sol.Mechanism))
		}
		if len(kinds) > 0 {
			for _, k := range kinds {
				sol, err := pmlopt.SolveBaseline(ctx, ref, pmlopt.Baseline(k))
				if err != nil {
					return fmt.Errorf("--baseline %s: %w", k, err)
				}
				items = append(items, audit(ref, fmt.Sprintf("%s (%s = %s)", k, sol.ParameterName, shortNum(sol.Parameter)), sol.Mechanism))
			}
		}
		if len(items) == 0 {
			return usagef("nothing to compare: give files with mechanisms, --optimum or --baseline")
		}
		var b buffered
		if *asJSON {
			if err := writeJSON(&b, toCompareJSON(ref, items)); err != nil {
				return err
			}
		} else {
			writeCompareTable(&b, ref, items)
		}
		if *plotPath != "" {
			if err := plotCompare(*plotPath, ref, items); err != nil {
				return err
			}
		}
		return b.commit(e.stdout)
	}
}

// sameProblem checks that p has ref's prior and shape.
func sameProblem(ref, p *problem.Problem, refPath, path string) error {
	if p.N() != ref.N() || (p.Mechanism != nil && len(p.Mechanism[0]) != ref.M() && ref.M() > 0) {
		return fmt.Errorf("%s: %d inputs and %d outputs, %s has %d and %d: not the same problem", path, p.N(), p.M(), refPath, ref.N(), ref.M())
	}
	for i := range p.Prior {
		if math.Abs(p.Prior[i]-ref.Prior[i]) > 1e-12 {
			return fmt.Errorf("%s: prior[%d] = %g, %s has %g: not the same problem", path, i, p.Prior[i], refPath, ref.Prior[i])
		}
	}
	return nil
}

func displayName(p *problem.Problem, path string) string {
	if path == "-" {
		if p.Name != "" {
			return p.Name
		}
		return "standard input"
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if p.Name != "" && p.Name != base {
		return base + " (" + p.Name + ")"
	}
	return base
}

// shortNum is num with 4 significant digits, for labels.
func shortNum(v float64) string {
	if math.IsInf(v, 0) {
		return num(v)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// level is the level of measure the audit found (ε_u and ε_l for ALIP;
// lower 0 for the others).
func (c compared) level(measure mech.Measure) (level, lower float64) {
	switch measure {
	case mech.PML:
		return c.pml, 0
	case mech.LIP:
		return c.lip, 0
	case mech.LDP:
		return c.ldp, 0
	}
	return c.alipU, c.alipL
}

// audit measures m against ref's prior, utilities and budget.
func audit(ref *problem.Problem, name string, m mech.Mechanism) compared {
	c := compared{name: name, m: m, pml: leakage.PML(ref.Prior, m), lip: leakage.LIP(ref.Prior, m), ldp: leakage.LDP(ref.Prior, m),
		eu: math.NaN(), wcValue: math.NaN(), hasOrder: ref.Order != nil}
	c.alipL, c.alipU = leakage.ALIP(ref.Prior, m)
	if ref.Utility != nil {
		c.eu, c.wcValue = ref.Utility.ExpectedUtility(ref.Prior, m), ref.Utility.WorstCaseValue(m)
	}
	if ref.Order != nil {
		c.wcOrder = ref.Order.WorstCaseOrder(m)
	}
	if b := ref.Privacy; b != nil {
		if ref.PriorSet != nil {
			// The budget must hold for every prior of the set.
			c.excess = judgeOver(ref.PriorSet, m, *b).Excess
		} else {
			level, lower := c.level(b.Measure)
			c.excess = leakage.Excess(*b, level, lower)
		}
		// The audit's tolerance: optima meet their budget to within it.
		c.within = c.excess <= auditSlack
	}
	return c
}

// auditSlack is the excess over the budget within which a mechanism
// counts as within it (the tolerance of certify.Audit).
const auditSlack = 1e-7

func budgetString(b *mech.Budget) string {
	if b == nil {
		return "none"
	}
	if b.Measure == mech.ALIP {
		return fmt.Sprintf("alip (ε_l, ε_u) = (%s, %s)", num(b.EpsilonLower), num(b.EpsilonUpper))
	}
	return fmt.Sprintf("%s ε = %s", b.Measure, num(b.Epsilon))
}

func writeCompareTable(w *buffered, ref *problem.Problem, items []compared) {
	t := newTable(w)
	row := []string{""}
	for _, c := range items {
		row = append(row, c.name)
	}
	t.row(row...)
	line := func(label string, f func(c compared) string) {
		r := []string{label}
		for _, c := range items {
			r = append(r, f(c))
		}
		t.row(r...)
	}
	line("PML", func(c compared) string { return num(c.pml) })
	line("LIP", func(c compared) string { return num(c.lip) })
	line("LDP", func(c compared) string { return num(c.ldp) })
	line("ALIP (ε_l, ε_u)", func(c compared) string { return "(" + shortNum(c.alipL) + ", " + shortNum(c.alipU) + ")" })
	if ref.Utility != nil {
		line("expected utility", func(c compared) string { return num(c.eu) })
		line("worst-case value", func(c compared) string { return num(c.wcValue) })
	}
	if ref.Order != nil {
		line("worst-case order", func(c compared) string { return fmt.Sprintf("%d of %d", c.wcOrder, ref.M()) })
	}
	if ref.Privacy != nil {
		line("budget "+budgetString(ref.Privacy), func(c compared) string {
			if c.within {
				return "within"
			}
			return "exceeds by " + shortNum(c.excess)
		})
	}
	t.flush()
	fmt.Fprintln(w, "\nvalues in nats")
}

func toCompareJSON(ref *problem.Problem, items []compared) compareReportJSON {
	r := compareReportJSON{Mechanisms: []compareJSON{}}
	if b := ref.Privacy; b != nil {
		bj := toBudgetJSON(*b)
		r.Budget = &bj
	}
	for _, c := range items {
		j := compareJSON{Name: c.name, PML: jfloat(c.pml), LIP: jfloat(c.lip), LDP: jfloat(c.ldp),
			ALIPLower: jfloat(c.alipL), ALIPUpper: jfloat(c.alipU),
			ExpectedUtility: optFloat(c.eu), WorstCaseValue: optFloat(c.wcValue), Mechanism: jmatrix(c.m)}
		if c.hasOrder {
			h := c.wcOrder
			j.WorstCaseOrder = &h
		}
		if ref.Privacy != nil {
			within := c.within
			j.WithinBudget = &within
			if !within {
				j.Excess = optFloat(c.excess)
			}
		}
		r.Mechanisms = append(r.Mechanisms, j)
	}
	return r
}

// plotCompare draws the privacy levels (and the expected utilities) of the
// mechanisms as grouped bars.
func plotCompare(path string, ref *problem.Problem, items []compared) error {
	title := "privacy (nats)"
	if ref.Privacy != nil {
		title += ", budget " + budgetString(ref.Privacy)
	}
	priv := figure.Bars{Title: title, YLabel: "level (nats)", Groups: []string{"PML", "LIP", "LDP", "ALIP\nε_l", "ALIP\nε_u"}}
	eu := figure.Bars{Title: "expected utility", YLabel: "expected utility", Groups: []string{"E[u]"}}
	wc := figure.Bars{Title: "worst case", YLabel: "worst-case utility value", Groups: []string{"min u"}}
	for _, c := range items {
		priv.Series = append(priv.Series, figure.BarSeries{Name: c.name, Values: []float64{c.pml, c.lip, c.ldp, c.alipL, c.alipU}})
		eu.Series = append(eu.Series, figure.BarSeries{Name: c.name, Values: []float64{c.eu}})
		wc.Series = append(wc.Series, figure.BarSeries{Name: c.name, Values: []float64{c.wcValue}})
	}
	f := figure.BarFigure{Panels: []figure.Bars{priv}}
	if ref.Utility != nil {
		f.Panels = append(f.Panels, eu, wc)
	}
	return f.Save(path)
}
