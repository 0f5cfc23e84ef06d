package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/problem"
)

// A curve stopped by a signal writes the points it settled, each certified
// on its own, and says in every format that the curve is partial and which
// thresholds it left: "complete": false and the thresholds left in --json,
// a comment line before the --csv header, a line under the table, and the
// plot's title. A complete curve says "complete": true.

// curveLeft is what a stopped curve did not settle.
type curveLeft struct {
	why   string // "stopped by SIGINT"
	unit  string // "thresholds" or "budgets"
	total int    // of the whole curve
	// groups are the thresholds left, by the name of their axis ("h",
	// "threshold", or a measure's "pml ε"), in increasing order.
	groups []leftGroup
}

type leftGroup struct {
	axis   string
	values []float64
}

// count is the number of thresholds left.
func (l *curveLeft) count() int {
	n := 0
	for _, g := range l.groups {
		n += len(g.values)
	}
	return n
}

// describe says what was left, listing at most max values of each group
// (all when max < 0): "stopped by SIGINT: 3 of 7 thresholds left (h = 2,
// 3, 6)".
func (l *curveLeft) describe(max int) string {
	s := fmt.Sprintf("%s: %d of %d %s left", l.why, l.count(), l.total, l.unit)
	var parts []string
	for _, g := range l.groups {
		if len(g.values) == 0 {
			continue
		}
		vs := g.values
		more := ""
		if max >= 0 && len(vs) > max {
			vs, more = vs[:max], fmt.Sprintf(", … (%d more)", len(g.values)-max)
		}
		nums := make([]string, len(vs))
		for k, v := range vs {
			nums[k] = fullNum(v)
		}
		parts = append(parts, g.axis+" = "+strings.Join(nums, ", ")+more)
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, "; ") + ")"
	}
	return s
}

// title is a plot's title for a partial curve.
func (l *curveLeft) title(title string) string {
	if l == nil {
		return title
	}
	return fmt.Sprintf("%s (partial: %d of %d %s left)", title, l.count(), l.total, l.unit)
}

// csvComment is the line that starts the CSV of a partial curve.
func (l *curveLeft) csvComment() string {
	return "# partial curve, " + l.describe(-1) + "\n"
}

// tableNote is the line under the table of a partial curve.
func (l *curveLeft) tableNote() string {
	return "partial curve, " + l.describe(10) + "\n"
}

// json is the group's thresholds as a JSON array, [] when none is left.
func (g leftGroup) json() []jfloat {
	out := jfloats(g.values)
	if out == nil {
		out = []jfloat{}
	}
	return out
}

// stopReason is "stopped by SIGINT" (the signal that ended ctx) or
// "stopped".
func stopReason(ctx context.Context) string {
	var st *stopped
	if errors.As(context.Cause(ctx), &st) {
		return st.Error()
	}
	return "stopped"
}

// worstCurveLeft returns what a stopped worst-case curve of p left: the
// orders h = 1..M without a point (worst-case-order), or the reachable
// utility values that no step [threshold, its step's last value] covers
// (worst-case-value).
func worstCurveLeft(ctx context.Context, obj problem.Objective, p *problem.Problem, pts []pmlopt.Point) (*curveLeft, error) {
	l := &curveLeft{why: stopReason(ctx), unit: "thresholds"}
	var all, left []float64
	axis := "h"
	if obj == problem.WorstCaseValue {
		u, err := p.RequireUtility()
		if err != nil {
			return nil, err
		}
		all, axis = u.ReachableValues(), "threshold"
		for _, v := range all {
			covered := false
			for _, pt := range pts {
				if v >= pt.Threshold && v <= pt.ThresholdMax {
					covered = true
					break
				}
			}
			if !covered {
				left = append(left, v)
			}
		}
	} else {
		o, err := p.RequireOrder()
		if err != nil {
			return nil, err
		}
		_, m := o.Dims()
		done := make([]bool, m+1)
		for _, pt := range pts {
			if pt.H >= 1 && pt.H <= m {
				done[pt.H] = true
			}
		}
		for h := 1; h <= m; h++ {
			all = append(all, float64(h))
			if !done[h] {
				left = append(left, float64(h))
			}
		}
	}
	l.total = len(all)
	l.groups = []leftGroup{{axis: axis, values: left}}
	return l, nil
}

// expectedCurveLeft returns what a stopped expected-utility curve left:
// for each measure, the budgets after the points it has (a measure's
// points are computed in the order of eps).
func expectedCurveLeft(ctx context.Context, series []expectedSeries, eps []float64) *curveLeft {
	l := &curveLeft{why: stopReason(ctx), unit: "budgets", total: len(series) * len(eps)}
	for _, s := range series {
		axis := string(s.measure) + " ε"
		if s.over != nil {
			axis = s.over.label() + " " + axis
		}
		l.groups = append(l.groups, leftGroup{axis: axis, values: eps[min(len(s.pts), len(eps)):]})
	}
	return l
}
