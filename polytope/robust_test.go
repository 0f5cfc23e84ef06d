package polytope_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

func robustInstance(r *rand.Rand, n, m int) (mech.Prior, mech.Utility) {
	pi := make(mech.Prior, n)
	for i := range pi {
		pi[i] = 0.05 + r.Float64()
	}
	mech.Normalise(pi)
	u := make(mech.Utility, n)
	for i := range u {
		u[i] = make([]float64, m)
		for j := range u[i] {
			u[i][j] = r.Float64()
		}
	}
	return pi, u
}

func solveLP(t *testing.T, m *lp.Model) *solver.Solution {
	t.Helper()
	sol, err := solver.Revised().Solve(m)
	if err != nil || sol.Status != solver.Optimal {
		t.Fatalf("LP: %v %+v", err, sol)
	}
	return sol
}

func robustOptimum(t *testing.T, s polytope.Spec, set *mech.PriorSet) (float64, mech.Mechanism) {
	t.Helper()
	mod, err := polytope.BuildRobust(s, set)
	if err != nil {
		t.Fatal(err)
	}
	sol, _, err := solver.SolveContext(context.Background(), solver.Revised(), mod.LP, solver.Start{CostScale: mod.CostScale()})
	if err != nil || sol.Status != solver.Optimal {
		t.Fatalf("LP: %v %+v", err, sol)
	}
	return sol.Objective, mod.Mechanism(sol.X)
}

func pointOptimum(t *testing.T, s polytope.Spec) float64 {
	t.Helper()
	mod, err := polytope.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	return solveLP(t, mod.LP).Objective
}

func budgets(r *rand.Rand) []mech.Budget {
	e := 0.1 + r.Float64()
	return []mech.Budget{
		{Measure: mech.PML, Epsilon: e},
		{Measure: mech.LIP, Epsilon: e},
		{Measure: mech.ALIP, EpsilonLower: e, EpsilonUpper: 0.1 + r.Float64()},
	}
}

// A set holding only the estimate gives the nominal optimum; the whole
// simplex gives the LDP optimum (the supremum of PML over all priors is
// LDP, Saeidian et al. (2023); LIP over all priors is LDP as well).
func TestRobustLimits(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 4))
	for trial := range 30 {
		n, m := 2+r.IntN(4), 2+r.IntN(4)
		pi, u := robustInstance(r, n, m)
		point, _ := mech.NewBoxSet(pi, pi, pi)
		ball0, _ := mech.NewL1Set(pi, 0)
		ball2, _ := mech.NewL1Set(pi, 2)
		for _, b := range budgets(r) {
			s := polytope.Spec{Prior: pi, Budget: b, Objective: polytope.ExpectedUtility, Utility: u}
			want := pointOptimum(t, s)
			for _, set := range []*mech.PriorSet{point, ball0} {
				got, p := robustOptimum(t, s, set)
				if math.Abs(got-want) > 1e-9 {
					t.Fatalf("trial %d %v, set {π̂} (box %v): robust %.12g, nominal %.12g", trial, b, set.IsBox(), got, want)
				}
				auditOver(t, set, p, b)
			}
			if b.Measure == mech.ALIP {
				continue
			}
			ldp := pointOptimum(t, polytope.Spec{Prior: pi, Budget: mech.Budget{Measure: mech.LDP, Epsilon: b.Epsilon}, Objective: polytope.ExpectedUtility, Utility: u})
			for _, set := range []*mech.PriorSet{mech.Simplex(pi), ball2} {
				got, p := robustOptimum(t, s, set)
				if math.Abs(got-ldp) > 1e-9 {
					t.Fatalf("trial %d %v over the simplex (box %v): robust %.12g, LDP optimum %.12g", trial, b, set.IsBox(), got, ldp)
				}
				if l := leakage.LDP(pi, p); l > b.Epsilon+1e-7 {
					t.Fatalf("trial %d: the robust mechanism over the simplex has LDP %g > %g", trial, l, b.Epsilon)
				}
			}
		}
	}
}

