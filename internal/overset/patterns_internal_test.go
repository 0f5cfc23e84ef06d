package overset

import (
	"slices"
	"testing"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// The thresholds of a value objective are the utility's distinct values
// in increasing order, up to the last whose pattern leaves every row an
// output (here 4: row 1's largest), and each builds the pattern of its
// own threshold; an order objective has one per rank.
func TestPatternLevels(t *testing.T) {
	u := mech.Utility{
		{5, 1, 3},
		{4, 2, 1},
		{1, 6, 4},
	}
	p := &problem.Problem{Prior: mech.Prior{0.2, 0.3, 0.5}, Utility: u, Order: u.Order(), Objective: problem.WorstCaseValue}
	th, pattern, err := patternLevels(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1, 2, 3, 4}; !slices.Equal(th, want) {
		t.Fatalf("thresholds %v, want %v", th, want)
	}
	for k, v := range th {
		pat := pattern(k)
		for i, row := range pat {
			open := false
			for j, a := range row {
				if a != (u[i][j] >= v) {
					t.Fatalf("threshold %v: pair (%d, %d) allowed %v, utility %v", v, i, j, a, u[i][j])
				}
				open = open || a
			}
			if !open {
				t.Fatalf("threshold %v: row %d has no output", v, i)
			}
		}
	}
	pats, th2, err := Patterns(p)
	if err != nil || !slices.Equal(th2, th) || len(pats) != len(th) {
		t.Fatalf("Patterns: %v, %v, %d patterns", err, th2, len(pats))
	}
	p.Objective = problem.WorstCaseOrder
	th, pattern, err = patternLevels(p)
	if err != nil || !slices.Equal(th, []float64{1, 2, 3}) {
		t.Fatalf("order thresholds %v (%v)", th, err)
	}
	o := u.Order()
	for k := range th {
		if got, want := pattern(k), o.Pattern(k+1); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("rank %d: pattern %v, want %v", k+1, got, want)
		}
	}
}
