package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// readCSVHeader reads the header of the CSV text r, from the file path,
// and returns the reader of the records after it (csvRecords). A UTF-8
// byte order mark, which spreadsheet programs write, is no part of the
// first column's name.
func readCSVHeader(r io.Reader, path string) (*csvRecords, []string, error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("%s: empty CSV file, want a header", path)
		}
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	line, _ := cr.FieldPos(0)
	return &csvRecords{Reader: cr, next: lineAfter(line, header)}, header, nil
}

// csvRecords reads the records of a CSV file after its header, refusing
// a blank line between two of them. encoding/csv skips blank lines; but a
// file of one column has one answer per line, and a blank line there is
// a missing answer, which counted as nothing would build the prior from
// fewer records than the file holds. In a file of several columns it is a
// record with no values. Blank lines after the last record are the
// file's end.
type csvRecords struct {
	*csv.Reader
	next int // the line the next record starts on
}

// Read returns the next record, io.EOF after the last, or an error that
// names the first blank line before it.
func (c *csvRecords) Read() ([]string, error) {
	rec, err := c.Reader.Read()
	if err != nil {
		return rec, err
	}
	line, _ := c.FieldPos(0)
	if line > c.next {
		return nil, fmt.Errorf("line %d: empty line, a record with no value (drop the line, or give the record its value)", c.next)
	}
	c.next = lineAfter(line, rec)
	return rec, nil
}

// lineAfter is the line after the record rec that starts on line: that line
// plus the line breaks inside its quoted fields.
func lineAfter(line int, rec []string) int {
	for _, f := range rec {
		line += strings.Count(f, "\n")
	}
	return line + 1
}

// headerColumn returns the index of the column called name in header,
// refusing a name that is missing or that two columns share: which one the
// user meant is not for the program to guess.
func headerColumn(path string, header []string, name string) (int, error) {
	col := -1
	for k, h := range header {
		if h != name {
			continue
		}
		if col >= 0 {
			return 0, fmt.Errorf("%s: column %q appears twice in the header (columns %d and %d)", path, name, col+1, k+1)
		}
		col = k
	}
	if col < 0 {
		return 0, fmt.Errorf("%s: no column %q in the header %q", path, name, header)
	}
	return col, nil
}
