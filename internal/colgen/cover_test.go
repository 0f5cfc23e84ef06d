package colgen_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/worstcase"
)

// plainCover is the covering LP of pat written out in full and solved by
// gonum's simplex, independent of SolveCover's model and folding.
func plainCover(t *testing.T, pat mech.Pattern) float64 {
	t.Helper()
	m := &lp.Model{}
	for range pat[0] {
		m.AddCol(1, 0, lp.Inf, "")
	}
	for _, row := range pat {
		var es []lp.Nonzero
		for j, a := range row {
			if a {
				es = append(es, lp.Entry(j, 1))
			}
		}
		m.AddRow(1, lp.Inf, "", es...)
	}
	sol, err := solver.Gonum().Solve(m)
	require.NoError(t, err)
	require.Equal(t, solver.Optimal, sol.Status)
	return sol.Objective
}

// checkCover checks a cover against its definition: x covers every input
// of pat, y packs them (no output's allowed inputs above 1), and both
// sums are τ* (strong duality).
func checkCover(t *testing.T, pat mech.Pattern, c *colgen.Cover) {
	t.Helper()
	sx, sy := 0.0, 0.0
	for _, x := range c.X {
		require.GreaterOrEqual(t, x, 0.0)
		sx += x
	}
	for i, row := range pat {
		s := 0.0
		for j, a := range row {
			if a {
				s += c.X[j]
			}
		}
		require.GreaterOrEqual(t, s, 1-1e-9, "input %d uncovered", i)
		require.GreaterOrEqual(t, c.Y[i], 0.0)
		sy += c.Y[i]
	}
	for j := range pat[0] {
		s := 0.0
		for i, row := range pat {
			if row[j] {
				s += c.Y[i]
			}
		}
		require.LessOrEqual(t, s, 1+1e-12, "output %d over-packed", j)
	}
	require.InDelta(t, c.Tau, sx, 1e-9*c.Tau)
	require.InDelta(t, c.Tau, sy, 1e-9*c.Tau)
}

// TestCoverFoldedAgainstPlainLP: on small Euclidean grids (square, with
// the transposition, and oblong, with the two reflections only) the
// folded covering LP and the unfolded one have the optimum of the plain
// LP solved by another engine, and their covers and packings are what
// they claim to be.
func TestCoverFoldedAgainstPlainLP(t *testing.T) {
	for _, g := range [][2]int{{6, 6}, {7, 5}, {8, 8}} {
		w, h := g[0], g[1]
		u, err := instance.Grid(w, h)
		require.NoError(t, err)
		sym := gridSymmetry(w, h)
		if w != h {
			sym.In, sym.Out = sym.In[:2], sym.Out[:2]
		}
		vs := u.ReachableValues()
		for k := 1; k < len(vs); k += 3 {
			pat := u.Pattern(vs[k])
			want := plainCover(t, pat)
			plain, err := colgen.SolveCover(pat, nil, nil, false)
			require.NoError(t, err)
			folded, err := colgen.SolveCover(pat, &sym, nil, false)
			require.NoError(t, err)
			require.InDelta(t, want, plain.Tau, 1e-9*want, "%d×%d threshold %v", w, h, vs[k])
			require.InDelta(t, want, folded.Tau, 1e-9*want, "%d×%d threshold %v", w, h, vs[k])
			checkCover(t, pat, plain)
			checkCover(t, pat, folded)
			require.False(t, folded.Mixed)
		}
	}
}

