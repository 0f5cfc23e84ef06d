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
	Out      string        // output folder
	Quick    bool          // small grids
	Sizes    []int         // N = M of the scaling study
	Big      int           // size of the closed-form-only scaling point; 0 = none
	Budget   time.Duration // per instance and backend
	GonumMax int           // largest N for the gonum backend
	Solvers  []string      // backend names
	Workers  int           // bisect.Options.Workers
	Seed     uint64
	Problem  string // counting-query problem file
	Log      io.Writer
}

func main() {
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
	solvers := fs.String("solvers", "all", "auto, all, or comma-separated backend names ("+strings.Join(solver.Names(), ", ")+")")
	workers := fs.Int("workers", 0, "thresholds solved at once by the curves (0 = GOMAXPROCS)")
	seed := fs.Uint64("seed", 2026, "seed of the samplers and random instances")
	prob := fs.String("problem", "testdata/counting-query.yaml", "counting-query problem file")
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
		name string
		do   func() error
	}{
		{"Figure 1 (counting query)", func() (err error) { rep.Fig1, err = figure1(ctx, cfg); return }},
		{"Figures 2 and 3 (4×4 circulant)", func() (err error) { rep.Fig23, err = figures23(ctx, cfg); return }},
		{"Scaling study", func() (err error) { rep.Scaling, err = scaling(ctx, cfg); return }},
		{"Expected-utility LP", func() error {
			e, err := euLP(ctx, cfg)
			if err == nil {
				rep.EULP, err = e, e.write(cfg.Out)
			}
			return err
		}},
	}
	for _, p := range parts {
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
