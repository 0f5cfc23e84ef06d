package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
)

// readCSVHeader reads the header of the CSV text r, from the file path,
// and returns a reader positioned at the first record. A UTF-8 byte order
// mark, which spreadsheet programs write, is no part of the first column's
// name.
func readCSVHeader(r io.Reader, path string) (*csv.Reader, []string, error) {
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
	return cr, header, nil
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
