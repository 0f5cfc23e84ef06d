package worstcase

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// TestCoverDecisions: on a 12×12 Euclidean grid, uniform and clustered,
// every decision the covers settle at a budget agrees with ε* of the
// pattern found by the column generation's least-ε search (no cover
// involved): a proof above the budget only where ε* is above it (checked
// again by certify.DualBound), an audited mechanism with the pattern
// within the budget only where ε* is within it. Near half the side, where
// the best value's decisions lie, the covers settle most of them.
func TestCoverDecisions(t *testing.T) {
	w := 12
	u, err := instance.Grid(w, w)
	require.NoError(t, err)
	uniform, err := instance.Uniform(w * w)
	require.NoError(t, err)
	clustered, err := instance.GridClusters(rand.New(rand.NewPCG(9, 10)), w, w, 20*w*w)
	require.NoError(t, err)
	fam, vs, err := valueFamily(uniform, u)
	require.NoError(t, err)
	priors := []mech.Prior{uniform, clustered}
	if testlong.Short() {
		priors = priors[:1]
	}
	for _, pi := range priors {
		cov := newCoverer(pi, u, Options{})
		require.NotNil(t, cov.sym, "the grid's reflections were not found")
		settled, asked := 0, 0
		for k := range vs {
			if d := -vs[k]; d < 4.5 || d > 7.5 || testlong.Short() && k%2 == 1 {
				continue
			}
			pat := fam.pattern(k)
			r, err := LeastEpsilon(context.Background(), pi, pat, Options{})
			require.NoError(t, err)
			for _, eps := range []float64{0.8, 1, 1.2} {
				limit := eps + budgetSlack*math.Max(1, eps)
				o, ok := cov.decide(fam, k, limit)
				asked++
				if !ok {
					continue
				}
				settled++
				switch o.v {
				case infeasible:
					require.Greater(t, r.OptimalEpsilon, limit, "threshold %v, ε = %v: refuted below ε*", vs[k], eps)
					lb, ok := certify.DualBound(pi, pat, o.Alpha)
					require.True(t, ok)
					require.Greater(t, lb, limit)
				case feasible:
					require.LessOrEqual(t, r.OptimalEpsilonLower, limit, "threshold %v, ε = %v: a mechanism below ε*", vs[k], eps)
					require.True(t, pat.Holds(o.Mechanism))
					a, ok := certify.Within(pi, o.Mechanism, limit)
					require.True(t, ok, "audited %v above %v", a, limit)
				default:
					t.Fatalf("a settled decision with verdict %v", o.v)
				}
			}
		}
		require.Greater(t, 2*settled, asked, "the covers settled %d of %d decisions", settled, asked)
	}
}

// TestBestValueByCovers: on a 16×16 uniform grid at ε = 1 the best value
// and the least ε of its threshold are those the master's search finds
// without the covers (√65 and log(8/3)), and the bracket from the cover's
// proof and the flow's mechanism is within the tolerance.
func TestBestValueByCovers(t *testing.T) {
	if testlong.Short() {
		t.Skip("the master's search of a 16×16 grid takes seconds")
	}
	w := 16
	u, err := instance.Grid(w, w)
	require.NoError(t, err)
	pi, err := instance.Uniform(w * w)
	require.NoError(t, err)
	v, r, err := BestValue(context.Background(), pi, u, 1, Options{})
	require.NoError(t, err)
	v0, r0, err := bestValue(context.Background(), pi, u, 1, Options{}, false)
	require.NoError(t, err)
	require.Equal(t, v0, v)
	require.InDelta(t, -math.Sqrt(65), v, 1e-12)
	audit(t, pi, u.Pattern(v), r, DefaultTol)
	require.InDelta(t, r0.OptimalEpsilon, r.OptimalEpsilon, 1e-9)
	require.InDelta(t, math.Log(8.0/3), r.OptimalEpsilon, 1e-9)
}

// TestLPTooLarge: the prober refuses to build an LP of more than
// maxLPPairs variables, with an error saying so.
func TestLPTooLarge(t *testing.T) {
	n := 1100
	pat := make(mech.Pattern, n)
	pi := make(mech.Prior, n)
	for i := range pat {
		pat[i] = make([]bool, n)
		for j := range pat[i] {
			pat[i][j] = i != j
		}
		pi[i] = 1 / float64(n)
	}
	c, _ := columnBounds(pi, pat)
	p := &prober{pi: pi, pat: pat, c: c}
	_, err := p.build(1, 1, "")
	require.True(t, errors.Is(err, errLPTooLarge), "%v", err)
	require.ErrorContains(t, err, "variables")
}

