// Command grids is the study of location grids (Euclidean loss) that
// docs/performance.md records: for every grid size and prior it solves
//
//   - the best expected utility under ε-PML, ε-LIP, (ε, ε/2)-ALIP and ε-LDP
//     budgets (pmlopt.Solve, certified by its upper bound),
//   - the best worst-case value under the ε-PML budget (worstcase.BestValue,
//     certified by its ε bracket),
//   - the utility-safe and randomized-response baselines calibrated to the
//     same budgets (pmlopt.SolveBaseline), for comparison,
//
// and the worst-case value curve (every distinct distance, worstcase.ValueCurve)
// of the -curve-sizes, then times one curve with 1, 2, … workers (the
// multi-core speed-up). Each run is a child process of its own, so that its
// CPU seconds and peak resident memory (getrusage of the child) are its own.
// It prints a markdown report and, with -json FILE, writes the runs as JSON:
//
//	go run ./bench/grids -sizes 16x16,24x24 -curve-sizes 16x16 -json grids.json
//
// Every run reports its CPU and wall seconds, its maximum resident memory,
// the certificate's gap (the expected-utility bound minus the value, or the
// width of the ε bracket; for a curve the widest bracket and the number
// wider than 1e-9), the LPs and Go probes spent and the outputs the
// mechanism uses, with the expected utility and the worst-case value its
// mechanism reaches.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/par"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/worstcase"
)

// The objectives of a run.
const (
	objExpected = "expected-utility"
	objWorst    = "worst-case-value"
	objCurve    = "value-curve"
	objSafe     = "utility-safe"
	objRR       = "randomized-response"
)

// spec is one run: what the child process solves.
type spec struct {
	Size      string  `json:"size"`
	Prior     string  `json:"prior"`
	Objective string  `json:"objective"`
	Measure   string  `json:"measure,omitempty"`
	Epsilon   float64 `json:"epsilon"`
	Workers   int     `json:"workers"`
}

// result is what a run found and cost.
type result struct {
	spec
	Cells  int    `json:"cells"`
	Status string `json:"status"` // "ok", "failed: …", "not done after …"
	// ExpectedUtility and WorstCaseValue are those of the run's mechanism
	// (for a curve: none).
	ExpectedUtility *float64 `json:"expected_utility,omitempty"`
	WorstCaseValue  *float64 `json:"worst_case_value,omitempty"`
	// Gap is the certificate's: bound − value for expected utility, the ε
	// bracket's width for the worst case, the widest bracket of a curve.
	Gap *float64 `json:"gap,omitempty"`
	// Open counts a curve's brackets wider than 1e-9; Steps its points
	// (one per step of ε*).
	Open        int     `json:"open,omitempty"`
	Steps       int     `json:"steps,omitempty"`
	Parameter   string  `json:"parameter,omitempty"` // a baseline's calibrated parameter
	LPs         int     `json:"lps"`
	Probes      int     `json:"probes"`
	OutputsUsed int     `json:"outputs_used,omitempty"`
	CPU         float64 `json:"cpu_s"`
	Wall        float64 `json:"wall_s"`
	MaxRSSMB    float64 `json:"max_rss_mb"`
}

type report struct {
	Date    string   `json:"date"`
	Command string   `json:"command"`
	Machine string   `json:"machine"`
	CPUs    int      `json:"cpus"`
	Runs    []result `json:"runs"`
	Speedup []result `json:"speedup"`
}