// TestCoverBracketsLeastEpsilon: the packing's proof never exceeds ε*
// found by the LP search of the unfolded problem (an independent
// computation; with -short, the column generation's search), for uniform and clustered priors on small grids; where
// the flow along the cover (without the outputs no mechanism at ε* can
// use) at its τ finds a mechanism, it has the pattern,
// its audited PML is at least ε*, and the two meet at ε* to 1e-9. They do
// on a third of the thresholds of a 7×7 uniform grid (those from a radius
// of 0 to 4.2; on larger grids, most of them).
func TestCoverBracketsLeastEpsilon(t *testing.T) {
	w := 7
	u, err := instance.Grid(w, w)
	require.NoError(t, err)
	sym := gridSymmetry(w, w)
	uniform, err := instance.Uniform(w * w)
	require.NoError(t, err)
	clustered, err := instance.GridClusters(rand.New(rand.NewPCG(5, 6)), w, w, 20*w*w)
	require.NoError(t, err)
	vs := u.ReachableValues()
	for _, pr := range []struct {
		name string
		pi   mech.Prior
	}{{"uniform", uniform}, {"clustered", clustered}} {
		if testlong.Short() && pr.name != "uniform" {
			continue
		}
		met, tried := 0, 0
		for k := 1; k < len(vs); k++ {
			pat := u.Pattern(vs[k])
			c, err := colgen.SolveCover(pat, &sym, nil, false)
			require.NoError(t, err)
			opt := worstcase.Options{Probes: worstcase.ProbesLP, Tol: 1e-10}
			if testlong.Short() {
				// The master's search: the LPs of a few patterns take
				// seconds each.
				opt.Probes = worstcase.ProbesColumns
			}
			r, err := worstcase.LeastEpsilon(context.Background(), pr.pi, pat, opt)
			require.NoError(t, err)
			lb, alpha, ok := c.Proof(pr.pi, pat)
			if c.Tau > 1+1e-9 {
				require.True(t, ok, "%s threshold %v: no proof from τ* = %v", pr.name, vs[k], c.Tau)
				again, ok := certify.DualBound(pr.pi, pat, alpha)
				require.True(t, ok)
				require.Equal(t, lb, again)
				// DualBound re-optimises ν per output: at least log κ.
				require.GreaterOrEqual(t, lb, math.Log(c.Tau)-1e-10)
			}
			if ok {
				require.LessOrEqual(t, lb, r.OptimalEpsilon, "%s threshold %v", pr.name, vs[k])
			}
			// The flow routes along the cover without the outputs no
			// mechanism at ε* can use (their allowed inputs hold less
			// than e^{−ε*}).
			drop := make([]bool, len(pat[0]))
			for j := range drop {
				s := 0.0
				for i, row := range pat {
					if row[j] {
						s += pr.pi[i]
					}
				}
				drop[j] = -math.Log(s) > r.OptimalEpsilon+1e-9
			}
			fold := &sym
			if pr.name != "uniform" {
				// The drop set is not the group's: folded, it would
				// leave out whole orbits.
				fold = nil
			}
			route, err := colgen.SolveCover(pat, fold, drop, false)
			require.NoError(t, err)
			q := make([]float64, len(route.X))
			for j, x := range route.X {
				q[j] = x / route.Tau
			}
			tried++
			p, _ := colgen.Flow(pr.pi, pat, q, route.Tau*(1+1e-12))
			if p == nil {
				continue
			}
			require.True(t, pat.Holds(p))
			for i, row := range p {
				s := 0.0
				for _, v := range row {
					s += v
				}
				require.InDelta(t, 1, s, 1e-12, "row %d", i)
			}
			a := leakage.PML(pr.pi, p)
			require.GreaterOrEqual(t, a, r.OptimalEpsilonLower-1e-12, "%s threshold %v: the flow's mechanism below ε*", pr.name, vs[k])
			if ok && a-lb <= 1e-9 {
				met++
				require.InDelta(t, r.OptimalEpsilon, a, 2e-9)
			}
		}
		if pr.name == "uniform" {
			require.GreaterOrEqual(t, 3*met, tried, "the cover met ε* on %d of %d thresholds", met, tried)
		}
	}
}

// TestFlowCut: where the flow falls short, the inputs its residual
// network still reaches violate the inequality every mechanism's
// marginal satisfies at that ratio, Σ_j q_j min(1, λ π(I ∩ B_j)) ≥ π(I),
// and so do the smaller sets each short input reaches.
func TestFlowCut(t *testing.T) {
	w := 6
	u, err := instance.Grid(w, w)
	require.NoError(t, err)
	pi, err := instance.GridClusters(rand.New(rand.NewPCG(7, 8)), w, w, 20*w*w)
	require.NoError(t, err)
	vs := u.ReachableValues()
	short, smaller := 0, 0
	for k := 1; k < len(vs); k++ {
		pat := u.Pattern(vs[k])
		c, err := colgen.SolveCover(pat, nil, nil, false)
		require.NoError(t, err)
		q := make([]float64, len(c.X))
		for j, x := range c.X {
			q[j] = x / c.Tau
		}
		lambda := c.Tau * 1.01
		p, cuts := colgen.FlowSets(pi, pat, q, lambda, 8)
		if p != nil {
			continue
		}
		short++
		require.NotEmpty(t, cuts)
		for _, cut := range cuts {
			violated(t, pi, pat, q, lambda, cut, vs[k])
		}
		smaller += len(cuts) - 1
	}
	require.Positive(t, short, "no flow fell short: the test checks nothing")
	require.Positive(t, smaller, "no flow gave a set smaller than its cut: the test checks less")
}

