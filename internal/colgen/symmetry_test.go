package colgen_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/worstcase"
)

// gridSymmetry returns the reflections of a w×h grid (cell y·w + x), and
// its transposition when square, acting alike on inputs and outputs.
func gridSymmetry(w, h int) colgen.Symmetry {
	perm := func(f func(x, y int) (int, int)) []int {
		p := make([]int, w*h)
		for y := range h {
			for x := range w {
				a, b := f(x, y)
				p[y*w+x] = b*w + a
			}
		}
		return p
	}
	gens := [][]int{
		perm(func(x, y int) (int, int) { return w - 1 - x, y }),
		perm(func(x, y int) (int, int) { return x, h - 1 - y }),
	}
	if w == h {
		gens = append(gens, perm(func(x, y int) (int, int) { return y, x }))
	}
	return colgen.Symmetry{In: gens, Out: gens}
}

// symmetricGridPrior is the uniform prior of a w×h grid, or one heavier
// towards the centre that the grid's reflections keep.
func symmetricGridPrior(w, h int, uniform bool) mech.Prior {
	pi := make(mech.Prior, w*h)
	for i := range pi {
		pi[i] = 1
		if !uniform {
			x, y := float64(i%w)-float64(w-1)/2, float64(i/w)-float64(h-1)/2
			pi[i] = 1 + x*x + y*y + x*x*y*y/2
		}
	}
	mech.Normalise(pi)
	return pi
}

// TestSymmetricAgainstLP: on small Euclidean grids, with a uniform prior
// and one symmetric under the reflections, the folded master's verdicts
// agree with ε* from the LP search of the unfolded problem (independent of
// the column generation): a proof of the probed ε below ε*, an audited
// mechanism of the whole grid within it above, and at ε* ± 1e-7 a bracket
// of ε*. checkResult re-proves its bounds by certify.DualBound on the
// unfolded pattern and audits its mechanisms.
func TestSymmetricAgainstLP(t *testing.T) {
	cases := []struct {
		w, h    int
		uniform bool
		d       float64
	}{
		{4, 4, true, 2.3}, {5, 5, true, 2.2}, {5, 5, false, 2.3}, {6, 4, true, 2.3}, {6, 6, true, 3.2}, {5, 3, false, 1.5},
	}
	for _, c := range cases {
		u, err := instance.Grid(c.w, c.h)
		require.NoError(t, err)
		pi := symmetricGridPrior(c.w, c.h, c.uniform)
		pat := u.Pattern(-c.d)
		ref, err := worstcase.LeastEpsilon(context.Background(), pi, pat, worstcase.Options{Probes: worstcase.ProbesLP, Tol: 1e-11})
		require.NoError(t, err)
		star := ref.OptimalEpsilon
		require.Greater(t, star, 0.0, "%dx%d d %g", c.w, c.h, c.d)
		g, err := colgen.NewSymmetric(pi, pat, gridSymmetry(c.w, c.h))
		require.NoError(t, err)
		settled := 0
		for _, d := range []float64{-0.3, 0.2, -0.05, 0.01, -1e-3, 1e-4, -1e-7, 1e-7} {
			eps := star + d
			if eps < 0 {
				continue
			}
			r, err := g.Probe(eps)
			require.NoError(t, err)
			checkResult(t, pi, pat, r)
			require.LessOrEqual(t, r.Lower, ref.OptimalEpsilon+1e-12, "%dx%d d %g", c.w, c.h, d)
			if r.Mechanism != nil {
				require.GreaterOrEqual(t, r.PML, ref.OptimalEpsilonLower-1e-12, "%dx%d d %g", c.w, c.h, d)
			}
			if (d > 0 && r.PML <= eps+1e-13) || (d < 0 && r.Lower >= eps-1e-12) {
				settled++
			} else {
				t.Logf("%dx%d d %g: lower−ε %g, pml−ε %g", c.w, c.h, d, r.Lower-eps, r.PML-eps)
			}
		}
		assert.GreaterOrEqual(t, settled, 7, "%dx%d", c.w, c.h)
	}
}

