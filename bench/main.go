package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pmlopt/pmlopt/solver"
)

// Config is everything one run depends on.
type Config struct {
	Out    string        // output folder
	Quick  bool          // small grids
	Sizes  []int         // N = M of the scaling study
	Big    int           // size of the closed-form-only scaling point; 0 = none
	Budget time.Duration // per instance and backend
	// CPUBudget is the families study's per-run budget in CPU time of
	// each run's process (isolated runs); 0 = none.
	CPUBudget time.Duration
	GonumMax  int      // largest N for the gonum backend
	Solvers   []string // backend names
	Workers   int      // worstcase.Options.Workers
	Seed      uint64
	Problem   string // counting-query problem file
	Log       io.Writer

	Studies     []string // parts to run (studyNames); nil = all
	FamilySizes []int    // N of the families study; nil = default
	Families    []string // families of the study; nil = all
	FamilyTasks []string // tasks of the study (famTasks); nil = all
	RobustSizes []int    // N of the robust study; nil = default
	RobustTasks []string // tasks of the robust study (robustTasks); nil = all
	RobustSets  []string // prior sets of the robust study (allRobustSets); nil = robustSets
	// RobustRepeat is how many timed rounds of repeated solves the robust
	// study runs per solve, a nominal round before each robust one,
	// reporting the least CPU time per solve over the rounds, and
	// RobustMinTime the CPU time the rounds of one solve span together (a
	// solve that takes it alone, or every solve with 0: timed once).
	RobustRepeat  int
	RobustMinTime time.Duration
	// RefSizes are the sizes at which the families study compares its
	// curves and optima with plain references (famReferences).
	RefSizes []int
	// Exe, if set, is the bench binary: the families study runs each of
	// its runs as a child process of it (-job), killed past its budget.
	Exe string
}

// studyNames are the parts of a run, in order; all run by default.
var studyNames = []string{"fig1", "fig23", "scaling", "eulp", "families", "robust"}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "-job" {
		if err := runJob(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "report", "output folder")
	quick := fs.Bool("quick", false, "small ε grid subset, fewer p_min, N up to 16")
	sizes := fs.String("sizes", "", "comma-separated N = M of the scaling study (default 8,16,32,64,128,256; quick: 8,16)")
	big := fs.Int("big", -1, "size of the closed-form-only scaling point, 0 = off (default 1000; quick: 200)")
	budget := fs.Duration("budget", 30*time.Second, "time budget of each curve (instance and backend)")
	gonumMax := fs.Int("gonum-max", 0, "largest N whose curve the dense gonum backend solves (its Simplex can cycle on degenerate LPs and can not be interrupted)")
	solvers := fs.String("solvers", "all", "auto, all, default (the families study's expected-utility runs of the default pipeline only), or comma-separated backend names ("+strings.Join(solver.Names(), ", ")+")")
	workers := fs.Int("workers", 0, "thresholds solved at once by the curves (0 = GOMAXPROCS)")
	seed := fs.Uint64("seed", 2026, "seed of the samplers and random instances")
	prob := fs.String("problem", "testdata/counting-query.yaml", "counting-query problem file")
	studies := fs.String("studies", "all", "all, or comma-separated parts to run ("+strings.Join(studyNames, ", ")+")")
	famSizes := fs.String("family-sizes", "", "comma-separated N of the families study (default 64,128,256; quick: 8,12)")
	fams := fs.String("families", "all", "all, or comma-separated families of the families study (package instance)")
	cpuBudget := fs.Duration("cpu-budget", 0, "families study: per-run budget in CPU time of the run's process (with -isolate; 0 = none); -budget stays the wall-time limit")
	tasks := fs.String("tasks", "all", "all, or comma-separated tasks of the families study ("+strings.Join(famTasks, ", ")+")")
	refSizes := fs.String("reference-sizes", "", "families study: comma-separated N at which every family's curves and ε-PML optimum are compared with plain bisection and the full LP, or none (default 16; quick: 8)")
	robustSizes := fs.String("robust-sizes", "", "comma-separated N of the robust study (default 8,16; quick: 8)")
	robustTaskList := fs.String("robust-tasks", "all", "all, or comma-separated tasks of the robust study ("+strings.Join(robustTasks, ", ")+")")
	robustSetList := fs.String("robust-sets", strings.Join(robustSets, ","), "all, or comma-separated prior sets of the robust study: box (masses 0.8 to 1.25 times the prior's), l1 (the L1 ball of radius 0.1), wide (masses 0.5 to 2 times the prior's)")
	robustRepeat := fs.Int("robust-repeat", 5, "robust study: timed rounds per solve, nominal and robust in turn, the CPU time reported being the least per solve over them")
	robustMinTime := fs.Duration("robust-min-time", 50*time.Millisecond, "robust study: CPU time the rounds of one solve span together, each round repeating the solve as often as its share needs; a solve that takes it alone, or every solve with 0, is timed once (a millisecond solve timed once is noise)")
	isolate := fs.Bool("isolate", true, "run each run of the families study in a child process killed past its budget")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	cfg := Config{Out: *out, Quick: *quick, Budget: *budget, GonumMax: *gonumMax,
		Workers: *workers, Seed: *seed, Problem: *prob, Log: stderr, Big: *big}
	var err error
	if *sizes == "" {
		cfg.Sizes = defaultSizes(*quick)
	} else if cfg.Sizes, err = parseSizes(*sizes); err != nil {
		return Config{}, err
	}
	if cfg.Big < 0 {
		cfg.Big = 1000
		if *quick {
			cfg.Big = 200
		}
	}
	if *robustSizes != "" {
		if cfg.RobustSizes, err = parseSizes(*robustSizes); err != nil {
			return Config{}, err
		}
	}
	if cfg.RobustTasks, err = robustNames("-robust-tasks", *robustTaskList, robustTasks); err != nil {
		return Config{}, err
	}
	if cfg.RobustSets, err = robustNames("-robust-sets", *robustSetList, allRobustSets); err != nil {
		return Config{}, err
	}
	if *robustRepeat < 1 {
		return Config{}, fmt.Errorf("-robust-repeat %d: want at least 1", *robustRepeat)
	}
	cfg.RobustRepeat = *robustRepeat
	if *robustMinTime < 0 {
		return Config{}, fmt.Errorf("-robust-min-time %v: want at least 0", *robustMinTime)
	}
	cfg.RobustMinTime = *robustMinTime
	if *famSizes != "" {
		if cfg.FamilySizes, err = parseSizes(*famSizes); err != nil {
			return Config{}, err
		}
	}
	switch *refSizes {
	case "":
		cfg.RefSizes = []int{16}
		if *quick {
			cfg.RefSizes = []int{8}
		}
	case "none":
	default:
		if cfg.RefSizes, err = parseSizes(*refSizes); err != nil {
			return Config{}, fmt.Errorf("-reference-sizes: %w", err)
		}
	}
	if *fams != "all" && *fams != "" {
		for _, f := range strings.Split(*fams, ",") {
			cfg.Families = append(cfg.Families, strings.TrimSpace(f))
		}
		if _, err := famList(cfg); err != nil {
			return Config{}, fmt.Errorf("-families: %w", err)
		}
	}
	if cfg.CPUBudget = *cpuBudget; cfg.CPUBudget < 0 {
		return Config{}, fmt.Errorf("-cpu-budget must not be negative, got %v", cfg.CPUBudget)
	}
	if *tasks != "all" && *tasks != "" {
		for _, t := range strings.Split(*tasks, ",") {
			t = strings.TrimSpace(t)
			if !contains(famTasks, t) {
				return Config{}, fmt.Errorf("-tasks: unknown %q (want %s)", t, strings.Join(famTasks, ", "))
			}
			cfg.FamilyTasks = append(cfg.FamilyTasks, t)
		}
	}
	if *studies != "all" && *studies != "" {
		for _, st := range strings.Split(*studies, ",") {
			st = strings.TrimSpace(st)
			if !contains(studyNames, st) {
				return Config{}, fmt.Errorf("-studies: unknown %q (want %s)", st, strings.Join(studyNames, ", "))
			}
			cfg.Studies = append(cfg.Studies, st)
		}
	}
	if *isolate {
		if cfg.Exe, err = os.Executable(); err != nil {
			return Config{}, fmt.Errorf("-isolate: %w", err)
		}
	}
	if cfg.Solvers, err = parseSolvers(*solvers); err != nil {
		return Config{}, err
	}
	if cfg.Budget <= 0 {
		return Config{}, fmt.Errorf("-budget must be positive, got %v", cfg.Budget)
	}
	if cfg.Workers < 0 {
		return Config{}, fmt.Errorf("-workers must not be negative, got %d", cfg.Workers)
	}
	return cfg, nil
}

