package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
)

// writeRecordsJSON rewrites a CSV document with a header as a JSON array
// of objects, one per record, keyed by the header's names in their order.
func writeRecordsJSON(w io.Writer, data []byte) error {
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		_, err = io.WriteString(w, "[]\n")
		return err
	}
	var b bytes.Buffer
	b.WriteString("[")
	for k, rec := range rows[1:] {
		if k > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  {")
		for c, name := range rows[0] {
			if c > 0 {
				b.WriteString(", ")
			}
			writeJSONText(&b, name)
			b.WriteString(": ")
			writeJSONText(&b, rec[c])
		}
		b.WriteString("}")
	}
	b.WriteString("\n]\n")
	_, err = w.Write(b.Bytes())
	return err
}

func writeJSONText(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s) // a string always marshals
	b.Write(q)
}
