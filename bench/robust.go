package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// The tasks of the robust study: pmlopt.Solve with each objective.
var robustTasks = []string{"order", "value", "eu-pml", "eu-lip", "eu-alip"}

// robustSets are the prior sets of the robust study around each family's
// prior: a box with every mass between 0.8 and 1.25 times the prior's, and
// the L1 ball of radius 0.1. allRobustSets adds the box with every mass
// between 0.5 and 2 times the prior's ("wide"), the width of a
// confidence box from a few dozen samples, for -robust-sets.
var (
	robustSets    = []string{"box", "l1"}
	allRobustSets = []string{"box", "l1", "wide"}
)

// RobustRun is one task on one family, size and set: the nominal solve
// (the problem at its prior) against the same problem over the set.
type RobustRun struct {
	Family, Task, Set string
	N                 int
	NominalCPU        float64 // CPU seconds of the process per solve (solveTimer's least)
	RobustCPU         float64
	NominalSolves     int // solves timed
	RobustSolves      int
	NominalLPs        int
	RobustLPs         int
	NominalEps        [2]float64 // [lower, upper] (expected utility: the audited level twice)
	RobustEps         [2]float64
	NominalValue      float64 // expected utility (worst-case tasks: NaN)
	RobustValue       float64
	Err               string
}

// Ratio is the robust CPU time over the nominal one.
func (r RobustRun) Ratio() float64 { return r.RobustCPU / r.NominalCPU }

// robustNames parses the list of a -robust-tasks or -robust-sets flag:
// "" (nil, the study's default), "all" (every name of known), or names
// of known.
func robustNames(flag, list string, known []string) ([]string, error) {
	switch list {
	case "":
		return nil, nil
	case "all":
		return slices.Clone(known), nil
	}
	var out []string
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimSpace(t)
		if !slices.Contains(known, t) {
			return nil, fmt.Errorf("%s: unknown name %q (want %s)", flag, t, strings.Join(known, ", "))
		}
		out = append(out, t)
	}
	return out, nil
}

func robustSet(set string, pi mech.Prior) (*mech.PriorSet, error) {
	switch set {
	case "l1":
		return mech.NewL1Set(pi, 0.1)
	case "wide":
		return randinst.FactorBox(pi, 0.5, 2)
	}
	return randinst.FactorBox(pi, 0.8, 1.25)
}

func robustProblem(in instance.Instance, task string) *problem.Problem {
	p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, Order: in.Utility.Order()}
	one := &mech.Budget{Measure: mech.PML, Epsilon: famEpsilon}
	switch task {
	case "order":
		p.Objective, p.Privacy = problem.WorstCaseOrder, one
	case "value":
		p.Objective, p.Privacy = problem.WorstCaseValue, one
	case "eu-pml":
		p.Objective, p.Privacy = problem.ExpectedUtility, one
	case "eu-lip":
		p.Objective, p.Privacy = problem.ExpectedUtility, &mech.Budget{Measure: mech.LIP, Epsilon: famEpsilon}
	case "eu-alip":
		p.Objective, p.Privacy = problem.ExpectedUtility, &mech.Budget{Measure: mech.ALIP, EpsilonLower: famEpsilon, EpsilonUpper: famEpsilon}
	}
	return p
}

// solveTimer times pmlopt.Solve on one problem as testing.B does: a first
// solve (kept as the answer), then k, about the fewest solves that make a
// round last its share of the time, found by growing k from 1; its rounds
// run between those of the problem it is compared with, so that both see
// the same load, and it keeps the least CPU seconds per solve (wall seconds
// where the CPU time is unknown). A sub-millisecond solve is below the
// resolution of one reading of the clock and at the mercy of one
// preemption or collection, so one timing of it, or a ratio of two, is
// noise; the least of rounds that each span milliseconds is the part of
// the time that other processes' load adds least to.
type solveTimer struct {
	ctx    context.Context
	p      *problem.Problem
	sol    *pmlopt.Solution
	err    error
	k      int     // solves per round
	first  float64 // CPU seconds of the first solve
	once   bool    // the first solve spans all the rounds' time: no rounds
	least  float64 // CPU seconds per solve, the least over the rounds
	solves int     // solves timed in rounds
}

