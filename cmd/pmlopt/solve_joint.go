package main

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/internal/jsonout"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// jointFlags adds --min-order and --min-value to solve's flags and returns
// a function that reads them: ok reports that one was given, and then the
// objective must be expected-utility.
func jointFlags(fs *flagSet) func(p *problem.Problem) (pmlopt.Floor, bool, error) {
	h := fs.Int("min-order", 0, "with --objective expected-utility: keep a worst-case utility order of at least `H` (the best expected utility over the ε-PML mechanisms that never use a pair of order below H)")
	v := fs.Float64("min-value", math.NaN(), "with --objective expected-utility: keep a worst-case utility value of at least `V` (pairs of utility below V are never used)")
	return func(p *problem.Problem) (pmlopt.Floor, bool, error) {
		byOrder, byValue := fs.isSet("min-order"), fs.isSet("min-value")
		if !byOrder && !byValue {
			return pmlopt.Floor{}, false, nil
		}
		if byOrder && byValue {
			return pmlopt.Floor{}, true, usagef("give one of --min-order and --min-value")
		}
		if p.Objective != problem.ExpectedUtility {
			return pmlopt.Floor{}, true, usagef("--min-order and --min-value keep a worst case while maximising the expected utility: add --objective expected-utility (the objective is %q)", p.Objective)
		}
		if byValue {
			if math.IsNaN(*v) || math.IsInf(*v, 0) {
				return pmlopt.Floor{}, true, usagef("--min-value must be a finite number, got %v", *v)
			}
			return pmlopt.Floor{Value: *v, ByValue: true}, true, nil
		}
		// An order outside 1..M is a wrong command line, as export's --h.
		if p.Order != nil {
			if _, m := p.Order.Dims(); *h < 1 || *h > m {
				return pmlopt.Floor{}, true, usagef("--min-order must be in 1..%d, got %d", m, *h)
			}
		} else if *h < 1 {
			return pmlopt.Floor{}, true, usagef("--min-order must be at least 1, got %d", *h)
		}
		return pmlopt.Floor{Order: *h}, true, nil
	}
}

type jointJSON struct {
	solveJSON
	MinOrder          *int    `json:"min_order,omitempty"`
	MinValue          *jfloat `json:"min_value,omitempty"`
	LeastEpsilonLower jfloat  `json:"least_epsilon_lower"`
	LeastEpsilonUpper jfloat  `json:"least_epsilon_upper"`
}

// runJoint answers solve --objective expected-utility --min-order H (or
// --min-value V): the best expected utility over the ε-PML mechanisms that
// keep the worst case.
// With out, it writes the solved problem file as plain solve --out does.
func runJoint(ctx context.Context, e *env, p *problem.Problem, f pmlopt.Floor, opt pmlopt.Options, asJSON bool, out string) error {
	opt.Notify = func(msg string) { fmt.Fprintf(e.stderr, "pmlopt solve: %s\n", msg) }
	js, err := pmlopt.SolveJoint(ctx, p, f, opt)
	if err != nil {
		return err
	}
	sol := js.Solution
	if out != "" {
		if err := writeSolvedCertificate(out, p, sol.Mechanism, sol.Certificate); err != nil {
			return err
		}
	}
	if asJSON {
		j := jointJSON{solveJSON: solveJSON{
			Solution:             jsonout.NewSolution("optimal", &sol, p.Order != nil),
			ExpectedUtilityBound: optFloat(sol.ExpectedUtilityBound),
			Mechanism:            jmatrix(sol.Mechanism), Solver: sol.Solver, LPSolves: sol.LPSolves, Certificate: sol.Certificate,
		}, LeastEpsilonLower: jfloat(js.LeastEpsilonLower), LeastEpsilonUpper: jfloat(js.LeastEpsilonUpper)}
		if f.ByValue {
			j.MinValue = optFloat(f.Value)
		} else {
			j.MinOrder = &f.Order
		}
		return writeJSON(e.stdout, j)
	}
	var b buffered
	fmt.Fprintf(&b, "objective  expected-utility keeping %s\n", f)
	writePrivacy(&b, mech.PML, sol.Epsilon, 0, *p.Privacy)
	fmt.Fprintf(&b, "least ε    in [%s, %s] for this worst case\n", num(js.LeastEpsilonLower), num(js.LeastEpsilonUpper))
	if p.Order != nil {
		fmt.Fprintf(&b, "worst-case utility order  %d of %d\n", sol.WorstCaseOrder, p.M())
	}
	fmt.Fprintf(&b, "worst-case utility value  %s\n", num(sol.WorstCaseValue))
	fmt.Fprintf(&b, "expected utility          %s\n", num(sol.ExpectedUtility))
	if !math.IsNaN(sol.ExpectedUtilityBound) {
		fmt.Fprintf(&b, "optimum at most           %s (proven by the LP's row multipliers)\n", num(sol.ExpectedUtilityBound))
	}
	fmt.Fprintf(&b, "solver     %s, %d LP solve(s)\n\n", sol.Solver, sol.LPSolves)
	writeMatrix(&b, sol.Mechanism, p.Inputs, p.Outputs)
	return b.commit(e.stdout)
}
