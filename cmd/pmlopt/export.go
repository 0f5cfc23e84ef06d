package main

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
)

var cmdExport = &command{
	name:  "export",
	usage: "FILE --mps out.mps [--h H | --value V] [--json]",
	short: "write the file's privacy LP as free MPS for another solver",
	long:  exportHelp,
	nargs: 1,
	flags: exportFlags,
}

const exportHelp = `Builds the LP of the file's problem and writes it as free MPS. With an
expected-utility objective it is the full optimisation problem; otherwise it
is the feasibility LP (10) of Song & Oechtering (2026) for the file's
budget, with the zero pattern of --h (an order threshold) or --value (a utility threshold) if
given; a --value above every utility of some input is refused, naming it.
With --json the size of the LP is written to stdout as JSON (file,
rows, columns, nonzeros, measure and the budget's levels).

Example:

	pmlopt export testdata/example1.yaml --mps example1.mps --h 2`

// exportFlags declares export's flags on fs and returns its run function.
func exportFlags(fs *flagSet) runFunc {
	load := loaderFlag(fs)
	out := fs.String("mps", "", "output `file` (- for stdout)")
	h := fs.Int("h", 0, "forbid pairs whose utility order is below `H`")
	v := fs.Float64("value", 0, "forbid pairs whose utility is below `V`")
	asJSON := jsonFlag(fs)
	return func(ctx context.Context, e *env, pos []string) error {
		if *out == "" {
			return usagef("--mps is required")
		}
		if *out == "-" && *asJSON {
			return usagef("--json writes to stdout, and so does --mps -: give --mps a file")
		}
		if err := checkOutput("mps", *out, pos[0]); err != nil {
			return err
		}
		p, err := load(pos[0])
		if err != nil {
			return err
		}
		b, err := p.RequirePrivacy()
		if err != nil {
			return err
		}
		spec := polytope.Spec{Prior: p.Prior, Budget: b, Objective: polytope.Feasibility, Outputs: p.M()}
		if p.Objective == problem.ExpectedUtility {
			if spec.Utility, err = p.RequireUtility(); err != nil {
				return err
			}
			spec.Objective = polytope.ExpectedUtility
		}
		switch {
		case fs.isSet("h") && fs.isSet("value"):
			return usagef("give --h or --value, not both")
		case fs.isSet("h"):
			o, err := p.RequireOrder()
			if err != nil {
				return err
			}
			if *h < 1 || *h > p.M() {
				return usagef("--h must be in 1..%d, got %d", p.M(), *h)
			}
			spec.Pattern = o.Pattern(*h)
		case fs.isSet("value"):
			if math.IsNaN(*v) || math.IsInf(*v, 0) {
				return usagef("--value must be a finite utility, got %v", *v)
			}
			u, err := p.RequireUtility()
			if err != nil {
				return err
			}
			spec.Pattern = u.Pattern(*v)
			if err := everyRowKeepsAnOutput(spec.Pattern, p.Inputs, *v); err != nil {
				return err
			}
		}
		spec.Stop = func() bool { return ctx.Err() != nil }
		mod, err := polytope.Build(spec)
		if err := ctx.Err(); err != nil {
			return err
		}
		if err != nil {
			return err
		}
		if p.PriorSet != nil {
			// The polytope over every prior of the set (docs/theory.md §7).
			rm, err := polytope.BuildRobust(spec, p.PriorSet)
			if err != nil {
				return err
			}
			mod.LP = rm.LP
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		// A large model takes seconds to write: a Ctrl-C meanwhile fails
		// the writes, WriteMPS stops at its next column, and nothing of
		// the file is kept.
		write := func(w io.Writer) error { return mod.LP.WriteMPS(stopWriter{ctx, w}) }
		if err := writeOutput(e, *out, write); err != nil {
			return err
		}
		if *out == "-" {
			return nil
		}
		if *asJSON {
			return writeJSON(e.stdout, exportJSON{File: *out, Rows: mod.LP.NumRows(), Columns: mod.LP.NumCols(),
				Nonzeros: mod.LP.NumNonzeros(), Privacy: toBudgetJSON(b)})
		}
		fmt.Fprintf(e.stderr, "wrote %s: %d rows, %d columns, %d non-zeros (budget %s)\n", *out,
			mod.LP.NumRows(), mod.LP.NumCols(), mod.LP.NumNonzeros(), budgetString(&b))
		return nil
	}
}

// everyRowKeepsAnOutput refuses a --value threshold that forbids every
// output of some input: no mechanism has that zero pattern (a row must sum
// to 1), and the LP written would have no column for the row.
func everyRowKeepsAnOutput(pat mech.Pattern, inputs []string, v float64) error {
	for i, row := range pat {
		kept := false
		for _, a := range row {
			kept = kept || a
		}
		if !kept {
			return fmt.Errorf("--value %g forbids every output of input %q (utility row %d has no entry ≥ %g): the LP would be infeasible", v, label(inputs, i), i+1, v)
		}
	}
	return nil
}

// stopWriter passes writes on to w until ctx ends, and then fails them
// with ctx's error.
type stopWriter struct {
	ctx context.Context
	w   io.Writer
}

func (s stopWriter) Write(b []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	return s.w.Write(b)
}
