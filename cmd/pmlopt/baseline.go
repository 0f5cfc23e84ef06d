package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/internal/jsonout"
	"github.com/pmlopt/pmlopt/problem"
)

var cmdBaseline = &command{
	name:  "baseline",
	usage: "FILE --mechanism " + strings.Join(baselineNames(), "|") + " [--measure M --epsilon E] [--json]",
	short: "a closed-form mechanism calibrated tightly to the file's budget",
	long:  baselineHelp,
	nargs: 1,
	flags: baselineFlags,
}

const baselineHelp = `Calibrates a closed-form mechanism to the file's budget and measure (pml,
alip, lip or ldp): the largest parameter whose audited level is within the
budget, so that it can be compared fairly with the optimum.

  randomized-response  k-ary randomized response, parameter ε̄ (N = M)
  exponential          exponential mechanism p ∝ exp(ε̄ u/(2Δ)), Δ the
                       utility's sensitivity
  extremal             PML-extremal mechanism, parameter ε ≤ log 1/(1−p_min)
                       (N = M; Grosse et al. (2024), Cor 4)
  utility-safe         M*(h) of Song & Oechtering (2026), Thm 1, parameter h

The search starts from the parameter the conversions prove safe (an ε̄-LDP
mechanism is ε2-PML, ε1-LIP and (ε1, ε2)-ALIP, Saeidian et al. (2024), Prop 1,
with the least mass a prior of the file's prior_set gives a letter; the
extremal mechanism's PML is its parameter, at the estimate only) and bisects
on the audit.
--measure and --epsilon override the file. --json writes the keys of solve
and baseline, parameter, parameter_name, parameter_start and audits. Example:

	pmlopt baseline testdata/counting-query.yaml --mechanism randomized-response`

type baselineJSON struct {
	solveJSON
	Kind           string `json:"baseline"`
	Parameter      jfloat `json:"parameter"`
	ParameterName  string `json:"parameter_name"`
	ParameterStart jfloat `json:"parameter_start"`
	Audits         int    `json:"audits"`
}

// baselineFlags declares baseline's flags on fs and returns its run function.
func baselineFlags(fs *flagSet) runFunc {
	kind := fs.String("mechanism", "", "the closed-form `family`: "+strings.Join(baselineNames(), ", "))
	budget := newBudgetFlags(fs)
	asJSON := jsonFlag(fs)
	load := loaderFlag(fs)
	return func(ctx context.Context, e *env, pos []string) error {
		if err := checkBaseline("--mechanism", *kind); err != nil {
			return err
		}
		p, err := load(pos[0])
		if err != nil {
			return err
		}
		if err := budget.apply(p, ""); err != nil {
			return err
		}
		sol, err := pmlopt.SolveBaseline(ctx, p, pmlopt.Baseline(*kind))
		if err != nil {
			return err
		}
		// The whole matrix of a large grid takes seconds to format: a
		// stop ends it there, with nothing written.
		var b buffered
		err = stoppable(ctx, "the answer was still being formatted", func() error {
			if *asJSON {
				return writeJSON(&b, toBaselineJSON(p, sol))
			}
			writeBaseline(&b, p, sol)
			return nil
		})
		if err != nil {
			return err
		}
		return b.commit(e.stdout)
	}
}

func toBaselineJSON(p *problem.Problem, sol *pmlopt.BaselineSolution) baselineJSON {
	j := baselineJSON{solveJSON: solveJSON{
		Solution:  jsonout.NewSolution("calibrated", &sol.Solution, p.Order != nil),
		Mechanism: jmatrix(sol.Mechanism), Solver: sol.Solver,
	}, Kind: string(sol.Kind), Parameter: jfloat(sol.Parameter), ParameterName: sol.ParameterName,
		ParameterStart: jfloat(sol.Start), Audits: sol.Audits}
	return j
}

func writeBaseline(b *buffered, p *problem.Problem, sol *pmlopt.BaselineSolution) {
	fmt.Fprintf(b, "mechanism  %s, %s = %s (the largest within the budget after %d audit(s)", sol.Kind, sol.ParameterName, num(sol.Parameter), sol.Audits)
	if !math.IsNaN(sol.Start) {
		fmt.Fprintf(b, "; the conversions prove %s safe", num(sol.Start))
	}
	fmt.Fprintln(b, ")")
	writePrivacy(b, sol.Measure, sol.Epsilon, sol.ALIPLower, *p.Privacy)
	if p.Order != nil {
		fmt.Fprintf(b, "worst-case utility order  %d of %d\n", sol.WorstCaseOrder, p.M())
	}
	if !math.IsNaN(sol.WorstCaseValue) {
		fmt.Fprintf(b, "worst-case utility value  %s\n", num(sol.WorstCaseValue))
		fmt.Fprintf(b, "expected utility          %s\n", num(sol.ExpectedUtility))
	}
	fmt.Fprintln(b)
	writeMatrix(b, sol.Mechanism, p.Inputs, p.Outputs)
}

// baselineNames are the names of the closed-form families.
func baselineNames() []string {
	names := make([]string, len(pmlopt.Baselines))
	for k, b := range pmlopt.Baselines {
		names[k] = string(b)
	}
	return names
}

// checkBaseline refuses a name that is no closed-form family, as a wrong
// command line (exit 2) before any file is read.
func checkBaseline(flagName, kind string) error {
	names := baselineNames()
	if slices.Contains(names, kind) {
		return nil
	}
	if kind == "" {
		return usagef("%s: give one of %s", flagName, strings.Join(names, ", "))
	}
	return usagef("%s: unknown mechanism %q (want %s)", flagName, kind, strings.Join(names, ", "))
}
