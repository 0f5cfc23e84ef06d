package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/sample"
)

// pointGrid returns the grid whose cells sample --x --y bins points into:
// the file's utility_rule.grid, whose cells are also the outputs, so that
// an output is a cell with a centre.
func pointGrid(p *problem.Problem, path string) (*mech.Grid, error) {
	if p.Rule == nil || p.Rule.Inputs.Grid == nil {
		return nil, fmt.Errorf("%s: --x and --y bin points into the cells of a utility_rule.grid, and this file has none (pmlopt new --grid writes one); give --column for input labels", path)
	}
	if p.Rule.Outputs != nil {
		return nil, fmt.Errorf("%s: --x and --y write the output cell's centre, and this file's outputs are not its grid's cells (it has output_grid or output_points); give --column", path)
	}
	return p.Rule.Inputs.Grid, nil
}

// cellCentre returns a coordinate of a cell's centre, origin + (index+½)·cell,
// rounded to 12 significant digits so that 2.25 + 3.5·0.02 reads 2.32, as
// written in the shortest decimal that reads back.
func cellCentre(origin, cell float64, index int) string {
	v := origin + (float64(index)+0.5)*cell
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// privatizePoints rewrites the xCol and yCol fields of every record of the
// CSV read from r by the centre of an output cell drawn through s from the
// row of the point's cell in g (binned by cellOf, as new --prior-from
// --x --y bins).
func privatizePoints(r io.Reader, w io.Writer, g *mech.Grid, s *sample.Sampler, xCol, yCol string, drop []string) error {
	f := sample.Fields{
		Columns: []string{xCol, yCol},
		Drop:    drop,
		Replace: func(lines []int, values [][]byte) ([]string, error) {
			var xy [2]float64
			for i, name := range []string{xCol, yCol} {
				v, ok := coordinate(string(values[i]))
				if !ok {
					return nil, fmt.Errorf("line %d, column %q: %q is not a finite number", lines[i], name, briefField(values[i]))
				}
				xy[i] = v
			}
			k, cx, cy, inside := cellOf(g, xy[0], xy[1])
			if !inside {
				return nil, fmt.Errorf("line %d, columns %q and %q: the point (%s, %s) lies outside the %d×%d grid of cells %g from the origin %g,%g (its cell would be %g,%g)",
					lines[0], xCol, yCol, briefField(values[0]), briefField(values[1]), g.Width, g.Height, g.Cell, g.Origin[0], g.Origin[1], cx, cy)
			}
			j := s.Sample(k)
			return []string{cellCentre(g.Origin[0], g.Cell, j%g.Width), cellCentre(g.Origin[1], g.Cell, j/g.Width)}, nil
		},
	}
	return f.Rewrite(r, w)
}

// briefField cuts a field to 64 bytes for an error message, so that a
// megabyte-long field is not echoed.
func briefField(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "…"
	}
	return string(b)
}
