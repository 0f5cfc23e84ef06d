package main

import (
	"math"
	"strings"

	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// The flags that several commands take, each declared here once: a command
// attaches one by calling its function from its flags function, so that
// the flag has the same name, default, help and checks in every command
// (TestSharedFlagsDeclaredOnce). Flags that share a name but mean
// different things in different commands (--out, --quiet, --h, --input,
// --column, --grid, --optimum, and --measure, --epsilon and --objective
// outside budgetFlags) stay with their commands.

// jsonFlag adds --json: the command's result as JSON on stdout. What each
// command writes, and one meaning per key, are in docs/cli.md's "JSON
// output"; a command whose JSON is particular says so in its long help.
func jsonFlag(fs *flagSet) *bool {
	return fs.Bool("json", false, "write JSON (keys as in docs/cli.md)")
}

// csvFlag adds --csv: a curve as CSV on stdout.
func csvFlag(fs *flagSet) *bool {
	return fs.Bool("csv", false, "write CSV")
}

// plotFlag adds --plot: a picture of what the command prints, in the
// format of the file's extension (checkPlotPath).
func plotFlag(fs *flagSet) *string {
	return fs.String("plot", "", "also draw the result to this `file` (.svg, .png or .pdf)")
}

// fullFlag adds --full: the whole mechanism in the table, however many
// outputs (writeMechanism summarises above 20).
func fullFlag(fs *flagSet) *bool {
	return fs.Bool("full", false, "print the whole mechanism, even above 20 outputs")
}

// mechanismsFlag adds --mechanisms: each curve point's mechanism in the
// JSON.
func mechanismsFlag(fs *flagSet) *bool {
	return fs.Bool("mechanisms", false, "with --json: include each point's mechanism")
}

// solvedOutFlag adds --out of the commands that return a mechanism for a
// problem (solve, safe): the problem file with that mechanism, which
// audit, sample and solve read back.
func solvedOutFlag(fs *flagSet) *string {
	return fs.String("out", "", "also write the problem with the returned mechanism to this `file`")
}

// mechanismOutFlag adds --mechanism-out: the returned mechanism as a bare
// matrix for numeric tools (checkMechanismOut, writeMechanismFile).
func mechanismOutFlag(fs *flagSet) *string {
	return fs.String("mechanism-out", "", "also write the returned mechanism to this `file`: .npy (NumPy float64, N×M) or .csv (N rows of M numbers; row,col,value lines when large and sparse)")
}

// epsilonLowerFlag adds --epsilon-lower, the lower level ε_l of an ALIP
// budget (whose ε_u is --epsilon).
func epsilonLowerFlag(fs *flagSet) *float64 {
	return fs.budgetFloat64("epsilon-lower", math.NaN(), "alip only: lower level `L` (nats)")
}

// objectiveNames are the objectives a problem file or --objective names.
const objectiveNames = "worst-case-order, worst-case-value or expected-utility"

// budgetFlags are --measure and --epsilon of the commands that solve for
// a problem's budget (solve, baseline, compare): they replace the file's
// budget (applyOverrides).
type budgetFlags struct {
	fs      *flagSet
	measure *string
	epsilon *float64
}

func newBudgetFlags(fs *flagSet) *budgetFlags {
	return &budgetFlags{
		fs:      fs,
		measure: fs.String("measure", "", "override the file's privacy `measure`: pml, lip or ldp (alip needs the file)"),
		epsilon: fs.budgetFloat64("epsilon", math.NaN(), "override the file's budget `E` (nats)"),
	}
}

// apply replaces p's budget by the flags' and its objective by objective
// when not empty.
func (b *budgetFlags) apply(p *problem.Problem, objective string) error {
	return applyOverrides(p, objective, *b.measure, *b.epsilon, b.fs.isSet("epsilon"))
}

// tolFlag adds --tol and returns the function that checks it and gives
// its value.
func tolFlag(fs *flagSet) func() (float64, error) {
	tol := fs.Float64("tol", 1e-9, "width of each ε bracket of the worst-case objectives")
	return func() (float64, error) {
		if !(*tol > 0) || math.IsInf(*tol, 0) {
			return 0, usagef("--tol must be a positive number, got %v", *tol)
		}
		return *tol, nil
	}
}

// solverFlag adds --solver to fs and returns a function resolving it: nil
// for auto, which lets pmlopt choose the method (package ipm for ε-PML
// expected utility, solver.Auto() for every LP).
func solverFlag(fs *flagSet) func() (solver.Solver, error) {
	name := fs.String("solver", "auto", "LP `backend`: auto or one of "+strings.Join(solver.Names(), ", "))
	return func() (solver.Solver, error) {
		if *name == "auto" {
			return nil, nil
		}
		s, err := solver.Get(*name)
		if err != nil && *name == "clp" {
			return nil, usagef("--solver clp: this pmlopt was built without Clp; install coinor-libclp-dev and build with 'go build -tags clp ./cmd/pmlopt' (built in: auto, %s)", strings.Join(solver.Names(), ", "))
		}
		if err != nil {
			// solver.Get's error lists the backends too; one list is enough.
			return nil, usagef("--solver: unknown backend %q (built in: auto, %s)", *name, strings.Join(solver.Names(), ", "))
		}
		return s, nil
	}
}

// workersFlag adds --workers to fs and returns a function that checks it
// and applies it: pmlopt.Options.Workers gets the number (0: every CPU),
// and for N > 0 the process runs on at most N cores while the command
// runs (runtime.GOMAXPROCS), so that the passes that split by GOMAXPROCS
// (the active set's pricing) keep to it too. restore gives the cores
// back; call it when the command ends.
func workersFlag(fs *flagSet) func() (n int, restore func(), err error) {
	w := fs.Int("workers", 0, "use at most `N` cores: the thresholds a curve solves at once, and the goroutines of a single solve's passes over the mechanism (0 = every CPU); the result is the same for any N")
	return func() (int, func(), error) {
		if *w < 0 {
			return 0, nil, usagef("--workers must be ≥ 0, got %d", *w)
		}
		return *w, limitCores(*w), nil
	}
}

// loaderFlag adds --max-bytes and --max-memory to fs and returns the
// function that loads a problem file within that size, with the dense
// utility of a utility_rule built (rule.go). A path "-" is standard input,
// for every command that reads a problem.
func loaderFlag(fs *flagSet) func(path string) (*problem.Problem, error) {
	load := ruleLoaderFlag(fs)
	return func(path string) (*problem.Problem, error) {
		p, err := load(path)
		if err != nil {
			return nil, err
		}
		return p, denseUtility(fs.env.context(), p)
	}
}

// ruleLoaderFlag is loaderFlag for a command that reads a rule's utility an
// entry at a time (audit) or not at all (sample, plot of a file's
// mechanism): the dense utility is built only where a solve asks for it
// (problem.Problem.RequireUtility), with the same memory check.
func ruleLoaderFlag(fs *flagSet) func(path string) (*problem.Problem, error) {
	limit := fs.Int64("max-bytes", problem.DefaultMaxBytes, "refuse a problem file (or standard input) larger than `N` bytes")
	maxMem := fs.String("max-memory", "", "refuse a utility_rule whose dense utility, order and mechanism (or a mechanism_sparse whose dense matrix) take more than `SIZE` (bytes, or 512MiB, 4GiB, 2GB; default: the memory available)")
	return func(path string) (*problem.Problem, error) {
		if *limit <= 0 {
			return nil, usagef("--max-bytes must be positive, got %d", *limit)
		}
		mem := int64(0)
		if *maxMem != "" {
			var err error
			if mem, err = parseSize(*maxMem); err != nil {
				return nil, usagef("--max-memory: %v", err)
			}
		}
		return loadProblemLimit(fs.env, path, *limit, mem)
	}
}
