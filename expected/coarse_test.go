package expected

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
)

// TestMergeInputsAveragesBlocks: a 5×3 grid merged 2×2 has blocks of
// 4, 4, 2, 2 and 2 cells once its corner of no mass joins none (else 1);
// a block's utility is the prior-weighted mean of its
// cells' (summed here entry by entry from the rule's matrix), its prior
// their mass, and a cell of no mass joins no block.
func TestMergeInputsAveragesBlocks(t *testing.T) {
	rule := &mech.UtilityRule{Metric: mech.Euclidean, Inputs: mech.Sites{Grid: &mech.Grid{Width: 5, Height: 3, Cell: 1}}}
	pi := make(mech.Prior, 15)
	for i := range pi {
		pi[i] = float64(i%4 + 1)
	}
	pi[14] = 0 // the corner (4, 2): block (2, 1) is then empty
	defer func(b int) { coarseBlocks = b }(coarseBlocks)
	coarseBlocks = 5
	m, ok := mergeInputs(pi, rule, rule.Inputs, 2)
	require.True(t, ok)
	require.Len(t, m.mass, 5)
	u := rule.Dense()
	for j := range 15 {
		got := make([]float64, 5)
		m.Column(j, got)
		want, mass := make(map[[2]int]float64), make(map[[2]int]float64)
		for i := range 15 {
			if pi[i] == 0 {
				continue
			}
			key := [2]int{i % 5 / 2, i / 5 / 2}
			want[key] += pi[i] * u[i][j]
			mass[key] += pi[i]
		}
		require.Len(t, mass, 5)
		for i := range 15 {
			if pi[i] == 0 {
				assert.Equal(t, -1, m.block[i])
				continue
			}
			key := [2]int{i % 5 / 2, i / 5 / 2}
			assert.InDelta(t, mass[key], m.mass[m.block[i]], 1e-15)
			assert.InDelta(t, want[key]/mass[key], got[m.block[i]], 1e-12, "output %d, cell %d", j, i)
		}
	}
	_, ok = mergeInputs(pi, rule, rule.Inputs, 4) // 2 blocks
	assert.False(t, ok)
}

// TestMergeInputsRastersPoints: points share a block exactly when they
// fall in the same cell of the square raster over their bounding box
// (counted here by floor division), whose side is f times the larger of
// √(area/N) and the longer side over N; points on a line are merged
// along it; identical points and a merge with fewer than coarseBlocks
// blocks of mass are refused.
func TestMergeInputsRastersPoints(t *testing.T) {
	defer func(b int) { coarseBlocks = b }(coarseBlocks)
	coarseBlocks = 2
	rng := rand.New(rand.NewPCG(5, 6))
	rule := func(pts [][2]float64) *mech.UtilityRule {
		return &mech.UtilityRule{Metric: mech.Euclidean, Inputs: mech.Sites{Points: pts}}
	}
	uniform := func(n int) mech.Prior {
		pi := make(mech.Prior, n)
		for i := range pi {
			pi[i] = 1 / float64(n)
		}
		return pi
	}
	pts := make([][2]float64, 40)
	for i := range pts {
		pts[i] = [2]float64{1 + 10*rng.Float64(), -3 + 5*rng.Float64()}
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		x0, y0, x1, y1 = min(x0, p[0]), min(y0, p[1]), max(x1, p[0]), max(y1, p[1])
	}
	side := 2 * math.Max(math.Sqrt((x1-x0)*(y1-y0)/40), math.Max(x1-x0, y1-y0)/40)
	r := rule(pts)
	m, ok := mergeInputs(uniform(40), r, r.Inputs, 2)
	require.True(t, ok)
	cells := map[[2]int]bool{}
	for a, p := range pts {
		ca := [2]int{int(math.Floor((p[0] - x0) / side)), int(math.Floor((p[1] - y0) / side))}
		cells[ca] = true
		for b, q := range pts {
			cb := [2]int{int(math.Floor((q[0] - x0) / side)), int(math.Floor((q[1] - y0) / side))}
			assert.Equal(t, ca == cb, m.block[a] == m.block[b], "points %d and %d", a, b)
		}
	}
	assert.Len(t, m.mass, len(cells))

	line := make([][2]float64, 40)
	for i := range line {
		line[i] = [2]float64{float64(i), 7}
	}
	r = rule(line)
	m, ok = mergeInputs(uniform(40), r, r.Inputs, 2)
	require.True(t, ok, "points on a line")
	lineSide := 2 * 39.0 / 40
	for a := range line {
		for b := range line {
			same := math.Floor(float64(a)/lineSide) == math.Floor(float64(b)/lineSide)
			assert.Equal(t, same, m.block[a] == m.block[b], "points %d and %d", a, b)
		}
	}
	assert.Len(t, m.mass, 21)

	same := make([][2]float64, 40)
	for i := range same {
		same[i] = [2]float64{3, 4}
	}
	r = rule(same)
	_, ok = mergeInputs(uniform(40), r, r.Inputs, 2)
	assert.False(t, ok, "identical points")

	coarseBlocks = 10
	r = rule(pts)
	sparse := make(mech.Prior, 40)
	sparse[0], sparse[39] = 0.5, 0.5
	_, ok = mergeInputs(sparse, r, r.Inputs, 2)
	assert.False(t, ok, "a prior of two letters")
}