// auditOver checks that p keeps b for every prior of the set.
func auditOver(t *testing.T, set *mech.PriorSet, p mech.Mechanism, b mech.Budget) {
	t.Helper()
	for i, row := range p {
		s := 0.0
		for _, v := range row {
			s += v
		}
		if math.Abs(s-1) > 1e-7 {
			t.Fatalf("row %d sums to %g", i, s)
		}
	}
	const tol = 1e-6
	switch b.Measure {
	case mech.PML:
		if v := leakage.PMLOver(set, p); v > b.Epsilon+tol {
			t.Fatalf("PML over the set %g > %g", v, b.Epsilon)
		}
	case mech.LIP:
		if v := leakage.LIPOver(set, p); v > b.Epsilon+tol {
			t.Fatalf("LIP over the set %g > %g", v, b.Epsilon)
		}
	case mech.ALIP:
		if l, u := leakage.ALIPOver(set, p); l > b.EpsilonLower+tol || u > b.EpsilonUpper+tol {
			t.Fatalf("ALIP over the set (%g, %g) > (%g, %g)", l, u, b.EpsilonLower, b.EpsilonUpper)
		}
	}
}

func randomSet(r *rand.Rand, pi mech.Prior, box bool) *mech.PriorSet {
	n := len(pi)
	if !box {
		s, _ := mech.NewL1Set(pi, 0.6*r.Float64())
		return s
	}
	lo, up := make([]float64, n), make([]float64, n)
	for k := range n {
		lo[k] = pi[k] * r.Float64()
		up[k] = math.Min(1, pi[k]*(1+2*r.Float64()))
	}
	s, _ := mech.NewBoxSet(pi, lo, up)
	return s
}

// cuttingPlane solves the robust problem under the budget b (PML, LIP or
// ALIP) without duality: the LP at the estimate's weights with p_ij ≤
// e^{ε_u} Σ_k π_k p_kj for a growing list of priors π, each the worst
// prior of a column of the last solution (PriorSet.Extreme), and under
// LIP and ALIP p_ij ≥ e^{−ε_l} Σ_k π_k p_kj for the columns' most massive
// priors, until the solution keeps b over the set. The set's extreme
// points are finitely many, so this ends.
func cuttingPlane(t *testing.T, pi mech.Prior, u mech.Utility, b mech.Budget, set *mech.PriorSet) float64 {
	t.Helper()
	n, m := len(u), len(u[0])
	x := &lp.Model{Maximize: true}
	col := make([][]int, n)
	for i := range n {
		col[i] = make([]int, m)
		var es []lp.Nonzero
		for j := range m {
			col[i][j] = x.AddCol(pi[i]*u[i][j], 0, 1, "")
			es = append(es, lp.Entry(col[i][j], 1))
		}
		x.AddRow(1, 1, "", es...)
	}
	up, low := b.Epsilon, b.Epsilon
	if b.Measure == mech.ALIP {
		up, low = b.EpsilonUpper, b.EpsilonLower
	}
	floors := b.Measure != mech.PML
	// cut adds, for output j and the prior, p_ij − r Σ_k π_k p_kj ≤ 0
	// (r = e^{ε_u}) or ≥ 0 (r = e^{−ε_l}, floor).
	cut := func(j int, prior []float64, r float64, floor bool) {
		for i := range n {
			es := []lp.Nonzero{}
			for k := range n {
				c := -r * prior[k]
				if k == i {
					c++
				}
				if c != 0 {
					es = append(es, lp.Entry(col[k][j], c))
				}
			}
			if floor {
				x.AddRow(0, lp.Inf, "", es...)
			} else {
				x.AddRow(-lp.Inf, 0, "", es...)
			}
		}
	}
	for j := range m {
		cut(j, pi, math.Exp(up), false)
		if floors {
			cut(j, pi, math.Exp(-low), true)
		}
	}
	for round := 0; round < 500; round++ {
		sol := solveLP(t, x)
		p := make(mech.Mechanism, n)
		for i := range p {
			p[i] = make([]float64, m)
			for j := range m {
				p[i][j] = sol.X[col[i][j]]
			}
		}
		if _, _, excess := leakage.LevelOver(set, p, b); excess <= 1e-9 {
			return sol.Objective
		}
		for j := range m {
			c := make([]float64, n)
			for i := range c {
				c[i] = p[i][j]
			}
			cut(j, set.Extreme(c, false), math.Exp(up), false)
			if floors {
				cut(j, set.Extreme(c, true), math.Exp(-low), true)
			}
		}
	}
	t.Fatal("cutting planes did not converge")
	return 0
}