// violated asserts that the inputs cut violate Σ_j q_j min(1, λ π(I ∩
// B_j)) ≥ π(I) by more than rounding (v names the threshold).
func violated(t *testing.T, pi mech.Prior, pat mech.Pattern, q []float64, lambda float64, cut []int, v float64) {
	t.Helper()
	in := make([]bool, len(pi))
	mass := 0.0
	for _, i := range cut {
		in[i] = true
		mass += pi[i]
	}
	carried := 0.0
	for j, qj := range q {
		s := 0.0
		for i, row := range pat {
			if in[i] && row[j] {
				s += pi[i]
			}
		}
		carried += qj * math.Min(1, lambda*s)
	}
	require.Less(t, carried, mass-1e-12, "threshold %v: the cut %v is no violated inequality", v, cut)
}

// TestCoverDrop: outputs marked to be left out carry no weight; folded,
// an orbit with marked and unmarked outputs goes as a whole without
// whole and stays with it, and Mixed reports it; the cover of the
// sub-pattern costs at least as much as the whole pattern's.
func TestCoverDrop(t *testing.T) {
	w := 6
	u, err := instance.Grid(w, w)
	require.NoError(t, err)
	sym := gridSymmetry(w, w)
	pat := u.Pattern(u.ReachableValues()[12])
	full, err := colgen.SolveCover(pat, &sym, nil, false)
	require.NoError(t, err)
	drop := make([]bool, w*w)
	drop[0] = true // a corner: its orbit is the four corners
	any, err := colgen.SolveCover(pat, &sym, drop, false)
	require.NoError(t, err)
	kept, err := colgen.SolveCover(pat, &sym, drop, true)
	require.NoError(t, err)
	require.True(t, any.Mixed)
	require.True(t, kept.Mixed)
	for _, corner := range []int{0, w - 1, w * (w - 1), w*w - 1} {
		require.Zero(t, any.X[corner])
	}
	require.InDelta(t, full.Tau, kept.Tau, 1e-12)
	require.GreaterOrEqual(t, any.Tau, full.Tau-1e-12)
	plain, err := colgen.SolveCover(pat, nil, drop, false)
	require.NoError(t, err)
	require.Zero(t, plain.X[0])
	require.False(t, plain.Mixed)
	require.GreaterOrEqual(t, plain.Tau, full.Tau-1e-12)
	require.LessOrEqual(t, plain.Tau, any.Tau+1e-12)
}

// TestCoverTooLarge: an unfolded covering LP over the pure-Go simplex's
// bound is refused before it is built, saying so.
func TestCoverTooLarge(t *testing.T) {
	n := 2100
	pat := make(mech.Pattern, n)
	for i := range pat {
		pat[i] = make([]bool, n)
		for j := range pat[i] {
			pat[i][j] = true
		}
	}
	_, err := colgen.SolveCover(pat, nil, nil, false)
	require.True(t, errors.Is(err, colgen.ErrCoverTooLarge), "%v", err)
	require.ErrorContains(t, err, "non-zeros")
}

// plainSubCover is plainCover of pat without the outputs marked in drop.
func plainSubCover(t *testing.T, pat mech.Pattern, drop []bool) float64 {
	t.Helper()
	sub := make(mech.Pattern, len(pat))
	for i, row := range pat {
		for j, a := range row {
			if a && !drop[j] {
				sub[i] = append(sub[i], true)
			} else if !drop[j] {
				sub[i] = append(sub[i], false)
			}
		}
	}
	return plainCover(t, sub)
}

// priorDrop marks the outputs of pat whose allowed inputs hold less than
// e^{−level} of pi, as the best-value search leaves them out.
func priorDrop(pi mech.Prior, pat mech.Pattern, level float64) []bool {
	drop := make([]bool, len(pat[0]))
	for j := range drop {
		s := 0.0
		for i, row := range pat {
			if row[j] {
				s += pi[i]
			}
		}
		drop[j] = s < math.Exp(-level)
	}
	return drop
}

