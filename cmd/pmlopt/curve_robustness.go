package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pmlopt/pmlopt/figure"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// robustnessHelp is appended to curve's help.
const robustnessHelp = `The price of robustness: --robustness L1,L2,... (confidence levels, for a
file written by new --prior-from --confidence) draws, for one measure (pml or
lip), the expected-utility curve at the estimate, over the prior set at each
level, and under LDP, the limit where the budget holds for every prior (the
set of all priors), on one plot. The sets are rebuilt from the method, the
number of samples and the estimate that the file's prior_set records, as new
--confidence builds them; a higher level gives a larger set and a lower curve.
The expected utility is weighed with the estimate throughout. Example:

	pmlopt new --prior-from testdata/survey.csv --column children --utility abs \
	    --epsilon 1 --objective expected-utility --confidence 0.95 -o survey.yaml
	pmlopt curve survey.yaml --robustness 0.9,0.99 --plot price.svg`

// maxRobustnessLevels bounds --robustness: one curve per level, each a
// robust LP per budget, on one plot whose colours must stay apart.
const maxRobustnessLevels = 8

// robustness says for which priors a series' budget holds: the estimate,
// a prior set rebuilt at a confidence level, or every prior (LDP).
type robustness struct {
	kind  string  // overEstimate, overPriorSet or overSimplex
	level float64 // overPriorSet: the confidence level
	set   *mech.PriorSet
	src   problem.PriorSetSource
}

// The values of a series' "over" key in --json and --csv.
const (
	overEstimate = "estimate"
	overPriorSet = "prior_set"
	overSimplex  = "simplex"
)

// percent writes a level as a percentage: 0.9 as "90%", 0.995 as "99.5%";
// a level strictly between 0 and 1 that six decimals would round to 0%
// or 100%, which no set has, in twelve digits: 5e-324 as
// "4.94065645841e-322%".
func percent(level float64) string {
	r := math.Round(level*1e8) / 1e6
	if (r == 0 && level > 0) || (r == 100 && level < 1) {
		return strconv.FormatFloat(level*100, 'g', 12, 64) + "%"
	}
	return strconv.FormatFloat(r, 'f', -1, 64) + "%"
}

// label names the series in the table and the plot's legend.
func (r *robustness) label() string {
	switch r.kind {
	case overPriorSet:
		shape := "box"
		if !r.set.IsBox() {
			shape = "L1 ball"
		}
		return fmt.Sprintf("%s %s", percent(r.level), shape)
	case overSimplex:
		return "every prior (ldp)"
	}
	return "estimate"
}

// parseRobustness reads --robustness: distinct levels strictly between 0
// and 1, returned in increasing order (the sets then grow along the list).
func parseRobustness(list string) ([]float64, error) {
	parts := strings.Split(list, ",")
	if len(parts) > maxRobustnessLevels {
		return nil, usagef("--robustness gives %d levels, more than %d", len(parts), maxRobustnessLevels)
	}
	var levels []float64
	for _, s := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(v > 0 && v < 1) {
			return nil, usagef("--robustness: %q is not a confidence level strictly between 0 and 1", strings.TrimSpace(s))
		}
		if slices.Contains(levels, v) {
			return nil, usagef("--robustness: %s is given twice", strings.TrimSpace(s))
		}
		levels = append(levels, v)
	}
	slices.Sort(levels)
	return levels, nil
}

// robustnessSeries returns the series of --robustness for p: the curve at
// the estimate, one over the prior set at each level, and the LDP curve.
func (f *expectedCurveFlags) robustnessSeries(p *problem.Problem, measures []mech.Measure) ([]expectedSeries, error) {
	levels, err := parseRobustness(*f.robustness)
	if err != nil {
		return nil, err
	}
	if len(measures) != 1 {
		return nil, usagef("--robustness draws one measure against its limit under LDP; give one --measure (pml or lip)")
	}
	m := measures[0]
	switch m {
	case mech.PML, mech.LIP:
	case mech.LDP:
		return nil, usagef("--robustness: ldp does not depend on the prior; give --measure pml or lip (the curve draws ldp as their limit)")
	default:
		// ALIP over every prior is LDP at min(ε_l, ε_u), off the curve's
		// ε_u axis: its limit would be a curve of another budget.
		return nil, usagef("--robustness is for --measure pml or lip, got %s", m)
	}
	src, counts, err := recordedCounts(p)
	if err != nil {
		return nil, err
	}
	estimate := *p
	estimate.PriorSet, estimate.PriorSetSource = nil, nil
	series := []expectedSeries{{measure: m, prob: &estimate, over: &robustness{kind: overEstimate}}}
	for _, l := range levels {
		set, err := instance.ConfidenceSet(counts, p.Prior, l, src.Method)
		if err != nil {
			return nil, fmt.Errorf("--robustness %s: %w", fullNum(l), err)
		}
		q := *p
		q.PriorSet = set
		q.PriorSetSource = &problem.PriorSetSource{Method: src.Method, Samples: src.Samples, Confidence: l}
		series = append(series, expectedSeries{measure: m, prob: &q,
			over: &robustness{kind: overPriorSet, level: l, set: set, src: *q.PriorSetSource}})
	}
	// PML and LIP over every prior are LDP at the same ε (docs/theory.md
	// §7), whose optimum is weighed with the estimate as the others are.
	return append(series, expectedSeries{measure: mech.LDP, prob: &estimate, over: &robustness{kind: overSimplex}}), nil
}

