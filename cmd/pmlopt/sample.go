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
privatized CSV to stdout or --out. Draws are reproducible for a given --seed.
If any record is bad, nothing is written: --out streams the records into a
temporary file renamed into place on success (any size, constant memory);
stdout receives the CSV once it is complete, so it is held in memory, up to
--max-output bytes.`

func runSample(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "sample", "sample FILE --input data.csv --column NAME [--seed S]", sampleHelp)
	load := loaderFlag(fs)
	input := fs.String("input", "", "CSV `file` to privatize (- for stdin)")
	column := fs.String("column", "", "header `name` of the column holding the secret")
	seed := fs.Uint64("seed", 1, "random `seed`")
	outPath := fs.String("out", "-", "write the privatized CSV to this `file` (- for stdout)")
	maxOut := fs.Int64("max-output", 256<<20, "largest CSV, in `bytes`, held in memory for stdout")
	pos, err := fs.parse(args, 1)
	if err != nil {
		return err
	}
	if *input == "" || *column == "" {
		return usagef("--input and --column are required")
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
