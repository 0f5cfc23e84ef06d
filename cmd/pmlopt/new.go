package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

var cmdNew = &command{
	name:  "new",
	usage: "(--letters N | --labels a,b,c | --grid WxH | --prior-from F.csv --column C) --utility U [--prior P] [--epsilon E] [-o FILE]",
	short: "write a problem file: inputs, utility, prior (or one from a CSV column), budget",
	long:  newHelp,
	nargs: 0,
	flags: newFlags,
}

const newHelp = `Writes a problem file (YAML, or JSON with --json or a .json name) to stdout or
to -o FILE. The file loads as it is in solve, curve, safe and export.

Inputs: --letters N (labels 0..N-1), --labels a,b,c, --grid WxH (cells
"x,y"; "x:y" labels are read as the same cells), or else the distinct values
of the --prior-from column, sorted, numerically when every value is a
number. --bins groups a numeric column into intervals: --bins W (width W,
from the multiple of W at or below the smallest value) or --bins A,B,C
(the edges: [A,B), [B,C)); a bin is labelled "30-39" when the values and
edges are whole numbers, "[0.5,1)" otherwise, and every bin from the first
to the last is an input. Outputs are the inputs unless --outputs gives a
count M (labels 0..M-1) or labels.

On a --grid, --utility euclid is written as a utility_rule, a few hundred
bytes whatever the size (--cell S: the side of a cell; --dense writes the
N×N matrix, at most 4096 cells). --prior-from F.csv --x COL --y COL bins
the points of two coordinate columns into the cells: (x, y) falls in cell
⌊(x−X)/S⌋,⌊(y−Y)/S⌋ for --origin X,Y; a point outside the grid is refused
with its line unless --drop-outside leaves it out.

Utilities (higher is better), on the labels' values when every label is a
number and on their positions 0, 1, ... otherwise:
  counting  −(x−y)² − [y<x], the counting query of Song & Oechtering (2026)
  abs       −|x−y|
  square    −(x−y)²
  hamming   0 for the same label, −1 otherwise
  euclid    minus the Euclidean distance between grid cells (−|x−y| on a line)

Priors: --prior uniform | binomial:P (binomial(N−1, P)) | zipf:S (mass ∝
(k+1)^−S) | geometric:R (mass ∝ R^k); or --prior-from FILE.csv --column NAME:
how often each input occurs in the column, plus --smoothing A. An input that
never occurs (with --letters, --labels or --grid) is refused unless
--smoothing gives it a mass.

The counts estimate the prior. --confidence L also writes a prior_set that
holds the true prior with probability at least L: --prior-set box (the
default) gives Clopper–Pearson intervals with a Bonferroni split over the
letters, an unseen letter's from 0; --prior-set l1 the L1 ball of Weissman
et al. (2003). solve, curve, baseline, audit and sample then make the
budget hold for every prior of the set (docs/theory.md §7).

--measure, --epsilon (and --epsilon-lower for alip, whose ε_u is --epsilon)
and --objective fill in the budget and the objective. Without them the file
gets a PML budget of 1 nat and the objective worst-case-value (every utility
above means the same in every row; expected-utility under another measure),
and stderr says so: the file always loads in solve.

Example:

	pmlopt new --prior-from testdata/survey.csv --column children --utility abs \
	    --epsilon 1 --objective worst-case-value -o children.yaml`

// newOptions are new's flags.
type newOptions struct {
	fs                      *flagSet
	letters                 *int
	labels, grid            *string
	gf                      *gridFlags
	outputs, util, prior    *string
	priorFrom, column, bins *string
	smoothing, confidence   *float64
	priorSet, measure       *string
	eps, epsL               *float64
	objective, name         *string
	out                     string
	asJSON                  *bool
}

