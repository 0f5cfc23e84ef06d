package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/bisect"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

func init() {
	register(command{name: "curve", summary: "the privacy-utility trade-off curve: utility-safe and optimal ε per worst case", run: runCurve})
}

const curveHelp = `Computes the trade-off curve of the file's prior and utilities: for every
utility order h (worst-case-order) or every reachable utility value where the
optimal ε changes (worst-case-value), the utility-safe PML ε_S and the least
PML ε* of a mechanism reaching that worst case, as a bracket
[optimal_epsilon_lower, optimal_epsilon]. Prints a table, --json or --csv;
--plot writes both staircases against ε as SVG or PNG (by extension), after
stdout, replacing the file only once the plot is complete.
Progress goes to stderr when the run takes longer than a second; Ctrl-C stops
it cleanly.`

type curvePointJSON struct {
	H                   *int    `json:"h,omitempty"`
	Threshold           *jfloat `json:"threshold,omitempty"`
	SafeEpsilon         jfloat  `json:"safe_epsilon"`
	OptimalEpsilon      jfloat  `json:"optimal_epsilon"`
	OptimalEpsilonLower jfloat  `json:"optimal_epsilon_lower"`
	LPSolves            int     `json:"lp_solves"`
}

type curveJSON struct {
	Objective string           `json:"objective"`
	Solver    string           `json:"solver"`
	Points    []curvePointJSON `json:"points"`
}

func runCurve(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "curve", "curve FILE [--objective worst-case-order|worst-case-value] [--json | --csv] [--plot out.svg]", curveHelp)
	load := loaderFlag(fs)
	getSolver := solverFlag(fs)
	objective := fs.String("objective", string(problem.WorstCaseOrder), "`objective`: worst-case-order or worst-case-value")
	tol := fs.Float64("tol", 1e-9, "width of each ε bracket")
	workers := fs.Int("workers", 0, "thresholds solved in parallel (0 = number of CPUs)")
	asJSON := fs.Bool("json", false, "write JSON (keys as in the README)")
	asCSV := fs.Bool("csv", false, "write CSV")
	plotPath := fs.String("plot", "", "also draw both staircases to this `file` (.svg or .png)")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	pos, err := fs.parse(args, 1)
	if err != nil {
		return err
	}
	if *asJSON && *asCSV {
		return usagef("give --json or --csv, not both")
	}
	obj, err := problem.ParseObjective(*objective)
	if err != nil || obj == problem.ExpectedUtility {
		return usagef("--objective must be worst-case-order or worst-case-value, got %q", *objective)
	}
	if !(*tol > 0) || math.IsInf(*tol, 0) {
		return usagef("--tol must be a positive number, got %v", *tol)
	}
	if *workers < 0 {
		return usagef("--workers must be ≥ 0, got %d", *workers)
	}
	if *plotPath != "" {
		if err := checkPlotPath(*plotPath); err != nil {
			return err
		}
	}
	slv, err := getSolver()
	if err != nil {
		return err
	}
	if slv == nil {
		slv = solver.Auto()
	}
	p, err := load(pos[0])
	if err != nil {
		return err
	}
	// The engines see utilities scaled to magnitude 1, exactly; thresholds
	// are reported in the file's units.
	k, err := p.ScaleUtility()
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	prog := newProgress(e.stderr, "curve", *quiet)
	pts, err := pmlopt.Curve(ctx, p, obj, pmlopt.Options{Solver: slv, Tol: *tol, Workers: *workers, Progress: prog.update})
	prog.done()
	for i := range pts {
		pts[i].Threshold = math.Ldexp(pts[i].Threshold, k)
		pts[i].ThresholdMax = math.Ldexp(pts[i].ThresholdMax, k)
	}
	stopped := err != nil && ctx.Err() != nil
	if err != nil && !stopped {
		return err
	}
	warnOpen(e.stderr, pts, *tol)
	var b buffered
	switch {
	case *asJSON:
		err = writeJSON(&b, toCurveJSON(obj, slv.Name(), pts))
	case *asCSV:
		err = writeCurveCSV(&b, obj, pts)
	default:
		writeCurveTable(&b, obj, pts, slv.Name())
	}
	if err != nil {
		return err
	}
	if stopped {
		// The settled points are certified on their own; the plot of a
		// curve with gaps would mislead, so it is not drawn.
		if err := b.commit(e.stdout); err != nil {
			return err
		}
		return fmt.Errorf("interrupted: %d settled points written, %d thresholds left", len(pts), prog.total()-prog.count())
	}
	// The curve goes to stdout before the plot is drawn: it is the result
	// the work was for, and a plot that can not be written must not cost it.
	if err := b.commit(e.stdout); err != nil {
		return err
	}
	if *plotPath != "" {
		title := "trade-off curve"
		if p.Name != "" {
			title = p.Name
		}
		if err := plotCurve(*plotPath, title, obj, pts); err != nil {
			return fmt.Errorf("the curve is on stdout, but --plot failed: %w", err)
		}
	}
	return nil
}

