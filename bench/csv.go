package main

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
)

// writeCSV writes a header and rows to dir/name.
func writeCSV(dir, name string, header []string, rows [][]string) error {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if err := w.Write(header); err != nil {
		f.Close()
		return err
	}
	if err := w.WriteAll(rows); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ff formats a float for a CSV: shortest round-trip form, "inf"/"nan" spelt out.
func ff(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case math.IsNaN(x):
		return "nan"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

func fi(n int) string { return strconv.Itoa(n) }