// newFlags declares new's flags on fs and returns its run function.
func newFlags(fs *flagSet) runFunc {
	o := &newOptions{
		fs:         fs,
		letters:    fs.Int("letters", 0, "`N` inputs labelled 0..N-1"),
		labels:     fs.String("labels", "", "comma-separated input `labels`"),
		grid:       fs.String("grid", "", "inputs are the cells of a `WxH` grid"),
		gf:         newGridFlags(fs), // --dense, --cell, --x, --y, --origin, --drop-outside (new_grid.go)
		outputs:    fs.String("outputs", "", "output count `M` or comma-separated labels (default: the inputs)"),
		util:       fs.String("utility", "", "`utility`: counting, abs, square, hamming or euclid"),
		prior:      fs.String("prior", "", "`prior`: uniform, binomial:P, zipf:S or geometric:R (default uniform)"),
		priorFrom:  fs.String("prior-from", "", "CSV `file` whose column gives the inputs and their counts (- for stdin)"),
		column:     fs.String("column", "", "header `name` of the --prior-from column"),
		bins:       fs.String("bins", "", "group the numeric --prior-from column into intervals of width `W`, or between the edges A,B,C,..."),
		smoothing:  fs.Float64("smoothing", 0, "pseudo-count `A` added to every count of --prior-from"),
		confidence: fs.Float64("confidence", 0, "with --prior-from: also write a prior_set that holds the true prior with probability at least `L` (0 < L < 1)"),
		priorSet:   fs.String("prior-set", "box", "with --confidence: `box` (Clopper–Pearson intervals, Bonferroni over the letters) or l1 (the ball of Weissman et al. 2003)"),
		measure:    fs.String("measure", "pml", "privacy `measure`: pml, alip, lip or ldp"),
		eps:        fs.budgetFloat64("epsilon", math.NaN(), "budget `E` in nats (for alip the upper level ε_u; default: pml, 1)"),
		epsL:       epsilonLowerFlag(fs),
		objective:  fs.String("objective", "", "`objective`: "+objectiveNames+" (default worst-case-value)"),
		name:       fs.String("name", "", "the problem's `name`"),
	}
	fs.StringVar(&o.out, "o", "", "write to this `file` instead of stdout")
	fs.StringVar(&o.out, "out", "", "same as -o `file`")
	o.asJSON = jsonFlag(fs)
	return o.run
}

// run writes the problem file in five steps: the inputs (and their counts
// when a CSV column gives the prior) and outputs, the prior, the utility,
// the budget and objective, the file.
func (o *newOptions) run(ctx context.Context, e *env, pos []string) error {
	if o.out != "" {
		// Checked before the work, and never over the CSV it reads.
		flag := "-o"
		if o.fs.isSet("out") {
			flag = "--out"
		}
		if err := checkOutputAs(flag, o.out, *o.priorFrom); err != nil {
			return err
		}
	}
	p := &problem.Problem{Name: *o.name}
	g, counts, err := o.inputs(e, p)
	if err != nil {
		return err
	}
	if err := o.outputsOf(p, g); err != nil {
		return err
	}
	if err := o.priorOf(p, counts); err != nil {
		return err
	}
	if err := o.utilityOf(p, g); err != nil {
		return err
	}
	defaults, err := o.budgetOf(p)
	if err != nil {
		return err
	}
	return o.write(e, p, defaults)
}

// gridSize is the width and height of --grid, 0 by 0 without it.
type gridSize struct{ w, h int }

