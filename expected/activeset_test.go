package expected

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/mech"
)

// activeBudgets are the budgets of the active set's tests: every measure.
var activeBudgets = []mech.Budget{
	{Measure: mech.PML, Epsilon: 0.5},
	{Measure: mech.PML, Epsilon: 1},
	{Measure: mech.PML, Epsilon: 2},
	{Measure: mech.LIP, Epsilon: 1},
	{Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 0.5},
	{Measure: mech.LDP, Epsilon: 1},
}

// gridPriors are a w×h grid's uniform prior and a clustered one (two
// Gaussian clusters of points binned into the cells, +0.5 per cell).
func gridPriors(t *testing.T, w, h int) map[string]mech.Prior {
	t.Helper()
	uni, err := instance.Uniform(w * h)
	require.NoError(t, err)
	clu, err := instance.GridClusters(rand.New(rand.NewPCG(uint64(w), uint64(h))), w, h, 20*w*h)
	require.NoError(t, err)
	return map[string]mech.Prior{"uniform": uni, "clustered": clu}
}

// TestActiveSetMatchesTheWholeProblem: on grids with Euclidean loss, both
// prior families and every measure, the active set over outputs reaches
// the optimum of the interior point on the whole problem (the path it
// replaces) to 1e-9, with a bound that certify proves over every output
// and that brackets that optimum, an audited mechanism without dust whose
// rows sum to 1, and outputs from beyond its first set (so pricing had to
// find them); an ε-PML vertex is ipm.PurifiedVertex's (whose tests audit
// it as a vertex against the LP).
func TestActiveSetMatchesTheWholeProblem(t *testing.T) {
	ctx := context.Background()
	sizes := [][2]int{{6, 6}, {10, 10}}
	if testlong.Short() {
		sizes = sizes[:1]
	}
	for _, sz := range sizes {
		w, h := sz[0], sz[1]
		u, err := instance.Grid(w, h)
		require.NoError(t, err)
		for name, pi := range gridPriors(t, w, h) {
			for _, b := range activeBudgets {
				t.Run(fmt.Sprintf("%dx%d/%s/%s", w, h, name, budgetName(b)), func(t *testing.T) {
					whole, err := Maximize(ctx, pi, u, b, Options{WholeProblem: true})
					require.NoError(t, err)
					var notes []string
					r, err := activeSet(ctx, pi, u, b, seedOutputs(normalised(pi), u, 1), Options{Notify: func(s string) { notes = append(notes, s) }})
					require.NoError(t, err)
					for _, s := range notes {
						// ε-PML's vertex comes from ipm.PurifiedVertex, not the face LP.
						assert.NotContains(t, s, "no purified vertex")
					}
					r = r.finish(pi, u)
					scale := math.Max(1, math.Abs(whole.Value))
					assert.InDelta(t, whole.Value, r.Value, 1e-9*scale)
					assert.GreaterOrEqual(t, r.Bound, r.Value)
					assert.GreaterOrEqual(t, r.Bound, whole.Value-1e-12*scale)
					assert.GreaterOrEqual(t, whole.Bound, r.Value-1e-12*scale)
					assert.LessOrEqual(t, r.Bound-r.Value, 1e-8*scale)
					a, err := certify.Audit(pi, r.Mechanism, b)
					require.NoError(t, err)
					assert.InDelta(t, a.Level, r.Epsilon, 1e-12)
					assert.True(t, certify.RowsSumToOne(r.Mechanism))
					seed := seedOutputs(normalised(pi), u, 1)
					beyond := false
					for i, row := range r.Mechanism {
						for j, v := range row {
							if v > 0 && v < certify.DustEntry {
								t.Fatalf("dust %g at (%d, %d)", v, i, j)
							}
							beyond = beyond || (v > 0 && !slices.Contains(seed, j))
						}
					}
					assert.True(t, beyond, "the optimum uses only the first outputs")
				})
			}
		}
	}
}

// budgetName names b in a subtest.
func budgetName(b mech.Budget) string {
	if b.Measure == mech.ALIP {
		return fmt.Sprintf("alip%g-%g", b.EpsilonLower, b.EpsilonUpper)
	}
	return fmt.Sprintf("%s%g", b.Measure, b.Epsilon)
}

// TestPricingAgreesWithTheCertificates: for random multipliers the
// reduced gains of every output give the bound certify proves,
// Σ α + max(0, max K_j) for ε-PML and Σ α + (N for LDP, else 1)·max K_j
// for the others, to rounding.
func TestPricingAgreesWithTheCertificates(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 3))
	for trial := range 60 {
		n, m := 2+rng.IntN(12), 1+rng.IntN(12)
		pi := randinst.Prior(rng, n, 0.01)
		u := randinst.Utility(rng, n, m, 0)
		alpha := make([]float64, n)
		for i := range alpha {
			alpha[i] = pi[i] * (rng.Float64()*2 - 1)
		}
		b := activeBudgets[trial%len(activeBudgets)]
		gains := priceOutputs(pi, u, b, alpha)
		sum := 0.0
		for _, a := range alpha {
			sum += a
		}
		var want, got float64
		if b.Measure == mech.PML {
			want = certify.UpperBound(pi, u, nil, b.Epsilon, alpha)
			got = sum + math.Max(0, slices.Max(gains))
		} else {
			want = certify.RatioUpperBound(pi, u, b, alpha)
			mass := 1.0
			if b.Measure == mech.LDP {
				mass = float64(n)
			}
			got = sum + mass*slices.Max(gains)
		}
		assert.InDelta(t, want, got, 1e-12, "trial %d (%d×%d, %s)", trial, n, m, budgetName(b))
	}
}

