package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/worstcase"
)

// The tasks of the families study: the two curves and the expected-utility
// solve under each measure.
var famTasks = []string{"order", "value", "eu-pml", "eu-lip", "eu-alip", "eu-ldp"}

// famEpsilon is the budget of the expected-utility solves (ALIP: ε_l = ε_u).
const famEpsilon = 1.0

// famGrace is how long past its budget an isolated run may take before it
// is killed: a curve stops itself at the budget, an expected-utility solve
// can not be interrupted.
const famGrace = 15 * time.Second

// FamJob is one run of the families study: a task on one family's
// instance with one backend.
type FamJob struct {
	Family  string
	N       int
	Seed    uint64
	Task    string
	Backend string
	Budget  time.Duration // wall time
	// CPUBudget, if positive, is the run's budget in CPU seconds of its
	// child process (isolated runs only): on a shared machine it measures
	// the work, where a wall budget measures the neighbours too.
	CPUBudget time.Duration
	Workers   int
}

// FamRun is the outcome of a FamJob.
type FamRun struct {
	FamJob
	M       int
	PMin    float64
	Status  string // ok, open (a bracket left open), error, budget (over the budget), skipped
	Seconds float64
	CPU     float64 // CPU seconds (user + system) of the child process; NaN when run in-process
	Probes  int     // probes answered in Go (curves)
	LPs     int
	Points  int // points returned (curves)
	Open    int // points with OptimalEpsilon − OptimalEpsilonLower > tol·max(1, OptimalEpsilon)
	MaxOpen float64
	Method  string  // expected utility under PML: "ipm" when ipm certified, "full LP" when the full LP ran
	Value   float64 // expected utility
	Excess  float64 // audited level minus budget (expected utility)
	Note    string

	// Curve holds the points of a curve run in this process (not sent by
	// a child).
	Curve []worstcase.Point `json:"-"`
}

// famWire is FamRun as a child process writes it: JSON has no NaN or
// infinity, so the floats travel as strings.
type famWire struct {
	FamRun
	PMin, Seconds, CPU, MaxOpen, Value, Excess string
}

func (r FamRun) wire() famWire {
	return famWire{r, ff(r.PMin), ff(r.Seconds), ff(r.CPU), ff(r.MaxOpen), ff(r.Value), ff(r.Excess)}
}

func (w famWire) run() FamRun {
	r := w.FamRun
	for _, x := range []struct {
		s string
		p *float64
	}{{w.PMin, &r.PMin}, {w.Seconds, &r.Seconds}, {w.CPU, &r.CPU}, {w.MaxOpen, &r.MaxOpen}, {w.Value, &r.Value}, {w.Excess, &r.Excess}} {
		*x.p = parseFF(x.s)
	}
	return r
}

