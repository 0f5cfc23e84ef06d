package main

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/figure"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

var cmdPlot = &command{
	name:  "plot",
	usage: "FILE --heatmap out.svg|png|pdf [--optimum] [--input LABEL [--grid W]]",
	short: "draw a mechanism: P(y|x) as a heat map, or where one input goes on a grid",
	long:  plotHelp,
	nargs: 1,
	flags: plotFlags,
}

const plotHelp = `Draws the file's mechanism (or, when the file has none or with --optimum,
the optimal mechanism of its objective) as a heat map of P(y|x): inputs down,
outputs across, labelled with the file's labels (every k-th when there are
many). More than 256 rows or columns are drawn as the means of blocks of
cells, at most 256 a side, as the title says. The format follows the
extension: .svg, .png or .pdf.

With --input LABEL (an input's label or index), draws where that input's mass
goes on a grid of the outputs instead: the outputs are placed by their labels
when every label reads "x,y" (two numbers), or in rows of --grid W outputs
(output j at column j mod W, row j div W). The input's own cell, when it is
on the grid, is outlined. --json also writes what was drawn: the file, the
source of the mechanism and the mechanism. Example:

	pmlopt plot testdata/grid.yaml --heatmap where.png --input 1,2`

// plotFlags declares plot's flags on fs and returns its run function.
func plotFlags(fs *flagSet) runFunc {
	out := fs.String("heatmap", "", "write the heat map to this `file` (.svg, .png or .pdf)")
	optimum := fs.Bool("optimum", false, "draw the optimal mechanism of the file's objective even if the file has a mechanism")
	input := fs.String("input", "", "draw where the input with this `label` (or index) sends its mass, on the output grid")
	gridW := fs.Int("grid", 0, "outputs in rows of `W` (when their labels are not \"x,y\")")
	asJSON := jsonFlag(fs)
	load := ruleLoaderFlag(fs) // a rule is made dense only to solve
	getWorkers := workersFlag(fs)
	return func(ctx context.Context, e *env, pos []string) error {
		workers, restore, err := getWorkers()
		if err != nil {
			return err
		}
		defer restore()
		if *out == "" {
			return usagef("--heatmap: give the output file")
		}
		if err := checkPlotFlag("heatmap", *out, pos[0]); err != nil {
			return err
		}
		if *gridW < 0 {
			return usagef("--grid must be positive, got %d", *gridW)
		}
		p, err := load(pos[0])
		if err != nil {
			return err
		}
		m, what := p.Mechanism, "mechanism"
		if m == nil || *optimum {
			if p.Objective == "" {
				p.Objective = problem.ExpectedUtility
			}
			sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{Workers: workers})
			if err != nil {
				return err
			}
			m, what = sol.Mechanism, "optimum ("+string(p.Objective)+", "+budgetString(p.Privacy)+")"
			fmt.Fprintf(e.stderr, "pmlopt plot: drawing the %s\n", what)
		}
		title := what
		if p.Name != "" {
			title = p.Name + ": " + what
		}
		if *input == "" {
			hi := 0.0
			for _, row := range m {
				for _, v := range row {
					hi = max(hi, v)
				}
			}
			h := figure.Heatmap{Title: title, XLabel: "output y", YLabel: "input x", Z: m, RowLabels: p.Inputs,
				ColLabels: p.Outputs, Min: 0, Max: hi, ValueLabel: "P(y | x)"}
			if err := saveHeatmap(ctx, h, *out); err != nil {
				return err
			}
		} else {
			h, err := whereMap(p, m, *input, *gridW)
			if err != nil {
				return err
			}
			h.Title = title + ", input " + *input
			if err := saveHeatmap(ctx, h, *out); err != nil {
				return err
			}
		}
		if *asJSON {
			var b buffered
			if err := stoppable(ctx, "the answer was still being formatted", func() error {
				return writeJSON(&b, plotJSON{File: *out, Source: what, Input: *input, Mechanism: jmatrix(m)})
			}); err != nil {
				return err
			}
			return b.commit(e.stdout)
		}
		return nil
	}
}

type plotJSON struct {
	File      string `json:"file"`
	Source    string `json:"source"`
	Input     string `json:"input,omitempty"`
	Mechanism jmech  `json:"mechanism"`
}

