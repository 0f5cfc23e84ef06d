package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// binSpec is new --bins: intervals [lo, hi) that group the values of a
// numeric column into the inputs. Either width > 0 (intervals of that
// width from a multiple of it) or edges, increasing, with the intervals
// between neighbours.
type binSpec struct {
	flag  string
	width float64
	edges []float64
}

// parseBins reads --bins W or --bins A,B,C,...
func parseBins(s string) (binSpec, error) {
	b := binSpec{flag: s}
	parts := strings.Split(s, ",")
	nums := make([]float64, len(parts))
	for k, part := range parts {
		v, err := decimalFloat(part)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return b, usagef("--bins wants a width W or edges A,B,C,... (finite numbers); %q is not one", strings.TrimSpace(part))
		}
		nums[k] = v
	}
	if len(nums) == 1 {
		if !(nums[0] > 0) {
			return b, usagef("--bins: the width must be positive, got %v", nums[0])
		}
		b.width = nums[0]
		return b, nil
	}
	for k := 1; k < len(nums); k++ {
		if !(nums[k] > nums[k-1]) {
			return b, usagef("--bins: edges must increase, got %v after %v", nums[k], nums[k-1])
		}
	}
	if len(nums)-1 > maxLetters {
		return b, usagef("--bins: %d intervals, at most %d", len(nums)-1, maxLetters)
	}
	b.edges = nums
	return b, nil
}

// check vets one value of the column: a finite number, and within the
// edges when they are given.
func (b binSpec) check(value string, line int) error {
	x, err := decimalFloat(value)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return fmt.Errorf("line %d: %q is not a number, and --bins groups numbers", line, value)
	}
	if b.edges != nil && (x < b.edges[0] || x >= b.edges[len(b.edges)-1]) {
		return fmt.Errorf("line %d: %v is outside the bins [%s, %s) of --bins %s", line, x,
			edgeString(b.edges[0]), edgeString(b.edges[len(b.edges)-1]), b.flag)
	}
	return nil
}

// edge returns the k-th edge of a width: k·W rounded to 12 significant
// digits, so that a width of 0.1 has the edge 0.3, the number its label
// shows, rather than 0.30000000000000004.
func (b binSpec) edge(k float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(k*b.width, 'g', 12, 64), 64)
	return v
}

// apply groups the distinct values (all numbers, by check) and their
// counts into the bins from the first that holds a value to the last, or
// every bin between the edges, labelled as the help says.
func (b binSpec) apply(values []string, counts []float64) ([]string, []float64, error) {
	xs := make([]float64, len(values))
	lo, hi := math.Inf(1), math.Inf(-1)
	whole := true
	for k, v := range values {
		x, err := decimalFloat(v)
		if err != nil {
			return nil, nil, fmt.Errorf("--bins: %q is not a number", v)
		}
		xs[k] = x
		lo, hi = min(lo, x), max(hi, x)
		whole = whole && x == math.Trunc(x)
	}
	edges := b.edges
	if edges == nil {
		first, last := math.Floor(lo/b.width), math.Floor(hi/b.width)
		if n := last - first + 1; !(n <= maxLetters) {
			return nil, nil, usagef("--bins %s: the values from %v to %v make %.3g bins of that width, at most %d: give a wider one", b.flag, lo, hi, n, maxLetters)
		}
		// The rounded edges decide, as the labels show them; rounding
		// moves an edge across a value by one bin at most.
		if b.edge(first) > lo {
			first--
		}
		if b.edge(last+1) <= hi {
			last++
		}
		for k := first; k <= last+1; k++ {
			edges = append(edges, b.edge(k))
		}
		for k := 1; k < len(edges); k++ {
			if !(edges[k] > edges[k-1]) {
				return nil, nil, usagef("--bins %s: too narrow for values near %v to tell its edges apart", b.flag, edges[k])
			}
		}
	}
	for _, e := range edges {
		whole = whole && e == math.Trunc(e) && e >= 0
	}
	labels := make([]string, len(edges)-1)
	for k := range labels {
		a, z := edges[k], edges[k+1]
		switch {
		case whole && z-1 == a:
			labels[k] = edgeString(a)
		case whole:
			labels[k] = edgeString(a) + "-" + edgeString(z-1)
		default:
			labels[k] = "[" + edgeString(a) + "," + edgeString(z) + ")"
		}
	}
	binned := make([]float64, len(labels))
	for k, x := range xs {
		// The last edge at or below x: edges[i] ≤ x < edges[i+1].
		i, j := 0, len(edges)-1
		for j-i > 1 {
			mid := (i + j) / 2
			if edges[mid] <= x {
				i = mid
			} else {
				j = mid
			}
		}
		binned[i] += counts[k]
	}
	return labels, binned, nil
}

func edgeString(v float64) string { return strconv.FormatFloat(v, 'g', 12, 64) }