// TestCoverGenAgainstPlainLP: on 8×8 to 12×12 Euclidean grids with a
// clustered prior, whose outputs left out at ε = 0.7, 1 and 1.5 no
// reflection keeps, the generated cover of the outputs kept has the
// optimum of the whole sub-pattern's LP, unfolded (on the 8×8 grid at
// ε = 1, also solved by gonum's simplex, which cycles on some of the
// others), from the folded covers (as bisect starts it) and from
// nothing; its cover covers every input with the kept outputs, and its
// packing packs them, both summing to τ*. On the value patterns (the
// distance thresholds) and on the order's (the nearest outputs of every
// input).
func TestCoverGenAgainstPlainLP(t *testing.T) {
	sizes := []int{8, 10, 12}
	if testlong.Short() {
		sizes = sizes[:1]
	}
	compared := 0
	for _, w := range sizes {
		u, err := instance.Grid(w, w)
		require.NoError(t, err)
		pi, err := instance.GridClusters(rand.New(rand.NewPCG(uint64(w), 3)), w, w, 20*w*w)
		require.NoError(t, err)
		sym := gridSymmetry(w, w)
		o := u.Order()
		var pats []mech.Pattern
		vs := u.ReachableValues()
		for k := len(vs) / 4; k < len(vs); k += max(1, len(vs)/6) {
			pats = append(pats, u.Pattern(vs[k]))
		}
		for h := w * w / 2; h < w*w; h += w * w / 8 {
			pats = append(pats, o.Pattern(h))
		}
		for p, pat := range pats {
			for _, level := range []float64{0.7, 1, 1.5} {
				drop := priorDrop(pi, pat, level)
				whole, err := colgen.SolveCover(pat, &sym, drop, true)
				if err != nil || !whole.Mixed {
					// Every output of some input left out, or only
					// whole orbits.
					continue
				}
				if i := stranded(pat, drop); i >= 0 {
					_, err := colgen.SolveCoverGen(pat, drop, whole)
					require.ErrorContains(t, err, fmt.Sprintf("input %d is allowed no output", i))
					continue
				}
				compared++
				plain, err := colgen.SolveCover(pat, nil, drop, false)
				require.NoError(t, err)
				want := plain.Tau
				if w == 8 && level == 1 {
					require.InDelta(t, plainSubCover(t, pat, drop), want, 1e-9*want)
				}
				// Leaving out whole orbits may leave an input no
				// output: then there is no route to compare with.
				route, err := colgen.SolveCover(pat, &sym, drop, false)
				starts := [][]*colgen.Cover{{whole}, nil}
				if err == nil {
					starts[0] = append(starts[0], route)
				}
				for _, start := range starts {
					c, err := colgen.SolveCoverGen(pat, drop, start...)
					require.NoError(t, err)
					require.InDelta(t, want, c.Tau, 1e-9*want, "%d×%d pattern %d at %v", w, w, p, level)
					require.GreaterOrEqual(t, c.Tau, whole.Tau-1e-9)
					if route != nil {
						require.LessOrEqual(t, c.Tau, route.Tau+1e-9)
					}
					checkSubCover(t, pat, drop, c)
				}
			}
		}
	}
	t.Logf("%d patterns compared", compared)
	require.Positive(t, compared, "no pattern whose left-out outputs break the reflections: the test checks nothing")
}

// stranded returns the first input of pat whose outputs are all marked
// in drop, or −1.
func stranded(pat mech.Pattern, drop []bool) int {
	for i, row := range pat {
		ok := false
		for j, a := range row {
			ok = ok || a && !drop[j]
		}
		if !ok {
			return i
		}
	}
	return -1
}

// checkSubCover is checkCover of pat without the outputs marked in drop:
// they carry no weight and their packing sums are not bounded.
func checkSubCover(t *testing.T, pat mech.Pattern, drop []bool, c *colgen.Cover) {
	t.Helper()
	sx, sy := 0.0, 0.0
	for j, x := range c.X {
		require.GreaterOrEqual(t, x, 0.0)
		if drop[j] {
			require.Zero(t, x, "left-out output %d carries weight", j)
		}
		sx += x
	}
	for i, row := range pat {
		s := 0.0
		for j, a := range row {
			if a {
				s += c.X[j]
			}
		}
		require.GreaterOrEqual(t, s, 1-1e-12, "input %d uncovered", i)
		require.GreaterOrEqual(t, c.Y[i], 0.0)
		sy += c.Y[i]
	}
	for j := range pat[0] {
		if drop[j] {
			continue
		}
		s := 0.0
		for i, row := range pat {
			if row[j] {
				s += c.Y[i]
			}
		}
		require.LessOrEqual(t, s, 1+1e-12, "output %d over-packed", j)
	}
	require.InDelta(t, c.Tau, sx, 1e-12*c.Tau)
	require.InDelta(t, c.Tau, sy, 1e-9*c.Tau)
}

// TestCoverGenBadInput: an input left no output, a drop or a start of
// the wrong size are refused, naming what is wrong.
func TestCoverGenBadInput(t *testing.T) {
	pat := mech.Pattern{{true, false}, {true, true}}
	_, err := colgen.SolveCoverGen(pat, []bool{true, false})
	require.ErrorContains(t, err, "input 0 is allowed no output")
	_, err = colgen.SolveCoverGen(pat, []bool{true})
	require.ErrorContains(t, err, "1 outputs to leave out for 2 outputs")
	_, err = colgen.SolveCoverGen(pat, nil, &colgen.Cover{X: []float64{1}, Y: []float64{1, 0}})
	require.ErrorContains(t, err, "a start cover of 1 outputs")
	c, err := colgen.SolveCoverGen(pat, nil)
	require.NoError(t, err)
	require.InDelta(t, 1, c.Tau, 1e-12)
	require.Equal(t, []float64{1, 0}, c.X)
}

