package ipm

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// gridRatioProblem is a w×w Euclidean location grid whose outputs are
// every stride-th cell in both directions (the shape of the active set's
// restricted problems), under budget b.
func gridRatioProblem(t *testing.T, w, stride int, prior string, b mech.Budget) RatioProblem {
	t.Helper()
	pi, err := instance.GridPrior(w, w, prior)
	if err != nil {
		t.Fatal(err)
	}
	var outs [][2]int
	for y := stride / 2; y < w; y += stride {
		for x := stride / 2; x < w; x += stride {
			outs = append(outs, [2]int{x, y})
		}
	}
	u := make(mech.Utility, w*w)
	for i := range u {
		u[i] = make([]float64, len(outs))
		for c, o := range outs {
			dx, dy := float64(i%w-o[0]), float64(i/w-o[1])
			u[i][c] = -math.Sqrt(dx*dx + dy*dy)
		}
	}
	return RatioProblem{Prior: normalised(pi), Utility: u, Budget: b}
}

// ratioPoint runs SolveRatio's iterations on p up to the relative gap and
// returns the observed point, mixed into the budget, with its face.
func ratioPoint(t *testing.T, p RatioProblem, gap float64, lowRank bool) *Result {
	t.Helper()
	form, err := p.form()
	if err != nil {
		t.Fatal(err)
	}
	n, m := p.Utility.Dims()
	w := newWorkspace(p.Prior, p.Utility, allPairs(n, m), form)
	w.lowRank = lowRank
	r := w.bestPoint(context.Background(), 200, gap, func() *Result { return w.ratioResult(p) })
	if r == nil || r.face == nil {
		t.Fatal("no interior point")
	}
	return r
}

// auditRatio checks P independently of the package's own audit: rows
// summing to 1, no negative entry, and the budget met without slack under
// package leakage.
func auditRatio(t *testing.T, name string, pi mech.Prior, P mech.Mechanism, b mech.Budget) {
	t.Helper()
	for i, row := range P {
		s := 0.0
		for j, v := range row {
			if !(v >= 0) {
				t.Fatalf("%s: entry (%d, %d) is %g", name, i, j, v)
			}
			s += v
		}
		if math.Abs(s-1) > certify.RowSumTol {
			t.Fatalf("%s: row %d sums to 1%+.3g", name, i, s-1)
		}
	}
	switch b.Measure {
	case mech.LIP:
		if a := leakage.LIP(pi, P); a > b.Epsilon {
			t.Fatalf("%s: LIP %.17g above %g", name, a, b.Epsilon)
		}
	case mech.ALIP:
		if lo, up := leakage.ALIP(pi, P); lo > b.EpsilonLower || up > b.EpsilonUpper {
			t.Fatalf("%s: ALIP (%.17g, %.17g) above (%g, %g)", name, lo, up, b.EpsilonLower, b.EpsilonUpper)
		}
	case mech.LDP:
		if a := leakage.LDP(pi, P); a > b.Epsilon {
			t.Fatalf("%s: LDP %.17g above %g", name, a, b.Epsilon)
		}
	}
}

// ratioBudgets are the budgets of the location-grid study.
var ratioBudgets = []mech.Budget{
	{Measure: mech.LIP, Epsilon: 1},
	{Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 0.5},
	{Measure: mech.LDP, Epsilon: 1},
}

// TestPurifiedRatioVertexMatchesTheLP: from points whose iterations were
// stopped at a relative gap of 1e-6, where mixing the point into the
// budget costs about that much, the purified vertex is audited without
// slack and worth the LP's optimum (package polytope's formulation, the
// revised backend) to 1e-9, on location grids of both priors under LIP,
// ALIP and LDP.
func TestPurifiedRatioVertexMatchesTheLP(t *testing.T) {
	for _, c := range []struct {
		w, stride int
		prior     string
	}{{4, 1, "uniform"}, {4, 1, "clustered"}, {6, 2, "clustered"}} {
		for _, b := range ratioBudgets {
			p := gridRatioProblem(t, c.w, c.stride, c.prior, b)
			name := c.prior + " " + string(b.Measure)
			want := ratioLP(t, p)
			r := ratioPoint(t, p, 1e-6, false)
			v, err := purifiedRatioVertex(p, r)
			if err != nil {
				t.Fatalf("%s %dx%d: %v", name, c.w, c.w, err)
			}
			auditRatio(t, name, p.Prior, v.Mechanism, b)
			if math.Abs(v.Value-want) > 1e-9 || math.Abs(p.Utility.ExpectedUtility(p.Prior, v.Mechanism)-v.Value) > 0 {
				t.Fatalf("%s %dx%d: vertex %.13g, LP %.13g (point %.13g)", name, c.w, c.w, v.Value, want, r.Value)
			}
		}
	}
}

