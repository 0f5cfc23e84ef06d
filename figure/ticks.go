package figure

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// niceTicks places labelled ticks at about six "nice" values (1, 2 or 5
// times a power of ten) across an axis, with unlabelled ticks between them:
// gonum's default marker often labels only two values on a short axis.
//
// With integer set, the axis counts something (a threshold, an order, a
// letter): every tick, labelled or not, is at an integer, so a step of the
// labels is at least 1 and the ticks between them are integers as well.
type niceTicks struct{ integer bool }

// tickTarget is the number of labelled ticks niceTicks aims for.
const tickTarget = 6

func (nt niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		if nt.integer && lo == hi && lo == math.Round(lo) && !math.IsInf(lo, 0) {
			return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'f', 0, 64)}}
		}
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step := niceStep((hi - lo) / tickTarget)
	minor := step / 5
	if m := step / math.Pow(10, math.Floor(math.Log10(step))); m == 2 {
		minor = step / 4
	}
	if nt.integer {
		// 1, 2, 5, 10, … times a power of ten ≥ 1 are integers, and so
		// are their multiples; minor ticks of 1 between labels 1 or 2 apart.
		step, minor = math.Max(step, 1), math.Max(minor, 1)
	}
	var ticks []plot.Tick
	prec := decimals(step)
	for k := math.Ceil(lo / minor); k*minor <= hi*(1+1e-12)+1e-300; k++ {
		v := k * minor
		t := plot.Tick{Value: v}
		if r := v / step; math.Abs(r-math.Round(r)) < 1e-6 {
			v = math.Round(r) * step
			if math.Abs(v) < step*1e-9 {
				v = 0
			}
			t = plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', prec, 64)}
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// niceStep returns the least of 1, 2 or 5 times a power of ten that is at
// least x.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x*(1-1e-12) {
			return m * p
		}
	}
	return 10 * p
}

// decimals is the number of decimals that writes every multiple of step.
func decimals(step float64) int {
	d := -int(math.Floor(math.Log10(step) + 1e-9))
	if d < 0 {
		return 0
	}
	return d
}

// wrap breaks s at spaces into lines of at most width characters (a word
// longer than width keeps a line of its own), so that a long title stays
// within the drawing.
func wrap(s string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case len([]rune(line))+1+len([]rune(w)) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// titleChars is the number of characters of a 13-point title that fit in
// inches of width (a character is about 0.55 em wide).
func titleChars(inches float64) int {
	return int(inches * 72 / (0.55 * 13))
}