// TestBestOrderByCovers: on a 16×16 grid, the best worst-case order the
// covers decide is the one the master's own search finds, at the same
// least ε, and its mechanism holds the order's pattern within the budget.
func TestBestOrderByCovers(t *testing.T) {
	if testlong.Short() {
		t.Skip("the master's search of a 16×16 grid takes seconds")
	}
	w := 16
	u, err := instance.Grid(w, w)
	require.NoError(t, err)
	pi, err := instance.Uniform(w * w)
	require.NoError(t, err)
	o := u.Order()
	h, r, err := BestOrder(context.Background(), pi, o, 1, Options{})
	require.NoError(t, err)
	h0, r0, err := bestOrder(context.Background(), pi, o, 1, Options{}, false)
	require.NoError(t, err)
	require.Equal(t, h0, h)
	require.Greater(t, h, 1)
	audit(t, pi, o.Pattern(h), r, DefaultTol)
	require.LessOrEqual(t, r.OptimalEpsilon, 1+1e-12)
	require.InDelta(t, r0.OptimalEpsilon, r.OptimalEpsilon, 1e-9)
	require.LessOrEqual(t, r.OptimalEpsilon-r.OptimalEpsilonLower, 1e-9)
}

// TestBestClusteredByCovers: on 8×8 to 12×12 grids with a clustered prior,
// which breaks the reflections the covers fold by, the best worst-case
// order and value at ε = 0.8 and 1 are those the master's own search
// finds without the covers, at the same least ε, with brackets within the
// tolerance and audited mechanisms; some decisions go through the
// unfolded cover of exactly the outputs the prior leaves usable.
func TestBestClusteredByCovers(t *testing.T) {
	sizes := []int{8, 10, 12}
	if testlong.Short() {
		sizes = sizes[:1]
	}
	gens := 0
	for _, w := range sizes {
		u, err := instance.Grid(w, w)
		require.NoError(t, err)
		pi, err := instance.GridClusters(rand.New(rand.NewPCG(uint64(w), 11)), w, w, 20*w*w)
		require.NoError(t, err)
		o := u.Order()
		require.NotNil(t, newCoverer(pi, orderUtility(o), Options{}).sym, "the grid's reflections were not found")
		for _, eps := range []float64{0.8, 1} {
			h, r, err := BestOrder(context.Background(), pi, o, eps, Options{})
			require.NoError(t, err)
			h0, r0, err := bestOrder(context.Background(), pi, o, eps, Options{}, false)
			require.NoError(t, err)
			require.Equal(t, h0, h, "%d×%d order at ε = %v", w, w, eps)
			audit(t, pi, o.Pattern(h), r, DefaultTol)
			require.LessOrEqual(t, r.OptimalEpsilon, eps+1e-12)
			require.InDelta(t, r0.OptimalEpsilon, r.OptimalEpsilon, 1e-9)

			v, r, err := BestValue(context.Background(), pi, u, eps, Options{})
			require.NoError(t, err)
			v0, r0, err := bestValue(context.Background(), pi, u, eps, Options{}, false)
			require.NoError(t, err)
			require.Equal(t, v0, v, "%d×%d value at ε = %v", w, w, eps)
			audit(t, pi, u.Pattern(v), r, DefaultTol)
			require.LessOrEqual(t, r.OptimalEpsilon, eps+1e-12)
			require.InDelta(t, r0.OptimalEpsilon, r.OptimalEpsilon, 1e-9)
		}
		// The decisions of the order's search near its answer, by the
		// coverer alone.
		cov := newCoverer(pi, orderUtility(o), Options{})
		fam, err := orderFamily(pi, o)
		require.NoError(t, err)
		for k := w * w / 2; k < w*w; k += w {
			cov.bound(fam, k, 1+budgetSlack)
		}
		gens += cov.gens
	}
	require.Positive(t, gens, "no cover was generated unfolded: the test checks nothing new")
}

// TestValueCurveByCovers: on 8×8 (and 10×10) grids, uniform and
// clustered, the value curve whose searches start from the covers has the
// steps of the curve the master's searches find without them, each
// bracket within the tolerance and within 1e-9 of the other's, its proof
// checked by certify.DualBound on the step's last pattern and its
// mechanism audited on the step's best worst case.
func TestValueCurveByCovers(t *testing.T) {
	sizes := []int{8, 10}
	if testlong.Short() {
		sizes = sizes[:1]
	}
	for _, w := range sizes {
		u, err := instance.Grid(w, w)
		require.NoError(t, err)
		uniform, err := instance.Uniform(w * w)
		require.NoError(t, err)
		clustered, err := instance.GridClusters(rand.New(rand.NewPCG(uint64(w), 13)), w, w, 20*w*w)
		require.NoError(t, err)
		for _, pi := range []mech.Prior{uniform, clustered} {
			got, err := ValueCurve(context.Background(), pi, u, Options{})
			require.NoError(t, err)
			want, err := valueCurve(context.Background(), pi, u, Options{}, false)
			require.NoError(t, err)
			require.Len(t, got, len(want))
			for k, p := range got {
				q := want[k]
				require.Equal(t, q.Threshold, p.Threshold, "%d×%d step %d", w, w, k)
				require.Equal(t, q.ThresholdMax, p.ThresholdMax, "%d×%d step %d", w, w, k)
				require.InDelta(t, q.OptimalEpsilon, p.OptimalEpsilon, 1e-9, "%d×%d threshold %v", w, w, p.Threshold)
				require.LessOrEqual(t, p.OptimalEpsilon-p.OptimalEpsilonLower, DefaultTol)
				require.True(t, u.Pattern(p.ThresholdMax).Holds(p.Mechanism))
				require.LessOrEqual(t, leakage.PML(pi, p.Mechanism), p.OptimalEpsilon+1e-12)
				if p.Lower == BoundInfeasible {
					lb, ok := certify.DualBound(pi, u.Pattern(p.ThresholdMax), p.Proof)
					require.True(t, ok)
					require.GreaterOrEqual(t, lb, p.OptimalEpsilonLower)
				}
			}
		}
	}
}

