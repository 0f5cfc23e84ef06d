package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/pmlopt/pmlopt/mech"
)

// summaryAbove is the number of outputs above which a mechanism is
// summarised rather than printed as a matrix: a wider table no longer fits
// a terminal.
const summaryAbove = 20

// writeMechanism prints m as a matrix, or, above summaryAbove outputs and
// without full, one line per input with the outputs it uses.
func writeMechanism(w io.Writer, m mech.Mechanism, inputs, outputs []string, full bool) {
	if full || len(m) == 0 || len(m[0]) <= summaryAbove {
		writeMatrix(w, m, inputs, outputs)
		return
	}
	fmt.Fprintf(w, "mechanism: %d inputs × %d outputs; the outputs each input uses (--full prints the matrix)\n", len(m), len(m[0]))
	t := newTable(w)
	t.row("input", "outputs used", "largest P(y|x)", "outputs")
	for i, row := range m {
		used, top := 0, 0.0
		for _, v := range row {
			if v > 0 {
				used++
				top = max(top, v)
			}
		}
		t.row(label(inputs, i), fmt.Sprint(used), num(top), usedRanges(row, outputs))
	}
	t.flush()
}

// usedRanges lists the outputs with positive probability, runs of
// consecutive outputs written as "first..last".
func usedRanges(row []float64, outputs []string) string {
	var parts []string
	for j := 0; j < len(row); j++ {
		if row[j] <= 0 {
			continue
		}
		k := j
		for k+1 < len(row) && row[k+1] > 0 {
			k++
		}
		if k == j {
			parts = append(parts, label(outputs, j))
		} else {
			parts = append(parts, label(outputs, j)+".."+label(outputs, k))
		}
		j = k
	}
	return strings.Join(parts, ", ")
}