// inputs is new's first step: p's inputs, from --letters, --labels,
// --grid or the values of the --prior-from column, and their counts when
// a CSV column gives the prior.
func (o *newOptions) inputs(e *env, p *problem.Problem) (gridSize, []float64, error) {
	var g gridSize
	if btoi(o.fs.isSet("letters"))+btoi(*o.labels != "")+btoi(*o.grid != "") > 1 {
		return g, nil, usagef("give one of --letters, --labels and --grid")
	}
	switch {
	case o.fs.isSet("letters"):
		if *o.letters < 1 || *o.letters > maxLetters {
			return g, nil, usagef("--letters must be between 1 and %d, got %d", maxLetters, *o.letters)
		}
		p.Inputs = indexLabels(*o.letters)
	case *o.labels != "":
		var err error
		if p.Inputs, err = splitLabels("--labels", *o.labels); err != nil {
			return g, nil, err
		}
	case *o.grid != "":
		w, h, err := parseGrid(*o.grid, o.gf.maxCells())
		if err != nil {
			return g, nil, err
		}
		g = gridSize{w, h}
		p.Inputs = instance.GridLabels(w, h)
	case *o.priorFrom == "":
		return g, nil, usagef("give the inputs: --letters, --labels, --grid or --prior-from")
	}
	var counts []float64
	var spec *binSpec
	if *o.bins != "" {
		if *o.priorFrom == "" || p.Inputs != nil {
			return g, nil, usagef("--bins groups the values of --prior-from into the inputs: give --prior-from and --column, without --letters, --labels or --grid")
		}
		b, err := parseBins(*o.bins)
		if err != nil {
			return g, nil, err
		}
		spec = &b
	}
	if err := o.gf.check(g.w, *o.priorFrom, *o.column); err != nil {
		return g, nil, err
	}
	if *o.priorFrom != "" && o.gf.binning() {
		var err error
		if counts, err = o.gf.counts(e, *o.priorFrom, g.w, g.h); err != nil {
			return g, nil, err
		}
	} else if *o.priorFrom != "" {
		if *o.column == "" {
			return g, nil, usagef("--prior-from needs --column")
		}
		var check func(string, int) error
		if spec != nil {
			check = spec.check
		}
		values, cs, err := columnCounts(e, *o.priorFrom, *o.column, check)
		if err != nil {
			return g, nil, err
		}
		if spec != nil {
			if values, cs, err = spec.apply(values, cs); err != nil {
				return g, nil, err
			}
		}
		if p.Inputs == nil {
			p.Inputs, counts = values, cs
		} else if counts, err = countsOf(p.Inputs, values, cs, *o.priorFrom, *o.column, g.w > 0); err != nil {
			return g, nil, err
		}
	}
	if *o.column != "" && *o.priorFrom == "" {
		return g, nil, usagef("--column is for --prior-from")
	}
	if o.fs.isSet("smoothing") && *o.priorFrom == "" {
		return g, nil, usagef("--smoothing is for --prior-from")
	}
	return g, counts, nil
}

// outputsOf sets p's outputs: the inputs, or --outputs; and refuses a
// problem too large to write but as a grid's utility_rule.
func (o *newOptions) outputsOf(p *problem.Problem, g gridSize) error {
	p.Outputs = p.Inputs
	if *o.outputs != "" {
		if g.w > 0 {
			return usagef("--outputs does not apply to --grid: the outputs are the grid's cells")
		}
		if m, err := strconv.Atoi(*o.outputs); err == nil {
			if m < 1 || m > maxLetters {
				return usagef("--outputs must be between 1 and %d, got %d", maxLetters, m)
			}
			p.Outputs = indexLabels(m)
		} else {
			var err error
			if p.Outputs, err = splitLabels("--outputs", *o.outputs); err != nil {
				return err
			}
		}
	}
	if n, m := len(p.Inputs), len(p.Outputs); (n > maxLetters || m > maxLetters) && !o.gf.rule(g.w, *o.util) {
		return usagef("%d inputs and %d outputs: pmlopt new writes at most %d of each (the utility alone would be %d×%d)", n, m, maxLetters, n, m)
	}
	return nil
}

// priorOf is new's second step: p's prior, from the counts or --prior,
// and its prior set with --confidence.
func (o *newOptions) priorOf(p *problem.Problem, counts []float64) error {
	var err error
	if counts != nil {
		if *o.prior != "" {
			return usagef("give --prior or --prior-from, not both")
		}
		if p.Prior, err = countPrior(p.Inputs, counts, *o.smoothing); err != nil {
			return err
		}
	} else if p.Prior, err = namedPrior(*o.prior, len(p.Inputs)); err != nil {
		return err
	}
	return confidenceSet(o.fs, p, counts, *o.confidence, *o.priorSet)
}