// TestSymmetricSeed: a plain master's columns seed a folded one (each
// moved to its orbit's representative), and the folded master reaches the
// same verdict.
func TestSymmetricSeed(t *testing.T) {
	u, err := instance.Grid(5, 5)
	require.NoError(t, err)
	pi, err := instance.Uniform(25)
	require.NoError(t, err)
	pat := u.Pattern(-2.9)
	plain, err := colgen.New(pi, pat)
	require.NoError(t, err)
	r, err := plain.Probe(1.2)
	require.NoError(t, err)
	folded, err := colgen.NewSymmetric(pi, pat, gridSymmetry(5, 5))
	require.NoError(t, err)
	require.NoError(t, folded.AddSeed(plain.Seed()))
	f, err := folded.Probe(1.2)
	require.NoError(t, err)
	checkResult(t, pi, pat, f)
	assert.Equal(t, r.PML <= 1.2+1e-12, f.PML <= 1.2+1e-12)
	assert.Equal(t, r.Lower >= 1.2-1e-12, f.Lower >= 1.2-1e-12)
}

// TestSymmetryRefused: permutations that are not symmetries of the prior
// or the pattern, or not permutations, are refused.
func TestSymmetryRefused(t *testing.T) {
	u, err := instance.Grid(3, 2)
	require.NoError(t, err)
	pi, err := instance.Uniform(6)
	require.NoError(t, err)
	pat := u.Pattern(-1.2)
	rot := []int{1, 2, 3, 4, 5, 0}
	_, err = colgen.NewSymmetric(pi, pat, colgen.Symmetry{In: [][]int{rot}, Out: [][]int{rot}})
	assert.ErrorContains(t, err, "pattern")
	flip := gridSymmetry(3, 2).In[0]
	skew := mech.Prior{0.1, 0.2, 0.2, 0.2, 0.2, 0.1}
	_, err = colgen.NewSymmetric(skew, pat, colgen.Symmetry{In: [][]int{flip}, Out: [][]int{flip}})
	assert.ErrorContains(t, err, "prior mass")
	_, err = colgen.NewSymmetric(pi, pat, colgen.Symmetry{In: [][]int{{0, 0, 1, 2, 3, 4}}, Out: [][]int{flip}})
	assert.ErrorContains(t, err, "repeated")
	_, err = colgen.NewSymmetric(pi, pat, colgen.Symmetry{In: [][]int{flip}})
	assert.Error(t, err)
	g, err := colgen.NewSymmetric(pi, pat, gridSymmetry(3, 2))
	require.NoError(t, err)
	r, err := g.Probe(math.Log(2))
	require.NoError(t, err)
	checkResult(t, pi, pat, r)
}

// TestDecide: a deciding probe below ε* ends with a proof of the probed ε
// (re-proven by certify.DualBound), in no more rounds than the full probe,
// and above ε* finds an audited mechanism as the full probe does.
func TestDecide(t *testing.T) {
	u, err := instance.Grid(6, 6)
	require.NoError(t, err)
	pi, err := instance.Uniform(36)
	require.NoError(t, err)
	pat := u.Pattern(-3.2)
	ref, err := worstcase.LeastEpsilon(context.Background(), pi, pat, worstcase.Options{Probes: worstcase.ProbesLP, Tol: 1e-11})
	require.NoError(t, err)
	star := ref.OptimalEpsilon
	for _, d := range []float64{-0.4, -0.1, 0.1} {
		full, err := colgen.NewSymmetric(pi, pat, gridSymmetry(6, 6))
		require.NoError(t, err)
		rf, err := full.Probe(star + d)
		require.NoError(t, err)
		dec, err := colgen.NewSymmetric(pi, pat, gridSymmetry(6, 6))
		require.NoError(t, err)
		dec.SetDecide(true)
		rd, err := dec.Probe(star + d)
		require.NoError(t, err)
		checkResult(t, pi, pat, rd)
		assert.LessOrEqual(t, rd.Rounds, rf.Rounds)
		if d < 0 {
			assert.GreaterOrEqual(t, rd.Lower, star+d-1e-12, "d %g", d)
			assert.LessOrEqual(t, rd.Lower, ref.OptimalEpsilon+1e-12)
		} else {
			require.NotNil(t, rd.Mechanism)
			assert.LessOrEqual(t, rd.PML, star+d+1e-13)
		}
	}
}