// TestPurifiedRatioVertexRandom: the purification from certified points of
// random instances (ties, prior floors, budgets from 0.01 to 10 nats) is
// audited without slack and worth the LP's optimum to 1e-8 relative (the
// LP engine's own resolution, as in TestSolveRatioMatchesTheLP), or
// refused; it is refused on few of them.
func TestPurifiedRatioVertexRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	refused := 0
	const trials = 150
	for trial := range trials {
		n, m := 1+rng.IntN(10), 1+rng.IntN(10)
		pi := randinst.Prior(rng, n, []float64{0, 0.001, 0.05}[trial%3])
		u := randinst.Utility(rng, n, m, []int{0, 3}[trial%2])
		eps := []float64{0.01, 0.5, 2, 5, 10}[trial%5]
		b := []mech.Budget{
			{Measure: mech.LIP, Epsilon: eps},
			{Measure: mech.ALIP, EpsilonLower: eps, EpsilonUpper: eps * (0.1 + rng.Float64())},
			{Measure: mech.LDP, Epsilon: eps},
		}[trial%3]
		p := RatioProblem{Prior: normalised(pi), Utility: u, Budget: b}
		if form, _ := p.form(); form.kappa == 1 || (form.marg && (form.mu == 1 || form.kappa == form.mu)) {
			continue
		}
		r := ratioPoint(t, p, DefaultGap, false)
		v, err := purifiedRatioVertex(p, r)
		if err != nil {
			refused++
			continue
		}
		auditRatio(t, "random", p.Prior, v.Mechanism, b)
		if want := ratioLP(t, p); math.Abs(v.Value-want) > 1e-8*math.Max(1, math.Abs(want)) {
			t.Fatalf("trial %d (%+v): vertex %.12g, LP %.12g", trial, b, v.Value, want)
		}
	}
	if refused > trials/10 {
		t.Fatalf("%d of %d purifications refused", refused, trials)
	}
}

// TestSolveRatioGridValue: SolveRatio on location grids, its iterations
// stopped at a relative gap of 1e-6 (Options.Gap), returns a mechanism
// worth the LP's optimum to 1e-9: the vertex of the point's face, not the
// point mixed into the budget (which falls short by 1e-8 and more here).
func TestSolveRatioGridValue(t *testing.T) {
	for _, c := range []struct {
		w, stride int
		prior     string
		b         mech.Budget
	}{{6, 2, "clustered", ratioBudgets[0]}, {9, 3, "clustered", ratioBudgets[2]}} {
		p := gridRatioProblem(t, c.w, c.stride, c.prior, c.b)
		want := ratioLP(t, p)
		r, err := SolveRatio(p, Options{Gap: 1e-6})
		if err != nil {
			t.Fatalf("%s: %v", c.b.Measure, err)
		}
		auditRatio(t, string(c.b.Measure), p.Prior, r.Mechanism, c.b)
		if math.Abs(r.Value-want) > 1e-9 || r.Bound < want-1e-9 {
			t.Fatalf("%s: [%.13g, %.13g], LP %.13g", c.b.Measure, r.Value, r.Bound, want)
		}
	}
}

// TestSolveRatioTreeRefusesCycles: a face whose free pairs close a cycle
// is not a vertex, and one whose equations do not fix the caps neither.
func TestSolveRatioTreeRefusesCycles(t *testing.T) {
	form := capForm{marg: true, mu: math.Exp(-1), kappa: math.Exp(-2)}
	pi := []float64{0.5, 0.5}
	F := ratioFree
	if _, err := solveRatioTree(pi, form, [][]int8{{F, F}, {F, F}}); err == nil {
		t.Fatal("a 4-cycle of free pairs taken as a vertex")
	}
	ldp := capForm{kappa: math.Exp(-1)}
	if _, err := solveRatioTree(pi, ldp, [][]int8{{F, F}, {ratioUpper, ratioLower}}); err == nil {
		t.Fatal("an LDP row with two free pairs taken as a vertex")
	}
}
