package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
// the L1 ball of radius 0.1.
var robustSets = []string{"box", "l1"}

// RobustRun is one task on one family, size and set: the nominal solve
// (the problem at its prior) against the same problem over the set.
type RobustRun struct {
	Family, Task, Set string
	N                 int
	NominalCPU        float64 // CPU seconds of the process during the solve
	RobustCPU         float64
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

// robustTaskNames parses -robust-tasks: "all" (nil) or names of
// robustTasks.
func robustTaskNames(list string) ([]string, error) {
	if list == "all" || list == "" {
		return nil, nil
	}
	var out []string
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimSpace(t)
		found := false
		for _, k := range robustTasks {
			found = found || k == t
		}
		if !found {
			return nil, fmt.Errorf("-robust-tasks: unknown task %q (want %s)", t, strings.Join(robustTasks, ", "))
		}
		out = append(out, t)
	}
	return out, nil
}

func robustSet(set string, pi mech.Prior) (*mech.PriorSet, error) {
	if set == "l1" {
		return mech.NewL1Set(pi, 0.1)
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

// timedSolve runs pmlopt.Solve repeat times (at least once) and returns
// the last solution and the process's mean CPU seconds per solve (wall
// seconds where the CPU time is unknown).
func timedSolve(ctx context.Context, p *problem.Problem, repeat int) (*pmlopt.Solution, float64, error) {
	repeat = max(repeat, 1)
	c0, okCPU := cpuTime()
	t0 := time.Now()
	var sol *pmlopt.Solution
	var err error
	for range repeat {
		if sol, err = pmlopt.Solve(ctx, p, pmlopt.Options{Workers: 1}); err != nil {
			break
		}
	}
	c1, _ := cpuTime()
	if !okCPU {
		return sol, time.Since(t0).Seconds() / float64(repeat), err
	}
	return sol, (c1 - c0).Seconds() / float64(repeat), err
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
				nom, nomCPU, nomErr := timedSolve(ctx, p, cfg.RobustRepeat)
				for _, setName := range robustSets {
					if ctx.Err() != nil {
						return runs, ctx.Err()
					}
					r := RobustRun{Family: f.Name, Task: task, Set: setName, N: n, NominalCPU: nomCPU}
					set, err := robustSet(setName, in.Prior)
					if err != nil {
						return nil, err
					}
					q := *p
					q.PriorSet = set
					rob, robCPU, robErr := timedSolve(ctx, &q, cfg.RobustRepeat)
					r.RobustCPU = robCPU
					switch {
					case nomErr != nil:
						r.Err = "nominal: " + nomErr.Error()
					case robErr != nil:
						r.Err = "robust: " + robErr.Error()
					default:
						r.NominalLPs, r.RobustLPs = nom.LPSolves, rob.LPSolves
						r.NominalEps = [2]float64{nom.EpsilonLower, nom.Epsilon}
						r.RobustEps = [2]float64{rob.EpsilonLower, rob.Epsilon}
						r.NominalValue, r.RobustValue = nom.ExpectedUtility, rob.ExpectedUtility
					}
					fmt.Fprintf(cfg.Log, "bench: robust %s N=%d %s %s: nominal %.3fs, robust %.3fs (%.1f×) %s\n",
						f.Name, n, task, setName, r.NominalCPU, r.RobustCPU, r.Ratio(), r.Err)
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
// CPU times per family, task and set, and its median per task and size).
func writeRobust(dir string, runs []RobustRun) error {
	var rows [][]string
	for _, r := range runs {
		rows = append(rows, []string{r.Family, fi(r.N), r.Task, r.Set, ff(r.NominalCPU), ff(r.RobustCPU), ff(r.Ratio()),
			fi(r.NominalLPs), fi(r.RobustLPs), ff(r.NominalEps[0]), ff(r.NominalEps[1]), ff(r.RobustEps[0]), ff(r.RobustEps[1]),
			ff(r.NominalValue), ff(r.RobustValue), r.Err})
	}
	if err := writeCSV(dir, "robust.csv", []string{"family", "n", "task", "set", "nominal_cpu_s", "robust_cpu_s", "ratio",
		"nominal_lps", "robust_lps", "nominal_eps_lower", "nominal_eps", "robust_eps_lower", "robust_eps",
		"nominal_value", "robust_value", "error"}, rows); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("# Robust solves against nominal ones\n\nCPU seconds of `pmlopt.Solve` over the set divided by those at the prior (one worker).\n\n")
	b.WriteString("| family | N | task | set | nominal CPU s | robust CPU s | ratio | LPs nominal / robust |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range runs {
		ratio := fmt.Sprintf("%.1f", r.Ratio())
		if r.Err != "" {
			ratio = "error"
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %.4f | %.4f | %s | %d / %d |\n", r.Family, r.N, r.Task, r.Set, r.NominalCPU, r.RobustCPU, ratio, r.NominalLPs, r.RobustLPs)
	}
	b.WriteString("\n## Median ratio per task and size (all families, both sets)\n\n| N | task | median | max | runs within 3× |\n|---|---|---|---|---|\n")
	type key struct {
		n    int
		task string
	}
	groups := map[key][]float64{}
	var keys []key
	for _, r := range runs {
		if r.Err != "" {
			continue
		}
		k := key{r.N, r.Task}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r.Ratio())
	}
	for _, k := range keys {
		v := groups[k]
		sort.Float64s(v)
		within := 0
		for _, x := range v {
			if x <= 3 {
				within++
			}
		}
		fmt.Fprintf(&b, "| %d | %s | %.1f | %.1f | %d of %d |\n", k.n, k.task, v[len(v)/2], v[len(v)-1], within, len(v))
	}
	return os.WriteFile(filepath.Join(dir, "robust.md"), []byte(b.String()), 0o644)
}