// On random boxes and balls the dualised model has the optimum of an
// independent cutting-plane solve, and its mechanism keeps the budget for
// every prior of the set.
func TestRobustAgainstCuttingPlanes(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 5))
	for trial := range 40 {
		n, m := 2+r.IntN(4), 2+r.IntN(4)
		pi, u := robustInstance(r, n, m)
		set := randomSet(r, pi, trial%2 == 0)
		eps := 0.05 + r.Float64()
		b := mech.Budget{Measure: mech.PML, Epsilon: eps}
		got, p := robustOptimum(t, polytope.Spec{Prior: pi, Budget: b, Objective: polytope.ExpectedUtility, Utility: u}, set)
		auditOver(t, set, p, b)
		want := cuttingPlane(t, pi, u, b, set)
		if math.Abs(got-want) > 1e-7 {
			t.Fatalf("trial %d (box %v): dualised %.12g, cutting planes %.12g", trial, set.IsBox(), got, want)
		}
		if nominal := pointOptimum(t, polytope.Spec{Prior: pi, Budget: b, Objective: polytope.ExpectedUtility, Utility: u}); got > nominal+1e-9 {
			t.Fatalf("trial %d: robust optimum %g above the nominal %g", trial, got, nominal)
		}
		for _, bb := range budgets(r)[1:] {
			_, p := robustOptimum(t, polytope.Spec{Prior: pi, Budget: bb, Objective: polytope.ExpectedUtility, Utility: u}, set)
			auditOver(t, set, p, bb)
		}
	}
}

// At 8 to 16 nats over boxes whose lower ends are 0 on a binomial prior
// (letters down to 1e-3 of mass), where the model's least masses and
// their dual variables, and LIP's floors, are scaled by up to 1e6, the
// dualised model has the optimum of the independent cutting planes (whose
// cuts bound p_ij directly, with no least mass between), and its
// mechanism keeps the budget over the set to the audit's tolerance. At 12
// letters (masses down to 2.4e-4) every engine solves the model at its
// cost scale (RobustModel.CostScale), which this case needs: at the costs
// as written, a reduced cost within an engine's tolerance on a column
// scaled by e^12 is worth up to e^12 times that tolerance of objective.
func TestRobustAgainstCuttingPlanesAtLargeBudgets(t *testing.T) {
	const n = 8
	in := familyInstance(t, "counting-binomial", n, 1)
	for _, hi := range []float64{1.5, 3} {
		set := zeroFloorBox(t, in.Prior, hi)
		// LIP's floors at 12 nats and beyond lie below the engine's
		// tolerance in the cutting planes' rows, which then cut forever.
		for _, b := range []mech.Budget{{Measure: mech.PML, Epsilon: 8}, {Measure: mech.PML, Epsilon: 12}, {Measure: mech.PML, Epsilon: 16}, {Measure: mech.LIP, Epsilon: 8}} {
			got, p := robustOptimum(t, polytope.Spec{Prior: in.Prior, Budget: b, Objective: polytope.ExpectedUtility, Utility: in.Utility}, set)
			// to the audit's tolerance, as Solve holds an answer
			if level, lower, excess := leakage.LevelOver(set, p, b); excess > certify.AuditTol {
				t.Fatalf("box [0, %gπ̂], %v: levels (%.12g, %.12g) over the set", hi, b, level, lower)
			}
			if want := cuttingPlane(t, in.Prior, in.Utility, b, set); math.Abs(got-want) > 1e-10 {
				t.Fatalf("box [0, %gπ̂], %v: dualised %.15g, cutting planes %.15g", hi, b, got, want)
			}
		}
	}

	in = familyInstance(t, "counting-binomial", 12, 1)
	set := zeroFloorBox(t, in.Prior, 1.5)
	b := mech.Budget{Measure: mech.PML, Epsilon: 12}
	s := polytope.Spec{Prior: in.Prior, Budget: b, Objective: polytope.ExpectedUtility, Utility: in.Utility}
	want := cuttingPlane(t, in.Prior, in.Utility, b, set)
	for name, sol := range everyEngine(t, s, set) {
		if math.Abs(sol.Objective-want) > 1e-10 {
			t.Errorf("12 letters, %v, %s: dualised %.15g, cutting planes %.15g", b, name, sol.Objective, want)
		}
	}
}

// everyEngine solves BuildRobust's LP of s over set with every engine
// built in, at its cost scale as package overset solves it, and returns
// the optimal solutions by engine; an engine that refuses the model's
// size is left out.
func everyEngine(t *testing.T, s polytope.Spec, set *mech.PriorSet) map[string]*solver.Solution {
	t.Helper()
	mod, err := polytope.BuildRobust(s, set)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*solver.Solution{}
	for _, name := range solver.Names() {
		sv, err := solver.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		sol, _, err := solver.SolveContext(context.Background(), sv, mod.LP, solver.Start{CostScale: mod.CostScale()})
		if errors.Is(err, solver.ErrTooLarge) {
			continue // the reference engine's dense tableau
		}
		if err != nil || sol.Status != solver.Optimal {
			t.Fatalf("%s: %v %+v", name, err, sol)
		}
		out[name] = sol
	}
	return out
}

