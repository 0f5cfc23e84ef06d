package sample

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PrivatizeCSV reads a CSV file with a header line from r, replaces every
// value of the named column by an output drawn through s and writes the
// result to w, one record at a time: memory stays that of one record
// whatever the file's length.
//
// Values are input labels: inputs[i] names input i, or, when inputs is
// empty, the labels are the indices "0".."N−1" (any spelling strconv.Atoi
// accepts, such as "+3", is taken as an index). Drawn outputs are written as
// outputs[j], or as the index j when outputs is empty. Label lists must have
// N and M entries and no duplicates. A UTF-8 byte order mark before the
// header is dropped.
//
// A bad record (a value that is not an input label, a record with the
// wrong number of fields, a CSV syntax error) stops the run with an error
// naming its line, such as
//
//	line 7: value "9" of column count is not an input label
//
// The records before it have been written and drawn: a caller that wants
// all or nothing writes to a temporary file and keeps it only on success
// (the sample command does). Errors quote at most 64 bytes of the input.
//
// The other columns are copied unchanged; the CSV is re-encoded by
// encoding/csv, so quoting may differ from the input's.
func PrivatizeCSV(r io.Reader, w io.Writer, column string, inputs, outputs []string, s *Sampler) error {
	switch {
	case s == nil:
		return errors.New("PrivatizeCSV needs a Sampler, got nil")
	case s.rng == nil:
		return errors.New("PrivatizeCSV needs a Sampler made by NewSampler")
	case r == nil:
		return errors.New("PrivatizeCSV needs a reader, got nil")
	case w == nil:
		return errors.New("PrivatizeCSV needs a writer, got nil")
	}
	n, m := s.Dims()
	index, err := labelIndex("input", inputs, n)
	if err != nil {
		return err
	}
	if _, err := labelIndex("output", outputs, m); err != nil {
		return err
	}

	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return errors.New("the CSV input is empty; it needs a header line")
	}
	if err != nil {
		return err // a *csv.ParseError says "record on line L: ..."
	}
	header = append([]string(nil), header...)
	header[0] = strings.TrimPrefix(header[0], "\ufeff")
	col := -1
	for k, name := range header {
		if name != column {
			continue
		}
		if col >= 0 {
			return fmt.Errorf("column %q appears twice in the header", brief(column))
		}
		col = k
	}
	if col < 0 {
		return fmt.Errorf("no column %q in the header %s", brief(column), brief(strings.Join(header, ",")))
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			cw.Flush()
			return err
		}
		i, ok := lookup(index, rec[col], n)
		if !ok {
			cw.Flush()
			line, _ := cr.FieldPos(col)
			return fmt.Errorf("line %d: value %q of column %s is not an input label%s", line, brief(rec[col]), brief(column), labelHint(inputs, n))
		}
		if j := s.Sample(i); len(outputs) > 0 {
			rec[col] = outputs[j]
		} else {
			rec[col] = strconv.Itoa(j)
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("writing CSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	return nil
}

// brief returns s, cut to 64 bytes (at a rune boundary) with "…" when longer,
// so that an error never echoes a megabyte-long field.
func brief(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	k := max
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k] + "…"
}

// labelIndex maps labels to indices; nil labels mean indices 0..want−1 and
// give a nil map.
func labelIndex(kind string, labels []string, want int) (map[string]int, error) {
	if len(labels) == 0 {
		return nil, nil
	}
	if len(labels) != want {
		return nil, fmt.Errorf("%d %s labels for a mechanism with %d %ss", len(labels), kind, want, kind)
	}
	index := make(map[string]int, len(labels))
	for k, l := range labels {
		if prev, dup := index[l]; dup {
			return nil, fmt.Errorf("%s label %q is used twice (%s %d and %d)", kind, brief(l), kind, prev+1, k+1)
		}
		index[l] = k
	}
	return index, nil
}

// lookup returns the input index of value v.
func lookup(index map[string]int, v string, n int) (int, bool) {
	if index != nil {
		i, ok := index[v]
		return i, ok
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || i >= n {
		return 0, false
	}
	return i, true
}

// labelHint says which labels are valid, briefly.
func labelHint(inputs []string, n int) string {
	switch {
	case len(inputs) == 0:
		return fmt.Sprintf(" (the inputs are the indices 0..%d)", n-1)
	case len(inputs) <= 10:
		return fmt.Sprintf(" (the inputs are %q)", inputs)
	}
	return fmt.Sprintf(" (the inputs are %q, … %d labels)", inputs[:10], n)
}
