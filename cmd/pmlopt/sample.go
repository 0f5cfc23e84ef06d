package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

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
temporary file renamed into place on success; stdout receives the output
once it is complete, spooled meanwhile to a temporary file in $TMPDIR (up
to --max-output bytes when that is not 0). Memory stays that of one record
whatever the input's size.

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
	maxOut := fs.Int64("max-output", 0, "largest output, in `bytes`, spooled for stdout (0: no limit)")
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
	if err := checkOutput("out", *outPath, pos[0], *input); err != nil {
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
	r, closeInput, err := openInput(e, *input)
	if err != nil {
		return err
	}
	defer closeInput()
	privatize := func(w io.Writer) error {
		return sample.PrivatizeCSV(r, w, *column, p.Inputs, p.Outputs, s)
	}
	if *outPath != "-" {
		return outfile.Write(*outPath, privatize)
	}
	if *maxOut < 0 {
		return usagef("--max-output %d is negative", *maxOut)
	}
	return spool(e.stdout, *maxOut, privatize, func(w io.Writer, r io.Reader) error {
		if *asJSON {
			return writeRecordsJSON(w, r)
		}
		_, err := io.Copy(w, r)
		return err
	})
}

// errOutputTooLarge is the failure of a write beyond --max-output.
var errOutputTooLarge = errors.New("output too large")

// spool runs write into a temporary file (limited to limit bytes unless
// limit is 0) and, only if it succeeds, has emit copy the file to w: the
// output is all or nothing, and memory does not grow with its size. The
// temporary file is removed in every case.
func spool(w io.Writer, limit int64, write func(io.Writer) error, emit func(w io.Writer, r io.Reader) error) error {
	// Registered, so that a run stopped by a signal while stdout blocks
	// removes it too (main.go).
	f, err := outfile.CreateTemp("", "pmlopt-sample-*.csv")
	if err != nil {
		return fmt.Errorf("spooling the output for stdout: %w", err)
	}
	defer outfile.RemoveTemp(f)
	bw := bufio.NewWriterSize(f, 1<<16)
	var sink io.Writer = bw
	if limit > 0 {
		sink = &capped{w: bw, limit: limit}
	}
	if err := write(sink); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("spooling the output for stdout: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("spooling the output for stdout: %w", err)
	}
	out := bufio.NewWriterSize(w, 1<<16)
	if err := emit(out, bufio.NewReaderSize(f, 1<<16)); err != nil {
		return err
	}
	return out.Flush()
}

// capped passes writes on to w until limit bytes, and refuses those beyond.
type capped struct {
	w     io.Writer
	n     int64
	limit int64
}

func (c *capped) Write(b []byte) (int, error) {
	if c.n+int64(len(b)) > c.limit {
		return 0, fmt.Errorf("%w: the CSV exceeds --max-output %d bytes spooled for stdout; write it with --out FILE", errOutputTooLarge, c.limit)
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
