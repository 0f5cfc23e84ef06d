package main

import (
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/figure"
	"github.com/pmlopt/pmlopt/problem"
)

// checkPlotPath checks a --plot file as checkOutput does, and its
// extension, which names the format.
func checkPlotPath(path string, inputs ...string) error {
	return checkPlotFlag("plot", path, inputs...)
}

// checkPlotFlag is checkPlotPath for a picture named by another flag.
func checkPlotFlag(flag, path string, inputs ...string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg", ".png", ".pdf":
		return checkOutput(flag, path, inputs...)
	}
	return usagef("--%s: %q must end in .svg, .png or .pdf", flag, path)
}

// staircase turns (ε(t), t) pairs into the best worst case reachable at each
// budget: y(ε) = max{ t : ε(t) ≤ ε }, one point per distinct ε, plus a last
// point at xmax so the final step is drawn. A threshold at ε = +∞ (no
// budget reaches it, over a prior set) is not on the staircase.
func staircase(eps, thr []float64, xmax float64) (xs, ys []float64) {
	var idx []int
	for k, e := range eps {
		if !math.IsInf(e, 1) {
			idx = append(idx, k)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return eps[idx[a]] < eps[idx[b]] })
	best := math.Inf(-1)
	for _, k := range idx {
		best = max(best, thr[k])
		if n := len(xs); n > 0 && xs[n-1] == eps[k] {
			ys[n-1] = best
			continue
		}
		xs, ys = append(xs, eps[k]), append(ys, best)
	}
	if n := len(xs); n > 0 && xmax > xs[n-1] {
		xs, ys = append(xs, xmax), append(ys, ys[n-1])
	}
	return xs, ys
}

// plotCurve draws the utility-safe and optimal staircases: the best worst
// case reachable against the PML budget ε.
//
// safeSteps, when not nil, is the utility-safe value staircase on its own
// steps, drawn instead of the safe ε at the optimal curve's steps.
func plotCurve(path, title string, obj problem.Objective, pts []pmlopt.Point, safeSteps []closedform.SafeValueStep) error {
	n := len(pts)
	safe, opt, thrSafe, thrOpt := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	xmax := 0.0
	for k, pt := range pts {
		// SafeEpsilon belongs to Threshold; OptimalEpsilon holds up to
		// ThresholdMax (the value curve reports only where ε* changes),
		// and the step's mechanism may reach more.
		safe[k], opt[k], thrSafe[k], thrOpt[k] = pt.SafeEpsilon, pt.OptimalEpsilon, pt.Threshold, pt.ThresholdMax
		if !math.IsNaN(pt.WorstCaseValue) && obj == problem.WorstCaseValue {
			thrOpt[k] = max(thrOpt[k], pt.WorstCaseValue)
		}
		for _, v := range []float64{pt.SafeEpsilon, pt.OptimalEpsilon} {
			if !math.IsInf(v, 0) {
				xmax = max(xmax, v)
			}
		}
	}
	if safeSteps != nil {
		safe, thrSafe = safe[:0], thrSafe[:0]
		for _, st := range safeSteps {
			safe, thrSafe = append(safe, st.Epsilon), append(thrSafe, st.Threshold)
			if !math.IsInf(st.Epsilon, 0) {
				xmax = max(xmax, st.Epsilon)
			}
		}
	}
	xmax = xmax*1.1 + 0.05
	sx, sy := staircase(safe, thrSafe, xmax)
	ox, oy := staircase(opt, thrOpt, xmax)
	ylabel := "worst-case utility order h"
	if obj == problem.WorstCaseValue {
		ylabel = "worst-case utility value"
	}
	f := figure.Figure{
		Title:  title,
		XLabel: "PML budget ε (nats)",
		YLabel: ylabel,
		Legend: "inside",
		// An order h is a whole number: no tick at 1.5.
		IntegerY: obj != problem.WorstCaseValue,
		Series: []figure.Series{
			{Name: "utility-safe M*(h)", X: sx, Y: sy, Step: true},
			{Name: "optimal (LP)", X: ox, Y: oy, Step: true},
		},
	}
	return f.Save(path)
}
