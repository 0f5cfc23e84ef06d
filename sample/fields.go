package sample

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Fields rewrites some columns of a CSV file with a header line, such as
// the two coordinates of a point, by a function of their values: it is
// Privatize for secrets that are not labels, and reads and copies the CSV
// as Privatize does (every other field byte for byte, Drop left out).
type Fields struct {
	// Columns are the header names of the columns Replace rewrites; each
	// must appear once in the header.
	Columns []string
	// Drop names columns left out of the output, as CSV.Drop does; a name
	// the header lacks, or one of Columns, is a *DropError.
	Drop []string
	// Replace returns the new values of the record's Columns, written
	// quoted only where they must be, from their values as encoding/csv
	// reads them (valid until it returns) and the lines they start on. Its
	// error stops the run.
	Replace func(lines []int, values [][]byte) ([]string, error)
}

// Rewrite reads the CSV from r and writes it to w with every record's
// Columns replaced, one record at a time. The records before a failing
// one have been written: a caller that wants all or nothing writes to a
// temporary file (the sample command does).
func (f Fields) Rewrite(r io.Reader, w io.Writer) error {
	switch {
	case f.Replace == nil:
		return errors.New("Fields.Rewrite needs a Replace function")
	case len(f.Columns) == 0:
		return errors.New("Fields.Rewrite needs at least one column")
	case r == nil:
		return errors.New("Fields.Rewrite needs a reader, got nil")
	case w == nil:
		return errors.New("Fields.Rewrite needs a writer, got nil")
	}
	for _, d := range f.Drop {
		for _, c := range f.Columns {
			if d == c {
				return &DropError{Name: d}
			}
		}
	}
	sc := newScanner(r)
	ok, err := sc.next()
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("the CSV input is empty; it needs a header line")
	}
	header := make([]string, sc.fields())
	for k := range header {
		header[k] = string(sc.value(k))
	}
	cols := make([]int, len(f.Columns))
	for i, name := range f.Columns {
		cols[i] = -1
		for k, h := range header {
			if h != name {
				continue
			}
			if cols[i] >= 0 {
				return fmt.Errorf("column %q appears twice in the header", brief(name))
			}
			cols[i] = k
		}
		if cols[i] < 0 {
			return fmt.Errorf("no column %q in the header %s", brief(name), brief(strings.Join(header, ",")))
		}
	}
	keep, err := keepMask(header, f.Drop)
	if err != nil {
		return err
	}

	bw := bufio.NewWriterSize(w, 1<<16)
	if err := sc.write(bw, keep, -1, nil); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	lines := make([]int, len(cols))
	values := make([][]byte, len(cols))
	outs := make([][]byte, len(header))
	for {
		ok, err := sc.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		for i, k := range cols {
			// value reuses one buffer for unquoted fields: copy.
			values[i] = append(values[i][:0], sc.value(k)...)
			lines[i] = sc.line[k]
		}
		repl, err := f.Replace(lines, values)
		if err != nil {
			return err
		}
		if len(repl) != len(cols) {
			return fmt.Errorf("Fields.Replace returned %d values for %d columns", len(repl), len(cols))
		}
		for k := range outs {
			outs[k] = nil
		}
		for i, k := range cols {
			outs[k] = quoteField(repl[i])
		}
		if err := sc.writeKept(bw, keep, -1, nil, outs); err != nil {
			return fmt.Errorf("writing CSV: %w", err)
		}
	}
	return sc.finish(bw)
}