// utilityOf is new's third step: p's utility, or a grid's utility_rule.
func (o *newOptions) utilityOf(p *problem.Problem, g gridSize) error {
	if *o.util == "" {
		return usagef("--utility is required: counting, abs, square, hamming or euclid")
	}
	var err error
	if o.gf.rule(g.w, *o.util) {
		p.Rule = o.gf.gridRule(g.w, g.h)
	} else if g.w > 0 && *o.util == "euclid" {
		p.Utility = o.gf.gridRule(g.w, g.h).Dense()
	} else if p.Utility, err = newUtility(*o.util, p.Inputs, p.Outputs, g.w, g.h); err != nil {
		return err
	}
	return nil
}

// budgetOf is new's fourth step: p's budget and objective; without them,
// defaults that make a file solve accepts, which it returns to be named on
// stderr.
func (o *newOptions) budgetOf(p *problem.Problem) ([]string, error) {
	var err error
	if p.Privacy, err = newBudget(*o.measure, *o.eps, *o.epsL, o.fs.isSet("measure"), o.fs.isSet("epsilon-lower")); err != nil {
		return nil, err
	}
	if p.Privacy == nil {
		p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: defaultEpsilon}
	}
	if *o.objective != "" {
		obj, err := problem.ParseObjective(*o.objective)
		if err != nil {
			return nil, usagef("--objective: %v", err)
		}
		p.Objective = obj
	}
	var defaults []string
	if *o.objective == "" {
		// The worst-case objectives are defined for PML budgets.
		p.Objective = problem.WorstCaseValue
		if p.Privacy.Measure != mech.PML {
			p.Objective = problem.ExpectedUtility
		}
		defaults = append(defaults, "no --objective: the objective is "+string(p.Objective))
	}
	if math.IsNaN(*o.eps) {
		defaults = append(defaults, fmt.Sprintf("no --epsilon: the budget is pml ε = %g nat", defaultEpsilon))
	}
	return defaults, nil
}

// write is new's last step: the file, to stdout or -o, in YAML or JSON,
// and on stderr the defaults it took.
func (o *newOptions) write(e *env, p *problem.Problem, defaults []string) error {
	format := problem.YAML
	if *o.asJSON || (o.out != "" && problem.FormatOf(o.out) == problem.JSON) {
		format = problem.JSON
	}
	data, err := problem.Marshal(p, format)
	if err != nil {
		return err
	}
	if o.out == "" || o.out == "-" {
		_, err = e.stdout.Write(data)
	} else {
		err = writeFileAtomic(o.out, data)
	}
	if err == nil && len(defaults) > 0 {
		fmt.Fprintf(e.stderr, "pmlopt new: %s (defaults; give the flags to choose)\n", strings.Join(defaults, "; "))
	}
	return err
}

// defaultEpsilon is the PML budget of a file written without --epsilon, in
// nats: a posterior at most e times the prior for every release.
const defaultEpsilon = 1.0

func indexLabels(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}

// splitLabels reads a comma-separated list of labels from flag. A label
// that a problem file would refuse (invalid UTF-8, a control character) is
// a wrong command line, named by its flag and place.
func splitLabels(flag, s string) ([]string, error) {
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
		if !utf8.ValidString(parts[i]) {
			return nil, usagef("%s entry %d is not valid UTF-8", flag, i+1)
		}
		for _, r := range parts[i] {
			if unicode.IsControl(r) {
				return nil, usagef("%s entry %d: %q holds the control character %U; a label is one line of printable text", flag, i+1, parts[i], r)
			}
		}
	}
	return parts, nil
}

