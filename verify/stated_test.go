package verify

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStatedBudget: a certificate held in a problem file is checked
// against the file's objective and budget. Randomized response with
// p = 3/4 at the uniform prior has PML log 1.5 = 0.405: the certificate's
// budget 0.5 holds, and a file that states 0.25 (or another measure, or
// another objective, or no budget in the certificate) fails the file
// claim alone, every other claim still verified.
func TestStatedBudget(t *testing.T) {
	p := Problem{Prior: []float64{0.5, 0.5}, Utility: [][]float64{{1, 0}, {0, 1}}, Mechanism: [][]float64{{0.75, 0.25}, {0.25, 0.75}}}
	c := Certificate{Objective: "expected-utility", Measure: "pml", Epsilon: math.Log(1.5) + 1e-12, Budget: &Budget{Epsilon: 0.5},
		Utility: &Utility{ExpectedUtility: 0.75}}
	alip := Certificate{Objective: "expected-utility", Measure: "alip", Epsilon: math.Log(1.5) + 1e-12, ALIPLower: ptr(math.Log(2) + 1e-12),
		Budget: &Budget{EpsilonLower: 0.7, EpsilonUpper: 0.5}, Utility: &Utility{ExpectedUtility: 0.75}}
	noBudget := c
	noBudget.Budget = nil
	for _, tc := range []struct {
		name   string
		c      Certificate
		stated Stated
		ok     bool
	}{
		{"the same", c, Stated{Objective: "expected-utility", Measure: "pml", Budget: &Budget{Epsilon: 0.5}}, true},
		{"no objective, no budget stated", c, Stated{}, true},
		{"budget changed", c, Stated{Objective: "expected-utility", Measure: "pml", Budget: &Budget{Epsilon: 0.25}}, false},
		{"measure changed", c, Stated{Objective: "expected-utility", Measure: "ldp", Budget: &Budget{Epsilon: 0.5}}, false},
		{"objective changed", c, Stated{Objective: "worst-case-value", Measure: "pml", Budget: &Budget{Epsilon: 0.5}}, false},
		{"a budget the certificate lacks", noBudget, Stated{Measure: "pml", Budget: &Budget{Epsilon: 0.5}}, false},
		{"alip, the same", alip, Stated{Measure: "alip", Budget: &Budget{EpsilonLower: 0.7, EpsilonUpper: 0.5}}, true},
		{"alip, ε_l changed", alip, Stated{Measure: "alip", Budget: &Budget{EpsilonLower: 0.6, EpsilonUpper: 0.5}}, false},
	} {
		q := p
		q.Stated = &tc.stated
		cls := Check(q, tc.c)
		file := 0
		for _, cl := range cls {
			if cl.Name == ClaimFile {
				file++
				assert.Equal(t, tc.ok, cl.OK, "%s: %s", tc.name, cl)
			} else {
				assert.True(t, cl.OK, "%s: %s", tc.name, cl)
			}
		}
		assert.Equal(t, 1, file, tc.name)
	}
	for _, cl := range Check(p, c) {
		assert.NotEqual(t, ClaimFile, cl.Name, "a certificate apart from its file")
	}
}

func ptr(x float64) *float64 { return &x }

// TestReportedNumbers: the numbers a document reports beside a
// certificate pass when they are its own (the level as certificates
// round it up: ε + 2^-45·ε + 1e-12 above the reported ε) and fail when
// any of them moved, or when the certificate has no counterpart.
func TestReportedNumbers(t *testing.T) {
	p := Problem{Prior: []float64{0.5, 0.5}, Utility: [][]float64{{1, 0}, {0, 1}}, Mechanism: [][]float64{{0.75, 0.25}, {0.25, 0.75}}}
	eps := math.Log(1.5)
	c := Certificate{Objective: "expected-utility", Measure: "pml", Epsilon: eps + 0x1p-45*eps + 1e-12, Budget: &Budget{Epsilon: 0.5},
		Utility: &Utility{ExpectedUtility: 0.75}}
	f := func(x float64) *float64 { return &x }
	order := 2
	for _, tc := range []struct {
		name string
		r    Reported
		ok   bool
	}{
		{"the same", Reported{Level: f(eps), ExpectedUtility: f(0.75)}, true},
		{"nothing reported", Reported{}, true},
		{"a lower level", Reported{Level: f(eps - 1e-9)}, false},
		{"a level above the certificate's", Reported{Level: f(c.Epsilon + 1e-15)}, false},
		{"another utility", Reported{Level: f(eps), ExpectedUtility: f(0.85)}, false},
		{"a bound the certificate lacks", Reported{ExpectedUtilityBound: f(0.8)}, false},
		{"a lower end the certificate lacks", Reported{OptimalEpsilonLower: f(0.1)}, false},
		{"a worst case the certificate lacks", Reported{WorstCaseOrder: &order}, false},
	} {
		q := p
		q.Reported = &tc.r
		n := 0
		for _, cl := range Check(q, c) {
			if cl.Name == ClaimReported {
				n++
				assert.Equal(t, tc.ok, cl.OK, "%s: %s", tc.name, cl)
			} else {
				assert.True(t, cl.OK, "%s: %s", tc.name, cl)
			}
		}
		assert.Equal(t, 1, n, tc.name)
	}
}

