package ipm

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

// countingQuery is the utility of a counting query on n letters 0..n−1:
// −(x−y)² − [y < x] (an undercount costs one more than an overcount).
func countingQuery(n int) mech.Utility {
	u := make(mech.Utility, n)
	for i := range n {
		u[i] = make([]float64, n)
		for j := range n {
			d := float64(i - j)
			u[i][j] = -d * d
			if j < i {
				u[i][j]--
			}
		}
	}
	return u
}

// gridEuclid is the utility of a k×k grid of cells, released as a cell:
// minus the Euclidean distance between the cells.
func gridEuclid(k int) mech.Utility {
	n := k * k
	u := make(mech.Utility, n)
	for i := range n {
		u[i] = make([]float64, n)
		for j := range n {
			a, b := float64(i/k-j/k), float64(i%k-j%k)
			u[i][j] = -math.Hypot(a, b)
		}
	}
	return u
}

func uniformPrior(n int) mech.Prior {
	p := make(mech.Prior, n)
	for i := range p {
		p[i] = 1 / float64(n)
	}
	return p
}

// checkVertex audits a result of Vertex: rows sum to 1, every entry is 0
// or at least certify.DustEntry, the PML is at most ε with no tolerance
// (at ε = 0 within auditRounding), the value is the mechanism's, the bound
// is UpperBound's for Alpha and brackets the value within the accepted gap,
// and the mechanism is a vertex of the ε-PML polytope (isVertex).
func checkVertex(t *testing.T, p Problem, r *Result) {
	t.Helper()
	p.Prior = normalised(p.Prior) // what Vertex works with
	for i, row := range r.Mechanism {
		s := 0.0
		for j, v := range row {
			if v != 0 && !(v >= certify.DustEntry) {
				t.Fatalf("p[%d][%d] = %g: dust", i, j, v)
			}
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			t.Fatalf("row %d sums to %.17g", i, s)
		}
	}
	if a := leakage.PML(p.Prior, r.Mechanism); a > p.Epsilon && (p.Epsilon > 0 || a > auditRounding) {
		t.Fatalf("PML %.17g exceeds the budget %g", a, p.Epsilon)
	}
	checkCertificate(t, p, r)
	if !isVertex(p.Prior, r.Mechanism, p.Epsilon) {
		t.Fatalf("the mechanism is not a vertex of the ε-PML polytope (ε = %g): %v prior %v", p.Epsilon, r.Mechanism, p.Prior)
	}
}

