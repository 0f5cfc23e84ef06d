package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pmlopt/pmlopt/internal/outfile"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/sample"
)

var cmdSample = &command{
	name:  "sample",
	usage: "FILE --input data.csv (--column NAME | --x COL --y COL) [--drop COL[,COL]] [--seed S] [--force] [--json] [--out FILE]",
	short: "privatize a CSV column, or points, through the file's mechanism",
	long:  sampleHelp,
	nargs: 1,
	flags: sampleFlags,
}

const sampleHelp = `Reads a CSV file with a header, replaces every value of one column (an input
label of the problem file, or an input index 0..N-1 when the file has no
labels) by an output drawn from the file's mechanism, and writes the
privatized CSV to stdout or --out (--json: a JSON array with one object per
record, keyed by the header). Everything else is copied byte for byte:
other fields keep their bytes, quotes and line endings. --drop leaves out
columns, such as one that holds the raw secret beside the privatized one.

--x COL --y COL, instead of --column, privatize points on a file whose
utility is a utility_rule.grid (pmlopt new --grid): each record's point
(x, y) is binned into its cell as pmlopt new --prior-from --x --y bins it
(column ⌊(x−X)/S⌋, row ⌊(y−Y)/S⌋ for the grid's origin X,Y and cell side
S), an output cell is drawn from that cell's row, and the two fields are
replaced by the output cell's centre, X+(column+½)·S and Y+(row+½)·S,
rounded to 12 significant digits and written in the shortest decimal that
reads back. A point outside the grid, or a coordinate that is not a
finite number, is refused naming its line and column.

The draws come from the operating system's cryptographic random source: no
one can replay them. --seed makes them reproducible instead, for tests, and
prints a warning: anyone who knows the seed can rerun the draws on copies of
the data with every possible value and see which copy gives the release,
record by record.

If any record is bad, nothing is written: --out streams the records into a
temporary file renamed into place on success; stdout receives the output
once it is complete, spooled meanwhile to a temporary file in $TMPDIR (up
to --max-output bytes when that is not 0). Memory stays that of one record
whatever the input's size. --json refuses a CSV with bytes that are not
UTF-8, which JSON can not carry.

A mechanism that breaks the file's privacy budget is refused (exit status
3, nothing written) unless --force is given.

Example:

	pmlopt sample children-solved.yaml --input testdata/survey.csv --column children --drop region > private.csv
	pmlopt sample paris-solved.yaml --input testdata/checkins.csv --x lon --y lat --out private.csv`

