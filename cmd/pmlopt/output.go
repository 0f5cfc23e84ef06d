package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/pmlopt/pmlopt/internal/jsonout"
	"github.com/pmlopt/pmlopt/internal/outfile"
	"github.com/pmlopt/pmlopt/mech"
)

// jfloat is a float64 that encodes ±Inf as the strings "inf" and "-inf"
// (docs/cli.md, JSON output) and NaN as null, as the C library does.
type jfloat = jsonout.Float

func jfloats(v []float64) []jfloat { return jsonout.Floats(v) }

func jmatrix(a [][]float64) [][]jfloat { return jsonout.Matrix(a) }

// writeJSON encodes v, indented, to w in one write, so that a failure leaves
// nothing half-written.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(compactSparseRows(buf.Bytes()))
	return err
}

// num formats a number for tables: up to 10 significant digits, "inf" for
// infinity.
func num(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', 10, 64)
}

// writeMatrix prints a mechanism as an aligned table with optional labels.
func writeMatrix(w io.Writer, p [][]float64, inputs, outputs []string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	m := 0
	if len(p) > 0 {
		m = len(p[0])
	}
	fmt.Fprint(tw, "x\\y\t")
	for j := 0; j < m; j++ {
		fmt.Fprintf(tw, "%s\t", label(outputs, j))
	}
	fmt.Fprintln(tw)
	for i, row := range p {
		fmt.Fprintf(tw, "%s\t", label(inputs, i))
		for _, v := range row {
			fmt.Fprintf(tw, "%s\t", strconv.FormatFloat(v, 'g', 6, 64))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func label(labels []string, k int) string {
	if k < len(labels) && labels[k] != "" {
		return labels[k]
	}
	return strconv.Itoa(k)
}

// table is a small helper for aligned key/value reports.
type table struct {
	tw *tabwriter.Writer
}

func newTable(w io.Writer) *table {
	return &table{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
}

func (t *table) row(cells ...string) { fmt.Fprintln(t.tw, strings.Join(cells, "\t")) }

func (t *table) flush() { t.tw.Flush() }

// stoppable runs answer, which formats a command's complete answer into
// buffers (a matrix as text or JSON, a problem file, a picture), and
// returns as soon as ctx ends, leaving answer to run on until the process
// exits. encoding/json, text/tabwriter, the YAML encoder and the plotting
// library give no place to look at a context, and a location grid's
// mechanism has millions of entries to format; answer writes nothing but
// its buffers, so stopping it leaves nothing half-written. The caller
// writes the buffers only when stoppable returns nil. A stop's error says
// what was under way (step: "the answer was still being formatted"), for
// the message that names the signal, and wraps ctx's error.
func stoppable(ctx context.Context, step string, answer func() error) error {
	if err := ctx.Err(); err != nil {
		return stepStopped{step, err}
	}
	done := make(chan error, 1)
	go func() { done <- answer() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return stepStopped{step, ctx.Err()}
	}
}

// stepStopped is the error of a step that a context ended: the step, and
// the context's error.
type stepStopped struct {
	step string
	err  error
}

func (s stepStopped) Error() string { return s.step }
func (s stepStopped) Unwrap() error { return s.err }

// buffered collects a command's stdout and writes it only when the command
// succeeded, so that an error leaves nothing half-written.
type buffered struct {
	bytes.Buffer
}

func (b *buffered) commit(w io.Writer) error {
	_, err := w.Write(b.Bytes())
	return err
}

// checkOutput checks before the work starts that the file a flag names can
// be written ("-" is stdout), and that it is none of the run's inputs
// (problem files, CSV files; "-" is stdin): writing over an input would
// destroy what the run reads.
func checkOutput(flag, path string, inputs ...string) error {
	return checkOutputAs("--"+flag, path, inputs...)
}

// checkOutputAs is checkOutput for a flag as the user spelt it ("-o").
func checkOutputAs(flag, path string, inputs ...string) error {
	if path == "-" {
		return nil
	}
	if err := outfile.Check(path); err != nil {
		return usagef("%s %v", flag, err)
	}
	if err := outfile.NotInput(path, inputs...); err != nil {
		return usagef("%s %v", flag, err)
	}
	return nil
}

// writeOutput writes what write produces to path, or to stdout for "-",
// through package outfile: complete or not at all.
func writeOutput(e *env, path string, write func(io.Writer) error) error {
	if path == "-" {
		var b buffered
		if err := write(&b); err != nil {
			return err
		}
		return b.commit(e.stdout)
	}
	return outfile.Write(path, write)
}

// writeFileAtomic writes data to path through package outfile: complete
// or not at all, symlinks written through, devices written directly.
func writeFileAtomic(path string, data []byte) error {
	return outfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writePrivacy writes the table's privacy line: the audited level of the
// measure (ALIP: ε_l = lower, ε_u = level) beside the file's budget.
func writePrivacy(b *buffered, m mech.Measure, level, lower float64, budget mech.Budget) {
	if m == mech.ALIP {
		fmt.Fprintf(b, "privacy    (ε_l, ε_u)-ALIP audited (%s, %s), budget (%s, %s)\n",
			num(lower), num(level), num(budget.EpsilonLower), num(budget.EpsilonUpper))
		return
	}
	fmt.Fprintf(b, "privacy    %s audited %s, budget %s\n", m, num(level), num(budget.Epsilon))
}
