package main

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/internal/jsonout"
	"github.com/pmlopt/pmlopt/internal/outfile"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
)

var cmdSolve = &command{
	name:  "solve",
	usage: "FILE [--objective O] [--measure M --epsilon E] [--solver S] [--tol T] [--out FILE] [--full] [--json]",
	short: "the optimal mechanism for the file's budget and objective",
	long:  solveHelp,
	nargs: 1,
	flags: solveFlags,
}

const solveHelp = `Computes the optimal mechanism for the file's privacy budget and objective:
worst-case-order / worst-case-value (the best worst case reachable under an
ε-PML budget, and among those a mechanism of least PML, found by LP and
bisection) or expected-utility (an LP over the PML, ALIP, LIP or LDP
polytope). The mechanism is audited before it is printed; epsilon is its
audited level and optimal_epsilon_lower a certified lower bound on the least
ε that reaches the same worst case. --measure, --epsilon and --objective
override the file; a --measure other than the file's needs --epsilon, since
the file's budget does not carry over to another measure.

--out FILE writes the problem file with the returned mechanism and the budget
and objective it was solved for (YAML, or JSON for a .json name); audit,
sample and solve read it back as it is. --mechanism-out FILE.npy or
FILE.csv writes the mechanism alone, as NumPy float64 (N×M, row-major) or N
lines of M numbers, for numeric tools. Above 20 outputs the mechanism is
summarised (the outputs each input uses); --full prints the matrix. FILE "-"
reads the problem from standard input.

A worst-case solve that runs past a second shows on stderr where it stands:
the decisions of its search for the strongest worst case the budget keeps,
then the bracket of the least ε as it narrows; one line redrawn in place on
a terminal, a line every ten seconds at most elsewhere (--quiet: nothing).

--exact (worst-case objectives, at most 20 inputs and 20 outputs) also
returns the least ε for the worst case reached in exact rationals:
ε* = log t* with t* a fraction, a mechanism at t* and multipliers ruling out
every smaller t, each checked exactly; for the prior read as fractions (1/7
for the float64 nearest 1/7) when they sum to 1, and for its float64 values.
Where t* is irrational it returns a proven bracket of relative width 2^-80.
The method is in docs/certificates.md ("The exact optimum").

Example:

	pmlopt solve testdata/counting-query.yaml --epsilon 1.3 --out solved.yaml`

type solveJSON struct {
	jsonout.Solution
	// ExpectedUtilityBound is a proven upper bound on the optimum, when
	// the method gives one (a key beyond those of the other objectives).
	ExpectedUtilityBound *jfloat  `json:"expected_utility_bound,omitempty"`
	Mechanism            jmech    `json:"mechanism"`
	Inputs               []string `json:"inputs,omitempty"`
	Outputs              []string `json:"outputs,omitempty"`
	Solver               string   `json:"solver"`
	LPSolves             int      `json:"lp_solves"`
	// Certificate is what 'pmlopt verify' re-checks (docs/certificates.md).
	Certificate *verify.Certificate `json:"certificate,omitempty"`
	// Exact is the optimum in exact rationals (--exact).
	Exact *exactJSON `json:"exact,omitempty"`
}

func optFloat(v float64) *jfloat { return jsonout.Opt(v) }

