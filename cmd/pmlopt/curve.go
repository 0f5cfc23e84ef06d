package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/figure"
	"github.com/pmlopt/pmlopt/internal/decimal"
	"github.com/pmlopt/pmlopt/internal/jsonout"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

var cmdCurve = &command{
	name:  "curve",
	usage: "FILE [--objective worst-case-order|worst-case-value|expected-utility] [--json | --csv] [--plot out.svg|png|pdf]",
	short: "trade-off curves: least ε per worst case, or best expected utility per budget and measure",
	long:  curveHelp + "\n\n" + expectedCurveHelp,
	nargs: 1,
	flags: curveFlags,
}

const curveHelp = `Computes the trade-off curve of the file's prior and utilities for the file's
objective (--objective overrides it; worst-case-order when the file names
none): for every utility order h (worst-case-order) or every reachable utility
value where the optimal ε changes (worst-case-value), the utility-safe PML ε_S
and the least PML ε* of a mechanism reaching that worst case, as a bracket
[optimal_epsilon_lower, optimal_epsilon]. For worst-case-value, threshold is
the lowest value of each step of ε* and worst_case_value what the step's
mechanism reaches; the utility-safe staircase is evaluated on all of its own
steps (safe_steps in --json, and in --plot). Prints a table, --json, --csv, or
--jsonl (one line per threshold as soon as it settles, so that a long curve
keeps what it has); --plot writes both staircases against ε as SVG, PNG or PDF
(by the extension), after stdout, replacing the file only once the plot is
complete. With expected-utility, the best expected utility per budget (below).

An engine failure on one threshold is retried by other routes (the pure-Go
backend, other probes); a threshold no route settles keeps its certified
bracket, with a warning on stderr. Progress goes to stderr when the run takes
longer than a second. Ctrl-C, SIGTERM or SIGHUP stop the curve with exit
status 130: the settled points are written, marked partial ("complete": false
and thresholds_left in --json, a first comment line in --csv, a line under
the table, the plot's title).

Example:

	pmlopt curve testdata/counting-query.yaml --jsonl > curve.jsonl`

// curvePointJSON is a point of a worst-case curve, with its mechanism
// itself (--mechanisms).
type curvePointJSON = jsonout.CurvePoint[jmech]

type curveJSON struct {
	Objective string `json:"objective"`
	Solver    string `json:"solver"`
	// Complete is false for a curve stopped by a signal, and
	// ThresholdsLeft then lists the thresholds (h or utility values) it
	// did not settle ([] when complete).
	Complete       bool             `json:"complete"`
	ThresholdsLeft []jfloat         `json:"thresholds_left"`
	Points         []curvePointJSON `json:"points"`
	// SafeSteps is the utility-safe value staircase on its own steps
	// (worst-case-value only).
	SafeSteps []safeStepJSON `json:"safe_steps,omitempty"`
}