func parseGrid(s string, max int) (w, h int, err error) {
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		w, err = strconv.Atoi(a)
		if err == nil {
			h, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || w < 1 || h < 1 {
		return 0, 0, usagef("--grid wants WxH with positive integers, such as 4x3; got %q", s)
	}
	if w > max/h {
		return 0, 0, usagef("--grid %s has %.0f cells: at most %d", s, float64(w)*float64(h), max)
	}
	return w, h, nil
}

// countsOf returns the count of each input among the column's values;
// a value that is no input is an error. On a grid a value names its cell
// in either convention, "x,y" or "x:y".
func countsOf(inputs, values []string, cs []float64, path, column string, grid bool) ([]float64, error) {
	index := make(map[string]int, len(inputs))
	for i, s := range inputs {
		index[s] = i
	}
	counts := make([]float64, len(inputs))
	for k, v := range values {
		i, ok := index[v]
		if !ok && grid {
			i = sameCell(inputs, v)
			ok = i >= 0
		}
		if !ok {
			return nil, fmt.Errorf("%s: column %q holds %q, which is not an input label", path, column, v)
		}
		counts[i] += cs[k]
	}
	return counts, nil
}

// maxLetters bounds the inputs and outputs of a generated problem: a
// 4096×4096 utility is a file of a few hundred megabytes, the size limit
// of the loaders.
const maxLetters = 4096

// namedPrior is the prior --prior names on n letters.
func namedPrior(spec string, n int) (mech.Prior, error) {
	kind, arg, hasArg := strings.Cut(spec, ":")
	x := math.NaN()
	if hasArg {
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil {
			return nil, usagef("--prior %s: %q is not a number", kind, arg)
		}
		x = v
	}
	var (
		p   mech.Prior
		err error
	)
	switch kind {
	case "", "uniform":
		if hasArg {
			return nil, usagef("--prior uniform takes no parameter")
		}
		p, err = instance.Uniform(n)
	case "binomial":
		p, err = instance.Binomial(n-1, x)
	case "zipf":
		p, err = instance.Zipf(n, x)
	case "geometric":
		p, err = instance.Geometric(n, x)
	default:
		return nil, usagef("--prior: unknown %q (want uniform, binomial:P, zipf:S or geometric:R)", spec)
	}
	if err != nil {
		if !hasArg {
			return nil, usagef("--prior %s needs a parameter, as in %s:%s", kind, kind, map[string]string{"binomial": "0.3", "zipf": "1", "geometric": "0.9"}[kind])
		}
		return nil, usagef("--prior: %v", err)
	}
	return p, nil
}

// countPrior is the prior of the counts plus the smoothing; a zero count
// without smoothing is refused with the value it concerns.
func countPrior(values []string, counts []float64, a float64) (mech.Prior, error) {
	if a == 0 {
		for i, c := range counts {
			if c == 0 {
				return nil, usagef("--prior-from: value %q occurs 0 times, and a prior needs every mass positive: add --smoothing A (a pseudo-count such as 1 or 0.5)", values[i])
			}
		}
	}
	p, err := instance.FromCounts(counts, a)
	if err != nil {
		return nil, usagef("--smoothing: %v", err)
	}
	// Counts plus a smoothing near the float64 range sum to infinity, and
	// every mass divided by it is 0; a smoothing of a subnormal size gives
	// masses that no logarithm reads right.
	total := 0.0
	for _, c := range counts {
		total += c + a
	}
	if math.IsInf(total, 0) {
		return nil, usagef("--smoothing %g: the counts plus the smoothing sum beyond the float64 range; give a smaller smoothing", a)
	}
	for i, x := range p {
		if x < 0x1p-1022 {
			return nil, usagef("--smoothing %g: value %q gets the mass %g, below the smallest normal float64 (2.2e-308); give a larger smoothing or none", a, values[i], x)
		}
	}
	return p, nil
}

// columnCounts reads the CSV file at path (stdin for "-") and returns the
// distinct values of the named column, sorted (numerically when all are
// numbers), and how often each occurs. check, when not nil, vets each
// value with its line in the file.
func columnCounts(e *env, path, column string, check func(value string, line int) error) ([]string, []float64, error) {
	r, closeInput, err := openInput(e, path)
	if err != nil {
		return nil, nil, err
	}
	defer closeInput()
	cr, header, err := readCSVHeader(r, path)
	if err != nil {
		return nil, nil, err
	}
	col, err := headerColumn(path, header, column)
	if err != nil {
		return nil, nil, err
	}
	count := map[string]float64{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if strings.TrimSpace(rec[col]) == "" {
			// A missing answer is no letter: counted, it would take a
			// share of the prior that no record has.
			line, _ := cr.FieldPos(col)
			return nil, nil, fmt.Errorf("%s: column %q, line %d: empty value (drop the record or give it a value)", path, column, line)
		}
		if check != nil {
			line, _ := cr.FieldPos(col)
			if err := check(rec[col], line); err != nil {
				return nil, nil, fmt.Errorf("%s: column %q, %w", path, column, err)
			}
		}
		count[rec[col]]++
	}
	if len(count) == 0 {
		return nil, nil, fmt.Errorf("%s: column %q has no records", path, column)
	}
	values := make([]string, 0, len(count))
	for v := range count {
		values = append(values, v)
	}
	sortValues(values)
	counts := make([]float64, len(values))
	for i, v := range values {
		counts[i] = count[v]
	}
	return values, counts, nil
}

// sortValues sorts numerically when every value is a number, as text
// otherwise.
func sortValues(values []string) {
	nums := make(map[string]float64, len(values))
	for _, v := range values {
		x, err := decimalFloat(v)
		if err != nil || math.IsNaN(x) || v != strings.TrimSpace(v) {
			sort.Strings(values)
			return
		}
		nums[v] = x
	}
	sort.Slice(values, func(a, b int) bool { return nums[values[a]] < nums[values[b]] })
}

// newUtility builds the --utility matrix on the inputs and outputs (the
// cells of a w×h grid when w > 0).
func newUtility(kind string, inputs, outputs []string, w, h int) (mech.Utility, error) {
	var (
		u   mech.Utility
		err error
	)
	if w > 0 {
		switch kind {
		case "euclid":
			u, err = instance.Grid(w, h)
		case "hamming":
			u, err = instance.Hamming(w * h)
		case "counting", "abs", "square":
			return nil, usagef("--utility %s is a loss on a line; on a --grid use euclid or hamming", kind)
		default:
			return nil, usagef("--utility: unknown %q (on a --grid: euclid or hamming)", kind)
		}
	} else {
		xs, ys := instance.Positions(inputs), instance.Positions(outputs)
		switch kind {
		case "counting":
			u, err = instance.OnLine(instance.CountingLoss, xs, ys)
		case "abs", "euclid":
			u, err = instance.OnLine(instance.AbsoluteLoss, xs, ys)
		case "square":
			u, err = instance.OnLine(instance.SquaredLoss, xs, ys)
		case "hamming":
			u, err = instance.HammingLabels(inputs, outputs)
		default:
			return nil, usagef("--utility: unknown %q (want counting, abs, square, hamming or euclid)", kind)
		}
	}
	if err != nil {
		return nil, err
	}
	return u, nil
}

// newBudget is the privacy block of --measure and --epsilon: nil when no
// --epsilon is given.
func newBudget(measure string, eps, epsL float64, measureSet, epsLSet bool) (*mech.Budget, error) {
	m, err := mech.ParseMeasure(measure)
	if err != nil {
		return nil, usagef("--measure: %v", err)
	}
	if math.IsNaN(eps) {
		if measureSet || epsLSet {
			return nil, usagef("--measure and --epsilon-lower need --epsilon")
		}
		return nil, nil
	}
	if eps < 0 || math.IsInf(eps, 0) {
		return nil, usagef("--epsilon must be a finite non-negative number, got %v", eps)
	}
	if m != mech.ALIP {
		if epsLSet {
			return nil, usagef("--epsilon-lower is only for --measure alip")
		}
		return &mech.Budget{Measure: m, Epsilon: eps}, nil
	}
	if !epsLSet || epsL < 0 || math.IsInf(epsL, 0) || math.IsNaN(epsL) {
		return nil, usagef("--measure alip needs --epsilon-lower L (ε_l ≥ 0) and --epsilon (ε_u)")
	}
	return &mech.Budget{Measure: m, EpsilonLower: epsL, EpsilonUpper: eps}, nil
}