// isVertex reports whether P is a vertex of the ε-PML polytope in the
// variables (p, t) of Solve's LP: with the cap slacks s_ij = t_j − p_ij as
// variables, a point is a vertex iff the constraint columns of its positive
// variables are linearly independent, which (each positive slack being
// alone in its cap row) is the independence of the columns of the positive
// p_ij and t_j in the rows sum[i], marg[j] and the tight caps.
func isVertex(pi mech.Prior, P mech.Mechanism, eps float64) bool {
	n, m := P.Dims()
	q := make([]float64, m)
	for i, row := range P {
		for j, v := range row {
			q[j] += pi[i] * v
		}
	}
	col := map[[2]int]int{} // (i, j) for p_ij, (−1, j) for t_j
	var rows [][]struct {
		k [2]int
		v float64
	}
	type ent = struct {
		k [2]int
		v float64
	}
	for i, row := range P {
		var r []ent
		for j, v := range row {
			if v > 0 {
				col[[2]int{i, j}] = len(col)
				r = append(r, ent{[2]int{i, j}, 1})
			}
		}
		rows = append(rows, r)
	}
	lam := math.Exp(eps)
	for j := range m {
		if q[j] == 0 {
			continue
		}
		col[[2]int{-1, j}] = len(col)
		r := []ent{{[2]int{-1, j}, 1 / lam}}
		for i := range n {
			if P[i][j] > 0 {
				r = append(r, ent{[2]int{i, j}, -pi[i]})
				if P[i][j] >= lam*q[j]*(1-1e-9) {
					rows = append(rows, []ent{{[2]int{i, j}, 1}, {[2]int{-1, j}, -1}})
				}
			}
		}
		rows = append(rows, r)
	}
	if len(col) > len(rows) {
		return false
	}
	a := mat.NewDense(len(rows), len(col), nil)
	for r, es := range rows {
		for _, e := range es {
			a.Set(r, col[e.k], e.v)
		}
	}
	// Columns scaled to unit length: t_j's entry e^{−ε} in marg[j] would
	// otherwise pass for rank deficiency at large ε.
	for c := range len(col) {
		norm := mat.Norm(a.ColView(c), 2)
		for r := range len(rows) {
			a.Set(r, c, a.At(r, c)/norm)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDNone) {
		return false
	}
	s := svd.Values(nil)
	return s[len(s)-1] > 1e-10*s[0]
}

// lpVertex solves the full expected-utility LP of p with s and returns its
// optimum and its vertex.
func lpVertex(t *testing.T, s solver.Solver, p Problem) (float64, mech.Mechanism) {
	t.Helper()
	mod, err := polytope.Build(polytope.Spec{Prior: p.Prior, Utility: p.Utility, Objective: polytope.ExpectedUtility,
		Budget: mech.Budget{Measure: mech.PML, Epsilon: p.Epsilon}})
	if err != nil {
		t.Fatal(err)
	}
	sol, err := s.Solve(mod.LP)
	if err != nil || sol.Status != solver.Optimal {
		t.Fatalf("%s: %v %v", s.Name(), sol, err)
	}
	m, err := mod.Mechanism(sol.X)
	if err != nil {
		t.Fatal(err)
	}
	return sol.Objective, m
}

// compareWithLP checks r against the full LP of p on each backend: the same
// optimum to 1e-9, and a worst-case order at least the LP vertex's.
func compareWithLP(t *testing.T, p Problem, r *Result, backends ...string) {
	t.Helper()
	order := p.Utility.Order()
	for _, name := range backends {
		s, err := solver.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		v, P := lpVertex(t, s, p)
		if math.Abs(r.Value-v) > 1e-9*math.Max(1, math.Abs(v)) {
			t.Errorf("%s: LP optimum %.15g, vertex value %.15g", name, v, r.Value)
		}
		if h, hLP := order.WorstCaseOrder(r.Mechanism), order.WorstCaseOrder(P); h < hLP {
			t.Errorf("%s: worst-case order %d, the LP vertex's %d", name, h, hLP)
		}
	}
}

// TestVertexExpectedUtilityFile: testdata/expected-utility.yaml (5 letters,
// prior 0.3 … 0.1, utility −|x−y|) at ε = 1. The interior point has worst
// case order 1 (entries near 1e-10 everywhere); the LP's vertices reach 4.
func TestVertexExpectedUtilityFile(t *testing.T) {
	u := mech.Utility{
		{0, -1, -2, -3, -4}, {-1, 0, -1, -2, -3}, {-2, -1, 0, -1, -2}, {-3, -2, -1, 0, -1}, {-4, -3, -2, -1, 0}}
	p := Problem{Prior: mech.Prior{0.3, 0.25, 0.2, 0.15, 0.1}, Utility: u, Epsilon: 1}
	r, err := SolveVertex(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkVertex(t, p, r)
	compareWithLP(t, p, r, "revised", "gonum")
	if h := u.Order().WorstCaseOrder(r.Mechanism); h < 4 {
		t.Errorf("worst-case order %d, want 4", h)
	}
}

// TestVertexGrid: a grid of cells with Euclidean loss, uniform prior,
// ε = 1: 3×3 against both backends, 6×6 against revised, and 10×10 (100
// letters) certified by its bound, where the interior point's worst-case
// order is 9 and an LP vertex's 53.
func TestVertexGrid(t *testing.T) {
	for _, k := range []int{3, 6, 10} {
		if k > 3 && testlong.Short() {
			continue
		}
		p := Problem{Prior: uniformPrior(k * k), Utility: gridEuclid(k), Epsilon: 1}
		r, err := SolveVertex(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkVertex(t, p, r)
		switch k {
		case 3:
			compareWithLP(t, p, r, "revised", "gonum")
		case 6:
			compareWithLP(t, p, r, "revised")
		case 10:
			if h := p.Utility.Order().WorstCaseOrder(r.Mechanism); h < 53 {
				t.Errorf("10×10: worst-case order %d, an LP vertex has 53", h)
			}
		}
	}
}

// TestVertexCountingQuery: counting queries with a uniform prior. At 128
// letters the interior-point iterations stall short of the gap (the squared
// distances span 0 to 1.6e4); the vertex LP's multipliers certify the
// vertex. Every vertex is compared with the full LP on revised, and on gonum
// up to 8 letters (12 in the long suites).
func TestVertexCountingQuery(t *testing.T) {
	// gonum's reference LP takes seconds from 12 letters on.
	sizes, gonumUpTo := []int{8, 12, 24}, 8
	if !testlong.Short() {
		sizes, gonumUpTo = append(sizes, 40), 12
	}
	for _, n := range sizes {
		p := Problem{Prior: uniformPrior(n), Utility: countingQuery(n), Epsilon: 1}
		r, err := SolveVertex(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkVertex(t, p, r)
		if n <= gonumUpTo {
			compareWithLP(t, p, r, "revised", "gonum")
		} else {
			compareWithLP(t, p, r, "revised")
		}
	}
	if testlong.Short() {
		return
	}
	p := Problem{Prior: uniformPrior(128), Utility: countingQuery(128), Epsilon: 1}
	r, err := SolveVertex(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkVertex(t, p, r)
}

// TestVertexMatchesTheLP runs SolveVertex on random instances, square and
// not, with ties and prior floors, across budgets from 0 to 30 nats: each
// result is an audited vertex (checkVertex) with the full LP's optimum.
func TestVertexMatchesTheLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 3))
	for trial := range 300 {
		n, m := 1+rng.IntN(12), 1+rng.IntN(12)
		pi := randinst.Prior(rng, n, []float64{0, 0.001, 0.05}[trial%3])
		if trial%5 == 4 {
			pi = randinst.Dirichlet(rng, n)
		}
		levels := []int{0, 3, 0, 5}[trial%4]
		u := randinst.Utility(rng, n, m, levels)
		eps := []float64{0, 0.01, 0.3, 1, 3, 20, 7, 30}[trial%8]
		p := Problem{Prior: pi, Utility: u, Epsilon: eps}
		r, err := SolveVertex(p, Options{})
		if err != nil {
			t.Fatalf("trial %d (%d×%d, ε = %g): %v", trial, n, m, eps, err)
		}
		checkVertex(t, p, r)
		if want := lpOptimum(t, solver.Revised(), p); math.Abs(r.Value-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("trial %d (%d×%d, ε = %g): vertex %.15g, LP %.15g", trial, n, m, eps, r.Value, want)
		}
	}
}

// TestVertexRejectsForeignPoints: Vertex is given a point to start from; a
// nil one, or one of another problem's shape, is an error, not a panic.
func TestVertexRejectsForeignPoints(t *testing.T) {
	p := Problem{Prior: mech.Prior{0.5, 0.5}, Utility: mech.Utility{{1, 0}, {0, 1}}, Epsilon: 1}
	for name, r := range map[string]*Result{
		"nil":     nil,
		"3 rows":  {Mechanism: mech.Mechanism{{1, 0}, {0, 1}, {1, 0}}},
		"ragged":  {Mechanism: mech.Mechanism{{1, 0}, {1}}},
		"no rows": {},
	} {
		func() {
			defer func() {
				if e := recover(); e != nil {
					t.Errorf("%s: panic %v", name, e)
				}
			}()
			if _, err := Vertex(p, r); !errors.Is(err, ErrNoVertex) {
				t.Errorf("%s: error %v, want ErrNoVertex", name, err)
			}
		}()
	}
}

// TestVertexHamming: the Hamming utility (0 on the diagonal, −1 off it)
// with a uniform prior on 40 letters at ε = 1, whose optimal face is
// nearly the whole polytope, so Vertex narrows it first. The optimum is
// e^ε/n − 1: the diagonal at its cap e^ε q_j in every column is the best
// any mechanism does, and a mechanism spreading each row over ⌈n/e^ε⌉
// columns reaches it; the full LP on revised agrees.
func TestVertexHamming(t *testing.T) {
	const n = 40
	u := make(mech.Utility, n)
	for i := range u {
		u[i] = make([]float64, n)
		for j := range u[i] {
			if i != j {
				u[i][j] = -1
			}
		}
	}
	p := Problem{Prior: uniformPrior(n), Utility: u, Epsilon: 1}
	ip, err := Solve(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ip.face == nil || narrowFace(ip.Mechanism, ip.face.used, ip.face.capped, narrowKeep[0]) == nil {
		t.Fatal("the interior point's face is not narrowed")
	}
	r, err := SolveVertex(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkVertex(t, p, r)
	if want := math.E/n - 1; math.Abs(r.Value-want) > 1e-9 {
		t.Errorf("value %.15g, want e/n − 1 = %.15g", r.Value, want)
	}
	if !testlong.Short() {
		compareWithLP(t, p, r, "revised")
	}
}

// TestVertexStopsWithItsContext: the face LP of a vertex search polls the
// caller's context, so a cancelled solve ends with the context's error
// instead of finishing the LP (which on some wide faces of tiny-mass
// priors runs for minutes); with a live context the same point gives a
// vertex.
func TestVertexStopsWithItsContext(t *testing.T) {
	p := Problem{Prior: uniformPrior(40), Utility: countingQuery(40), Epsilon: 1}
	r, err := Solve(p, Options{})
	if err != nil && !errors.Is(err, ErrNotConverged) {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := vertex(ctx, p, r); !errors.Is(err, context.Canceled) {
		t.Fatalf("vertex with a cancelled context: %v, want context.Canceled", err)
	}
	v, err := vertex(context.Background(), p, r)
	if err != nil {
		t.Fatal(err)
	}
	checkVertex(t, p, v)
}