// recordedCounts returns how new --confidence estimated p's prior set and
// the counts it came from: the estimate times the number of samples, which
// are whole numbers when the estimate is the samples' frequencies. The
// file's set must be the one these rebuild at the recorded level, so that
// the sets at other levels are the same construction.
func recordedCounts(p *problem.Problem) (problem.PriorSetSource, []float64, error) {
	src := p.PriorSetSource
	if p.PriorSet == nil || src == nil || src.Method == "" || src.Samples < 1 || !(src.Confidence > 0) {
		return problem.PriorSetSource{}, nil, fmt.Errorf("--robustness needs the prior_set that new --prior-from --confidence writes, with its method, samples and confidence: the sets at other levels are rebuilt from them")
	}
	n := float64(src.Samples)
	counts := make([]float64, len(p.Prior))
	for k, v := range p.Prior {
		c := math.Round(v * n)
		if math.Abs(v*n-c) > 1e-6 {
			return problem.PriorSetSource{}, nil, fmt.Errorf("--robustness: prior entry %d (%g) is not a count out of prior_set.samples = %d (a smoothed estimate?): the sets at other levels are rebuilt from the counts", k+1, v, src.Samples)
		}
		counts[k] = c
	}
	set, err := instance.ConfidenceSet(counts, p.Prior, src.Confidence, src.Method)
	if err != nil {
		return problem.PriorSetSource{}, nil, fmt.Errorf("--robustness: %w", err)
	}
	if !sameSet(set, p.PriorSet) {
		return problem.PriorSetSource{}, nil, fmt.Errorf("--robustness: the file's prior_set is not the %s set of its %d samples at level %s: the sets at other levels would not be the same construction", src.Method, src.Samples, fullNum(src.Confidence))
	}
	return *src, counts, nil
}

// sameSet reports whether two sets around the same estimate agree to a
// relative 1e-9 (the file writes every bound in full).
func sameSet(a, b *mech.PriorSet) bool {
	close := func(x, y float64) bool {
		return math.Abs(x-y) <= 1e-9*max(1e-3, max(math.Abs(x), math.Abs(y)))
	}
	if a.IsBox() != b.IsBox() || len(a.Lower) != len(b.Lower) {
		return false
	}
	for k := range a.Lower {
		if !close(a.Lower[k], b.Lower[k]) || !close(a.Upper[k], b.Upper[k]) {
			return false
		}
	}
	return close(a.Radius, b.Radius)
}

// priorSetJSON is a series' prior set in --json, with the keys of a
// problem file's prior_set.
type priorSetJSON struct {
	Lower      []jfloat `json:"lower,omitempty"`
	Upper      []jfloat `json:"upper,omitempty"`
	L1Radius   *jfloat  `json:"l1_radius,omitempty"`
	Method     string   `json:"method"`
	Samples    int      `json:"samples"`
	Confidence jfloat   `json:"confidence"`
}

// addJSON fills in the keys of --robustness: over, and for a prior set
// its confidence and the set itself.
func (r *robustness) addJSON(sj *expectedSeriesJSON) {
	if r == nil {
		return
	}
	sj.Over = r.kind
	if r.kind != overPriorSet {
		return
	}
	sj.Confidence = optFloat(r.level)
	ps := &priorSetJSON{Method: r.src.Method, Samples: r.src.Samples, Confidence: jfloat(r.level)}
	if r.set.IsBox() {
		ps.Lower, ps.Upper = jfloats(r.set.Lower), jfloats(r.set.Upper)
	} else {
		ps.L1Radius = optFloat(r.set.Radius)
	}
	sj.PriorSet = ps
}

// csvCells are the over and confidence cells of a series' CSV rows.
func (r *robustness) csvCells() []string {
	if r.kind == overPriorSet {
		return []string{r.kind, fullNum(r.level)}
	}
	return []string{r.kind, ""}
}

// expectedTitle is the title of an expected-utility plot.
func expectedTitle(p *problem.Problem, series []expectedSeries) string {
	if len(series) == 0 || series[0].over == nil {
		return curveTitle(p.Name)
	}
	if p.Name != "" {
		return "price of robustness: " + p.Name
	}
	return "price of robustness"
}

// robustnessFigure is the plot of --robustness: the curves from the
// estimate to LDP in viridis order, lighter as the set of priors grows,
// each with its own glyph; the sets' curves dashed between the two limits.
func robustnessFigure(title string, series []expectedSeries) figure.Figure {
	m := series[0].measure
	f := figure.Figure{Title: title, XLabel: fmt.Sprintf("%s budget ε (nats)", m),
		YLabel: "best expected utility at the estimate"}
	colours := figure.Sequential(len(series))
	for k, s := range series {
		xs, ys := make([]float64, len(s.pts)), make([]float64, len(s.pts))
		for i, pt := range s.pts {
			xs[i], ys[i] = pt.Epsilon, pt.ExpectedUtility
		}
		name := fmt.Sprintf("%s at the estimate", m)
		switch s.over.kind {
		case overPriorSet:
			name = fmt.Sprintf("%s over the %s", m, s.over.label())
		case overSimplex:
			name = "ldp (every prior)"
		}
		f.Series = append(f.Series, figure.Series{Name: name, X: xs, Y: ys, Marks: true, Dashed: s.over.kind == overPriorSet, Color: colours[k]})
	}
	return f
}