// gridSetCase is a w×h grid with the prior symmetricGridPrior gives, the
// box of 0.8–1.25 times it or the L1 ball of radius 0.1 around it, and
// the pattern of the cells within distance d.
type gridSetCase struct {
	w, h    int
	uniform bool
	d       float64
	ball    bool
}

func (c gridSetCase) build(t *testing.T) (mech.Prior, *mech.PriorSet, mech.Pattern) {
	t.Helper()
	u, err := instance.Grid(c.w, c.h)
	require.NoError(t, err)
	pi := symmetricGridPrior(c.w, c.h, c.uniform)
	set := boxAround(pi, 0.8, 1.25)
	if c.ball {
		set, err = mech.NewL1Set(pi, 0.1)
		require.NoError(t, err)
	}
	return pi, set, u.Pattern(-c.d)
}

// lpFeasible reports whether the dualised robust LP of polytope.BuildRobust
// (the unfolded problem, solved whole) has an eps-PML mechanism over the
// set with the pattern.
func lpFeasible(t *testing.T, set *mech.PriorSet, pat mech.Pattern, eps float64) bool {
	t.Helper()
	slv, err := solver.Get("revised")
	require.NoError(t, err)
	mod, err := polytope.BuildRobust(polytope.Spec{Prior: set.Center, Budget: mech.Budget{Measure: mech.PML, Epsilon: eps}, Pattern: pat}, set)
	require.NoError(t, err)
	sol, err := slv.Solve(mod.LP)
	require.NoError(t, err)
	return sol.Status == solver.Optimal
}

// TestRobustSymmetricAgainstDualisedLP: on small Euclidean grids with a
// prior the reflections keep, over a box of the same factors around every
// mass and over an L1 ball, the folded robust master's bracket holds the
// least ε over the set (the dualised LP of the unfolded problem, solved
// whole up to 16 letters, finds a mechanism 1e-7 above it and none 1e-7
// below), and meets the unfolded master's bracket: its mechanism is audited
// over the set and at sampled priors, its multipliers re-proven by
// certify.DualCertificateColumns on the unfolded pattern (checkBracket).
func TestRobustSymmetricAgainstDualisedLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 9))
	ctx := context.Background()
	cases := []gridSetCase{
		{4, 4, true, 2.3, false}, {4, 4, true, 1.5, false}, {4, 4, false, 2.3, true}, {5, 3, false, 1.5, false},
		{5, 5, false, 2.3, false}, {6, 4, true, 2.3, true}, {8, 8, true, 3.2, false},
	}
	for _, c := range cases {
		n := c.w * c.h
		_, set, pat := c.build(t)
		g, err := colgen.NewRobustSymmetric(set, pat, gridSymmetry(c.w, c.h))
		require.NoError(t, err)
		require.Less(t, g.Rows(), n, "%dx%d: the master's rows", c.w, c.h)
		b, err := g.LeastEpsilon(ctx, 1e-9, nil)
		require.NoError(t, err)
		checkBracket(t, rng, set, pat, b)
		plain, err := colgen.RobustLeastEpsilon(ctx, set, pat, 1e-9)
		require.NoError(t, err)
		t.Logf("%dx%d d %g ball %v: folded [%.12g, %.12g] in %d rounds, unfolded [%.12g, %.12g] in %d",
			c.w, c.h, c.d, c.ball, b.Lower, b.Upper, b.Rounds, plain.Lower, plain.Upper, plain.Rounds)
		if n <= 16 {
			assert.True(t, lpFeasible(t, set, pat, b.Upper+1e-7), "%dx%d d %g ball %v: the dualised LP finds no mechanism just above the upper end", c.w, c.h, c.d, c.ball)
			assert.False(t, lpFeasible(t, set, pat, b.Lower-1e-7), "%dx%d d %g ball %v: the dualised LP finds a mechanism just below the lower end", c.w, c.h, c.d, c.ball)
		}
		assert.LessOrEqual(t, b.Upper-b.Lower, 1e-8, "%dx%d d %g ball %v: bracket", c.w, c.h, c.d, c.ball)
		assert.InDelta(t, plain.Upper, b.Upper, 1e-8, "%dx%d d %g ball %v: against the unfolded master", c.w, c.h, c.d, c.ball)
	}
}

