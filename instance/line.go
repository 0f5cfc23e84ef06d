package instance

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/pmlopt/pmlopt/mech"
)

// Positions places labelled letters on a line: at the labels' values when
// every label is a finite number ("18", "2.5", "-3"), at their indices
// 0, 1, … otherwise.
func Positions(labels []string) []float64 {
	xs := make([]float64, len(labels))
	for i, s := range labels {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			for k := range xs {
				xs[k] = float64(k)
			}
			return xs
		}
		xs[i] = v
	}
	return xs
}

// CountingLoss is the counting query of Song and Oechtering (2026),
// eq. (11), between an input at x and an output at y: −(x−y)² − [y<x].
func CountingLoss(x, y float64) float64 {
	d := x - y
	if y < x {
		return neg(d*d) - 1
	}
	return neg(d * d)
}

// AbsoluteLoss is the utility −|x − y|.
func AbsoluteLoss(x, y float64) float64 { return neg(math.Abs(x - y)) }

// SquaredLoss is the utility −(x − y)².
func SquaredLoss(x, y float64) float64 { d := x - y; return neg(d * d) }

// OnLine returns the utility u(x, y) = loss(xs[x], ys[y]) of inputs at
// positions xs and outputs at positions ys: the counting query, the line
// losses and their rectangular versions (N ≠ M) on any positions.
func OnLine(loss func(x, y float64) float64, xs, ys []float64) (mech.Utility, error) {
	if len(xs) < 1 || len(ys) < 1 {
		return nil, fmt.Errorf("instance: line utility: %d inputs, %d outputs", len(xs), len(ys))
	}
	if loss == nil {
		return nil, errors.New("instance: line utility needs a loss, got nil")
	}
	for _, v := range append(append([]float64(nil), xs...), ys...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("instance: line utility: position %g is not finite", v)
		}
	}
	return matrix(len(xs), len(ys), func(x, y int) float64 { return loss(xs[x], ys[y]) }), nil
}

// HammingLabels returns the utility 0 where the output's label equals the
// input's and −1 elsewhere: Hamming on N inputs and M outputs.
func HammingLabels(inputs, outputs []string) (mech.Utility, error) {
	if len(inputs) < 1 || len(outputs) < 1 {
		return nil, fmt.Errorf("instance: hamming utility: %d inputs, %d outputs", len(inputs), len(outputs))
	}
	return matrix(len(inputs), len(outputs), func(x, y int) float64 {
		if inputs[x] == outputs[y] {
			return 0
		}
		return -1
	}), nil
}

// GridLabels returns the labels "x,y" of the cells of a w×h grid in the
// order of Grid: letter k is the cell (x, y) = (k mod w, k div w).
func GridLabels(w, h int) []string {
	out := make([]string, 0, w*h)
	for k := 0; k < w*h; k++ {
		out = append(out, fmt.Sprintf("%d,%d", k%w, k/w))
	}
	return out
}

// FromCounts returns the prior with masses proportional to counts[i] + a
// (additive smoothing with pseudo-count a ≥ 0). A letter whose mass would
// be 0 is refused: a prior needs every mass positive.
func FromCounts(counts []float64, a float64) (mech.Prior, error) {
	if len(counts) == 0 {
		return nil, fmt.Errorf("instance: prior from counts: no letters")
	}
	if !(a >= 0) || math.IsInf(a, 0) {
		return nil, fmt.Errorf("instance: prior from counts: smoothing %g, want a finite a ≥ 0", a)
	}
	p := make(mech.Prior, len(counts))
	for i, c := range counts {
		if !(c >= 0) || math.IsInf(c, 0) {
			return nil, fmt.Errorf("instance: prior from counts: count %d is %g, want a finite count ≥ 0", i, c)
		}
		if c+a == 0 {
			return nil, fmt.Errorf("instance: prior from counts: letter %d has count 0 and no smoothing", i)
		}
		p[i] = c + a
	}
	mech.Normalise(p)
	return p, nil
}
