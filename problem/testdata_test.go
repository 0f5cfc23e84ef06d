package problem

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

func load(t *testing.T, name string) *Problem {
	t.Helper()
	p, err := Load(filepath.Join("..", "testdata", name))
	require.NoError(t, err)
	return p
}

// safeEpsilon is ε_S(h) of Song & Oechtering (2026), Cor. 1, computed here independently of
// any other package: −log of the least prior mass of the rows allowed in a
// column that some row may use.
func safeEpsilon(pi mech.Prior, u mech.Order, h int) float64 {
	least := math.Inf(1)
	for j := range u[0] {
		mass, used := 0.0, false
		for i := range u {
			if u[i][j] >= h {
				mass += pi[i]
				used = true
			}
		}
		if used {
			least = math.Min(least, mass)
		}
	}
	return -math.Log(least)
}

// Song & Oechtering (2026), §IV-A: the counting query. The order derived from the utility is
// eq. (12) exactly, and the utility is u'(x, y) = −(x−y)² − [y < x].
func TestCountingQuery(t *testing.T) {
	p := load(t, "counting-query.yaml")
	require.Equal(t, 7, p.N())
	require.Equal(t, 7, p.M())
	for _, v := range p.Prior {
		assert.Equal(t, 1.0/7, v) // "1/7" is read as the float64 nearest 1/7
	}
	for x := 0; x < 7; x++ {
		for y := 0; y < 7; y++ {
			want := -float64((x - y) * (x - y))
			if y < x {
				want--
			}
			assert.Equal(t, want, p.Utility[x][y], "u'(%d, %d)", x, y)
		}
	}
	eq12 := mech.Order{
		{7, 6, 5, 4, 3, 2, 1},
		{5, 7, 6, 4, 3, 2, 1},
		{3, 5, 7, 6, 4, 2, 1},
		{1, 3, 5, 7, 6, 4, 2},
		{1, 2, 3, 5, 7, 6, 4},
		{1, 2, 3, 4, 5, 7, 6},
		{1, 2, 3, 4, 5, 6, 7},
	}
	assert.Equal(t, eq12, p.Order)
	assert.Equal(t, eq12, p.Utility.Order())
	assert.Equal(t, []string{"0", "1", "2", "3", "4", "5", "6"}, p.Inputs)
	assert.Equal(t, []string{"0", "1", "2", "3", "4", "5", "6"}, p.Outputs)
	assert.Equal(t, &mech.Budget{Measure: mech.PML, Epsilon: 1.3}, p.Privacy)
	assert.Equal(t, WorstCaseOrder, p.Objective)

	// The utility-safe schedule of §IV-A: M*(1) below log 7/3, M*(3) from
	// log 7/3, M*(5) from log 7/2, M*(7) from log 7.
	want := map[int]float64{1: 0, 2: math.Log(7.0 / 3), 3: math.Log(7.0 / 3), 4: math.Log(7.0 / 2), 5: math.Log(7.0 / 2), 6: math.Log(7), 7: math.Log(7)}
	for h, eps := range want {
		assert.InDelta(t, eps, safeEpsilon(p.Prior, p.Order, h), 1e-12, "h = %d", h)
	}
	// 2Δ = 74 for the exponential mechanism of §IV-A.
	vs := p.Utility.Values()
	assert.Equal(t, 74.0, 2*(vs[len(vs)-1]-vs[0]))
}

// The matrix printed as eq. (11) has −9 where the formula gives −10; with
// it, row x = 3 ties u'(3,0) with u'(3,6) and its order is not eq. (12).
// This pins down why counting-query.yaml uses −10.
func TestCountingQueryPrintedRowTies(t *testing.T) {
	printed := mech.Utility{{-9, -5, -2, 0, -1, -4, -9}}
	assert.Equal(t, mech.Order{{2, 3, 5, 7, 6, 4, 2}}, printed.Order())
}

// Song & Oechtering (2026), Example 1 in both regimes, with the values the file headers
// state.
func TestExample1(t *testing.T) {
	u := mech.Order{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}}

	small := load(t, "example1.yaml")
	assert.Equal(t, u, small.Order)
	assert.Nil(t, small.Utility)
	pi := small.Prior
	assert.Equal(t, pi.Max(), pi[0], "x_1 is the most likely letter")
	assert.LessOrEqual(t, pi[1]+pi[2], 0.5)
	eps := small.Privacy.Epsilon
	assert.True(t, math.Log(2) <= eps && eps < -math.Log(pi.Min()))
	// Mechanism (9) for this prior, its marginal and PML log 2.
	m9 := mech.Mechanism{{(1 - 2*pi[2]) / (2 * pi[0]), (1 - 2*pi[1]) / (2 * pi[0]), 0}, {0, 1, 0}, {1, 0, 0}}
	_, err := mech.NewMechanism(m9)
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float64{7.0 / 12, 5.0 / 12, 0}, []float64(m9[0]), 1e-15)
	assert.InDeltaSlice(t, []float64{0.5, 0.5, 0}, m9.Marginal(pi), 1e-15)
	assert.Equal(t, 2, u.WorstCaseOrder(m9))
	assert.InDelta(t, math.Log(2.5), safeEpsilon(pi, u, 2), 1e-15)

	large := load(t, "example1-large.yaml")
	assert.Equal(t, u, large.Order)
	pi = large.Prior
	assert.Equal(t, pi.Max(), pi[0])
	assert.Greater(t, pi[1]+pi[2], 0.5)
	eps = large.Privacy.Epsilon
	assert.True(t, -math.Log(pi[1]+pi[2]) <= eps && eps < -math.Log(pi.Min()))
	assert.InDelta(t, math.Log(5.0/3), safeEpsilon(pi, u, 2), 1e-15)
}

