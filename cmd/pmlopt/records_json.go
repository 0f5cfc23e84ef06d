package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
)

// writeRecordsJSON rewrites a CSV document with a header, read from r, as
// a JSON array of objects, one per record, keyed by the header's names in
// their order. It holds one record at a time.
func writeRecordsJSON(w io.Writer, r io.Reader) error {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		_, err = io.WriteString(w, "[]\n")
		return err
	}
	if err != nil {
		return err
	}
	header = append([]string(nil), header...)
	cr.ReuseRecord = true
	b := bufio.NewWriter(w)
	b.WriteString("[")
	for k := 0; ; k++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if k > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  {")
		for c, name := range header {
			if c > 0 {
				b.WriteString(", ")
			}
			writeJSONText(b, name)
			b.WriteString(": ")
			writeJSONText(b, rec[c])
		}
		b.WriteString("}")
	}
	b.WriteString("\n]\n")
	return b.Flush()
}

func writeJSONText(b *bufio.Writer, s string) {
	q, _ := json.Marshal(s) // a string always marshals
	b.Write(q)
}