func main() {
	one := flag.String("one", "", "internal: run this JSON spec in this process and print its result")
	sizes := flag.String("sizes", "16x16,24x24,32x32,48x48,64x64", "comma-separated grid `sizes` WxH")
	priors := flag.String("priors", "uniform,clustered", "comma-separated `priors`: uniform, clustered")
	measures := flag.String("measures", "pml,lip,alip,ldp", "comma-separated `measures` of the expected-utility runs and baselines")
	objectives := flag.String("objectives", "expected,worst,baselines", "comma-separated: expected, worst, baselines")
	curveSizes := flag.String("curve-sizes", "32x32", "comma-separated sizes of the worst-case value curve (\"\" for none)")
	speedSize := flag.String("speedup-size", "16x16", "size of the curve timed with 1, 2, … workers (\"\" for none)")
	speedWorkers := flag.String("speedup-workers", "", "comma-separated worker counts of the speed-up (default 1, 2, 4, … up to NumCPU, and NumCPU)")
	eps := flag.Float64("epsilon", 1, "budget `ε` (nats); ALIP is (ε_l, ε_u) = (ε, ε/2)")
	workers := flag.Int("workers", 0, "workers of every run but the speed-up's (0: every CPU)")
	budget := flag.Duration("budget", 10*time.Minute, "wall-clock limit of one run")
	jsonOut := flag.String("json", "", "also write the report as JSON to this `file`")
	flag.Parse()
	if *one != "" {
		if err := child(*one); err != nil {
			fmt.Fprintln(os.Stderr, "grids:", err)
			os.Exit(1)
		}
		return
	}
	if *workers < 0 {
		fail(fmt.Errorf("-workers must be ≥ 0, got %d", *workers))
	}
	if *budget <= 0 {
		// Every run would be killed at once and reported as not done.
		fail(fmt.Errorf("-budget must be positive, got %v", *budget))
	}
	specs, err := plan(*sizes, *priors, *measures, *objectives, *curveSizes, *eps, *workers)
	if err != nil {
		fail(err)
	}
	speed, err := speedupPlan(*speedSize, *speedWorkers, *eps)
	if err != nil {
		fail(err)
	}
	rep := report{Date: time.Now().UTC().Format("2006-01-02"), Command: strings.Join(os.Args, " "), Machine: machine(), CPUs: runtime.NumCPU()}
	for _, s := range specs {
		r := runChild(s, *budget)
		fmt.Fprintln(os.Stderr, progressLine(r))
		rep.Runs = append(rep.Runs, r)
	}
	for _, s := range speed {
		r := runChild(s, *budget)
		fmt.Fprintln(os.Stderr, progressLine(r))
		rep.Speedup = append(rep.Speedup, r)
	}
	writeMarkdown(os.Stdout, rep)
	if *jsonOut != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			fail(err)
		}
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "grids:", err)
	os.Exit(2)
}

// list splits a comma-separated flag, dropping empty items.
func list(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// plan lists the runs of the flags, size by size: every size's runs come
// before the next size's, so that a study stopped at a large size keeps
// the small ones.
func plan(sizes, priors, measures, objectives, curveSizes string, eps float64, workers int) ([]spec, error) {
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("-epsilon must be a finite number ≥ 0, got %v", eps)
	}
	ps := list(priors)
	for _, p := range ps {
		if p != "uniform" && p != "clustered" {
			return nil, fmt.Errorf("-priors: %q: want uniform or clustered", p)
		}
	}
	ms := list(measures)
	for _, m := range ms {
		if _, err := mech.ParseMeasure(m); err != nil {
			return nil, fmt.Errorf("-measures: %v", err)
		}
	}
	want := map[string]bool{}
	for _, o := range list(objectives) {
		if o != "expected" && o != "worst" && o != "baselines" {
			return nil, fmt.Errorf("-objectives: %q: want expected, worst or baselines", o)
		}
		want[o] = true
	}
	var out []spec
	for _, size := range list(sizes) {
		if _, _, err := instance.ParseGridSize(size); err != nil {
			return nil, fmt.Errorf("-sizes: %v", err)
		}
		for _, p := range ps {
			base := spec{Size: size, Prior: p, Epsilon: eps, Workers: workers}
			if want["expected"] {
				for _, m := range ms {
					s := base
					s.Objective, s.Measure = objExpected, m
					out = append(out, s)
				}
			}
			if want["worst"] {
				s := base
				s.Objective, s.Measure = objWorst, "pml"
				out = append(out, s)
			}
			if want["baselines"] {
				for _, m := range ms {
					for _, o := range []string{objSafe, objRR} {
						s := base
						s.Objective, s.Measure = o, m
						out = append(out, s)
					}
				}
			}
		}
	}
	for _, size := range list(curveSizes) {
		if _, _, err := instance.ParseGridSize(size); err != nil {
			return nil, fmt.Errorf("-curve-sizes: %v", err)
		}
		for _, p := range ps {
			out = append(out, spec{Size: size, Prior: p, Objective: objCurve, Measure: "pml", Workers: workers})
		}
	}
	return out, nil
}

// speedupPlan lists the speed-up's curves: the uniform prior's value curve
// of size with each worker count.
func speedupPlan(size, workers string, eps float64) ([]spec, error) {
	if size == "" {
		return nil, nil
	}
	if _, _, err := instance.ParseGridSize(size); err != nil {
		return nil, fmt.Errorf("-speedup-size: %v", err)
	}
	var counts []int
	if workers == "" {
		counts = par.Counts(runtime.NumCPU())
	}
	for _, f := range list(workers) {
		w, err := strconv.Atoi(f)
		if err != nil || w < 1 {
			return nil, fmt.Errorf("-speedup-workers: %q is not a whole number ≥ 1", f)
		}
		counts = append(counts, w)
	}
	var out []spec
	for _, w := range counts {
		out = append(out, spec{Size: size, Prior: "uniform", Objective: objCurve, Measure: "pml", Workers: w})
	}
	return out, nil
}