// whereMap is the heat map of P(·|x) for the input labelled in, with the
// outputs placed on their grid.
func whereMap(p *problem.Problem, m mech.Mechanism, in string, w int) (figure.Heatmap, error) {
	i := -1
	for k, l := range p.Inputs {
		if l == in {
			i = k
		}
	}
	if i < 0 {
		i = sameCell(p.Inputs, in)
	}
	if i < 0 {
		k, err := strconv.Atoi(in)
		if err != nil || k < 0 || k >= p.N() {
			return figure.Heatmap{}, usagef("--input: no input labelled %q (and not an index 0..%d)", in, p.N()-1)
		}
		i = k
	}
	nOut := len(m[0])
	xs, ys := make([]float64, nOut), make([]float64, nOut)
	byLabel := w == 0
	if byLabel {
		for j := range nOut {
			x, y, ok := gridPoint(label(p.Outputs, j))
			if !ok {
				return figure.Heatmap{}, usagef("output %d is labelled %q, not \"x,y\": give --grid W", j, label(p.Outputs, j))
			}
			xs[j], ys[j] = x, y
		}
	} else {
		for j := range nOut {
			xs[j], ys[j] = float64(j%w), float64(j/w)
		}
	}
	cols, rows := distinct(xs, false), distinct(ys, true)
	if len(rows) > maxGridSide || len(cols) > maxGridSide {
		if !byLabel {
			return figure.Heatmap{}, usagef("--grid %d puts the %d outputs on %d columns and %d rows, more than %d a side", w, nOut, len(cols), len(rows), maxGridSide)
		}
		return figure.Heatmap{}, fmt.Errorf("the outputs' labels span %d columns and %d rows, more than %d a side: give --grid W", len(cols), len(rows), maxGridSide)
	}
	colOf, rowOf := indexOf(cols), indexOf(rows)
	z := make([][]float64, len(rows))
	for r := range z {
		z[r] = make([]float64, len(cols))
		for c := range z[r] {
			z[r][c] = math.NaN()
		}
	}
	hi := 0.0
	at := make(map[[2]int]int, nOut) // the output in each cell
	for j := range nOut {
		cell := [2]int{rowOf[ys[j]], colOf[xs[j]]}
		if k, ok := at[cell]; ok {
			return figure.Heatmap{}, fmt.Errorf("outputs %d and %d, labelled %q and %q, are the same point (%g, %g): give --grid W", k, j, label(p.Outputs, k), label(p.Outputs, j), xs[j], ys[j])
		}
		at[cell] = j
		z[cell[0]][cell[1]] = m[i][j]
		hi = max(hi, m[i][j])
	}
	h := figure.Heatmap{Z: z, XLabel: "x", YLabel: "y", ValueLabel: "P(y | x = " + in + ")", Min: 0, Max: hi,
		ColLabels: numLabels(cols), RowLabels: numLabels(rows)}
	if !byLabel {
		h.XLabel, h.YLabel = "column (output mod "+strconv.Itoa(w)+")", "row (output div "+strconv.Itoa(w)+")"
	}
	// The input's own cell: its label as coordinates, or its index.
	if x, y, ok := gridPoint(label(p.Inputs, i)); ok && byLabel {
		if r, c := index(rows, y), index(cols, x); r >= 0 && c >= 0 {
			h.Marks = [][2]int{{r, c}}
		}
	} else if !byLabel && i < nOut {
		h.Marks = [][2]int{{index(rows, ys[i]), index(cols, xs[i])}}
	}
	return h, nil
}

// maxGridSide bounds the distinct x and y coordinates of the outputs'
// labels: the map holds a cell for every pair, and outputs on a diagonal
// would make it M × M.
const maxGridSide = 4096

// gridPoint reads a label "x,y" (or "x:y") as two finite numbers: a label
// such as "NaN,1" or "1,Inf" is text, no point.
func gridPoint(s string) (x, y float64, ok bool) {
	a, b, found := cutGridLabel(s)
	if !found {
		return 0, 0, false
	}
	x, err1 := decimalFloat(a)
	y, err2 := decimalFloat(b)
	finite := !math.IsNaN(x) && !math.IsInf(x, 0) && !math.IsNaN(y) && !math.IsInf(y, 0)
	return x, y, err1 == nil && err2 == nil && finite
}

// indexOf maps each value of v to its index.
func indexOf(v []float64) map[float64]int {
	at := make(map[float64]int, len(v))
	for k, x := range v {
		at[x] = k
	}
	return at
}

// distinct returns the distinct values of v, sorted (descending when desc:
// a map's rows, largest y at the top).
func distinct(v []float64, desc bool) []float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	out := s[:0]
	for k, x := range s {
		if k == 0 || x != s[k-1] {
			out = append(out, x)
		}
	}
	if desc {
		for a, b := 0, len(out)-1; a < b; a, b = a+1, b-1 {
			out[a], out[b] = out[b], out[a]
		}
	}
	return out
}

func index(v []float64, x float64) int {
	for k, y := range v {
		if y == x {
			return k
		}
	}
	return -1
}

func numLabels(v []float64) []string {
	out := make([]string, len(v))
	for k, x := range v {
		out[k] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return out
}

// saveHeatmap draws h into memory, stoppable by a signal (a large
// mechanism's heat map takes seconds to draw), and then writes it to path.
func saveHeatmap(ctx context.Context, h figure.Heatmap, path string) error {
	var data []byte
	if err := stoppable(ctx, "the heat map was still being drawn", func() error {
		var err error
		data, err = h.Encode(path)
		return err
	}); err != nil {
		return err
	}
	return figure.WriteFile(path, data)
}