// sampleFlags declares sample's flags on fs and returns its run function.
func sampleFlags(fs *flagSet) runFunc {
	input := fs.String("input", "", "CSV `file` to privatize (- for stdin)")
	column := fs.String("column", "", "header `name` of the column holding the secret")
	xCol := fs.String("x", "", "header `name` of the points' x coordinates, binned into the grid's cells (with --y, instead of --column)")
	yCol := fs.String("y", "", "header `name` of the points' y coordinates (with --x)")
	var drop columnList
	fs.Var(&drop, "drop", "leave out the columns of these header `names` (comma-separated; repeatable)")
	seed := fs.Uint64("seed", 0, "draw reproducibly from this `seed`, for tests: anyone who knows it can undo the release (default: the system's random source)")
	force := fs.Bool("force", false, "sample even when the mechanism breaks the file's privacy budget")
	asJSON := jsonFlag(fs)
	load := ruleLoaderFlag(fs) // the mechanism is all it reads
	outPath := fs.String("out", "-", "write the privatized CSV to this `file` (- for stdout)")
	maxOut := fs.Int64("max-output", 0, "largest output, in `bytes`, spooled for stdout (0: no limit)")
	return func(ctx context.Context, e *env, pos []string) error {
		points := *xCol != "" || *yCol != ""
		switch {
		case *input == "":
			return usagef("--input is required")
		case points && *column != "":
			return usagef("give --column (input labels) or --x and --y (points), not both")
		case points && (*xCol == "" || *yCol == ""):
			return usagef("--x and --y go together: give both columns")
		case !points && *column == "":
			return usagef("give --column NAME (input labels) or --x COL and --y COL (points)")
		case points && *xCol == *yCol:
			return usagef("--x and --y name the same column %q", *xCol)
		}
		if *input == "-" && pos[0] == "-" {
			return usagef("the problem FILE and --input can not both be standard input")
		}
		if *asJSON && *outPath != "-" {
			return usagef("--json writes the records to stdout; --out writes them as CSV: give one")
		}
		for _, d := range drop {
			if d == *column {
				return usagef("--drop %s: that is the --column to privatize", d)
			}
			if points && (d == *xCol || d == *yCol) {
				return usagef("--drop %s: that is a coordinate to privatize", d)
			}
		}
		if *maxOut < 0 {
			return usagef("--max-output %d is negative", *maxOut)
		}
		if err := checkOutput("out", *outPath, pos[0], *input); err != nil {
			return err
		}
		seeded := fs.isSet("seed")
		p, err := load(pos[0])
		if err != nil {
			return err
		}
		var grid *mech.Grid
		if points {
			if grid, err = pointGrid(p, pos[0]); err != nil {
				return err
			}
		}
		m, err := p.RequireMechanism()
		if err != nil {
			return err
		}
		if p.Privacy != nil && !*force {
			if v := judgeProblem(p, m, *p.Privacy); !v.within() {
				return &overBudget{v: v, hint: "; nothing written (--force samples anyway)"}
			}
		}
		var s *sample.Sampler
		if seeded {
			s, err = sample.NewSeededSampler(m, *seed)
		} else {
			s, err = sample.NewSampler(m)
		}
		if err != nil {
			return err
		}
		r, closeInput, err := openInput(e, *input)
		if err != nil {
			return err
		}
		defer closeInput()
		c := sample.CSV{Column: *column, Inputs: p.Inputs, Outputs: p.Outputs, Drop: drop}
		privatize := func(w io.Writer) error {
			var err error
			if points {
				err = privatizePoints(r, w, grid, s, *xCol, *yCol, drop)
			} else {
				err = c.Privatize(r, w, s)
			}
			var de *sample.DropError
			if errors.As(err, &de) {
				return usagef("--drop: %v", err)
			}
			return err
		}
		if *outPath != "-" {
			err = outfile.Write(*outPath, privatize)
		} else {
			err = spool(e.stdout, *maxOut, privatize, func(w io.Writer, f io.ReadSeeker) error {
				if !*asJSON {
					_, err := io.Copy(w, bufio.NewReaderSize(f, 1<<16))
					return err
				}
				if err := checkUTF8(f); err != nil {
					return err
				}
				if _, err := f.Seek(0, io.SeekStart); err != nil {
					return fmt.Errorf("spooling the output for stdout: %w", err)
				}
				return writeRecordsJSON(w, bufio.NewReaderSize(f, 1<<16))
			})
		}
		if err == nil && seeded {
			fmt.Fprintf(e.stderr, "pmlopt sample: warning: with --seed %d the release is reproducible by anyone who knows the seed, who can then undo it; leave --seed out to draw from the system's random source\n", *seed)
		}
		return err
	}
}

// columnList is the value of --drop: header names, comma-separated, from
// every use of the flag.
type columnList []string

func (l *columnList) String() string { return strings.Join(*l, ",") }

func (l *columnList) Set(v string) error {
	for _, name := range strings.Split(v, ",") {
		if name == "" {
			return fmt.Errorf("%q names an empty column", v)
		}
		*l = append(*l, name)
	}
	return nil
}

// checkUTF8 reads r to its end and fails, naming the line, at the first
// bytes that are not UTF-8: JSON strings can not hold them, and encoding
// them would replace them silently by U+FFFD.
func checkUTF8(r io.Reader) error {
	buf := make([]byte, 1<<16)
	line, carry := 1, 0
	for {
		n, err := io.ReadFull(r, buf[carry:])
		data := buf[:carry+n]
		end := len(data)
		more := err == nil
		if more {
			// Leave a rune cut at the end of the buffer for the next read.
			k := len(data) - 1
			for k > 0 && k > len(data)-utf8.UTFMax && !utf8.RuneStart(data[k]) {
				k--
			}
			if !utf8.FullRune(data[k:]) {
				end = k
			}
		}
		if !utf8.Valid(data[:end]) {
			for k := 0; k < end; {
				r, size := utf8.DecodeRune(data[k:end])
				if r == utf8.RuneError && size == 1 {
					line += bytes.Count(data[:k], []byte{'\n'})
					return fmt.Errorf("line %d of the CSV holds bytes that are not UTF-8, which JSON can not carry; leave out --json to write them as they are", line)
				}
				k += size
			}
		}
		line += bytes.Count(data[:end], []byte{'\n'})
		carry = copy(buf, data[end:])
		if !more {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil
			}
			return fmt.Errorf("spooling the output for stdout: %w", err)
		}
	}
}

// errOutputTooLarge is the failure of a write beyond --max-output.
var errOutputTooLarge = errors.New("output too large")

// spool runs write into a temporary file (limited to limit bytes unless
// limit is 0) and, only if it succeeds, has emit copy the file, read from
// its start, to w: the output is all or nothing, and memory does not grow
// with its size. The temporary file is removed in every case.
func spool(w io.Writer, limit int64, write func(io.Writer) error, emit func(w io.Writer, f io.ReadSeeker) error) error {
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
	if err := emit(out, f); err != nil {
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
