package main

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// sameEnds finds "a and a" or "a to a" in generated prose: a
// range or a pair whose two ends are one number, written as two.
var sameEnds = regexp.MustCompile(`(-?[0-9][0-9.e+-]*) (?:and|to) (-?[0-9][0-9.e+-]*)\b`)

func assertNoSameEnds(t *testing.T, s string) {
	t.Helper()
	for _, m := range sameEnds.FindAllStringSubmatch(s, -1) {
		assert.NotEqual(t, m[1], m[2], "%q in %q", m[0], s)
	}
}

// TestFig1Findings: Figure 1's sentences say one number once when the
// values they summarise are all equal, give a range only when they are not,
// and claim that E and R do not improve only when their worst case is
// constant.
func TestFig1Findings(t *testing.T) {
	row := func(eps float64, sh int, sWorst, eMin, rMin, eWorst, rWorst float64, epsBar float64) Fig1Row {
		return Fig1Row{Eps: eps, SH: sh, SWorst: sWorst, EMin: eMin, RMin: rMin, EWorst: eWorst, RWorst: rWorst, EpsBar: epsBar}
	}
	// The counting query of the paper: E and R at −37 wherever ε̄ is finite.
	paper := &Fig1{PMin: 1.0 / 7, Breaks: []float64{0.8473, 1.2528}, JumpsAt: []float64{0.85, 1.30}, Rows: []Fig1Row{
		row(0.5, 1, -37, -37, -37, -37, -37, 0.2),
		row(0.85, 3, -17, -37, -37, -37, -37, 0.4),
		row(1.3, 5, -5, -37, -37, -37, -37, 0.9),
		row(1.95, 7, 0, 0, 0, 0, 0, math.Inf(1)),
	}}
	got := strings.Join(paper.findings(), "\n")
	assertNoSameEnds(t, got)
	assert.Contains(t, got, "The schedule changes at ε_S = 0.8473, 1.2528 nats")
	assert.Contains(t, got, "rises at the grid points ε = 0.85, 1.30, from -37 at ε = 0.50 to 0 at ε = 1.95.")
	assert.Contains(t, got, "Where ε̄ is finite (3 budgets) E's and R's sample minima are all -37: both keep every output possible, so the exact worst case of each is -37 throughout — they do not improve with ε.")
	assert.Contains(t, got, "their exact worst case becomes 0 for both.")

	// Minima that differ get a range; worst cases that change are not
	// said to be constant.
	varied := &Fig1{PMin: 0.1, Rows: []Fig1Row{
		row(0.5, 1, -9, -9, -8, -9, -8, 0.1),
		row(0.6, 1, -9, -7, -8, -7, -8, 0.2),
	}}
	got = strings.Join(varied.findings(), "\n")
	assertNoSameEnds(t, got)
	assert.Contains(t, got, "The schedule keeps h = 1 on this grid; the exact worst case of S is -9 at every grid point.")
	assert.Contains(t, got, "Where ε̄ is finite (2 budgets) E's sample minima lie between -9 and -7 and R's are all -8")
	assert.Contains(t, got, "their exact worst cases change with ε (E's lie between -9 and -7, R's are all -8).")
	assert.NotContains(t, got, "do not improve")

	// One budget, different constant worst cases of E and R.
	one := &Fig1{PMin: 0.1, JumpsAt: []float64{2.5}, Rows: []Fig1Row{row(0.5, 1, -9, -9, -8, -9, -8, 0.1), row(2.5, 4, 0, 0, -1, 0, -1, math.Inf(1))}}
	got = strings.Join(one.findings(), "\n")
	assert.Contains(t, got, "Where ε̄ is finite (1 budget) E's sample minima are all -9 and R's are all -8")
	assert.Contains(t, got, "their exact worst cases are -9 (E) and -8 (R) throughout")
	assert.Contains(t, got, "becomes 0 for E and -1 for R.")
	assert.Contains(t, got, "rises at the grid points ε = 2.50, from -9 at ε = 0.50 to 0 at ε = 2.50.")
	assertNoSameEnds(t, got)
}

// TestDescribeGap: a gap that does not change is given once, not as
// "shrinking" from a number to itself.
func TestDescribeGap(t *testing.T) {
	flat := []Fig23Row{{PMin: 0.02, Safe: 1.5, OptUpper: 1, Gap: 0.5}, {PMin: 0.1, Safe: 1.5, OptUpper: 1, Gap: 0.5}}
	got := describeGap(flat, "three-low-one-high", 2)
	assert.Equal(t, "h = 2 under three-low-one-high: S loses to O by 0.500 nats at every p_min (ε_S = 1.500 vs ε* ≤ 1.000 at p_min = 0.10).", got)
	falling := []Fig23Row{{PMin: 0.02, Safe: 2.8, OptUpper: 0.4, Gap: 2.4}, {PMin: 0.2, Safe: 0.5, OptUpper: 0.4, Gap: 0.1}}
	got = describeGap(falling, "three-low-one-high", 2)
	assert.Contains(t, got, "the gap is 2.400 nats at p_min = 0.02, shrinking to 0.100 at p_min = 0.20")
	assertNoSameEnds(t, got)
}
