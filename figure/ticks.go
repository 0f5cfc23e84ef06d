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
		step, minor = max(step, 1), max(minor, 1)
	}
	var ticks []plot.Tick
	prec := decimals(step)
	for k := math.Ceil(lo / minor); k*minor <= hi+math.Abs(hi)*1e-12+1e-300; k++ {
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
	// Only ordinary white space breaks a line: a no-break space (U+00A0)
	// keeps "8 × 8" on one line.
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }) {
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

// logTicks marks an axis drawn in log10 of its values (see Figure.plot):
// it takes and returns positions lo, hi and Value as log10 of the values,
// and labels them with the values. It marks the powers of ten, with unlabelled
// ticks at their multiples 2…9, and labels them as a reader writes them:
// 0.001, 10, 100 from 1e-4 to below 1e5, and 1e-5, 1e6 beyond (gonum's
// LogTicks writes 1e+01 and 0.0001, and leaves the lowest decade of an
// axis below 1 without ticks). An axis that shows fewer than three powers
// of ten has the multiples 2 and 5 labelled as well; one spanning many
// decades has every k-th power labelled and no minor ticks, one within a
// decade every multiple.
type logTicks struct{}

func (logTicks) Ticks(loExp, hiExp float64) []plot.Tick {
	// The ends round-trip through log10 to within a rounding, which can
	// carry the largest float64 to +Inf and the least subnormal to 0.
	lo := max(math.Pow(10, loExp), math.SmallestNonzeroFloat64)
	hi := min(math.Pow(10, hiExp), math.MaxFloat64)
	if !(hi >= lo) {
		return nil
	}
	e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	in := func(v float64) bool { return v >= lo*(1-1e-12) && v <= hi*(1+1e-12) }
	at := func(m, e int) float64 {
		v, _ := strconv.ParseFloat(strconv.Itoa(m)+"e"+strconv.Itoa(e), 64)
		return v
	}
	shown := 0
	for e := e0; e <= e1; e++ {
		if in(at(1, e)) {
			shown++
		}
	}
	every, minor := 1, true
	if decades := e1 - e0; decades > 12 {
		every, minor = (decades+7)/8, decades <= 24
	}
	var ticks []plot.Tick
	for e := e0; e <= e1; e++ {
		for m := 1; m <= 9; m++ {
			v := at(m, e)
			if !in(v) {
				continue
			}
			t := plot.Tick{Value: v}
			switch {
			case m == 1 && (e%every == 0):
				t.Label = logLabel(v)
			case m == 1 || minor:
				if shown < 3 && (m == 2 || m == 5) {
					t.Label = logLabel(v)
				}
			default:
				continue
			}
			ticks = append(ticks, t)
		}
	}
	labelled := 0
	for _, t := range ticks {
		if t.Label != "" {
			labelled++
		}
	}
	if labelled < 2 { // a short axis, say from 3 to 4: label every tick
		for k := range ticks {
			ticks[k].Label = logLabel(ticks[k].Value)
		}
	}
	for k := range ticks {
		ticks[k].Value = math.Log10(ticks[k].Value)
	}
	return ticks
}

// logLabel writes v with six significant digits at most, in plain
// decimals from 1e-4 to below 1e5 and as 1e-5, 2e6 beyond.
func logLabel(v float64) string {
	// The powers of ten of a log axis are products that carry rounding
	// (1e-05 × 10 is 0.00010000000000000002).
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	if a := math.Abs(v); a >= 1e-4 && a < 1e5 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	s := strconv.FormatFloat(v, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	exp = strings.TrimPrefix(exp, "+")
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
	if neg {
		exp = "-" + exp
	}
	return mant + "e" + exp
}
