package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/pmlopt/pmlopt/mech"
)

// gridFlags are the flags of pmlopt new that concern a --grid: how the
// file gives the utility, and the binning of coordinates into cells for
// --prior-from.
type gridFlags struct {
	dense       *bool
	cell        *float64
	x, y        *string
	origin      *string
	dropOutside *bool
	fs          *flagSet
}

func newGridFlags(fs *flagSet) *gridFlags {
	return &gridFlags{
		fs:          fs,
		dense:       fs.Bool("dense", false, "with --grid, write the N×N utility matrix instead of its utility_rule"),
		cell:        fs.Float64("cell", 1, "with --grid, the side `S` of a cell, in the units of the distance and of --x and --y"),
		x:           fs.String("x", "", "with --grid --prior-from, the CSV `column` of the points' x coordinates (binned into cells)"),
		y:           fs.String("y", "", "with --grid --prior-from, the CSV `column` of the points' y coordinates"),
		origin:      fs.String("origin", "0,0", "with --x and --y, the corner `X,Y` of cell 0,0 (the lowest x and y)"),
		dropOutside: fs.Bool("drop-outside", false, "with --x and --y, leave out points outside the grid (stderr counts them) instead of refusing them"),
	}
}

// maxGridCells bounds a grid written as a utility_rule: its file is a few
// hundred bytes whatever the size, and the commands refuse a dense matrix
// beyond memory when they load it.
const maxGridCells = mech.MaxSites

func (g *gridFlags) maxCells() int {
	if *g.dense {
		return maxLetters
	}
	return maxGridCells
}

// rule reports whether the utility is written as a rule: a grid whose
// utility is euclid, without --dense.
func (g *gridFlags) rule(gridW int, util string) bool {
	return gridW > 0 && util == "euclid" && !*g.dense
}

// binning reports whether --prior-from is read as points (--x and --y).
func (g *gridFlags) binning() bool { return *g.x != "" || *g.y != "" }

// check refuses the grid flags where they do not apply.
func (g *gridFlags) check(gridW int, priorFrom, column string) error {
	if c := *g.cell; !(c > 0) || math.IsInf(c, 0) {
		return usagef("--cell must be a positive finite size, got %v", c)
	}
	for _, name := range []string{"dense", "cell", "x", "y", "origin", "drop-outside"} {
		if g.fs.isSet(name) && gridW == 0 {
			return usagef("--%s is for --grid", name)
		}
	}
	if gridW == 0 {
		return nil
	}
	if !g.binning() {
		for _, name := range []string{"origin", "drop-outside"} {
			if g.fs.isSet(name) {
				return usagef("--%s is for --x and --y", name)
			}
		}
		return nil
	}
	switch {
	case *g.x == "" || *g.y == "":
		return usagef("--x and --y go together: give both columns")
	case priorFrom == "":
		return usagef("--x and --y are columns of --prior-from: give --prior-from FILE.csv")
	case column != "":
		return usagef("give --column (cell labels) or --x and --y (coordinates), not both")
	}
	if _, _, err := g.originXY(); err != nil {
		return err
	}
	return nil
}

func (g *gridFlags) originXY() (x, y float64, err error) {
	a, b, ok := strings.Cut(*g.origin, ",")
	if ok {
		x, err = decimalFloat(a)
		if err == nil {
			y, err = decimalFloat(b)
		}
	}
	if !ok || err != nil || math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return 0, 0, usagef("--origin wants X,Y with two finite numbers, such as 0,0; got %q", *g.origin)
	}
	return x, y, nil
}

// gridRule is the Euclidean utility_rule of a w×h grid of --cell cells,
// placed at --origin when it is given.
func (g *gridFlags) gridRule(w, h int) *mech.UtilityRule {
	grid := &mech.Grid{Width: w, Height: h, Cell: *g.cell}
	if g.fs.isSet("origin") {
		if x, y, err := g.originXY(); err == nil { // check vetted it
			grid.Origin = [2]float64{x, y}
		}
	}
	return &mech.UtilityRule{Metric: mech.Euclidean, Inputs: mech.Sites{Grid: grid}}
}

// coordinate reads a field as a coordinate: a finite number.
func coordinate(field string) (float64, bool) {
	v, err := decimalFloat(field)
	return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// cellOf bins the point (x, y) into the grid g: it falls in column
// ⌊(x − X)/S⌋ and row ⌊(y − Y)/S⌋ for g's origin X,Y and cell side S, cell
// row·W + column. Outside the grid it returns inside false and the column
// and row the point would have.
func cellOf(g *mech.Grid, x, y float64) (k int, cx, cy float64, inside bool) {
	cx, cy = math.Floor((x-g.Origin[0])/g.Cell), math.Floor((y-g.Origin[1])/g.Cell)
	if cx < 0 || cy < 0 || cx >= float64(g.Width) || cy >= float64(g.Height) {
		return -1, cx, cy, false
	}
	return int(cy)*g.Width + int(cx), cx, cy, true
}

// counts bins the points of the --x and --y columns of the CSV file into
// the cells of the w×h grid: the point (x, y) falls in column
// ⌊(x − X)/S⌋ and row ⌊(y − Y)/S⌋ for the origin X,Y and the cell side S.
// A point outside the grid is refused, naming its line, or with
// --drop-outside left out and counted on stderr.
func (g *gridFlags) counts(e *env, path string, w, h int) ([]float64, error) {
	ox, oy, err := g.originXY()
	if err != nil {
		return nil, err
	}
	r, closeInput, err := openInput(e, path)
	if err != nil {
		return nil, err
	}
	defer closeInput()
	cr, header, err := readCSVHeader(r, path)
	if err != nil {
		return nil, err
	}
	xc, err := headerColumn(path, header, *g.x)
	if err != nil {
		return nil, err
	}
	yc, err := headerColumn(path, header, *g.y)
	if err != nil {
		return nil, err
	}
	counts := make([]float64, w*h)
	cell := *g.cell
	grid := &mech.Grid{Width: w, Height: h, Cell: cell, Origin: [2]float64{ox, oy}}
	kept, dropped := 0, 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := cr.FieldPos(xc)
		coord := func(col int, name string) (float64, error) {
			v, ok := coordinate(rec[col])
			if !ok {
				return 0, fmt.Errorf("%s: line %d, column %q: %q is not a finite number", path, line, name, rec[col])
			}
			return v, nil
		}
		x, err := coord(xc, *g.x)
		if err != nil {
			return nil, err
		}
		y, err := coord(yc, *g.y)
		if err != nil {
			return nil, err
		}
		k, cx, cy, inside := cellOf(grid, x, y)
		if !inside {
			if *g.dropOutside {
				dropped++
				continue
			}
			return nil, fmt.Errorf("%s: line %d: the point (%s, %s) lies outside the %d×%d grid of cells %g from the origin %g,%g (its cell would be %g,%g); fix --origin or --cell, or give --drop-outside", path, line, rec[xc], rec[yc], w, h, cell, ox, oy, cx, cy)
		}
		counts[k]++
		kept++
	}
	if kept == 0 {
		return nil, fmt.Errorf("%s: no point lies in the grid (%d outside)", path, dropped)
	}
	if dropped > 0 {
		fmt.Fprintf(e.stderr, "pmlopt new: %d of %d points of %s lie outside the grid and are left out (--drop-outside)\n", dropped, dropped+kept, path)
	}
	return counts, nil
}