func defaultSizes(quick bool) []int {
	if quick {
		return []int{8, 16}
	}
	return []int{8, 16, 32, 64, 128, 256}
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			return nil, fmt.Errorf("-sizes: %q is not a size ≥ 2", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func parseSolvers(s string) ([]string, error) {
	switch s {
	case "auto":
		return []string{solver.Auto().Name()}, nil
	case "all", "":
		return solver.Names(), nil
	case defaultBackend:
		// Only the families study's runs of the default pipeline.
		return nil, nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if _, err := solver.Get(f); err != nil {
			return nil, fmt.Errorf("-solvers: %w", err)
		}
		out = append(out, f)
	}
	return out, nil
}

// run computes every part, writes the CSVs and plots as it goes, and finally
// report.md.
func run(ctx context.Context, cfg Config) error {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return err
	}
	rep := &Report{Config: cfg, Machine: machine(), Started: time.Now()}
	parts := []struct {
		study, name string
		do          func() error
	}{
		{"fig1", "Figure 1 (counting query)", func() (err error) { rep.Fig1, err = figure1(ctx, cfg); return }},
		{"fig23", "Figures 2 and 3 (4×4 circulant)", func() (err error) { rep.Fig23, err = figures23(ctx, cfg); return }},
		{"scaling", "Scaling study", func() (err error) { rep.Scaling, err = scaling(ctx, cfg); return }},
		{"eulp", "Expected-utility LP", func() error {
			e, err := euLP(ctx, cfg)
			if err == nil {
				rep.EULP, err = e, e.write(cfg.Out)
			}
			return err
		}},
		{"families", "Instance families", func() (err error) { rep.Families, err = families(ctx, cfg); return }},
		{"robust", "Robust against nominal solves", func() error { _, err := robustStudy(ctx, cfg); return err }},
	}
	for _, p := range parts {
		if cfg.Studies != nil && !contains(cfg.Studies, p.study) {
			continue
		}
		fmt.Fprintf(cfg.Log, "bench: %s ...\n", p.name)
		t0 := time.Now()
		if err := p.do(); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		d := time.Since(t0)
		rep.Parts = append(rep.Parts, PartTime{p.name, d})
		fmt.Fprintf(cfg.Log, "bench: %s done in %v\n", p.name, d.Round(time.Millisecond))
	}
	return rep.write()
}