// curveFlags declares curve's flags on fs and returns its run function.
func curveFlags(fs *flagSet) runFunc {
	load := loaderFlag(fs)
	getSolver := solverFlag(fs)
	objective := fs.String("objective", "", "`objective`: "+objectiveNames+" (default: the file's objective, else worst-case-order)")
	getTol := tolFlag(fs)
	getWorkers := workersFlag(fs)
	asJSON := jsonFlag(fs)
	asCSV := csvFlag(fs)
	asJSONL := fs.Bool("jsonl", false, "write each point as one JSON line as soon as it settles (in the order they settle)")
	plotPath := plotFlag(fs)
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	shardSpec := fs.String("shard", "", "solve only shard `K/N` of the thresholds (the K-th of N blocks), as --jsonl records for merge")
	ex := addExpectedCurveFlags(fs)
	certs := fs.Bool("certificates", false, "with --json or --jsonl, each point's certificate, which 'pmlopt verify' re-checks")
	return func(ctx context.Context, e *env, pos []string) error {
		if *certs && !*asJSON && !*asJSONL {
			return usagef("--certificates needs --json or --jsonl")
		}
		if btoi(*asJSON)+btoi(*asCSV)+btoi(*asJSONL) > 1 {
			return usagef("give one of --json, --csv and --jsonl")
		}
		shard, err := parseShardFlag(*shardSpec, *asJSONL, *plotPath)
		if err != nil {
			return err
		}
		var obj problem.Objective
		if fs.isSet("objective") {
			if obj, err = problem.ParseObjective(*objective); err != nil || obj == "" {
				return usagef("--objective must be worst-case-order, worst-case-value or expected-utility, got %q", *objective)
			}
		}
		if *plotPath != "" {
			if err := checkPlotPath(*plotPath, pos[0]); err != nil {
				return err
			}
		}
		tol, err := getTol()
		if err != nil {
			return err
		}
		workers, restore, err := getWorkers()
		if err != nil {
			return err
		}
		defer restore()
		slv, err := getSolver()
		if err != nil {
			return err
		}
		p, err := load(pos[0])
		if err != nil {
			return err
		}
		// The file's objective is the default, as in solve, plot and compare;
		// a file without one gets the order curve.
		if obj == "" {
			obj = p.Objective
		}
		if obj == "" {
			obj = problem.WorstCaseOrder
		}
		sw, err := newShardWriter(shard, obj, p, slv, tol)
		if err != nil {
			return err
		}
		if obj == problem.ExpectedUtility {
			return ex.run(ctx, e, fs, p, slv, outputs{json: *asJSON, csv: *asCSV, jsonl: *asJSONL, quiet: *quiet, plot: *plotPath, certs: *certs})
		}
		if err := ex.onlyExpected(fs); err != nil {
			return err
		}
		slv = worstCurveSolver(slv, p)
		prog := newProgress(e.stderr, "curve", *quiet, e.terminal)
		opts := pmlopt.Options{Solver: slv, Tol: tol, Workers: workers, Progress: prog.update, Shard: shard}
		var lineErr error
		if *asJSONL {
			// Each settled point goes out at once, so that an interrupted or
			// failed curve keeps every point it settled.
			opts.Settled = func(pt pmlopt.Point) {
				if lineErr == nil {
					lineErr = writeJSONLine(e.stdout, sw.record(pt, withMechanism(toCurvePointJSON(obj, keepCertificate(pt, *certs)), pt, *ex.mechanisms)))
				}
			}
		}
		pts, err := pmlopt.Curve(ctx, p, obj, opts)
		for k := range pts {
			pts[k] = keepCertificate(pts[k], *certs)
		}
		prog.done()
		stopped := err != nil && ctx.Err() != nil
		if err != nil && !stopped {
			return withPath(pos[0], err)
		}
		warnOpen(e.stderr, "curve", pts, tol)
		var safeSteps []closedform.SafeValueStep
		// A stopped curve writes what it settled at once: the utility-safe
		// staircase on its own steps is a pass over every reachable value
		// (seconds at a few hundred letters), so it is left out, and the plot
		// draws the utility-safe ε of the settled points instead.
		if obj == problem.WorstCaseValue && !stopped {
			if safeSteps, err = safeValueSteps(p); err != nil {
				return err
			}
		}
		if *asJSONL {
			if lineErr != nil {
				return lineErr
			}
			if stopped {
				// The plot of the settled points says in its title what is
				// left (--shard draws none). The lines written and the
				// run's own thresholds (a shard's) come from the progress,
				// which knows no total before the first threshold settles:
				// then nothing is settled, and every threshold of the run
				// is left. What is left is counted only where it is needed,
				// a pass over the thresholds and the points.
				n := prog.total() - prog.count()
				if *plotPath != "" || prog.total() == 0 {
					left, err := worstCurveLeft(ctx, obj, p, pts)
					if err != nil {
						return err
					}
					if *plotPath != "" {
						if err := settledPlotError(plotCurve(*plotPath, left.title(curveTitle(p.Name)), obj, pts, safeSteps)); err != nil {
							return err
						}
					}
					if prog.total() == 0 {
						n = left.count()
						if !shard.All() {
							n = len(shard.Indices(n))
						}
					}
				}
				return fmt.Errorf("interrupted: %d settled points written, %d thresholds left", prog.count(), n)
			}
			if *plotPath != "" {
				return plotCurve(*plotPath, curveTitle(p.Name), obj, pts, safeSteps)
			}
			return nil
		}
		// A stopped curve says in every format that it is partial, and which
		// thresholds it left (curve_partial.go).
		var left *curveLeft
		if stopped {
			if left, err = worstCurveLeft(ctx, obj, p, pts); err != nil {
				return err
			}
		}
		var b buffered
		err = writeWorstCurve(&b, curveFormat{json: *asJSON, csv: *asCSV, mechanisms: *ex.mechanisms, left: left}, obj, slv.Name(), p, pts, safeSteps)
		if err != nil {
			return err
		}
		if stopped {
			// The settled points are certified on their own, and the plot of
			// them says in its title that the curve is partial.
			if err := b.commit(e.stdout); err != nil {
				return err
			}
			if *plotPath != "" {
				if err := settledPlotError(plotCurve(*plotPath, left.title(curveTitle(p.Name)), obj, pts, safeSteps)); err != nil {
					return err
				}
			}
			return fmt.Errorf("interrupted: %d settled points written, %d thresholds left", len(pts), left.count())
		}
		// The curve goes to stdout before the plot is drawn: it is the result
		// the work was for, and a plot that can not be written must not cost it.
		if err := b.commit(e.stdout); err != nil {
			return err
		}
		if *plotPath != "" {
			if err := plotCurve(*plotPath, curveTitle(p.Name), obj, pts, safeSteps); err != nil {
				return fmt.Errorf("the curve is on stdout, but --plot failed: %w", err)
			}
		}
		return nil
	}
}

