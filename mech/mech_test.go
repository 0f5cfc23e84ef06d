package mech

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The eye-colour channel of Fernandes et al. (2022), Example 1 (docs/theory.md §2): inputs blue,
// green, blue-green; outputs blue, green.
var (
	eyePrior = Prior{1.0 / 4, 1.0 / 2, 1.0 / 4}
	eyeMech  = Mechanism{{3.0 / 4, 1.0 / 4}, {1.0 / 4, 3.0 / 4}, {19.0 / 20, 1.0 / 20}}
)

func TestFieldErrorFormat(t *testing.T) {
	assert.EqualError(t, &FieldError{"utility", 2, 1, "bad"}, "utility row 3, column 2: bad")
	assert.EqualError(t, &FieldError{"mechanism", 0, -1, "bad"}, "mechanism row 1: bad")
	assert.EqualError(t, &FieldError{"prior", -1, 4, "bad"}, "prior entry 5: bad")
	assert.EqualError(t, &FieldError{"privacy", -1, -1, "bad"}, "privacy: bad")
}

func TestNewPrior(t *testing.T) {
	p, err := NewPrior([]float64{0.5, 0.25, 0.25})
	require.NoError(t, err)
	assert.Equal(t, 3, p.Len())
	assert.Equal(t, 0.25, p.Min())
	assert.Equal(t, 0.5, p.Max())

	// Within SumTol of 1 is accepted; beyond it refused.
	_, err = NewPrior([]float64{0.5, 0.5 + 0.9e-9})
	require.NoError(t, err)

	tests := []struct {
		p    []float64
		want string
	}{
		{nil, "prior: is empty"},
		{[]float64{}, "prior: is empty"},
		{[]float64{0.5, math.NaN(), 0.5}, "prior entry 2: is NaN"},
		{[]float64{math.Inf(1)}, "prior entry 1: is infinite"},
		{[]float64{0.5, 0.5, math.Inf(-1)}, "prior entry 3: is infinite"},
		{[]float64{1.25, -0.25}, "prior entry 2: is negative (-0.25)"},
		{[]float64{1, 0}, "prior entry 2: is zero; pmlopt needs a prior with full support"},
		{[]float64{0.5, 0.5 + 2e-9}, "prior: sums to 1.0000000020000002, not 1 (tolerance 1e-09)"},
		{[]float64{0.25, 0.25}, "prior: sums to 0.5, not 1 (tolerance 1e-09)"},
	}
	for _, tt := range tests {
		_, err := NewPrior(tt.p)
		assert.EqualError(t, err, tt.want, "%v", tt.p)
		var fe *FieldError
		assert.ErrorAs(t, err, &fe)
	}
}

func TestUniform(t *testing.T) {
	u := Uniform(4)
	assert.Equal(t, Prior{0.25, 0.25, 0.25, 0.25}, u)
	_, err := NewPrior(Uniform(7))
	assert.NoError(t, err)
}

func TestNewMechanism(t *testing.T) {
	m, err := NewMechanism(eyeMech)
	require.NoError(t, err)
	n, k := m.Dims()
	assert.Equal(t, 3, n)
	assert.Equal(t, 2, k)

	tests := []struct {
		p    [][]float64
		want string
	}{
		{nil, "mechanism: has no rows"},
		{[][]float64{{}}, "mechanism row 1: has no columns"},
		{[][]float64{{1, 0}, {1}}, "mechanism row 2: has 1 entries, row 1 has 2"},
		{[][]float64{{1, 0}, {math.NaN(), 1}}, "mechanism row 2, column 1: is NaN"},
		{[][]float64{{1, 0}, {0, math.Inf(1)}}, "mechanism row 2, column 2: is infinite"},
		{[][]float64{{1.5, -0.5}}, "mechanism row 1, column 2: is negative (-0.5)"},
		{[][]float64{{1, 0}, {0.5, 0.25}}, "mechanism row 2: sums to 0.75, not 1 (tolerance 1e-09)"},
	}
	for _, tt := range tests {
		_, err := NewMechanism(tt.p)
		assert.EqualError(t, err, tt.want, "%v", tt.p)
	}
	assert.EqualError(t, m.CheckPrior(Prior{0.5, 0.5}), "mechanism: has 3 rows but the prior has 2 letters")
	assert.NoError(t, m.CheckPrior(eyePrior))
}

