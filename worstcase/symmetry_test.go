package worstcase

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// TestSymmetricBestValueMatchesPlainSearch: on uniform Euclidean grids,
// BestValue folded by the grid's reflections (found by DetectSymmetry, and
// given explicitly) finds the best worst-case value of plain binary search
// with full LPs, and the least ε of plain bisection, within a certified
// bracket; so does the unfolded search (an empty Symmetry).
func TestSymmetricBestValueMatchesPlainSearch(t *testing.T) {
	s, err := solver.Get("revised")
	require.NoError(t, err)
	type grid struct {
		w, h    int
		budgets []float64
	}
	grids := []grid{{5, 5, []float64{1}}}
	if !testlong.Short() {
		grids = append(grids, grid{6, 6, []float64{1, 0.6}}, grid{7, 5, []float64{0.9}}, grid{8, 8, []float64{1.5}})
	}
	for _, g := range grids {
		u, err := instance.Grid(g.w, g.h)
		require.NoError(t, err)
		pi, err := instance.Uniform(g.w * g.h)
		require.NoError(t, err)
		found := DetectSymmetry(pi, u)
		require.NotNil(t, found)
		assert.Len(t, found.In, map[bool]int{true: 3, false: 2}[g.w == g.h])
		given := GridSymmetry(g.w, g.h)
		for _, eps := range g.budgets {
			want := plainBestValue(t, s, pi, u, eps)
			star := plainLeastEpsilon(t, s, pi, u.Pattern(want), 1e-11)
			for _, sym := range []*Symmetry{nil, &given, {}} {
				v, r, err := BestValue(context.Background(), pi, u, eps, Options{Workers: 1, Symmetry: sym})
				require.NoError(t, err)
				require.Equal(t, want, v, "%d×%d ε = %v, symmetry %v", g.w, g.h, eps, sym != nil)
				audit(t, pi, u.Pattern(v), r, DefaultTol)
				require.LessOrEqual(t, r.OptimalEpsilon, eps)
				require.InDelta(t, star, r.OptimalEpsilon, 1.5e-9, "%d×%d ε = %v: bracket [%v, %v]", g.w, g.h, eps, r.OptimalEpsilonLower, r.OptimalEpsilon)
			}
		}
	}
}

// TestSymmetricValueCurve: the value curve of a uniform grid folded by its
// reflections brackets the same ε* at every threshold as plain bisection
// with full LPs (at every third step and the last outside the long
// suites).
func TestSymmetricValueCurve(t *testing.T) {
	s, err := solver.Get("revised")
	require.NoError(t, err)
	u, err := instance.Grid(5, 5)
	require.NoError(t, err)
	pi, err := instance.Uniform(25)
	require.NoError(t, err)
	pts, err := ValueCurve(context.Background(), pi, u, Options{Workers: 1})
	require.NoError(t, err)
	require.NotEmpty(t, pts)
	for k, p := range pts {
		require.LessOrEqual(t, p.OptimalEpsilon-p.OptimalEpsilonLower, DefaultTol)
		if p.Mechanism != nil {
			require.True(t, u.Pattern(p.ThresholdMax).Holds(p.Mechanism))
		}
		if testlong.Short() && k%3 != 0 && k != len(pts)-1 {
			continue
		}
		for _, v := range []float64{p.Threshold, p.ThresholdMax} {
			pat := u.Pattern(v)
			star := plainLeastEpsilon(t, s, pi, pat, 1e-11)
			require.InDelta(t, star, p.OptimalEpsilon, 1.5e-9, "threshold %v", v)
		}
	}
}

// TestSymmetryRefused: a Symmetry that is not one of the prior and the
// utility is refused, naming the generator.
func TestSymmetryRefused(t *testing.T) {
	u, err := instance.Grid(4, 3)
	require.NoError(t, err)
	pi, err := instance.Uniform(12)
	require.NoError(t, err)
	sq := GridSymmetry(4, 4) // permutations of 16 letters
	_, _, err = BestValue(context.Background(), pi, u, 1, Options{Symmetry: &sq})
	assert.ErrorContains(t, err, "symmetry generator 0 is not a permutation")
	rot := make([]int, 12)
	for i := range rot {
		rot[i] = (i + 1) % 12
	}
	_, err = ValueCurve(context.Background(), pi, u, Options{Symmetry: &Symmetry{In: [][]int{rot}, Out: [][]int{rot}}})
	assert.ErrorContains(t, err, "symmetry generator 0 changes the utility")
	skew := mech.Prior{2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	mech.Normalise(skew)
	g := GridSymmetry(4, 3)
	_, _, err = BestValue(context.Background(), skew, u, 1, Options{Symmetry: &g})
	assert.ErrorContains(t, err, "another prior mass")
	assert.Nil(t, DetectSymmetry(skew, u), "no reflection keeps a corner heavier")
}

// TestFurthest: the binary search of BestValue's reuse of a decision's
// evidence finds the last true index of a monotone predicate, against a
// linear scan.
func TestFurthest(t *testing.T) {
	for lo := 0; lo < 6; lo++ {
		for hi := lo + 1; hi < 12; hi++ {
			for edge := lo; edge < hi; edge++ {
				calls := 0
				got := furthest(lo, hi, func(k int) bool { calls++; return k <= edge })
				require.Equal(t, edge, got, "lo %d hi %d edge %d", lo, hi, edge)
				require.LessOrEqual(t, calls, 4)
			}
		}
	}
}