// TestCutsCloseClusteredThresholds: on clustered 8×8 and 10×10 grids,
// where the fractional cover is not ε* at the thresholds far from half
// the side (the crowded inputs' mass can not reach the outputs the cover
// uses), the covering LPs with the flows' cuts bracket every threshold
// soundly against the master's own least-ε search without covers (a
// proof, checked again by certify.DualBound, never above its upper end;
// an audited mechanism with the pattern never below its lower end), and
// close to within the tolerance some thresholds the cover alone leaves
// open, at the least ε the master finds.
func TestCutsCloseClusteredThresholds(t *testing.T) {
	sizes := []int{8, 10}
	if testlong.Short() {
		sizes = sizes[:1]
	}
	byCuts := 0
	for _, w := range sizes {
		u, err := instance.Grid(w, w)
		require.NoError(t, err)
		pi, err := instance.GridClusters(rand.New(rand.NewPCG(uint64(w), 17)), w, w, 20*w*w)
		require.NoError(t, err)
		fam, vs, err := valueFamily(pi, u)
		require.NoError(t, err)
		cov := newCoverer(pi, u, Options{})
		for k := range vs {
			pat := fam.pattern(k)
			if _, all := columnBounds(pi, pat); all >= 0 {
				continue
			}
			safe := leakage.PML(pi, closedform.UniformOnAllowed(pat))
			tol := DefaultTol / 2
			h := cov.hint(fam, k, safe, hint{}, tol)
			plain := cov.bound(fam, k, safe)
			r, err := LeastEpsilon(context.Background(), pi, pat, Options{})
			require.NoError(t, err)
			if h.proof != nil {
				lb, ok := certify.DualBound(pi, pat, h.proof)
				require.True(t, ok)
				require.GreaterOrEqual(t, lb, h.lo-1e-15)
			}
			require.LessOrEqual(t, h.lo, r.OptimalEpsilon+1e-12, "%d×%d threshold %v: a bound above ε*", w, w, vs[k])
			if h.hiMech == nil {
				continue
			}
			require.True(t, pat.Holds(h.hiMech))
			require.InDelta(t, leakage.PML(pi, h.hiMech), h.hi, 1e-15)
			require.GreaterOrEqual(t, h.hi, r.OptimalEpsilonLower-1e-12, "%d×%d threshold %v: a mechanism below ε*", w, w, vs[k])
			if h.hi-h.lo > tol {
				continue
			}
			require.InDelta(t, r.OptimalEpsilon, h.hi, 1e-9, "%d×%d threshold %v", w, w, vs[k])
			// Closed: was it the cover alone? Its proof and its flow at
			// τ*, as hint routes them.
			alone := false
			if plain != nil && plain.ok {
				for _, route := range plain.routes {
					for _, q := range tightRatios {
						if _, a := cov.flow(pat, route, route.Tau*q); a-plain.lb <= tol {
							alone = true
						}
					}
				}
			}
			if !alone {
				byCuts++
			}
		}
	}
	t.Logf("closed by the cuts: %d", byCuts)
	require.Positive(t, byCuts, "no threshold was closed by the cuts: the test checks nothing new")
}

