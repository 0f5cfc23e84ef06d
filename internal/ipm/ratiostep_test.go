package ipm

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
)

// gridRestricted returns a w×h location grid's uniform prior and its
// Euclidean utility restricted to the k outputs of largest expected
// utility, the first restricted problem of package expected's active set.
func gridRestricted(t *testing.T, w, h, k int) (mech.Prior, mech.Utility) {
	t.Helper()
	pi, u, err := instance.GridProblem(w, h, "uniform")
	if err != nil {
		t.Fatal(err)
	}
	n, m := u.Dims()
	val := make([]float64, m)
	for i := range n {
		for j := range m {
			val[j] += pi[i] * u[i][j]
		}
	}
	idx := make([]int, m)
	for j := range idx {
		idx[j] = j
	}
	slices.SortStableFunc(idx, func(a, c int) int {
		switch {
		case val[a] > val[c]:
			return -1
		case val[a] < val[c]:
			return 1
		}
		return 0
	})
	set := slices.Clone(idx[:k])
	slices.Sort(set)
	sub := make(mech.Utility, n)
	for i := range n {
		for _, j := range set {
			sub[i] = append(sub[i], u[i][j])
		}
	}
	return pi, sub
}

// TestStepsStayInterior runs SolveRatio's iterations on the restricted
// 20×20 grid of 16 outputs under ε-LIP and (ε, ε/2)-ALIP, ε = 1 (6 400
// pairs), with both Newton systems, to their end: no slack or multiplier
// of the last point is 0 (a step landing on the boundary leaves the next
// Newton system a division by 0, and the iterations end there on a
// singular output block), the point is audited within the budget, its
// bracket is narrower than 1e-9 of the value, and the two Newton systems
// find the same value to 1e-9.
func TestStepsStayInterior(t *testing.T) {
	pi, u := gridRestricted(t, 20, 20, 16)
	for _, b := range []mech.Budget{{Measure: mech.LIP, Epsilon: 1}, {Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 0.5}} {
		p := RatioProblem{Prior: pi, Utility: u, Budget: b}
		form, err := p.form()
		if err != nil {
			t.Fatal(err)
		}
		var values []float64
		for _, low := range []bool{false, true} {
			w := newWorkspace(p.Prior, p.Utility, allPairs(u.Dims()), form)
			w.lowRank = low
			r := w.bestPoint(context.Background(), 200, DefaultGap, func() *Result { return w.ratioResult(p) })
			for k := range w.p {
				if !(w.r[k] > 0 && w.s[k] > 0 && w.z[k] > 0 && w.w[k] > 0) {
					t.Fatalf("%s, low rank %v: pair %d ends at r %g, s %g, z %g, w %g", b.Measure, low, k, w.r[k], w.s[k], w.z[k], w.w[k])
				}
			}
			if r == nil {
				t.Fatalf("%s, low rank %v: no point", b.Measure, low)
			}
			scale := math.Max(1, math.Abs(r.Value))
			if !ratioMeets(p.Prior, r.Mechanism, b, 0) || !(r.Bound >= r.Value) || r.Bound-r.Value > 1e-9*scale {
				t.Fatalf("%s, low rank %v: [%.15g, %.15g], or the mechanism fails the audit", b.Measure, low, r.Value, r.Bound)
			}
			values = append(values, r.Value)
		}
		if math.Abs(values[0]-values[1]) > 1e-9*math.Max(1, math.Abs(values[0])) {
			t.Fatalf("%s: dense %.15g, low rank %.15g", b.Measure, values[0], values[1])
		}
	}
}