// zeroFloorBox is the box [0, hi·π̂] (each upper end at most 1).
func zeroFloorBox(t *testing.T, pi mech.Prior, hi float64) *mech.PriorSet {
	t.Helper()
	lo, up := make([]float64, len(pi)), make([]float64, len(pi))
	for k, v := range pi {
		up[k] = math.Min(1, hi*v)
	}
	set, err := mech.NewBoxSet(pi, lo, up)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// With a zero pattern the forbidden pairs stay zero and the budget holds
// over the set.
func TestRobustPattern(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 6))
	for trial := range 20 {
		n, m := 3, 3
		pi, u := robustInstance(r, n, m)
		pat := u.Order().Pattern(2)
		set := randomSet(r, pi, trial%2 == 0)
		b := mech.Budget{Measure: mech.PML, Epsilon: 2 + r.Float64()}
		mod, err := polytope.BuildRobust(polytope.Spec{Prior: pi, Budget: b, Pattern: pat}, set)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := solver.Revised().Solve(mod.LP)
		if err != nil {
			t.Fatal(err)
		}
		if sol.Status != solver.Optimal {
			continue // no mechanism with the pattern at this budget over the set
		}
		p := mod.Mechanism(sol.X)
		if !pat.Holds(p) {
			t.Fatalf("trial %d: pattern broken: %v", trial, p)
		}
		auditOver(t, set, p, b)
	}
}

// A cut model over the set {π̂} is the LP at the estimate: its optimum is
// the nominal one and Separate finds nothing to cut; over a box the first
// LP's point breaks some column's constraint and Separate adds its worst
// prior as a row. LDP, which does not depend on the prior, has no cut
// model.
func TestCutModel(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 14))
	pi, u := robustInstance(r, 5, 4)
	s := polytope.Spec{Prior: pi, Budget: mech.Budget{Measure: mech.PML, Epsilon: 0.5}, Objective: polytope.ExpectedUtility, Utility: u}
	point, _ := mech.NewBoxSet(pi, pi, pi)
	c, err := polytope.BuildCuts(s, point)
	if err != nil {
		t.Fatal(err)
	}
	sol := solveLP(t, c.LP)
	if want := pointOptimum(t, s); math.Abs(sol.Objective-want) > 1e-9 {
		t.Fatalf("cut model at {π̂}: %.12g, nominal %.12g", sol.Objective, want)
	}
	if added, uncut := c.Separate(sol.X); added != 0 || uncut != 0 {
		t.Fatalf("at {π̂}: %d cuts added, %d left", added, uncut)
	}
	wide, _ := mech.NewBoxSet(pi, make([]float64, len(pi)), []float64{1, 1, 1, 1, 1})
	c, err = polytope.BuildCuts(s, wide)
	if err != nil {
		t.Fatal(err)
	}
	rows := c.LP.NumRows()
	sol = solveLP(t, c.LP)
	added, _ := c.Separate(sol.X)
	if added == 0 || c.LP.NumRows() != rows+added {
		t.Fatalf("over the simplex: %d cuts, rows %d → %d", added, rows, c.LP.NumRows())
	}
	if leakage.PMLOver(wide, c.Mechanism(sol.X)) <= 0.5+1e-6 {
		t.Fatal("the first point keeps the budget over the simplex: nothing for the test to cut")
	}
	s.Budget = mech.Budget{Measure: mech.LDP, Epsilon: 0.5}
	if _, err := polytope.BuildCuts(s, wide); err == nil {
		t.Fatal("BuildCuts took an ldp budget")
	}
}

