package sample

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// PrivatizeCSV reads a CSV file with a header line from r, replaces every
// value of the named column by an output drawn through s and writes the
// result to w.
//
// Values are input labels: inputs[i] names input i, or, when inputs is
// empty, the labels are the indices "0".."N−1" (any spelling strconv.Atoi
// accepts, such as "+3", is taken as an index). Drawn outputs are written as
// outputs[j], or as the index j when outputs is empty. Label lists must have
// N and M entries and no duplicates.
//
// The whole input is read and validated before anything is drawn or
// written: if any record is bad (a value that is not an input label, a
// record with the wrong number of fields, a CSV syntax error) the error names
// its line, nothing is written to w and s is not advanced. Errors look like
//
//	line 7: value "9" of column count is not an input label
//
// The other columns are copied unchanged; the CSV is re-encoded by
// encoding/csv, so quoting may differ from the input's.
func PrivatizeCSV(r io.Reader, w io.Writer, column string, inputs, outputs []string, s *Sampler) error {
	if s == nil {
		return errors.New("sample: PrivatizeCSV needs a Sampler, got nil")
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
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return errors.New("sample: the CSV input is empty; it needs a header line")
	}
	if err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	col := -1
	for k, name := range header {
		if name != column {
			continue
		}
		if col >= 0 {
			return fmt.Errorf("sample: column %q appears twice in the header %q", column, header)
		}
		col = k
	}
	if col < 0 {
		return fmt.Errorf("sample: no column %q in the header %q", column, header)
	}

	records := [][]string{header}
	var in []int
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// A *csv.ParseError already says "record on line L: ...".
			return fmt.Errorf("sample: %w", err)
		}
		i, ok := lookup(index, rec[col], n)
		if !ok {
			line, _ := cr.FieldPos(col)
			return fmt.Errorf("line %d: value %q of column %s is not an input label%s", line, rec[col], column, labelHint(inputs, n))
		}
		records = append(records, rec)
		in = append(in, i)
	}

	out, err := s.SampleAll(in)
	if err != nil {
		return err // unreachable: every index was checked above
	}
	for k, j := range out {
		if len(outputs) > 0 {
			records[k+1][col] = outputs[j]
		} else {
			records[k+1][col] = strconv.Itoa(j)
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(records); err != nil {
		return fmt.Errorf("sample: writing CSV: %w", err)
	}
	return nil
}

// labelIndex maps labels to indices; nil labels mean indices 0..want−1 and
// give a nil map.
func labelIndex(kind string, labels []string, want int) (map[string]int, error) {
	if len(labels) == 0 {
		return nil, nil
	}
	if len(labels) != want {
		return nil, fmt.Errorf("sample: %d %s labels for a mechanism with %d %ss", len(labels), kind, want, kind)
	}
	index := make(map[string]int, len(labels))
	for k, l := range labels {
		if prev, dup := index[l]; dup {
			return nil, fmt.Errorf("sample: %s label %q is used twice (%s %d and %d)", kind, l, kind, prev+1, k+1)
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