func toCurveJSON(obj problem.Objective, solverName string, pts []bisect.Point) curveJSON {
	j := curveJSON{Objective: string(obj), Solver: solverName, Points: make([]curvePointJSON, len(pts))}
	for k, pt := range pts {
		c := curvePointJSON{
			SafeEpsilon: jfloat(pt.SafeEpsilon), OptimalEpsilon: jfloat(pt.OptimalEpsilon),
			OptimalEpsilonLower: jfloat(pt.OptimalEpsilonLower), LPSolves: pt.LPSolves,
		}
		if obj == problem.WorstCaseOrder {
			h := pt.H
			c.H = &h
		} else {
			v := jfloat(pt.Threshold)
			c.Threshold = &v
		}
		j.Points[k] = c
	}
	return j
}

func writeCurveCSV(w io.Writer, obj problem.Objective, pts []bisect.Point) error {
	cw := csv.NewWriter(w)
	key := "h"
	if obj == problem.WorstCaseValue {
		key = "threshold"
	}
	cw.Write([]string{key, "safe_epsilon", "optimal_epsilon_lower", "optimal_epsilon", "lp_solves"})
	for _, pt := range pts {
		cw.Write([]string{thresholdString(obj, pt), fullNum(pt.SafeEpsilon), fullNum(pt.OptimalEpsilonLower),
			fullNum(pt.OptimalEpsilon), strconv.Itoa(pt.LPSolves)})
	}
	cw.Flush()
	return cw.Error()
}

func thresholdString(obj problem.Objective, pt bisect.Point) string {
	if obj == problem.WorstCaseOrder {
		return strconv.Itoa(pt.H)
	}
	return strconv.FormatFloat(pt.Threshold, 'g', -1, 64)
}

// fullNum formats with full precision for machine-readable output.
func fullNum(v float64) string {
	s := num(v)
	if s == "inf" || s == "-inf" {
		return s
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func writeCurveTable(w io.Writer, obj problem.Objective, pts []bisect.Point, solverName string) {
	key := "h"
	if obj == problem.WorstCaseValue {
		key = "threshold"
	}
	t := newTable(w)
	t.row(key, "utility-safe ε_S", "optimal ε* ∈ [lower,", "upper]", "gap ε_S − ε*", "LP solves")
	total := 0
	for _, pt := range pts {
		t.row(thresholdString(obj, pt), num(pt.SafeEpsilon), num(pt.OptimalEpsilonLower), num(pt.OptimalEpsilon),
			num(gap(pt.SafeEpsilon, pt.OptimalEpsilon)), strconv.Itoa(pt.LPSolves))
		total += pt.LPSolves
	}
	t.flush()
	fmt.Fprintf(w, "\n%d points, %d LP solves with the %s backend; values in nats\n", len(pts), total, solverName)
}

// progress reports a long computation on stderr once it has run for a
// second, redrawing one line at most five times a second.
type progress struct {
	mu         sync.Mutex
	w          io.Writer
	what       string
	quiet      bool
	start      time.Time
	last       time.Time
	done_, all int
	shown      bool
}

func newProgress(w io.Writer, what string, quiet bool) *progress {
	now := time.Now()
	return &progress{w: w, what: what, quiet: quiet, start: now, last: now}
}

func (p *progress) update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done_, p.all = done, total
	now := time.Now()
	if p.quiet || now.Sub(p.start) < time.Second || (now.Sub(p.last) < 200*time.Millisecond && done < total) {
		return
	}
	p.last, p.shown = now, true
	const width = 30
	fill := 0
	if total > 0 {
		fill = width * done / total
	}
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = '.'
		if i < fill {
			bar[i] = '#'
		}
	}
	fmt.Fprintf(p.w, "\r%s [%s] %d/%d  %.1fs", p.what, bar, done, total, now.Sub(p.start).Seconds())
}

func (p *progress) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done_
}

func (p *progress) total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.all
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprintln(p.w)
	}
}

// gap is ε_S − ε*, with differences below 1e-12 (rounding of equal values)
// shown as 0.
func gap(safe, opt float64) float64 {
	if g := safe - opt; math.Abs(g) >= 1e-12 {
		return g
	}
	return 0
}

// warnOpen tells stderr about thresholds whose bracket on ε* is wider than
// tol: the solver gave no proof close enough to ε* (the bracket is still
// certified, and printed).
func warnOpen(w io.Writer, pts []bisect.Point, tol float64) {
	for _, p := range pts {
		if p.OptimalEpsilon-p.OptimalEpsilonLower > tol {
			fmt.Fprintf(w, "pmlopt curve: warning: threshold %d: ε* in [%.12g, %.12g], wider than --tol %g (the solver proved no closer lower bound)\n",
				p.H, p.OptimalEpsilonLower, p.OptimalEpsilon, tol)
		}
	}
}