func TestZerosCloneDims(t *testing.T) {
	z := Zeros(2, 3)
	assert.Equal(t, Mechanism{{0, 0, 0}, {0, 0, 0}}, z)
	// Rows do not overlap: appending to one row must not write into the next.
	z[0] = append(z[0], 9)
	assert.Equal(t, []float64{0, 0, 0}, []float64(z[1]))

	c := eyeMech.Clone()
	assert.Equal(t, eyeMech, c)
	c[0][0] = 0
	assert.Equal(t, 0.75, eyeMech[0][0], "Clone is deep")

	n, m := Mechanism(nil).Dims()
	assert.Zero(t, n)
	assert.Zero(t, m)
	n, m = Utility(nil).Dims()
	assert.Zero(t, n+m)
	n, m = Order(nil).Dims()
	assert.Zero(t, n+m)
}

// Fernandes et al. (2022), Example 1: p(Y) = (11/20, 9/20) and the posteriors
// (15/44, 10/44, 19/44) and (5/36, 30/36, 1/36).
func TestEyeColourMarginalPosteriorDensity(t *testing.T) {
	q := eyeMech.Marginal(eyePrior)
	assert.InDeltaSlice(t, []float64{11.0 / 20, 9.0 / 20}, q, 1e-15)

	post := eyeMech.Posterior(eyePrior)
	want := [][]float64{{15.0 / 44, 5.0 / 36}, {10.0 / 44, 30.0 / 36}, {19.0 / 44, 1.0 / 36}}
	for i := range want {
		assert.InDeltaSlice(t, want[i], post[i], 1e-15)
	}

	d := eyeMech.InformationDensity(eyePrior)
	wantD := [][]float64{
		{math.Log(15.0 / 11), math.Log(5.0 / 9)},
		{math.Log(5.0 / 11), math.Log(15.0 / 9)},
		{math.Log(19.0 / 11), math.Log(1.0 / 9)},
	}
	for i := range wantD {
		assert.InDeltaSlice(t, wantD[i], d[i], 1e-14)
	}
	// The largest density is log of the lift 19/11 (docs/theory.md §2); the LDP level
	// log 15 is the largest ratio within a column: (3/4)/(1/20).
	assert.InDelta(t, math.Log(19.0/11), d[2][0], 1e-15)
	assert.InDelta(t, math.Log(15), d[1][1]-d[2][1], 1e-14)
}

// An unused output has a zero posterior column and −∞ density.
func TestUnusedOutput(t *testing.T) {
	p := Mechanism{{0.5, 0, 0.5}, {1, 0, 0}}
	pi := Prior{0.25, 0.75}
	q := p.Marginal(pi)
	assert.Equal(t, []float64{0.875, 0, 0.125}, q)
	post := p.Posterior(pi)
	assert.Equal(t, 0.0, post[0][1])
	assert.Equal(t, 0.0, post[1][1])
	assert.InDelta(t, 0.125/0.875, post[0][0], 1e-15)
	assert.Equal(t, 1.0, post[0][2])
	d := p.InformationDensity(pi)
	assert.True(t, math.IsInf(d[0][1], -1))
	assert.True(t, math.IsInf(d[1][2], -1))
	assert.InDelta(t, math.Log(0.5/0.125), d[0][2], 1e-15)
}

func TestNewUtility(t *testing.T) {
	_, err := NewUtility([][]float64{{0, -1}, {-1, math.Inf(-1)}})
	assert.EqualError(t, err, "utility row 2, column 2: is infinite")
	_, err = NewUtility([][]float64{{0, math.NaN()}})
	assert.EqualError(t, err, "utility row 1, column 2: is NaN")
	_, err = NewUtility(nil)
	assert.EqualError(t, err, "utility: has no rows")
	u, err := NewUtility([][]float64{{-math.MaxFloat64, math.MaxFloat64}})
	require.NoError(t, err)
	assert.Equal(t, Order{{1, 2}}, u.Order())
}