func clock() time.Duration {
	if c, ok := cpuTime(); ok {
		return c
	}
	return time.Duration(time.Now().UnixNano())
}

// newSolveTimer solves p once and, where minTime > 0, finds k for rounds
// rounds spanning minTime together. A solve that takes minTime alone is
// well above the clock's resolution and is timed by its first solve, as
// testing.B stops at one iteration that fills the benchmark time.
func newSolveTimer(ctx context.Context, p *problem.Problem, rounds int, minTime time.Duration) *solveTimer {
	t := &solveTimer{ctx: ctx, p: p, k: 1}
	c0 := clock()
	t.sol, t.err = pmlopt.Solve(ctx, p, pmlopt.Options{Workers: 1})
	took := clock() - c0
	t.first, t.least, t.solves = took.Seconds(), took.Seconds(), 1
	t.once = took >= minTime
	per := minTime / time.Duration(max(rounds, 1))
	for t.err == nil && !t.once && took < per && t.k < 1e6 {
		// Aim 20% past the round's share, growing k at most 100-fold a step.
		next := t.k * 100
		if took > 0 {
			next = min(next, int(1.2*float64(t.k)*float64(per)/float64(took))+1)
		}
		t.k = max(next, t.k+1)
		took = t.time()
	}
	return t
}

// time runs k solves and returns their CPU time, recording any error.
func (t *solveTimer) time() time.Duration {
	c0 := clock()
	for range t.k {
		if _, err := pmlopt.Solve(t.ctx, t.p, pmlopt.Options{Workers: 1}); err != nil {
			t.err = err
			break
		}
	}
	return clock() - c0
}

// timeRounds starts the timers' round counts afresh and runs rounds rounds
// of each, one timer after the other in every round; a timer timed by its
// first solve keeps it.
func timeRounds(rounds int, ts ...*solveTimer) {
	for _, t := range ts {
		t.least, t.solves = math.Inf(1), 0
		if t.once {
			t.least, t.solves = t.first, 1
		}
	}
	runtime.GC()
	for range max(rounds, 1) {
		for _, t := range ts {
			if t.err == nil && !t.once {
				t.least = min(t.least, t.time().Seconds()/float64(t.k))
				t.solves += t.k
			}
		}
	}
}

