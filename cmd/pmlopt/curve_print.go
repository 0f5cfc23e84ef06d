package main

import (
	"fmt"
	"io"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/problem"
)

// curveFormat is how a worst-case curve is printed.
type curveFormat struct {
	json, csv, mechanisms bool
	// left, when not nil, is what a stopped curve left (curve_partial.go).
	left *curveLeft
}

// writeWorstCurve prints the settled points of a worst-case curve as a
// table, --json or --csv. curve and merge both print through it, so that
// a curve merged from shards reads exactly as one computed whole.
func writeWorstCurve(w io.Writer, f curveFormat, obj problem.Objective, solverName string, p *problem.Problem, pts []pmlopt.Point, safeSteps []closedform.SafeValueStep) error {
	switch {
	case f.json:
		j := toCurveJSON(obj, solverName, pts)
		j.SafeSteps = toSafeStepsJSON(safeSteps)
		for k := range j.Points {
			j.Points[k] = withMechanism(j.Points[k], pts[k], f.mechanisms)
		}
		if f.left != nil {
			j.Complete, j.ThresholdsLeft = false, f.left.groups[0].json()
		}
		return writeJSON(w, j)
	case f.csv:
		if f.left != nil {
			if _, err := io.WriteString(w, f.left.csvComment()); err != nil {
				return err
			}
		}
		return writeCurveCSV(w, obj, pts, p.Utility != nil)
	}
	writeCurveTable(w, obj, pts, solverName)
	if safeSteps != nil {
		fmt.Fprintf(w, "the utility-safe staircase has %d steps of its own (--json: safe_steps; --plot draws them)\n", len(safeSteps))
	}
	if f.left != nil {
		io.WriteString(w, f.left.tableNote())
	}
	return nil
}