// The tie rule: a value's rank is the number of entries of its row that are
// ≤ it.
func TestUtilityOrderTieRule(t *testing.T) {
	tests := []struct {
		row  []float64
		want []int
	}{
		{[]float64{1, 1, 2}, []int{2, 2, 3}},
		{[]float64{2, 1, 1}, []int{3, 2, 2}},
		{[]float64{1, 2, 2}, []int{1, 3, 3}},
		{[]float64{5, 5, 5}, []int{3, 3, 3}},
		{[]float64{0.3, -2, 7, 1}, []int{2, 1, 4, 3}},
		{[]float64{0, -1, -4, -9}, []int{4, 3, 2, 1}},
		{[]float64{math.Copysign(0, -1), 0}, []int{2, 2}}, // -0 == 0
		{[]float64{4}, []int{1}},
	}
	for _, tt := range tests {
		got := Utility{tt.row}.Order()
		assert.Equal(t, Order{tt.want}, got, "%v", tt.row)
		// The derived order is always a valid order.
		_, err := NewOrder(got)
		assert.NoError(t, err)
	}
	// Distinct values give a permutation of 1..M in every row.
	u := Utility{{3.5, -1, 2, 0, 10}, {1, 2, 3, 4, 5}, {5, 4, 3, 2, 1}}
	for _, row := range u.Order() {
		seen := make([]bool, 6)
		for _, r := range row {
			require.True(t, r >= 1 && r <= 5)
			assert.False(t, seen[r], "rank %d twice in %v", r, row)
			seen[r] = true
		}
	}
	assert.Equal(t, Order{{4, 1, 3, 2, 5}, {1, 2, 3, 4, 5}, {5, 4, 3, 2, 1}}, u.Order())
}

func TestNewOrder(t *testing.T) {
	for _, ok := range [][][]int{
		{{1, 3, 3}},
		{{2, 2, 3}},
		{{3, 3, 3}},
		{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}},
		{{1}},
	} {
		_, err := NewOrder(ok)
		assert.NoError(t, err, "%v", ok)
	}
	tests := []struct {
		o    [][]int
		want string
	}{
		{[][]int{{1, 2, 2}}, "order row 1, column 2: row [1 2 2] is not a ranking of 1..3"},
		{[][]int{{3, 2, 1}, {1, 1, 3}}, "order row 2, column 1: row [1 1 3] is not a ranking of 1..3"},
		{[][]int{{1, 2, 3}, {1, 2, 4}}, "order row 2, column 3: is 4, outside 1..3"},
		{[][]int{{0, 1}}, "order row 1, column 1: is 0, outside 1..2"},
		{[][]int{{1, 2}, {1}}, "order row 2: has 1 entries, row 1 has 2"},
		{[][]int{{}}, "order row 1: has no columns"},
		{nil, "order: has no rows"},
	}
	for _, tt := range tests {
		_, err := NewOrder(tt.o)
		require.Error(t, err, "%v", tt.o)
		assert.Contains(t, err.Error(), tt.want)
	}
}

func TestValues(t *testing.T) {
	u := Utility{{0, -1, -4}, {-1, 0, -1}, {-4, -1, 0}}
	assert.Equal(t, []float64{-4, -1, 0}, u.Values())
}

func TestPatterns(t *testing.T) {
	// Song & Oechtering (2026), Example 1, h = 2: the forbidden pairs are the 1s of U.
	u := Order{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}}
	pat := u.Pattern(2)
	assert.Equal(t, Pattern{{true, true, false}, {false, true, true}, {true, false, true}}, pat)
	assert.Equal(t, []bool{true, true, true}, pat.Columns())
	// h = 3 keeps only the diagonal; h = 1 forbids nothing.
	assert.Equal(t, Pattern{{true, false, false}, {false, true, false}, {false, false, true}}, u.Pattern(3))
	for _, row := range u.Pattern(1) {
		assert.Equal(t, []bool{true, true, true}, row)
	}
	// A column that no row may use is outside Y+(h).
	v := Order{{2, 1, 3}, {2, 1, 3}}
	assert.Equal(t, []bool{true, false, true}, v.Pattern(2).Columns())
	assert.Nil(t, Pattern(nil).Columns())

	// Holds: mechanism (9) of Song & Oechtering (2026) vanishes where U < 2 but not where U < 3.
	m9 := Mechanism{{0.6, 0.4, 0}, {0, 1, 0}, {1, 0, 0}}
	assert.True(t, u.Pattern(2).Holds(m9))
	assert.False(t, u.Pattern(3).Holds(m9))

	// Value thresholds: forbid every pair with u' < v.
	w := Utility{{0, -1, -4}, {-1, 0, -1}}
	assert.Equal(t, Pattern{{true, true, false}, {true, true, true}}, w.Pattern(-1))
	assert.Equal(t, Pattern{{true, false, false}, {false, true, false}}, w.Pattern(-0.5))
}