// Song & Oechtering (2026), Figs. 2-3: the circulant order under both priors with
// p_min = 0.1, and the utility-safe levels the headers state.
func TestCirculant(t *testing.T) {
	u := mech.Order{{4, 3, 2, 1}, {1, 4, 3, 2}, {2, 1, 4, 3}, {3, 2, 1, 4}}
	one := load(t, "circulant-one-low.yaml")
	three := load(t, "circulant-three-low.yaml")
	for _, p := range []*Problem{one, three} {
		assert.Equal(t, u, p.Order)
		assert.Equal(t, 0.1, p.Prior.Min())
		assert.Equal(t, WorstCaseOrder, p.Objective)
		assert.Equal(t, mech.PML, p.Privacy.Measure)
	}
	assert.Equal(t, mech.Prior{0.1, 0.3, 0.3, 0.3}, one.Prior)
	assert.Equal(t, mech.Prior{0.1, 0.1, 0.1, 0.7}, three.Prior)
	assert.InDelta(t, -math.Log(0.7), safeEpsilon(one.Prior, u, 2), 1e-12)
	assert.InDelta(t, -math.Log(0.4), safeEpsilon(one.Prior, u, 3), 1e-12)
	assert.InDelta(t, -math.Log(0.3), safeEpsilon(three.Prior, u, 2), 1e-12)
	assert.InDelta(t, -math.Log(0.2), safeEpsilon(three.Prior, u, 3), 1e-12)
}

// Fernandes et al. (2022), Example 1, the eye-colour channel, read from JSON with fraction
// strings: p(Y) = (11/20, 9/20).
func TestEyeColour(t *testing.T) {
	p := load(t, "eye-colour.json")
	assert.Equal(t, []string{"blue", "green", "blue-green"}, p.Inputs)
	assert.Equal(t, []string{"blue", "green"}, p.Outputs)
	assert.Equal(t, mech.Prior{0.25, 0.5, 0.25}, p.Prior)
	m, err := p.RequireMechanism()
	require.NoError(t, err)
	assert.Equal(t, mech.Mechanism{{0.75, 0.25}, {0.25, 0.75}, {0.95, 0.05}}, m)
	assert.InDeltaSlice(t, []float64{11.0 / 20, 9.0 / 20}, m.Marginal(p.Prior), 1e-15)
	assert.Nil(t, p.Utility)
	assert.Nil(t, p.Order)
	assert.Nil(t, p.Privacy)
	assert.Equal(t, Objective(""), p.Objective)
	_, err = p.RequireUtility()
	require.EqualError(t, err, filepath.Join("..", "testdata", "eye-colour.json")+": utility: is missing; this command needs a utility matrix")
	var fe *mech.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "utility", fe.Field)
	assert.Equal(t, filepath.Join("..", "testdata", "eye-colour.json"), p.Source())
	// A problem read without a source, or built in code, names none.
	q, err := Parse([]byte(`{"prior": [1]}`), JSON)
	require.NoError(t, err)
	_, err = q.RequireMechanism()
	require.EqualError(t, err, "mechanism: is missing; this command needs a mechanism")
	q, err = ParseSource([]byte(`{"prior": [1]}`), JSON, "standard input")
	require.NoError(t, err)
	_, err = q.RequirePrivacy()
	require.EqualError(t, err, "standard input: privacy: is missing; this command needs a privacy budget (measure and epsilon)")
	_, err = ParseSource([]byte(`{"prior": [2]}`), JSON, "standard input")
	require.EqualError(t, err, "standard input: prior: sums to 2, not 1 (tolerance 1e-09)")
}

// The four expected-utility files are one problem under four measures.
func TestExpectedUtilityFiles(t *testing.T) {
	base := load(t, "expected-utility.yaml")
	require.Equal(t, 5, base.N())
	for i := range 5 {
		for j := range 5 {
			assert.Equal(t, -math.Abs(float64(i-j)), base.Utility[i][j])
		}
	}
	// Ties share the larger rank: row x = 2 is (−2, −1, 0, −1, −2).
	assert.Equal(t, []int{2, 4, 5, 4, 2}, base.Order[2])
	want := map[string]mech.Budget{
		"expected-utility.yaml":      {Measure: mech.PML, Epsilon: 0.5},
		"expected-utility-alip.yaml": {Measure: mech.ALIP, EpsilonLower: 0.3, EpsilonUpper: 0.5},
		"expected-utility-lip.yaml":  {Measure: mech.LIP, Epsilon: 0.5},
		"expected-utility-ldp.yaml":  {Measure: mech.LDP, Epsilon: 0.5},
	}
	for name, b := range want {
		p := load(t, name)
		got, err := p.RequirePrivacy()
		require.NoError(t, err)
		assert.Equal(t, b, got, name)
		assert.Equal(t, ExpectedUtility, p.Objective, name)
		assert.Equal(t, base.Prior, p.Prior, name)
		assert.Equal(t, base.Utility, p.Utility, name)
	}
}