// A ball around an estimate whose total is 1 − 5e-10 (the problem files
// allow 1e-9) holds the moves of mass from the estimate. At radius 0 it is
// the estimate alone, so the robust optimum is the nominal one for every
// engine, though no prior of total exactly 1 lies within the radius (an
// LP that asks for one is unbounded, and Clp finds its ray).
func TestRobustBallAroundAnInexactEstimate(t *testing.T) {
	in := familyInstance(t, "counting-binomial", 4, 1)
	pi := slices.Clone(in.Prior)
	for i := range pi {
		pi[i] *= 1 - 5e-10
	}
	ball0, err := mech.NewL1Set(pi, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []mech.Budget{{Measure: mech.PML, Epsilon: 1}, {Measure: mech.LIP, Epsilon: 1}} {
		s := polytope.Spec{Prior: pi, Budget: b, Objective: polytope.ExpectedUtility, Utility: in.Utility}
		want := pointOptimum(t, s)
		for name, sol := range everyEngine(t, s, ball0) {
			if math.Abs(sol.Objective-want) > 1e-9 {
				t.Fatalf("%v, %s: robust %.12g over the ball of radius 0, nominal %.12g", b, name, sol.Objective, want)
			}
		}
	}
}

// The gonum backend on a dualised model over an L1 ball whose optimal
// vertex is degenerate: its own Bland rule cycled there for ever; it now
// ends, at the revised backend's optimum.
func TestRobustGonumOnADegenerateBall(t *testing.T) {
	in := familyInstance(t, "random", 6, 3)
	ball, err := mech.NewL1Set(in.Prior, 1)
	if err != nil {
		t.Fatal(err)
	}
	s := polytope.Spec{Prior: in.Prior, Budget: mech.Budget{Measure: mech.PML, Epsilon: 0.3}, Objective: polytope.ExpectedUtility, Utility: in.Utility}
	mod, err := polytope.BuildRobust(s, ball)
	if err != nil {
		t.Fatal(err)
	}
	want := solveLP(t, mod.LP).Objective
	got, err := solver.Gonum().Solve(mod.LP)
	if err != nil || got.Status != solver.Optimal {
		t.Fatalf("gonum: %v %+v", err, got)
	}
	if math.Abs(got.Objective-want) > 1e-9 {
		t.Fatalf("gonum %.12g, revised %.12g", got.Objective, want)
	}
	auditOver(t, ball, mod.Mechanism(got.X), s.Budget)
}

func familyInstance(t *testing.T, name string, n int, seed uint64) instance.Instance {
	t.Helper()
	f, err := instance.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.New(n, seed)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// The cut model solved to convergence over random boxes and balls: the
// priors Proof reads off its duals lie in the set, and with the
// multipliers of the rows Σ_j p_ij = 1 they prove (ipm.RobustBound under
// PML, ipm.RobustBoundTwo with the caps' totals under LIP and ALIP) the
// LP's optimum, which is the robust optimum (the dualised model's), to
// 1e-9.
func TestCutModelProof(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 15))
	for trial := range 12 {
		n, m := 2+r.IntN(4), 2+r.IntN(4)
		pi, u := robustInstance(r, n, m)
		set := randomSet(r, pi, trial%2 == 0)
		for _, b := range budgets(r) {
			s := polytope.Spec{Prior: pi, Budget: b, Objective: polytope.ExpectedUtility, Utility: u}
			want, _ := robustOptimum(t, s, set)
			c, err := polytope.BuildCuts(s, set)
			if err != nil {
				t.Fatal(err)
			}
			var sol *solver.Solution
			for range 50 {
				sol = solveLP(t, c.LP)
				if added, _ := c.Separate(sol.X); added == 0 {
					break
				}
			}
			pr, ok := c.Proof(sol.X, sol.RowDuals, sol.ColDuals)
			if !ok {
				t.Fatalf("trial %d %v: no proof", trial, b)
			}
			for j := range m {
				for _, q := range [][][]float64{pr.Up, pr.Down} {
					if q != nil && !set.Contains(q[j], 1e-9) {
						t.Fatalf("trial %d %v: output %d's prior %v is not in the set", trial, b, j, q[j])
					}
				}
			}
			var bound float64
			if b.Measure == mech.PML {
				cands := make([][][]float64, m)
				for j := range cands {
					cands[j] = [][]float64{pr.Up[j]}
				}
				bound, _ = ipm.RobustBound(pi, u, b, pr.Alpha, cands)
			} else {
				bound = ipm.RobustBoundTwo(pi, u, b, pr.Alpha, pr.Up, pr.Down, pr.Totals)
			}
			if math.Abs(bound-want) > 1e-9 || math.Abs(sol.Objective-want) > 1e-9 {
				t.Fatalf("trial %d %v (box %v): bound %.12g from the duals, cut LP %.12g, robust optimum %.12g", trial, b, set.IsBox(), bound, sol.Objective, want)
			}
		}
	}
}