// runChild runs s in a child process (this program with -one) and reads
// its result, its CPU seconds and its peak memory; a child past budget is
// killed and reported as not done, with what it had spent.
func runChild(s spec, budget time.Duration) result {
	b, _ := json.Marshal(s)
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	self, err := os.Executable()
	if err != nil {
		return result{spec: s, Status: "failed: " + err.Error()}
	}
	cmd := exec.CommandContext(ctx, self, "-one", string(b))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	runErr := cmd.Run()
	wall := time.Since(start).Seconds()
	r := result{spec: s}
	if runErr == nil {
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			r.Status = "failed: reading the child's result: " + err.Error()
		}
	}
	if w, h, err := instance.ParseGridSize(s.Size); err == nil {
		r.Cells = w * h
	}
	r.spec = s
	switch {
	case ctx.Err() != nil:
		r.Status = fmt.Sprintf("not done after %s", budget)
	case runErr != nil:
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = runErr.Error()
		}
		r.Status = "failed: " + msg
	}
	if r.Wall == 0 || r.Status != "ok" {
		r.Wall = wall
	}
	if st := cmd.ProcessState; st != nil {
		r.CPU = (st.UserTime() + st.SystemTime()).Seconds()
		if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
			r.MaxRSSMB = float64(ru.Maxrss) / 1024 // kilobytes on Linux
		}
	}
	return r
}

// child runs the JSON spec js and prints its result.
func child(js string) error {
	var s spec
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		return err
	}
	if s.Workers > 0 {
		// The engines without a workers option (the expected-utility
		// active set) keep to the cores given, as with pmlopt --workers.
		runtime.GOMAXPROCS(s.Workers)
	}
	start := time.Now()
	r, err := solve(context.Background(), s)
	if err != nil {
		return err
	}
	r.Wall = time.Since(start).Seconds()
	return json.NewEncoder(os.Stdout).Encode(r)
}

// solve runs s in this process.
func solve(ctx context.Context, s spec) (result, error) {
	r := result{spec: s, Status: "ok"}
	w, h, err := instance.ParseGridSize(s.Size)
	if err != nil {
		return r, err
	}
	r.Cells = w * h
	pi, err := instance.GridPrior(w, h, s.Prior)
	if err != nil {
		return r, err
	}
	rule := instance.GridRule(w, h)
	// The expected-utility solve reads the grid's rule a column at a
	// time, as it does on a file `pmlopt new --grid` writes, and the
	// mechanism is evaluated by the rule: the N×N utility is built only
	// for the other objectives.
	var u mech.Utility
	if s.Objective != objExpected {
		if u, err = instance.Grid(w, h); err != nil {
			return r, err
		}
	}
	measure, err := mech.ParseMeasure(s.Measure)
	if err != nil {
		return r, err
	}
	b := mech.Budget{Measure: measure, Epsilon: s.Epsilon}
	if measure == mech.ALIP {
		b = mech.Budget{Measure: mech.ALIP, EpsilonLower: s.Epsilon, EpsilonUpper: s.Epsilon / 2}
	}
	p := &problem.Problem{Prior: pi, Utility: u, Privacy: &b, Objective: problem.ExpectedUtility}
	var m mech.Mechanism
	switch s.Objective {
	case objExpected:
		byRule := &problem.Problem{Prior: pi, Rule: rule, Privacy: &b, Objective: problem.ExpectedUtility}
		sol, err := pmlopt.Solve(ctx, byRule, pmlopt.Options{Workers: s.Workers})
		if err != nil {
			return r, err
		}
		m, r.LPs = sol.Mechanism, sol.LPSolves
		if g := sol.ExpectedUtilityBound - sol.ExpectedUtility; !math.IsNaN(g) {
			r.Gap = &g
		}
	case objWorst:
		_, res, err := worstcase.BestValue(ctx, pi, u, s.Epsilon, worstcase.Options{Workers: s.Workers})
		if err != nil {
			return r, err
		}
		m, r.LPs, r.Probes = res.Mechanism, res.LPSolves, res.GoProbes
		g := res.OptimalEpsilon - res.OptimalEpsilonLower
		r.Gap = &g
	case objSafe, objRR:
		kind := pmlopt.UtilitySafe
		if s.Objective == objRR {
			kind = pmlopt.RandomizedResponse
		}
		sol, err := pmlopt.SolveBaseline(ctx, p, kind)
		if err != nil {
			return r, err
		}
		m = sol.Mechanism
		r.Parameter = fmt.Sprintf("%s = %.6g", sol.ParameterName, sol.Parameter)
	case objCurve:
		pts, err := worstcase.ValueCurve(ctx, pi, u, worstcase.Options{Workers: s.Workers})
		if err != nil {
			return r, err
		}
		widest := 0.0
		for _, pt := range pts {
			r.LPs += pt.LPSolves
			r.Probes += pt.GoProbes
			g := pt.OptimalEpsilon - pt.OptimalEpsilonLower
			widest = max(widest, g)
			if g > 1e-9 {
				r.Open++
			}
		}
		r.Steps, r.Gap = len(pts), &widest
		return r, nil
	default:
		return r, fmt.Errorf("unknown objective %q", s.Objective)
	}
	eu, wc := rule.ExpectedUtility(pi, m), rule.WorstCaseValue(m)
	r.ExpectedUtility, r.WorstCaseValue = &eu, &wc
	r.OutputsUsed = outputsUsed(m)
	return r, nil
}

