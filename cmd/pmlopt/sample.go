package main

import (
	"context"
	"os"

	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/sample"
)

func init() {
	register(command{name: "sample", summary: "privatize a CSV column through the file's mechanism", run: runSample})
}

const sampleHelp = `Reads a CSV file with a header, replaces every value of one column (an input
label of the problem file, or an input index 0..N-1 when the file has no
labels) by an output drawn from the file's mechanism, and writes the
privatized CSV to stdout. Draws are reproducible for a given --seed. If any
record is bad, nothing is written.`

func runSample(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "sample", "sample FILE --input data.csv --column NAME [--seed S]", sampleHelp)
	input := fs.String("input", "", "CSV `file` to privatize (- for stdin)")
	column := fs.String("column", "", "header `name` of the column holding the secret")
	seed := fs.Uint64("seed", 1, "random `seed`")
	pos, err := fs.parse(args, 1)
	if err != nil {
		return err
	}
	if *input == "" || *column == "" {
		return usagef("--input and --column are required")
	}
	p, err := problem.Load(pos[0])
	if err != nil {
		return err
	}
	m, err := p.RequireMechanism()
	if err != nil {
		return err
	}
	s, err := sample.NewSampler(m, *seed)
	if err != nil {
		return err
	}
	r := e.stdin
	if *input != "-" {
		f, err := os.Open(*input)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	var b buffered
	if err := sample.PrivatizeCSV(r, &b, *column, p.Inputs, p.Outputs, s); err != nil {
		return err
	}
	return b.commit(e.stdout)
}