// TestCutsAgainstPlainLP: on clustered 6×6 and 8×8 grids, every
// threshold's bracket from its cover and the cuts alone (no neighbour's
// bracket, no master), where it closes, holds ε* as the plain
// feasibility LPs of the revised simplex find it (ProbesLP: no cover, no
// column generation) to 1e-9, with its proof checked by certify.DualBound
// and its mechanism audited on the pattern; and the cuts, with the
// secant steps and the flows' smaller sets, close at least as many of the
// thresholds with ε* > 0 that the cover leaves open as they leave open
// (those left open have ε* at the pruning bound; TestCutsCloseMidRange).
func TestCutsAgainstPlainLP(t *testing.T) {
	revised, err := solver.Get("revised")
	require.NoError(t, err)
	sizes := []int{6, 8}
	if testlong.Short() {
		sizes = sizes[:1]
	}
	open, closed := 0, 0
	for _, w := range sizes {
		u, err := instance.Grid(w, w)
		require.NoError(t, err)
		pi, err := instance.GridClusters(rand.New(rand.NewPCG(uint64(w), 3)), w, w, 20*w*w)
		require.NoError(t, err)
		fam, vs, err := valueFamily(pi, u)
		require.NoError(t, err)
		cov := newCoverer(pi, u, Options{})
		for k := range vs {
			pat := fam.pattern(k)
			if _, all := columnBounds(pi, pat); all >= 0 {
				continue // ε* = 0: an output every input may use
			}
			safe := leakage.PML(pi, closedform.UniformOnAllowed(pat))
			tol := DefaultTol / 2
			h := cov.hint(fam, k, safe, hint{}, tol)
			plain := cov.bound(fam, k, safe)
			if plain != nil && plain.ok && h.hiMech != nil && h.hi-plain.lb <= tol {
				continue // the cover alone
			}
			r, err := LeastEpsilon(context.Background(), pi, pat, Options{Probes: ProbesLP, Solver: revised})
			require.NoError(t, err)
			require.LessOrEqual(t, r.OptimalEpsilon-r.OptimalEpsilonLower, DefaultTol)
			if h.hiMech == nil || h.hi-h.lo > tol {
				open++
				continue
			}
			closed++
			closedAt(t, pi, pat, h, r, vs[k])
		}
	}
	t.Logf("beyond the cover: %d closed by the cuts, %d left open", closed, open)
	require.Positive(t, closed, "the cuts closed no threshold: the test checks nothing")
	require.GreaterOrEqual(t, closed, open, "the cuts closed %d of %d thresholds the cover left open", closed, closed+open)
}

// TestCutsCloseMidRange: on bench/gridworst's clustered 16×16 grid, the
// thresholds at distances 5, √26 and √29, where the cover is below ε* and
// the proofs alone approach ε* by a factor near 1 per LP, are each closed
// to the tolerance by the cuts with the secant steps, no master, at the
// least ε of the master's own search without covers (to 1e-9). One of
// them (√29) asks a covering LP whose phase 1 is hard for the revised
// simplex, which must get through it.
func TestCutsCloseMidRange(t *testing.T) {
	if testlong.Short() {
		t.Skip("the master's searches of a 16×16 grid take seconds")
	}
	w := 16
	u, err := instance.Grid(w, w)
	require.NoError(t, err)
	pi, err := instance.GridClusters(rand.New(rand.NewPCG(1, 2)), w, w, 20*w*w)
	require.NoError(t, err)
	fam, vs, err := valueFamily(pi, u)
	require.NoError(t, err)
	cov := newCoverer(pi, u, Options{})
	asked := 0
	for k := range vs {
		if d := -vs[k]; d < 4.9 || d > 5.4 {
			continue
		}
		asked++
		pat := fam.pattern(k)
		safe := leakage.PML(pi, closedform.UniformOnAllowed(pat))
		tol := DefaultTol / 2
		h := cov.hint(fam, k, safe, hint{}, tol)
		require.NotNil(t, h.hiMech, "threshold %v: no mechanism", vs[k])
		require.LessOrEqual(t, h.hi-h.lo, tol, "threshold %v: bracket [%v, %v] open", vs[k], h.lo, h.hi)
		r, err := LeastEpsilon(context.Background(), pi, pat, Options{})
		require.NoError(t, err)
		closedAt(t, pi, pat, h, r, vs[k])
	}
	require.Equal(t, 3, asked)
}

// closedAt asserts that the closed bracket h of pattern pat (threshold v)
// is the bracket r of an independent search to 1e-9, its mechanism has
// the pattern and audits within its upper end, and its proof, if any, is
// checked by certify.DualBound.
func closedAt(t *testing.T, pi mech.Prior, pat mech.Pattern, h hint, r Result, v float64) {
	t.Helper()
	require.InDelta(t, r.OptimalEpsilon, h.hi, 1e-9, "threshold %v", v)
	require.InDelta(t, r.OptimalEpsilonLower, h.lo, 1e-9, "threshold %v", v)
	require.True(t, pat.Holds(h.hiMech))
	a, ok := certify.Within(pi, h.hiMech, h.hi)
	require.True(t, ok, "threshold %v: audited %v above %v", v, a, h.hi)
	if h.loKind == BoundInfeasible {
		lb, ok := certify.DualBound(pi, pat, h.proof)
		require.True(t, ok)
		require.GreaterOrEqual(t, lb, h.lo-1e-15)
	}
}