// TestGreedyMassIsTheSortedGreedy: the selection-based fractional
// knapsack equals the greedy over the gains sorted in decreasing order
// (the definition of K_j), to rounding, on gains with many ties (a
// uniform grid's) and without, for masses below, at and above the caps'
// total.
func TestGreedyMassIsTheSortedGreedy(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 12))
	for trial := range 300 {
		n := 1 + rng.IntN(400)
		pi := randinst.Prior(rng, n, []float64{0, 0.01}[trial%2])
		g := make([]float64, n)
		for i := range g {
			if trial%3 == 0 {
				g[i] = float64(rng.IntN(5)) // ties
			} else {
				g[i] = rng.NormFloat64()
			}
		}
		c := []float64{1, math.E, 20}[trial%3]
		left := []float64{1, 0.3, 2, 0}[trial%4]
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch {
			case g[a] > g[b]:
				return -1
			case g[a] < g[b]:
				return 1
			}
			return 0
		})
		want, rest := 0.0, left
		for _, i := range order {
			if rest <= 0 {
				break
			}
			y := math.Min(c*pi[i], rest)
			want += y * g[i]
			rest -= y
		}
		got := greedyMass(pi, g, c, left, make([]int, n))
		assert.InDelta(t, want, got, 1e-13*float64(n), "trial %d (n %d, c %g, mass %g)", trial, n, c, left)
	}
}

// TestDropUnused: the outputs a restricted optimum leaves unused leave the
// set when they are more than half of it, each at most once; when at most
// half are unused the set stays.
func TestDropUnused(t *testing.T) {
	pi := mech.Prior{0.5, 0.5}
	in, dropped := make([]bool, 8), make([]bool, 8)
	set := []int{1, 3, 4, 6, 7}
	for _, j := range set {
		in[j] = true
	}
	// Outputs 3 and 6 carry the mass; 1, 4 and 7 (three of five) a trace
	// below unusedMass of the largest marginal.
	p := mech.Mechanism{
		{1e-9, 0.6, 0, 0.4, 1e-12},
		{0, 0.3, 1e-10, 0.7, 0},
	}
	got := dropUnused(pi, p, set, in, dropped)
	assert.Equal(t, []int{3, 6}, got)
	assert.Equal(t, []int{1, 3, 4, 6, 7}, set, "the caller's set is not overwritten")
	for _, j := range []int{1, 4, 7} {
		assert.True(t, dropped[j] && !in[j], "output %d", j)
	}
	assert.True(t, in[3] && in[6] && !dropped[3] && !dropped[6])

	// Output 1 priced in again stays whatever its mass.
	in[1] = true
	set = []int{1, 3, 6}
	p = mech.Mechanism{{1e-12, 0.6, 0.4}, {0, 0.3, 0.7}}
	assert.Equal(t, []int{1, 3, 6}, dropUnused(pi, p, set, in, dropped))

	// Two of four unused: not more than half, the set stays.
	in2, dropped2 := make([]bool, 4), make([]bool, 4)
	p = mech.Mechanism{{0.5, 0, 0.5, 0}, {0.5, 0, 0.5, 0}}
	assert.Equal(t, []int{0, 1, 2, 3}, dropUnused(pi, p, []int{0, 1, 2, 3}, in2, dropped2))
	assert.Equal(t, []bool{false, false, false, false}, dropped2)
}

// TestActiveSetPricesFromUncertifiedPoints: where the low-rank interior
// point stops short of its gap on a problem too large for the dense one
// (here every round, for a gap no point reaches, and every problem
// counted as too large), the round prices the outputs from its point and
// the search goes on; the last round's point is certified by padded
// itself. The optimum is the whole problem's, its bound brackets it, and
// the notes show the rounds that took the new path.
func TestActiveSetPricesFromUncertifiedPoints(t *testing.T) {
	defer func(d int, g float64) { denseInputs, restrictedGap = d, g }(denseInputs, restrictedGap)
	denseInputs, restrictedGap = 0, 1e-300
	ctx := context.Background()
	u, err := instance.Grid(10, 10)
	require.NoError(t, err)
	pi := gridPriors(t, 10, 10)["clustered"]
	for _, b := range []mech.Budget{{Measure: mech.LIP, Epsilon: 1}, {Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 0.5}} {
		t.Run(budgetName(b), func(t *testing.T) {
			whole, err := Maximize(ctx, pi, u, b, Options{WholeProblem: true})
			require.NoError(t, err)
			var notes []string
			r, err := activeSet(ctx, pi, u, b, seedOutputs(normalised(pi), u, 1), Options{Notify: func(s string) { notes = append(notes, s) }})
			require.NoError(t, err)
			priced := 0
			for _, s := range notes {
				if strings.Contains(s, "priced from its point") {
					priced++
				}
			}
			assert.GreaterOrEqual(t, priced, 2, "rounds priced from uncertified points: %q", notes)
			scale := math.Max(1, math.Abs(whole.Value))
			assert.InDelta(t, whole.Value, r.Value, 1e-9*scale)
			assert.GreaterOrEqual(t, r.Bound, whole.Value-1e-12*scale)
			assert.LessOrEqual(t, r.Bound-r.Value, 1e-8*scale)
			a, err := certify.Audit(pi, r.Mechanism, b)
			require.NoError(t, err)
			assert.InDelta(t, a.Level, r.Epsilon, 1e-12)
		})
	}
}