// TestCoarseSeedKeepsTheOptimum: started from the outputs the merged
// levels place, on a grid and on the same sites given as points (shuffled,
// so the raster path numbers them), the active set still reaches the
// whole problem's optimum to 1e-9 with a bound that brackets it and an
// audited mechanism whose rows sum to 1; the level did run (its rounds'
// notes).
func TestCoarseSeedKeepsTheOptimum(t *testing.T) {
	defer func(b int) { coarseBlocks = b }(coarseBlocks)
	coarseBlocks = 16
	ctx := context.Background()
	const w, h = 10, 10
	dense, err := instance.Grid(w, h)
	require.NoError(t, err)
	grid := &mech.UtilityRule{Metric: mech.Euclidean, Inputs: mech.Sites{Grid: &mech.Grid{Width: w, Height: h, Cell: 1}}}
	perm := rand.New(rand.NewPCG(3, 4)).Perm(w * h)
	pts := make([][2]float64, w*h)
	for k, c := range perm {
		pts[k] = [2]float64{float64(c % w), float64(c / w)}
	}
	points := &mech.UtilityRule{Metric: mech.Euclidean, Inputs: mech.Sites{Points: pts}}
	budgets := []mech.Budget{{Measure: mech.PML, Epsilon: 1}, {Measure: mech.LIP, Epsilon: 1}, {Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 0.5}, {Measure: mech.LDP, Epsilon: 1}}
	for name, gridPi := range gridPriors(t, w, h) {
		for _, b := range budgets {
			for _, rule := range []*mech.UtilityRule{grid, points} {
				pi, u := gridPi, dense
				if rule == points {
					pi, u = make(mech.Prior, w*h), make(mech.Utility, w*h)
					for k, c := range perm {
						pi[k] = gridPi[c]
						u[k] = make([]float64, w*h)
						for l, d := range perm {
							u[k][l] = dense[c][d]
						}
					}
				}
				t.Run(fmt.Sprintf("%s/%s/points=%v", name, budgetName(b), rule == points), func(t *testing.T) {
					whole, err := Maximize(ctx, pi, u, b, Options{WholeProblem: true})
					require.NoError(t, err)
					var notes []string
					seed := coarseSeed(ctx, pi, rule, b, Options{Notify: func(s string) { notes = append(notes, s) }})
					require.NotEmpty(t, seed)
					require.NotEmpty(t, notes)
					for _, s := range notes {
						assert.True(t, strings.HasPrefix(s, "inputs merged 2×2 ("), s)
					}
					r, err := activeSet(ctx, pi, rule, b, seed, Options{})
					require.NoError(t, err)
					scale := math.Max(1, math.Abs(whole.Value))
					assert.InDelta(t, whole.Value, r.Value, 1e-9*scale)
					assert.GreaterOrEqual(t, r.Bound, whole.Value-1e-12*scale)
					assert.GreaterOrEqual(t, whole.Bound, r.Value-1e-12*scale)
					a, err := certify.Audit(pi, r.Mechanism, b)
					require.NoError(t, err)
					assert.InDelta(t, a.Level, r.Epsilon, 1e-12)
					assert.True(t, certify.RowsSumToOne(r.Mechanism))
				})
			}
		}
	}
}
