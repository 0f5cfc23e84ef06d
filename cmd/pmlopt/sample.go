package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/pmlopt/pmlopt/internal/outfile"
	"github.com/pmlopt/pmlopt/sample"
)

func init() {
	register(command{name: "sample", summary: "privatize a CSV column through the file's mechanism", run: runSample})
}

const sampleHelp = `Reads a CSV file with a header, replaces every value of one column (an input
label of the problem file, or an input index 0..N-1 when the file has no
labels) by an output drawn from the file's mechanism, and writes the
privatized CSV to stdout or --out (--json: a JSON array with one object per
record, keyed by the header). Draws are reproducible for a given --seed. If
any record is bad, nothing is written: --out streams the records into a
temporary file renamed into place on success (any size, constant memory);
stdout receives the output once it is complete, so it is held in memory, up
to --max-output bytes.

A mechanism that breaks the file's privacy budget is refused (exit status
3, nothing written) unless --force is given.

Example:

	pmlopt sample children-solved.yaml --input testdata/survey.csv --column children --seed 1 > private.csv`

func runSample(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "sample", "sample FILE --input data.csv --column NAME [--seed S] [--force] [--json] [--out FILE]", sampleHelp)
	input := fs.String("input", "", "CSV `file` to privatize (- for stdin)")
	column := fs.String("column", "", "header `name` of the column holding the secret")
	seed := fs.Uint64("seed", 1, "random `seed`")
	force := fs.Bool("force", false, "sample even when the mechanism breaks the file's privacy budget")
	asJSON := fs.Bool("json", false, "write the records as a JSON array of objects keyed by the header")
	load := loaderFlag(fs, e)
	outPath := fs.String("out", "-", "write the privatized CSV to this `file` (- for stdout)")
	maxOut := fs.Int64("max-output", 256<<20, "largest output, in `bytes`, held in memory for stdout")
	pos, err := fs.parse(args, 1)
	if err != nil {
		return err
	}
	if *input == "" || *column == "" {
		return usagef("--input and --column are required")
	}
	if *input == "-" && pos[0] == "-" {
		return usagef("the problem FILE and --input can not both be standard input")
	}
	if *asJSON && *outPath != "-" {
		return usagef("--json writes the records to stdout; --out writes them as CSV: give one")
	}
	if err := checkOutput("out", *outPath); err != nil {
		return err
	}
	p, err := load(pos[0])
	if err != nil {
		return err
	}
	m, err := p.RequireMechanism()
	if err != nil {
		return err
	}
	if p.Privacy != nil && !*force {
		if v := judge(p.Prior, m, *p.Privacy); !v.within() {
			return &overBudget{v: v, hint: "; nothing written (--force samples anyway)"}
		}
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
	privatize := func(w io.Writer) error {
		return sample.PrivatizeCSV(r, w, *column, p.Inputs, p.Outputs, s)
	}
	if *outPath != "-" {
		return outfile.Write(*outPath, privatize)
	}
	b := &capped{limit: *maxOut}
	if err := privatize(b); err != nil {
		return err
	}
	if *asJSON {
		return writeRecordsJSON(e.stdout, b.Bytes())
	}
	return b.commit(e.stdout)
}

// errOutputTooLarge is the failure of a write beyond a capped buffer.
var errOutputTooLarge = errors.New("output too large")

// capped is a buffer that refuses to grow beyond limit bytes.
type capped struct {
	buffered
	limit int64
}

func (c *capped) Write(b []byte) (int, error) {
	if int64(c.Len()+len(b)) > c.limit {
		return 0, fmt.Errorf("%w: the CSV exceeds --max-output %d bytes held for stdout; write it with --out FILE, which streams", errOutputTooLarge, c.limit)
	}
	return c.buffered.Write(b)
}