// TestUnreachable: the claim that no budget reaches a pattern over a set
// holds exactly when some letter may only use outputs whose allowed
// inputs A_j can get mass 0 in the set, which for priors of total 1 is
// π̂(A_j) ≤ r/2 over an L1 ball of radius r (A_j not every letter) and
// Σ_{A_j} l = 0 with
// Σ_{not A_j} u ≥ 1 over a box, computed here from those formulas.
func TestUnreachable(t *testing.T) {
	prior := []float64{0.5, 0.25, 0.125, 0.125}
	pats := [][][]bool{
		{{true, true, false}, {true, true, false}, {false, true, true}, {false, false, true}},
		{{true, false, false}, {true, true, false}, {false, true, true}, {false, true, true}},
		{{true, true, true}, {true, true, true}, {true, true, true}, {true, true, true}},
	}
	zeroBall := func(r float64, a []int) bool {
		m := 0.0
		for _, i := range a {
			m += prior[i]
		}
		return len(a) < len(prior) && m <= r/2 // the mass must go to the other letters
	}
	zeroBox := func(l, u []float64, a []int) bool {
		in := map[int]bool{}
		rest := 0.0
		for _, i := range a {
			in[i] = true
			if l[i] != 0 {
				return false
			}
		}
		for i := range prior {
			if !in[i] {
				rest += u[i]
			}
		}
		return rest >= 1
	}
	want := func(pat [][]bool, zero func([]int) bool) bool {
		for i := range pat {
			all := true
			for j, ok := range pat[i] {
				if !ok {
					continue
				}
				var a []int
				for k := range pat {
					if pat[k][j] {
						a = append(a, k)
					}
				}
				all = all && zero(a)
			}
			if all {
				return true
			}
		}
		return false
	}
	checked, yes := 0, 0
	for _, pat := range pats {
		for _, r := range []float64{0, 0.25, 0.3, 0.5, 1, 2} {
			radius := r
			got := Unreachable(Problem{Prior: prior, PriorSet: &PriorSet{L1Radius: &radius}}, pat)
			w := want(pat, func(a []int) bool { return zeroBall(r, a) })
			last := got[len(got)-1]
			assert.Equal(t, ClaimUnreachable, last.Name)
			assert.Equal(t, w, last.OK, "ball %g, pattern %v: %s", r, pat, last)
			checked++
			if w {
				yes++
			}
		}
		for _, l := range [][]float64{{0.4, 0, 0, 0}, {0.4, 0.2, 0.1, 0}, {0, 0, 0, 0}} {
			u := []float64{0.6, 0.4, 0.3, 0.3}
			got := Unreachable(Problem{Prior: prior, PriorSet: &PriorSet{Lower: l, Upper: u}}, pat)
			w := want(pat, func(a []int) bool { return zeroBox(l, u, a) })
			last := got[len(got)-1]
			assert.Equal(t, w, last.OK, "box %v, pattern %v: %s", l, pat, last)
			checked++
			if w {
				yes++
			}
		}
	}
	assert.Equal(t, 27, checked)
	assert.Positive(t, yes)
	assert.Less(t, yes, checked)
	got := Unreachable(Problem{Prior: prior}, pats[0])
	assert.False(t, got[len(got)-1].OK, "without a set")
}