// median returns the median of v (the mean of the middle two for an even
// count), sorting v.
func median(v []float64) float64 {
	sort.Float64s(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// robustStudy solves every task of every family at the sizes of the study
// at the prior and over each set, in this process, one solve at a time.
func robustStudy(ctx context.Context, cfg Config) ([]RobustRun, error) {
	fams, err := famList(cfg)
	if err != nil {
		return nil, err
	}
	sizes := cfg.RobustSizes
	if len(sizes) == 0 {
		sizes = []int{8, 16}
		if cfg.Quick {
			sizes = []int{8}
		}
	}
	var runs []RobustRun
	for _, n := range sizes {
		for _, f := range fams {
			in, err := f.New(n, cfg.Seed)
			if err != nil {
				return nil, err
			}
			tasks := cfg.RobustTasks
			if tasks == nil {
				tasks = robustTasks
			}
			for _, task := range tasks {
				p := robustProblem(in, task)
				nom := newSolveTimer(ctx, p, cfg.RobustRepeat, cfg.RobustMinTime)
				sets := cfg.RobustSets
				if sets == nil {
					sets = robustSets
				}
				for _, setName := range sets {
					if ctx.Err() != nil {
						return runs, ctx.Err()
					}
					r := RobustRun{Family: f.Name, Task: task, Set: setName, N: n}
					set, err := robustSet(setName, in.Prior)
					if err != nil {
						return nil, err
					}
					q := *p
					q.PriorSet = set
					rt := newSolveTimer(ctx, &q, cfg.RobustRepeat, cfg.RobustMinTime)
					timeRounds(cfg.RobustRepeat, nom, rt)
					r.NominalCPU, r.NominalSolves, r.RobustCPU, r.RobustSolves = nom.least, nom.solves, rt.least, rt.solves
					switch {
					case nom.err != nil:
						r.Err = "nominal: " + nom.err.Error()
					case rt.err != nil:
						r.Err = "robust: " + rt.err.Error()
					default:
						no, rob := nom.sol, rt.sol
						r.NominalLPs, r.RobustLPs = no.LPSolves, rob.LPSolves
						r.NominalEps = [2]float64{no.OptimalEpsilonLower, no.Epsilon}
						r.RobustEps = [2]float64{rob.OptimalEpsilonLower, rob.Epsilon}
						r.NominalValue, r.RobustValue = no.ExpectedUtility, rob.ExpectedUtility
					}
					fmt.Fprintf(cfg.Log, "bench: robust %s N=%d %s %s: nominal %.5fs (%d solves), robust %.5fs (%d) (%.1f×) %s\n",
						f.Name, n, task, setName, r.NominalCPU, r.NominalSolves, r.RobustCPU, r.RobustSolves, r.Ratio(), r.Err)
					runs = append(runs, r)
				}
			}
		}
		if err := writeRobust(cfg.Out, runs); err != nil {
			return runs, err
		}
	}
	return runs, writeRobust(cfg.Out, runs)
}

// writeRobust writes robust.csv (every run) and robust.md (the ratio of
// CPU times per family, task and set; then per family and size, per task
// and size, and per size, the median and largest ratio and the runs
// within 3×).
func writeRobust(dir string, runs []RobustRun) error {
	var rows [][]string
	for _, r := range runs {
		rows = append(rows, []string{r.Family, fi(r.N), r.Task, r.Set, ff(r.NominalCPU), ff(r.RobustCPU), ff(r.Ratio()),
			fi(r.NominalLPs), fi(r.RobustLPs), ff(r.NominalEps[0]), ff(r.NominalEps[1]), ff(r.RobustEps[0]), ff(r.RobustEps[1]),
			ff(r.NominalValue), ff(r.RobustValue), fi(r.NominalSolves), fi(r.RobustSolves), r.Err})
	}
	if err := writeCSV(dir, "robust.csv", []string{"family", "n", "task", "set", "nominal_cpu_s", "robust_cpu_s", "ratio",
		"nominal_lps", "robust_lps", "nominal_eps_lower", "nominal_eps", "robust_eps_lower", "robust_eps",
		"nominal_value", "robust_value", "nominal_solves", "robust_solves", "error"}, rows); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("# Robust solves against nominal ones\n\nCPU seconds per solve of `pmlopt.Solve` over the set divided by those at the prior (one worker;\n" +
		"each the least over rounds of repeated solves, see -robust-repeat and -robust-min-time).\n\n")
	b.WriteString("| family | N | task | set | nominal CPU s | robust CPU s | ratio | LPs nominal / robust | solves timed nominal / robust |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range runs {
		ratio := fmt.Sprintf("%.1f", r.Ratio())
		if r.Err != "" {
			ratio = "error"
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %.5f | %.5f | %s | %d / %d | %d / %d |\n", r.Family, r.N, r.Task, r.Set,
			r.NominalCPU, r.RobustCPU, ratio, r.NominalLPs, r.RobustLPs, r.NominalSolves, r.RobustSolves)
	}
	summary := func(title, head string, key func(RobustRun) string) {
		fmt.Fprintf(&b, "\n## %s\n\n| %s | median | max | runs within 3× |\n|%s---|---|---|\n", title, head, strings.Repeat("---|", strings.Count(head, "|")+1))
		groups := map[string][]float64{}
		var keys []string
		for _, r := range runs {
			if r.Err != "" {
				continue
			}
			k := key(r)
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], r.Ratio())
		}
		for _, k := range keys {
			v := groups[k]
			med := median(v) // sorts v
			within := 0
			for _, x := range v {
				if x <= 3 {
					within++
				}
			}
			fmt.Fprintf(&b, "| %s | %.1f | %.1f | %d of %d |\n", k, med, v[len(v)-1], within, len(v))
		}
	}
	summary("Per family and size (tasks and sets)", "N | family", func(r RobustRun) string { return fmt.Sprintf("%d | %s", r.N, r.Family) })
	summary("Per task and size (all families and sets)", "N | task", func(r RobustRun) string { return fmt.Sprintf("%d | %s", r.N, r.Task) })
	summary("Per size (all families, tasks and sets)", "N", func(r RobustRun) string { return fi(r.N) })
	return os.WriteFile(filepath.Join(dir, "robust.md"), []byte(b.String()), 0o644)
}