// outputsUsed counts the columns of m with a positive entry.
func outputsUsed(m mech.Mechanism) int {
	if len(m) == 0 {
		return 0
	}
	used := 0
	for j := range m[0] {
		for i := range m {
			if m[i][j] > 0 {
				used++
				break
			}
		}
	}
	return used
}

// machine describes the processor and the cores, from /proc/cpuinfo where
// there is one.
func machine() string {
	model := runtime.GOARCH
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d CPUs, %s/%s, %s", model, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

func progressLine(r result) string {
	return fmt.Sprintf("%s %s %s %s workers %d: %s, %.2f s CPU, %.2f s wall, %.0f MB",
		r.Size, r.Prior, r.Objective, r.Measure, r.Workers, r.Status, r.CPU, r.Wall, r.MaxRSSMB)
}

// num formats an optional number, "—" when absent.
func num(v *float64, format string) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf(format, *v)
}

// writeMarkdown prints the report's tables.
func writeMarkdown(w io.Writer, rep report) {
	fmt.Fprintf(w, "# Location grids (Euclidean loss), %s\n\n", rep.Date)
	fmt.Fprintf(w, "Machine: %s.  \nCommand: `%s`\n\n", rep.Machine, rep.Command)
	var runs, curves []result
	for _, r := range rep.Runs {
		if r.Objective == objCurve {
			curves = append(curves, r)
		} else {
			runs = append(runs, r)
		}
	}
	if len(runs) > 0 {
		fmt.Fprintln(w, "## Optima and baselines at the budget")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "gap: expected-utility bound − value, or the width of the ε bracket of the best worst case; baselines certify nothing.")
		fmt.Fprintln(w, "CPU s and max RSS are the run's child process's (getrusage); wall s is the solve's. Workers 0: every CPU.")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| grid | prior | objective | measure | status | expected utility | worst-case value | gap | LPs | probes | outputs used | CPU s | wall s | max RSS MB |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
		for _, r := range runs {
			obj := r.Objective
			if r.Parameter != "" {
				obj += " (" + r.Parameter + ")"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %d | %d | %d/%d | %.2f | %.2f | %.0f |\n",
				r.Size, r.Prior, obj, r.Measure, r.Status, num(r.ExpectedUtility, "%.6f"), num(r.WorstCaseValue, "%.4f"),
				num(r.Gap, "%.2g"), r.LPs, r.Probes, r.OutputsUsed, r.Cells, r.CPU, r.Wall, r.MaxRSSMB)
		}
		fmt.Fprintln(w)
	}
	if len(curves) > 0 {
		fmt.Fprintln(w, "## Worst-case value curves (every distinct distance, ε-PML)")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| grid | prior | workers | status | steps | brackets wider than 1e-9 | widest | LPs | probes | CPU s | wall s | max RSS MB |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
		for _, r := range curves {
			fmt.Fprintf(w, "| %s | %s | %d | %s | %d | %d | %s | %d | %d | %.2f | %.2f | %.0f |\n",
				r.Size, r.Prior, r.Workers, r.Status, r.Steps, r.Open, num(r.Gap, "%.2g"), r.LPs, r.Probes, r.CPU, r.Wall, r.MaxRSSMB)
		}
		fmt.Fprintln(w)
	}
	if len(rep.Speedup) > 0 {
		fmt.Fprintf(w, "## Multi-core speed-up (value curve of %s, uniform prior)\n\n", rep.Speedup[0].Size)
		fmt.Fprintf(w, "This machine has %d CPUs: worker counts above it, and machines with more cores, are not measured here.\n\n", rep.CPUs)
		fmt.Fprintln(w, "| workers | status | CPU s | wall s | speed-up (wall, vs the first row) | max RSS MB |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|")
		base := rep.Speedup[0].Wall
		for _, r := range rep.Speedup {
			fmt.Fprintf(w, "| %d | %s | %.2f | %.2f | %.2f× | %.0f |\n", r.Workers, r.Status, r.CPU, r.Wall, base/r.Wall, r.MaxRSSMB)
		}
		fmt.Fprintln(w)
	}
}