// solveFlags declares solve's flags on fs and returns its run function.
func solveFlags(fs *flagSet) runFunc {
	load := ruleLoaderFlag(fs)
	getSolver := solverFlag(fs)
	objective := fs.String("objective", "", "override the file's `objective`: "+objectiveNames)
	budget := newBudgetFlags(fs)
	getTol := tolFlag(fs)
	getWorkers := workersFlag(fs)
	asJSON := jsonFlag(fs)
	out := solvedOutFlag(fs)
	full := fullFlag(fs)
	mechOut := mechanismOutFlag(fs)
	exactFlag := fs.Bool("exact", false, "also the least ε of the worst case in exact rationals, proven (worst-case objectives, at most 20 inputs and outputs)")
	floor := jointFlags(fs)
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	return func(ctx context.Context, e *env, pos []string) error {
		if fs.isSet("objective") && *objective == "" {
			return usagef("--objective is empty; give worst-case-order, worst-case-value or expected-utility")
		}
		slv, err := getSolver()
		if err != nil {
			return err
		}
		workers, restore, err := getWorkers()
		if err != nil {
			return err
		}
		defer restore()
		if *out != "" {
			// The path is checked before the work, not after it.
			if err := checkOutput("out", *out, pos[0]); err != nil {
				return err
			}
		}
		if err := checkMechanismOut(*mechOut, pos[0]); err != nil {
			return err
		}
		if outfile.SameOutput(*out, *mechOut) {
			return usagef("--mechanism-out %s: is the file --out writes; name two files", *mechOut)
		}
		p, err := load(pos[0])
		if err != nil {
			return err
		}
		if err := budget.apply(p, *objective); err != nil {
			return err
		}
		joint := fs.isSet("min-order") || fs.isSet("min-value")
		if err := solveMemory(ctx, p, slv, *exactFlag || joint); err != nil {
			return err
		}
		tol, err := getTol()
		if err != nil {
			return err
		}
		if f, ok, err := floor(p); ok || err != nil {
			if err != nil {
				return err
			}
			if *exactFlag {
				return checkExact(p, true)
			}
			if *mechOut != "" {
				return usagef("--mechanism-out is for a solve without a floor; --out writes the floor's mechanism")
			}
			return runJoint(ctx, e, p, f, pmlopt.Options{Solver: slv, Tol: tol, Workers: workers}, *asJSON, *out)
		}
		if *exactFlag {
			if err := checkExact(p, false); err != nil {
				return err
			}
		}
		line := newStandLine(ctx, e.stderr, "solve", *quiet, e.terminal)
		notify := func(msg string) { fmt.Fprintf(e.stderr, "pmlopt solve: %s\n", msg) }
		if line != nil {
			notify = func(msg string) { line.note("pmlopt solve: " + msg) }
		}
		sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{Solver: slv, Tol: tol, Workers: workers,
			Notify: notify, Stand: line.stand()})
		line.stop()
		if err != nil {
			return withPath(pos[0], err)
		}
		var ex *exactJSON
		if *exactFlag {
			if ex, err = exactPass(ctx, p, sol, func(msg string) { fmt.Fprintf(e.stderr, "pmlopt solve: %s\n", msg) }); err != nil {
				return err
			}
		}
		if *out != "" {
			if err := writeSolvedCertificate(*out, p, sol.Mechanism, sol.Certificate); err != nil {
				return err
			}
		}
		if *mechOut != "" {
			if err := writeMechanismFile(*mechOut, sol.Mechanism); err != nil {
				return err
			}
		}
		if *asJSON {
			j := solveJSON{
				Solution:             jsonout.NewSolution("optimal", sol, p.Order != nil || p.Rule != nil),
				ExpectedUtilityBound: optFloat(sol.ExpectedUtilityBound),
				Mechanism:            jmatrix(sol.Mechanism), Inputs: p.Inputs, Outputs: p.Outputs,
				Solver: sol.Solver, LPSolves: sol.LPSolves, Certificate: sol.Certificate, Exact: ex,
			}
			return writeJSON(e.stdout, j)
		}
		var b buffered
		fmt.Fprintf(&b, "objective  %s\n", sol.Objective)
		writePrivacy(&b, sol.Measure, sol.Epsilon, sol.ALIPLower, *p.Privacy)
		if sol.Objective != problem.ExpectedUtility {
			fmt.Fprintf(&b, "least ε    in [%s, %s] for this worst case\n", num(sol.OptimalEpsilonLower), num(sol.Epsilon))
		}
		if ex != nil {
			writeExact(&b, ex, p.Inputs, p.Outputs)
		}
		if p.Order != nil || p.Rule != nil {
			fmt.Fprintf(&b, "worst-case utility order  %d of %d\n", sol.WorstCaseOrder, p.M())
		}
		if !math.IsNaN(sol.WorstCaseValue) {
			fmt.Fprintf(&b, "worst-case utility value  %s\n", num(sol.WorstCaseValue))
			fmt.Fprintf(&b, "expected utility          %s\n", num(sol.ExpectedUtility))
		}
		if !math.IsNaN(sol.ExpectedUtilityBound) {
			fmt.Fprintf(&b, "optimum at most           %s (proven by the row multipliers)\n", num(sol.ExpectedUtilityBound))
		}
		if sol.Solver == "ipm" {
			what := "structured interior point, then its optimal face's vertex"
			if sol.Measure != mech.PML {
				what = "structured interior point" // every entry positive: the support of any optimum
			}
			fmt.Fprintf(&b, "solver     ipm (%s)\n\n", what)
		} else {
			fmt.Fprintf(&b, "solver     %s, %d LP solve(s)\n\n", sol.Solver, sol.LPSolves)
		}
		writeMechanism(&b, sol.Mechanism, p.Inputs, p.Outputs, *full)
		if ex != nil {
			writeExactMechanism(&b, ex, p.Inputs, p.Outputs)
		}
		return b.commit(e.stdout)
	}
}

// applyOverrides replaces the file's objective and budget by the flags'.
func applyOverrides(p *problem.Problem, objective, measure string, eps float64, epsSet bool) error {
	if objective != "" {
		o, err := problem.ParseObjective(objective)
		if err != nil {
			return usagef("--objective: %v", err)
		}
		p.Objective = o
	}
	if measure == "" && !epsSet {
		return nil
	}
	// Without a budget in the file, ε is unknown until --epsilon gives it.
	b := mech.Budget{Measure: mech.PML, Epsilon: math.NaN()}
	if p.Privacy != nil {
		b = *p.Privacy
	}
	if measure != "" {
		m, err := mech.ParseMeasure(measure)
		if err != nil {
			return usagef("--measure: %v", err)
		}
		if m == mech.ALIP && b.Measure != mech.ALIP {
			return usagef("--measure alip needs epsilon_lower and epsilon_upper: give them in the file")
		}
		if p.Privacy != nil && m != b.Measure && !epsSet {
			// A level of one measure is no level of another: solving on
			// would use an ε nobody gave (0 for a file's alip budget).
			return usagef("--measure %s replaces the file's %s budget, which does not carry over: give --epsilon", m, b.Measure)
		}
		if b.Measure == mech.ALIP && m != mech.ALIP {
			b.EpsilonLower, b.EpsilonUpper = 0, 0
		}
		b.Measure = m
	}
	if epsSet {
		if !(eps >= 0 && eps <= problem.MaxEpsilon) {
			return usagef("--epsilon must be a number in [0, %g], got %v", float64(problem.MaxEpsilon), eps)
		}
		if b.Measure == mech.ALIP {
			return usagef("--epsilon does not apply to an alip budget; edit epsilon_lower/epsilon_upper in the file")
		}
		b.Epsilon = eps
	}
	if b.Measure != mech.ALIP && math.IsNaN(b.Epsilon) {
		return usagef("--measure %s needs --epsilon", b.Measure)
	}
	p.Privacy = &b
	return nil
}