// TestRobustSymmetricRefusesWhatTheGroupMoves: a box whose bounds a
// reflection does not keep, a pattern it does not keep, or an estimate it
// moves is refused, by the generator and the input.
func TestRobustSymmetricRefusesWhatTheGroupMoves(t *testing.T) {
	u, err := instance.Grid(4, 4)
	require.NoError(t, err)
	pi := make(mech.Prior, 16)
	for i := range pi {
		pi[i] = 1.0 / 16
	}
	pat := u.Pattern(-1.5)
	sym := gridSymmetry(4, 4)

	set := boxAround(pi, 0.8, 1.25)
	set.Upper[0] = 0.1 // a corner may take more than the others
	_, err = colgen.NewRobustSymmetric(set, pat, sym)
	require.ErrorContains(t, err, "maps input 0 to 3, of other bounds in the set")

	skewed := make(mech.Pattern, len(pat))
	for i, row := range pat {
		skewed[i] = append([]bool(nil), row...)
	}
	skewed[0][0] = false // the corner may not answer itself; the others may
	_, err = colgen.NewRobustSymmetric(boxAround(pi, 0.8, 1.25), skewed, sym)
	require.ErrorContains(t, err, "does not keep the pattern")

	heavy := append(mech.Prior(nil), pi...)
	heavy[0], heavy[1] = 0.1, 0.0625-(0.1-0.0625)
	ball, err := mech.NewL1Set(heavy, 0.1)
	require.NoError(t, err)
	_, err = colgen.NewRobustSymmetric(ball, pat, sym)
	require.ErrorContains(t, err, "of another prior mass")
}

// TestRobustSymmetricProbes: the folded robust master's probes on either
// side of the least ε over the set (the unfolded master's search): above
// it a mechanism of the whole grid with the pattern, audited over the set
// within the probed ε; below it none, and multipliers of every input whose
// proof (from the engine's duals, not the stabilisation centre's),
// re-checked by certify.DualCertificateColumns on the unfolded pattern,
// lies above 0 and at most ε*; the polished basis's duals, where a probe
// gives them, one per input.
func TestRobustSymmetricProbes(t *testing.T) {
	ctx := context.Background()
	cases := []gridSetCase{
		{5, 5, false, 2.3, false}, {4, 4, true, 2.3, false}, {6, 4, true, 2.3, true}, {8, 8, true, 3.2, false}, {6, 6, true, 3.2, false},
	}
	for _, c := range cases {
		pi, set, pat := c.build(t)
		plain, err := colgen.RobustLeastEpsilon(ctx, set, pat, 1e-10)
		require.NoError(t, err)
		require.LessOrEqual(t, plain.Upper-plain.Lower, 1e-9)
		star := plain.Upper
		name := func(d float64) string {
			return fmt.Sprintf("%dx%d d %g ball %v, ε* %+g", c.w, c.h, c.d, c.ball, d)
		}
		for _, d := range []float64{0.05, 1e-4, -1e-3, -0.1} {
			eps := star + d
			if eps < 0 {
				continue
			}
			g, err := colgen.NewRobustSymmetric(set, pat, gridSymmetry(c.w, c.h))
			require.NoError(t, err)
			g.NoCentreProof() // the proof from the engine's own duals, unfolded
			r, err := g.Probe(eps)
			require.NoError(t, err, name(d))
			if r.Root != nil {
				assert.Len(t, r.Root, len(pi), name(d))
			}
			if d > 0 {
				require.NotNil(t, r.Mechanism, name(d))
				require.True(t, pat.Holds(r.Mechanism), name(d))
				lvl := leakage.PMLOver(set, r.Mechanism)
				assert.InDelta(t, lvl, r.PML, 1e-12, name(d))
				assert.LessOrEqual(t, lvl, eps+1e-9, name(d))
				continue
			}
			require.Nil(t, r.Mechanism, name(d))
			require.Len(t, r.Alpha, len(pi), name(d))
			assert.Greater(t, r.Lower, 0.0, name(d))
			assert.LessOrEqual(t, r.Lower, star+1e-9, name(d))
			cert, ok := certify.DualCertificateColumns(r.Priors, pat, r.Alpha)
			require.True(t, ok, name(d))
			assert.GreaterOrEqual(t, cert.Epsilon, r.Lower-1e-12, name(d))
		}
	}
}