// TestSolveCutsCrowdedPrior: inputs 0, 1, 2 and outputs A (for 0 and 1)
// and B (for 1 and 2) under the prior (0.8, 0.1, 0.1). The cover is
// τ* = 2 for every prior, but B's inputs hold 0.2 of the mass, so B can
// carry mass only at λ ≥ 5 and input 2 has no other output: ε* = log 5,
// reached by P = [1 0; 0 1; 0 1]. At λ = 5 the flow along the cover
// (½, ½) falls short on a cut (input 0, whose mass 0.8 A can not take at
// q_A = ½); the LP with the prior's
// rows (input 0's row capped: at λπ_0 = 4 it asks q_A ≥ 0.8) and that cut
// has optimum 5 and a cover along which the prior flows, with PML log 5.
// Below 5 no output of input 2 is usable.
func TestSolveCutsCrowdedPrior(t *testing.T) {
	pi := mech.Prior{0.8, 0.1, 0.1}
	pat := mech.Pattern{{true, false}, {true, true}, {false, true}}
	plain, err := colgen.SolveCover(pat, nil, nil, true)
	require.NoError(t, err)
	require.InDelta(t, 2, plain.Tau, 1e-12)
	p, cuts := colgen.Flow(pi, pat, []float64{plain.X[0] / plain.Tau, plain.X[1] / plain.Tau}, 5)
	require.Nil(t, p, "the prior flowed along the cover at λ = 5")
	cut := cuts[0]
	// The cut is violated: π(I) > Σ_j q_j min(1, λ π(I ∩ B_j)).
	require.NotEmpty(t, cut)
	mass, reach := 0.0, []float64{0, 0}
	for _, i := range cut {
		mass += pi[i]
		for j, a := range pat[i] {
			if a {
				reach[j] += pi[i]
			}
		}
	}
	room := 0.0
	for j := range reach {
		room += plain.X[j] / plain.Tau * math.Min(1, 5*reach[j])
	}
	require.Greater(t, mass, room+1e-9)

	c, err := colgen.SolveCuts(pi, pat, 5, [][]int{cut})
	require.NoError(t, err)
	require.InDelta(t, 5, c.Tau, 1e-9)
	q := []float64{c.X[0] / c.Tau, c.X[1] / c.Tau}
	require.InDelta(t, 0.2, q[1], 1e-12)
	p, _ = colgen.Flow(pi, pat, q, 5*(1+1e-12))
	require.NotNil(t, p)
	require.True(t, pat.Holds(p))
	require.InDelta(t, math.Log(5), leakage.PML(pi, p), 1e-11)
	want := [][]float64{{1, 0}, {0, 1}, {0, 1}}
	for i := range want {
		require.InDeltaSlice(t, want[i], p[i], 1e-12)
	}
	// Whatever the LP's multipliers prove is at most ε* (input 0's row
	// is about the mass A must take, which they do not carry into a
	// ratio; the pruning bound proves log 5 here).
	if lb, _, ok := c.Proof(pi, pat); ok {
		require.LessOrEqual(t, lb, math.Log(5))
	}

	_, err = colgen.SolveCuts(pi, pat, 4.95, [][]int{cut})
	require.ErrorIs(t, err, colgen.ErrNoCover)
}

// TestSolveCutsBadInput: a ratio below 1, a cut naming no input of the
// prior or an empty one, and a pattern of another size are refused.
func TestSolveCutsBadInput(t *testing.T) {
	pi := mech.Prior{0.5, 0.5}
	pat := mech.Pattern{{true, false}, {true, true}}
	_, err := colgen.SolveCuts(pi, pat, 0.5, nil)
	require.ErrorContains(t, err, "ratio 0.5")
	_, err = colgen.SolveCuts(pi, pat, 2, [][]int{{2}})
	require.ErrorContains(t, err, "cut 0 names input 2 of 2")
	_, err = colgen.SolveCuts(pi, pat, 2, [][]int{{}})
	require.ErrorContains(t, err, "cut 0 is empty")
	_, err = colgen.SolveCuts(mech.Prior{1}, pat, 2, nil)
	require.ErrorContains(t, err, "2 rows for 1 letters")
}