func curveTitle(name string) string {
	if name != "" {
		return name
	}
	return "trade-off curve"
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func toCurveJSON(obj problem.Objective, solverName string, pts []pmlopt.Point) curveJSON {
	j := curveJSON{Objective: string(obj), Solver: solverName, Complete: true, ThresholdsLeft: []jfloat{}, Points: make([]curvePointJSON, len(pts))}
	for k, pt := range pts {
		j.Points[k] = toCurvePointJSON(obj, pt)
	}
	return j
}

func toCurvePointJSON(obj problem.Objective, pt pmlopt.Point) curvePointJSON {
	return jsonout.CurvePointOf[jmech](obj, pt)
}

// writeCurveCSV writes the worst-case curve; worst_case_value, what each
// point's mechanism reaches, is a column whenever the file has a utility
// (as in --json), for the order curve too.
func writeCurveCSV(w io.Writer, obj problem.Objective, pts []pmlopt.Point, hasUtility bool) error {
	cw := csv.NewWriter(w)
	key := "h"
	if obj == problem.WorstCaseValue {
		key = "threshold"
	}
	value := hasUtility || obj == problem.WorstCaseValue
	header := []string{key, "safe_epsilon", "optimal_epsilon_lower", "optimal_epsilon", "lp_solves"}
	if value {
		header = append(header[:1], append([]string{"worst_case_value"}, header[1:]...)...)
	}
	cw.Write(header)
	for _, pt := range pts {
		rec := []string{thresholdString(obj, pt), fullNum(pt.SafeEpsilon), fullNum(pt.OptimalEpsilonLower),
			fullNum(pt.OptimalEpsilon), strconv.Itoa(pt.LPSolves)}
		if value {
			rec = append(rec[:1], append([]string{csvNum(pt.WorstCaseValue)}, rec[1:]...)...)
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

func thresholdString(obj problem.Objective, pt pmlopt.Point) string {
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

func writeCurveTable(w io.Writer, obj problem.Objective, pts []pmlopt.Point, solverName string) {
	key := "h"
	if obj == problem.WorstCaseValue {
		key = "threshold"
	}
	t := newTable(w)
	value := obj == problem.WorstCaseValue
	head := []string{key, "utility-safe ε_S", "optimal ε* ∈ [lower,", "upper]", "gap ε_S − ε*", "LP solves"}
	if value {
		head = append([]string{key, "reaches"}, head[1:]...)
	}
	t.row(head...)
	total := 0
	for _, pt := range pts {
		row := []string{thresholdString(obj, pt), num(pt.SafeEpsilon), num(pt.OptimalEpsilonLower), num(pt.OptimalEpsilon),
			num(gap(pt.SafeEpsilon, pt.OptimalEpsilon)), strconv.Itoa(pt.LPSolves)}
		if value {
			reach := num(pt.WorstCaseValue)
			if math.IsNaN(pt.WorstCaseValue) {
				reach = "none" // no budget reaches the threshold, or none was found
			}
			row = append([]string{row[0], reach}, row[1:]...)
		}
		t.row(row...)
		total += pt.LPSolves
	}
	t.flush()
	fmt.Fprintf(w, "\n%d points, %d LP solves with the %s backend; values in nats\n", len(pts), total, solverName)
}

// progress reports a long computation on stderr once it has run for a
// second, as the stand line of solve does: on a terminal one bar redrawn
// in place at most five times a second; elsewhere (a log, a pipe) whole
// lines, at most one every standLogEvery and only when the count moves,
// and one for the last count.
type progress struct {
	mu         sync.Mutex
	w          io.Writer
	what       string
	quiet      bool
	terminal   bool
	start      time.Time
	last       time.Time
	done_, all int
	written    int // the count of the last line, on a log
	shown      bool
}

func newProgress(w io.Writer, what string, quiet, terminal bool) *progress {
	now := time.Now()
	return &progress{w: w, what: what, quiet: quiet, terminal: terminal, start: now, last: now, written: -1}
}

func (p *progress) update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done_, p.all = done, total
	now := time.Now()
	every := standEvery
	if !p.terminal {
		every = standLogEvery
	}
	if p.quiet || now.Sub(p.start) < standDelay || (p.shown && now.Sub(p.last) < every && done < total) {
		return
	}
	p.last, p.shown = now, true
	if !p.terminal {
		p.line(now)
		return
	}
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

// line writes the count as a line of a log, unless the last one had it.
func (p *progress) line(now time.Time) {
	if p.done_ == p.written {
		return
	}
	p.written = p.done_
	fmt.Fprintf(p.w, "%s: %d/%d settled  %.1fs\n", p.what, p.done_, p.all, now.Sub(p.start).Seconds())
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
	switch {
	case !p.shown:
	case p.terminal:
		fmt.Fprintln(p.w)
	default:
		p.line(time.Now())
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

// worstCurveSolver is the backend of p's worst-case curve, the one its
// output and its shards' records name: slv, or without one what the
// library's auto picks (over a prior set, RobustSolver's).
func worstCurveSolver(slv solver.Solver, p *problem.Problem) solver.Solver {
	switch {
	case slv != nil:
		return slv
	case p.PriorSet != nil:
		return pmlopt.RobustSolver(pmlopt.Options{})
	}
	return solver.Auto()
}

// safeValueSteps is the utility-safe value staircase of p: at its prior,
// or over its prior set when it has one, as the curve's points are.
func safeValueSteps(p *problem.Problem) ([]closedform.SafeValueStep, error) {
	if p.PriorSet != nil {
		return closedform.SafeValueCurveOver(p.PriorSet, p.Utility)
	}
	return closedform.SafeValueCurve(p.Prior, p.Utility)
}

// warnOpen tells stderr, in the name of the command cmd that prints the
// curve (curve or merge), about thresholds whose bracket on ε* is wider
// than tol: the solver gave no proof close enough to ε* (the bracket is
// still certified, and printed).
func warnOpen(w io.Writer, cmd string, pts []pmlopt.Point, tol float64) {
	for _, p := range pts {
		if p.Failure != nil {
			fmt.Fprintf(w, "pmlopt %s: warning: threshold %d: ε* in [%s, %s]: every route failed (%v)\n",
				cmd, p.H, decimal.Down(p.OptimalEpsilonLower, 12), decimal.Up(p.OptimalEpsilon, 12), p.Failure)
			continue
		}
		if p.OptimalEpsilon-p.OptimalEpsilonLower > tol {
			fmt.Fprintf(w, "pmlopt %s: warning: threshold %d: ε* in [%s, %s], wider than --tol %g (the solver proved no closer lower bound)\n",
				cmd, p.H, decimal.Down(p.OptimalEpsilonLower, 12), decimal.Up(p.OptimalEpsilon, 12), tol)
		}
	}
}

// safeStepJSON is one step of the utility-safe value staircase.
type safeStepJSON struct {
	Threshold   jfloat `json:"threshold"`
	SafeEpsilon jfloat `json:"safe_epsilon"`
}

func toSafeStepsJSON(steps []closedform.SafeValueStep) []safeStepJSON {
	var out []safeStepJSON
	for _, st := range steps {
		out = append(out, safeStepJSON{Threshold: jfloat(st.Threshold), SafeEpsilon: jfloat(st.Epsilon)})
	}
	return out
}

// settledPlotError is the error of --plot on an interrupted curve's settled
// points: none where no point was settled to draw (nothing is written),
// else the plot's failure, said after the points on stdout.
func settledPlotError(err error) error {
	if err == nil || errors.Is(err, figure.ErrNothingToDraw) {
		return nil
	}
	return fmt.Errorf("interrupted: the settled points are on stdout, but --plot failed: %w", err)
}