func TestWorstCase(t *testing.T) {
	u := Order{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}}
	// The utility-safe mechanism M*(h) of Song & Oechtering (2026), Thm 1 reaches exactly h.
	for h := 1; h <= 3; h++ {
		ms := Zeros(3, 3)
		for i := range ms {
			for j := range ms[i] {
				if u[i][j] >= h {
					ms[i][j] = 1 / float64(3-h+1)
				}
			}
		}
		_, err := NewMechanism(ms)
		require.NoError(t, err)
		assert.Equal(t, h, u.WorstCaseOrder(ms), "M*(%d)", h)
	}
	assert.Equal(t, 2, u.WorstCaseOrder(Mechanism{{0.6, 0.4, 0}, {0, 1, 0}, {1, 0, 0}}))
	assert.Equal(t, 0, u.WorstCaseOrder(Zeros(3, 3)), "no used pair")

	w := Utility{{0, -1, -4}, {-1, 0, -1}, {-4, -1, 0}}
	assert.Equal(t, -1.0, w.WorstCaseValue(Mechanism{{0.5, 0.5, 0}, {0, 1, 0}, {0, 0.2, 0.8}}))
	assert.Equal(t, 0.0, w.WorstCaseValue(Mechanism{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}))
	assert.Equal(t, -4.0, w.WorstCaseValue(Mechanism{{0.9, 0, 0.1}, {0, 1, 0}, {0, 0, 1}}))
}

// Σ_ij π_i p_ij u'_ij on the eye-colour channel with the utility "the report
// is right" (blue-green counts as blue): 3/16 + 3/8 + 19/80 = 4/5.
func TestExpectedUtility(t *testing.T) {
	u := Utility{{1, 0}, {0, 1}, {1, 0}}
	assert.InDelta(t, 0.8, u.ExpectedUtility(eyePrior, eyeMech), 1e-15)
	// For a data-independent mechanism it is Σ_j q_j Σ_i π_i u'_ij.
	ind := Mechanism{{0.3, 0.7}, {0.3, 0.7}, {0.3, 0.7}}
	assert.InDelta(t, 0.3*0.5+0.7*0.5, u.ExpectedUtility(eyePrior, ind), 1e-15)
}

func TestParseMeasure(t *testing.T) {
	for _, m := range []Measure{PML, ALIP, LIP, LDP} {
		got, err := ParseMeasure(string(m))
		require.NoError(t, err)
		assert.Equal(t, m, got)
	}
	_, err := ParseMeasure("PML")
	assert.EqualError(t, err, `unknown privacy measure "PML" (want pml, alip, lip or ldp)`)
}

func TestPatternCheck(t *testing.T) {
	ok := Pattern{{true, false}, {false, true}}
	assert.NoError(t, ok.Check(2))
	for _, c := range []struct {
		pat  Pattern
		n    int
		want string
	}{
		{ok, 3, "has 2 rows but the prior has 3 letters"},
		{Pattern{}, 0, "has no rows"},
		{Pattern{{}, {}}, 2, "has no columns"},
		{Pattern{{true, false}, {true}}, 2, "row 2: has 1 entries, row 1 has 2"},
		{Pattern{{true, false}, {false, false}}, 2, "row 2: forbids every output"},
	} {
		assert.ErrorContains(t, c.pat.Check(c.n), c.want)
	}
}

// TestReachableValues: a value is reachable when every row has an entry at
// least as large (the smallest row maximum, here 2 from row 1).
func TestReachableValues(t *testing.T) {
	u := Utility{{5, 1, 3}, {2, 0, 2}, {1, 4, -1}}
	assert.Equal(t, []float64{-1, 0, 1, 2}, u.ReachableValues())
	assert.Equal(t, []float64{7}, Utility{{7, 7}}.ReachableValues())
	for _, v := range u.ReachableValues() {
		for i, row := range u.Pattern(v) {
			assert.Contains(t, row, true, "v = %g leaves row %d no output", v, i)
		}
	}
}