// parseFF reads what ff writes.
func parseFF(s string) float64 {
	switch s {
	case "inf":
		return math.Inf(1)
	case "-inf":
		return math.Inf(-1)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// Families is the outcome of the families study.
type Families struct {
	Runs      []FamRun
	Sizes     []int
	Budget    time.Duration
	CPUBudget time.Duration
	Tol       float64
	Isolate   bool
	Refs      []FamRef // the comparisons with plain references
}

func famSizes(cfg Config) []int {
	if len(cfg.FamilySizes) > 0 {
		return cfg.FamilySizes
	}
	if cfg.Quick {
		return []int{8, 12}
	}
	return []int{64, 128, 256}
}

func famList(cfg Config) ([]instance.Family, error) {
	if len(cfg.Families) == 0 {
		return instance.Families(), nil
	}
	var fs []instance.Family
	for _, name := range cfg.Families {
		f, err := instance.Lookup(name)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// families runs every task on every family, size and backend. A task that
// exceeds its budget or fails at one size is not attempted at the larger
// ones. With cfg.Exe set, each run is a child process killed past its
// budget, so that an expected-utility solve (which can not be interrupted)
// does not run on.
func families(ctx context.Context, cfg Config) (*Families, error) {
	fams, err := famList(cfg)
	if err != nil {
		return nil, err
	}
	res := &Families{Sizes: famSizes(cfg), Budget: cfg.Budget, CPUBudget: cfg.CPUBudget, Tol: worstcase.DefaultTol, Isolate: cfg.Exe != ""}
	failed := map[string]int{} // family/task/backend → size where it failed
	for _, n := range res.Sizes {
		for _, f := range fams {
			for _, b := range append(append([]string(nil), cfg.Solvers...), defaultBackend) {
				for _, task := range famTasks {
					if cfg.FamilyTasks != nil && !contains(cfg.FamilyTasks, task) {
						continue
					}
					if b == defaultBackend && (task == "order" || task == "value") {
						continue // the curves' default is solver.Auto(), a row of its own
					}
					if ctx.Err() != nil {
						return nil, ctx.Err()
					}
					job := FamJob{Family: f.Name, N: n, Seed: cfg.Seed, Task: task, Backend: b, Budget: cfg.Budget,
						CPUBudget: cfg.CPUBudget, Workers: cfg.Workers}
					key := f.Name + "/" + task + "/" + b
					var r FamRun
					switch {
					case b == "gonum" && n > cfg.GonumMax:
						r = FamRun{FamJob: job, Status: "skipped", Note: fmt.Sprintf("gonum only up to N = %d (-gonum-max)", cfg.GonumMax)}
					case failed[key] > 0:
						r = FamRun{FamJob: job, Status: "skipped", Note: fmt.Sprintf("not attempted: failed or over budget at N = %d", failed[key])}
					case cfg.Exe != "":
						r = famIsolated(ctx, cfg.Exe, job)
					default:
						r = famRun(ctx, job)
					}
					if r.Status == "error" || r.Status == "budget" {
						failed[key] = n
					}
					logFam(cfg, r)
					res.Runs = append(res.Runs, r)
					// Written after every run, so a study stopped
					// half-way keeps its data.
					if err := res.write(cfg.Out); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	if res.Refs, err = famReferences(ctx, cfg, fams); err != nil {
		return nil, err
	}
	return res, res.write(cfg.Out)
}

func logFam(cfg Config, r FamRun) {
	fmt.Fprintf(cfg.Log, "  %s N=%d %s %s: %s %.3fs cpu=%.3fs probes=%d LPs=%d open=%d/%d %s %s\n", r.Family, r.N, r.Backend, r.Task,
		r.Status, r.Seconds, r.CPU, r.Probes, r.LPs, r.Open, r.Points, r.Method, r.Note)
}

// famIsolated runs job in a child process (the bench binary with -job) and
// kills it famGrace after its budget.
func famIsolated(ctx context.Context, exe string, job FamJob) FamRun {
	spec, _ := json.Marshal(job)
	cctx, cancel := context.WithTimeout(ctx, job.Budget+famGrace)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(cctx, exe, "-job", string(spec))
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err := cmd.Run()
	r := FamRun{FamJob: job, Seconds: time.Since(t0).Seconds(), Value: math.NaN(), Excess: math.NaN(), MaxOpen: math.NaN()}
	// The machine may be shared: the child's CPU time is the measure that
	// others' load inflates least.
	r.CPU = math.NaN()
	if st := cmd.ProcessState; st != nil {
		r.CPU = (st.UserTime() + st.SystemTime()).Seconds()
	}
	if cctx.Err() != nil && ctx.Err() == nil {
		r.Status, r.Note = "budget", fmt.Sprintf("killed after %v", (job.Budget+famGrace).Round(time.Second))
		return r
	}
	var wr famWire
	if jerr := json.Unmarshal(out.Bytes(), &wr); jerr != nil {
		r.Status, r.Note = "error", fmt.Sprintf("child: %v %v: %s", err, jerr, lastLine(errb.String()))
		return r
	}
	cpu, wall := r.CPU, r.Seconds
	r = wr.run()
	r.CPU = cpu
	if math.IsNaN(r.Seconds) {
		r.Seconds = wall
	}
	return r
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// runJob is the child's side of famIsolated: it runs one job and writes
// the outcome as JSON on standard output.
func runJob(spec string) error {
	var job FamJob
	if err := json.Unmarshal([]byte(spec), &job); err != nil {
		return fmt.Errorf("-job: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if job.CPUBudget > 0 {
		go cpuWatch(cancel, job)
	}
	r := famRun(ctx, job)
	return json.NewEncoder(os.Stdout).Encode(r.wire())
}

// cpuWatch enforces a job's CPU budget from inside its process: at the
// budget it cancels the run (a curve stops and reports what it settled),
// and famGrace of CPU later, when the run did not stop (an expected-utility
// solve can not be interrupted), it reports the run over budget and exits.
func cpuWatch(cancel context.CancelFunc, job FamJob) {
	for range time.Tick(100 * time.Millisecond) {
		used, ok := cpuTime()
		if !ok {
			return
		}
		if used >= job.CPUBudget {
			cancel()
		}
		if used >= job.CPUBudget+famGrace {
			r := FamRun{FamJob: job, Status: "budget", Seconds: math.NaN(), CPU: used.Seconds(), MaxOpen: math.NaN(),
				Value: math.NaN(), Excess: math.NaN(), Note: fmt.Sprintf("stopped at %v CPU", used.Round(time.Second))}
			_ = json.NewEncoder(os.Stdout).Encode(r.wire())
			os.Exit(0)
		}
	}
}

// famRun runs one job in this process.
func famRun(ctx context.Context, job FamJob) FamRun {
	r := FamRun{FamJob: job, CPU: math.NaN(), Value: math.NaN(), Excess: math.NaN(), MaxOpen: math.NaN()}
	fail := func(err error) FamRun {
		r.Status, r.Note = "error", err.Error()
		return r
	}
	f, err := instance.Lookup(job.Family)
	if err != nil {
		return fail(err)
	}
	in, err := f.New(job.N, job.Seed)
	if err != nil {
		return fail(err)
	}
	_, r.M = in.Utility.Dims()
	r.PMin = in.Prior.Min()
	var sv solver.Solver // nil: pmlopt's default pipeline, no LP engine named
	if job.Backend != defaultBackend {
		if sv, err = solver.Get(job.Backend); err != nil {
			return fail(err)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, job.Budget)
	defer cancel()
	t0 := time.Now()
	switch job.Task {
	case "order", "value":
		opt := worstcase.Options{Solver: sv, Workers: job.Workers}
		var pts []worstcase.Point
		if job.Task == "order" {
			pts, err = worstcase.OrderCurve(cctx, in.Prior, in.Order(), opt)
		} else {
			pts, err = worstcase.ValueCurve(cctx, in.Prior, in.Utility, opt)
		}
		r.Seconds = time.Since(t0).Seconds()
		r.Points, r.Curve = len(pts), pts
		r.MaxOpen = 0
		for _, p := range pts {
			r.LPs += p.LPSolves
			r.Probes += p.GoProbes
			w := p.OptimalEpsilon - p.OptimalEpsilonLower
			if w > worstcase.DefaultTol*max(1, p.OptimalEpsilon) {
				r.Open++
			}
			r.MaxOpen = max(r.MaxOpen, w)
		}
		switch {
		case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
			r.Status, r.Note = "budget", fmt.Sprintf("%d points resolved within the budget", len(pts))
		case err != nil:
			r.Status, r.Note = "error", err.Error()
		case r.Open > 0:
			r.Status = "open"
		default:
			r.Status = "ok"
		}
		return r
	}
	b, err := famBudget(job.Task)
	if err != nil {
		return fail(err)
	}
	p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, Privacy: &b, Objective: problem.ExpectedUtility}
	sol, err := pmlopt.Solve(cctx, p, pmlopt.Options{Solver: sv, Workers: job.Workers})
	r.Seconds = time.Since(t0).Seconds()
	if err != nil {
		return fail(err)
	}
	r.Status, r.LPs, r.Value = "ok", sol.LPSolves, sol.ExpectedUtility
	r.Method = "ipm"
	if sol.FullLP {
		r.Method = "full LP"
	}
	r.Excess = famExcess(in.Prior, sol.Mechanism, b)
	return r
}

// defaultBackend names the expected-utility runs of pmlopt.Solve with no
// backend named (Options.Solver nil), as `pmlopt solve` runs by default:
// the structured interior point and its vertex for every measure, the
// full LP only when that fails to certify.
const defaultBackend = "default"

func famBudget(task string) (mech.Budget, error) {
	switch task {
	case "eu-pml":
		return mech.Budget{Measure: mech.PML, Epsilon: famEpsilon}, nil
	case "eu-lip":
		return mech.Budget{Measure: mech.LIP, Epsilon: famEpsilon}, nil
	case "eu-ldp":
		return mech.Budget{Measure: mech.LDP, Epsilon: famEpsilon}, nil
	case "eu-alip":
		return mech.Budget{Measure: mech.ALIP, EpsilonLower: famEpsilon, EpsilonUpper: famEpsilon}, nil
	}
	return mech.Budget{}, fmt.Errorf("unknown task %q", task)
}

// famExcess is how far m's audited level exceeds the budget b (ALIP: the
// larger excess of its two levels).
func famExcess(pi mech.Prior, m mech.Mechanism, b mech.Budget) float64 {
	_, _, excess := leakage.Level(pi, m, b)
	return excess
}

func (f *Families) write(dir string) error {
	header := []string{"family", "N", "M", "p_min", "backend", "task", "status", "seconds", "cpu_seconds", "go_probes", "lp_solves",
		"points", "open", "max_open_width", "method", "expected_utility", "audit_excess", "note"}
	var rows [][]string
	for _, r := range f.Runs {
		rows = append(rows, []string{r.Family, fi(r.N), fi(r.M), ff(r.PMin), r.Backend, r.Task, r.Status, ff(r.Seconds),
			ff(r.CPU), fi(r.Probes), fi(r.LPs), fi(r.Points), fi(r.Open), ff(r.MaxOpen), r.Method, ff(r.Value), ff(r.Excess), r.Note})
	}
	if err := writeCSV(dir, "families.csv", header, rows); err != nil {
		return err
	}
	rows = nil
	for _, r := range f.Refs {
		rows = append(rows, []string{r.Family, fi(r.N), r.Backend, r.Task, fi(r.Checked), ff(r.MaxDev), r.Note})
	}
	return writeCSV(dir, "families-reference.csv", []string{"family", "N", "backend", "task", "checked", "max_deviation", "note"}, rows)
}

// famCell is one run as a table cell: time, then counts.
func famCell(r FamRun) string {
	switch r.Status {
	case "skipped":
		return "–"
	case "budget":
		if r.Points > 0 || r.LPs > 0 {
			return fmt.Sprintf("**over %v** (%d pts, %d probes, %d LPs)", r.Budget, r.Points, r.Probes, r.LPs)
		}
		return fmt.Sprintf("**over %v**", r.Budget)
	case "error":
		return "**error**: " + strings.ReplaceAll(r.Note, "|", "/")
	}
	t := fmt.Sprintf("%.2f s", r.Seconds)
	if !math.IsNaN(r.CPU) {
		t += fmt.Sprintf(" (CPU %.2f s)", r.CPU)
	}
	if strings.HasPrefix(r.Task, "eu-") {
		s := t
		if r.Method != "" && r.Task == "eu-pml" {
			s += " " + r.Method
		}
		return s + fmt.Sprintf(", excess %.1e", r.Excess)
	}
	s := fmt.Sprintf("%s, %d probes, %d LPs", t, r.Probes, r.LPs)
	if r.Open > 0 {
		s += fmt.Sprintf(", **%d open** (≤ %.3g)", r.Open, r.MaxOpen)
	}
	return s
}

func (r *Report) writeFamilies(b *strings.Builder) {
	f := r.Families
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	w("## Instance families\n\n")
	w("Every family of package instance (data: [families.csv](families.csv)):\n\n")
	for _, fam := range instance.Families() {
		w("- `%s`: %s\n", fam.Name, fam.Doc)
	}
	w("\nPer family, size and backend: the order curve and the value curve (worstcase.OrderCurve/ValueCurve: wall time, and the CPU time of the run's process when isolated; probes answered in Go, LPs; a point is **open** when its bracket is wider than %g·max(1, ε)), and one expected-utility solve (pmlopt.Solve with the backend) under PML, LIP, ALIP (ε_l = ε_u) and LDP at ε = %g (time; for PML whether ipm certified the optimum or the full LP ran; the audited level minus the budget). Each run has a budget of %v", f.Tol, famEpsilon, f.Budget)
	if f.Isolate {
		w(" of wall time and runs in its own process, killed %v past it", famGrace)
		if f.CPUBudget > 0 {
			w("; it also stops at %v of CPU time (curves keep what they settled; a solve that can not be interrupted is stopped %v of CPU later)", f.CPUBudget, famGrace)
		}
	}
	w("; a run over its budget or failing is not attempted at the larger sizes (–).\n\n")
	w("| family | N | backend | order curve | value curve | EU PML | EU LIP | EU ALIP | EU LDP |\n|---|---|---|---|---|---|---|---|---|\n")
	keys, cells := famGroup(f.Runs, func(x FamRun) (famKey, string) { return famKey{x.Family, x.N, x.Backend}, x.Task })
	var beyond []string
	compared := 0
	for _, k := range keys {
		skipped := true
		for _, x := range cells[k] {
			skipped = skipped && x.Status == "skipped"
		}
		if skipped {
			continue
		}
		w("| %s | %d | %s |", k.fam, k.n, k.backend)
		for _, t := range famTasks {
			x, ok := cells[k][t]
			if !ok {
				w(" |")
				continue
			}
			ratio, within, known := famRatio(x, cells[famKey{"random", k.n, k.backend}][t])
			if known {
				compared++
				if !within {
					beyond = append(beyond, fmt.Sprintf("%s N=%d %s %s", k.fam, k.n, k.backend, t))
				}
			}
			w(" %s%s |", famCell(x), ratio)
		}
		w("\n")
	}
	w("\n×r is the run's time (CPU when isolated) over the random family's on the same task, size and backend, each counted as at least %v; ≤ when the random run stopped at its budget. ", famRatioFloor)
	w("Within %g× of the random family: %d of %d compared runs", famRatioMax, compared-len(beyond), compared)
	if len(beyond) > 0 {
		w("; beyond: %s", strings.Join(beyond, "; "))
	}
	w(".\n\n")
	if len(f.Refs) > 0 {
		w("The same families at small sizes against plain references: every point's bracket against plain bisection over the full feasibility LP (to 1e-10), and the ε-PML expected-utility optimum of the default pipeline and of the backend against the backend's full LP (data: [families-reference.csv](families-reference.csv)). Deviation: how far the reference lies outside the bracket, or the optimum's relative difference; agreement means at most %g.\n\n", refTol)
		w("| family | N | backend | order curve | value curve | EU PML |\n|---|---|---|---|---|---|\n")
		rkeys, rcells := famGroup(f.Refs, func(x FamRef) (famKey, string) { return famKey{x.Family, x.N, x.Backend}, x.Task })
		agree := 0
		for _, k := range rkeys {
			w("| %s | %d | %s |", k.fam, k.n, k.backend)
			for _, t := range []string{"order", "value", "eu-pml"} {
				x, ok := rcells[k][t]
				switch {
				case !ok:
					w(" |")
				case x.Note != "":
					w(" **error**: %s |", strings.ReplaceAll(x.Note, "|", "/"))
				case x.OK():
					agree++
					w(" agrees (%d, %.1e) |", x.Checked, x.MaxDev)
				default:
					w(" **differs** (%d, %.1e) |", x.Checked, x.MaxDev)
				}
			}
			w("\n")
		}
		w("\n%d of %d comparisons agree.\n\n", agree, len(f.Refs))
	}
}

// famKey is a row of the families tables: a family at one size with one
// backend.
type famKey struct {
	fam     string
	n       int
	backend string
}

// famGroup groups items by row, in the order rows first appear, and within
// a row by task.
func famGroup[T any](items []T, at func(T) (famKey, string)) ([]famKey, map[famKey]map[string]T) {
	cells := map[famKey]map[string]T{}
	var keys []famKey
	for _, x := range items {
		k, task := at(x)
		if cells[k] == nil {
			cells[k] = map[string]T{}
			keys = append(keys, k)
		}
		cells[k][task] = x
	}
	return keys, cells
}

// famRatioMax is the bound on a family's time against the random
// family's at the same size.
const famRatioMax = 3.0

// famRatioFloor is the least time a ratio counts: below it the ratio of
// two runs measures the machine's noise, not the work.
const famRatioFloor = 100 * time.Millisecond

// famRatio is r's time over ref's (the random family's run of the same
// task, size and backend) as a cell suffix, whether it is within
// famRatioMax, and whether the two could be compared.
func famRatio(r, ref FamRun) (cell string, within, known bool) {
	if r.Family == "random" || ref.Family == "" {
		return "", true, false
	}
	t := func(x FamRun) float64 {
		v := x.Seconds
		if !math.IsNaN(x.CPU) {
			v = x.CPU
		}
		return max(v, famRatioFloor.Seconds())
	}
	rt, ft := t(r), t(ref)
	if !(ft > 0) {
		return "", true, false
	}
	x := rt / ft
	if r.Status == "budget" && (ref.Status == "ok" || ref.Status == "open") {
		// r stopped at its budget: its ratio is at least x.
		if x <= famRatioMax {
			return "", true, false
		}
		return fmt.Sprintf(", **×≥%.2f**", x), false, true
	}
	if r.Status != "ok" && r.Status != "open" {
		return "", true, false
	}
	switch ref.Status {
	case "ok", "open":
		cell = fmt.Sprintf(", ×%.2f", x)
	case "budget":
		cell = fmt.Sprintf(", ×≤%.2f", x)
	default:
		return "", true, false
	}
	within = x <= famRatioMax
	if !within {
		cell = ", **" + cell[2:] + "**"
	}
	return cell, within, true
}
