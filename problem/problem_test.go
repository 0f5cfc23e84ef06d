package problem

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

// A problem built in Go, written in either format and read back, is the same
// problem, bit for bit.
func TestMarshalRoundTrip(t *testing.T) {
	third := 1.0 / 3
	p := &Problem{
		Name:      "a: \"tricky\"\nname # not a comment",
		Inputs:    []string{"yes", "null", "1", ""},
		Outputs:   []string{"- a", "[b]", "c: d"},
		Prior:     mech.Prior{0.1, third, 0.2, 1 - 0.1 - third - 0.2},
		Utility:   mech.Utility{{0, -1, 5e-324}, {1e300, math.Copysign(0, -1), math.Pi}, {-2, -2, -2}, {1e-7, 2e21, 0.1}},
		Mechanism: mech.Mechanism{{third, third, 1 - 2*third}, {1, 0, 0}, {0.5, 0.25, 0.25}, {0.1, 0.2, 0.7}},
		Privacy:   &mech.Budget{Measure: mech.ALIP, EpsilonLower: 0, EpsilonUpper: math.Log(2)},
		Objective: WorstCaseValue,
	}
	require.NoError(t, p.Validate())
	for _, f := range []Format{YAML, JSON} {
		data, err := Marshal(p, f)
		require.NoError(t, err)
		q, err := Parse(data, f)
		require.NoError(t, err, "%s:\n%s", f, data)
		want := *p
		want.Order = p.Utility.Order() // derived on reading
		assert.Equal(t, &want, q, "%s:\n%s", f, data)
		// Sniffing finds the format by itself.
		r, err := Parse(data, Auto)
		require.NoError(t, err)
		assert.Equal(t, q, r)
		// -0 survives as -0.
		assert.True(t, math.Signbit(q.Utility[1][1]), f)
	}
}

// An order without a utility, a pml budget and no labels round-trip too, and
// so does every testdata file.
func TestMarshalRoundTripFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "*.*[ln]"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 10)
	for _, path := range files {
		p, err := Load(path)
		require.NoError(t, err, path)
		for _, f := range []Format{YAML, JSON} {
			data, err := Marshal(p, f)
			require.NoError(t, err)
			q, err := ParseSource(data, f, path)
			require.NoError(t, err, "%s as %s:\n%s", path, f, data)
			assert.Equal(t, p, q, "%s as %s", path, f)
		}
	}
}

func TestMarshalOrderOnlyYAML(t *testing.T) {
	p := &Problem{
		Prior:   mech.Prior{0.5, 0.5},
		Order:   mech.Order{{2, 1}, {2, 2}},
		Privacy: &mech.Budget{Measure: mech.PML, Epsilon: 0},
	}
	data, err := Marshal(p, YAML)
	require.NoError(t, err)
	assert.Equal(t, "prior: [0.5, 0.5]\norder:\n  - [2, 1]\n  - [2, 2]\nprivacy:\n  measure: pml\n  epsilon: 0\n", string(data))
	data, err = Marshal(p, JSON)
	require.NoError(t, err)
	assert.JSONEq(t, `{"prior": [0.5, 0.5], "order": [[2, 1], [2, 2]], "privacy": {"measure": "pml", "epsilon": 0}}`, string(data))
}

func TestMarshalRefusesInvalid(t *testing.T) {
	_, err := Marshal(&Problem{Prior: mech.Prior{0.5, 0.6}}, YAML)
	require.EqualError(t, err, "prior: sums to 1.1000000000000001, not 1 (tolerance 1e-09)")
	_, err = Marshal(&Problem{Prior: mech.Prior{1}}, Format("xml"))
	require.EqualError(t, err, `unknown problem file format "xml" (want yaml or json)`)
}

// Validate applies the file rules to problems built in code.
func TestValidate(t *testing.T) {
	ok := func() *Problem {
		return &Problem{
			Prior:   mech.Prior{0.5, 0.25, 0.25},
			Utility: mech.Utility{{0, 1}, {1, 0}, {1, 1}},
			Privacy: &mech.Budget{Measure: mech.PML, Epsilon: 1},
		}
	}
	require.NoError(t, ok().Validate())
	tests := []struct {
		edit func(*Problem)
		want string
	}{
		{func(p *Problem) { p.Prior = nil }, "prior: is missing; every problem needs a prior"},
		{func(p *Problem) { p.Prior[1] = math.NaN() }, "prior entry 2: is NaN"},
		{func(p *Problem) { p.Utility[2][1] = math.Inf(-1) }, "utility row 3, column 2: is infinite"},
		{func(p *Problem) { p.Utility = p.Utility[:2] }, "utility: has 2 rows, but the prior has 3 letters"},
		{func(p *Problem) { p.Order = mech.Order{{1, 2}, {2, 1}, {1, 2}} }, "order row 3, column 1: is 1, but the utility ranks this entry 2 (an order given with a utility must equal its ranks)"},
		{func(p *Problem) { p.Order = mech.Order{{1, 2}, {2, 1}, {1, 3}} }, "order row 3, column 2: is 3, outside 1..2"},
		{func(p *Problem) { p.Mechanism = mech.Mechanism{{1}, {1}, {1}} }, "mechanism: has 1 columns, but utility has 2"},
		{func(p *Problem) { p.Mechanism = mech.Mechanism{{1, 0}, {1, 0}, {0.5, 0.5 + 1e-8}} }, "mechanism row 3: sums to 1.0000000099999999, not 1 (tolerance 1e-09)"},
		{func(p *Problem) { p.Inputs = []string{"a", "b"} }, "inputs: has 2 labels, but the prior has 3 letters"},
		{func(p *Problem) { p.Outputs = []string{"a", "a"} }, `outputs entry 2: "a" repeats entry 1`},
		{func(p *Problem) { p.Outputs = []string{"a"} }, "outputs: has 1 labels, but utility has 2 columns"},
		{func(p *Problem) { p.Privacy.Measure = "" }, "privacy.measure: is missing; want pml, alip, lip or ldp"},
		{func(p *Problem) { p.Privacy.Measure = "dp" }, `privacy.measure: "dp" is not one of pml, alip, lip, ldp`},
		{func(p *Problem) { p.Privacy.Epsilon = -0.5 }, "privacy.epsilon: is negative (-0.5)"},
		{func(p *Problem) { p.Privacy.Epsilon = math.Inf(1) }, "privacy.epsilon: is infinite"},
		{func(p *Problem) { p.Privacy.Epsilon = math.NaN() }, "privacy.epsilon: is NaN"},
		{func(p *Problem) { p.Privacy.EpsilonUpper = 1 }, "privacy.epsilon_upper: is not used by measure pml (it uses epsilon)"},
		{func(p *Problem) { p.Privacy.Measure = mech.ALIP }, "privacy.epsilon: is not used by measure alip (it uses epsilon_lower and epsilon_upper)"},
		{func(p *Problem) { *p.Privacy = mech.Budget{Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: -1} }, "privacy.epsilon_upper: is negative (-1)"},
		{func(p *Problem) { p.Objective = "best" }, `objective: "best" is not one of worst-case-order, worst-case-value, expected-utility`},
	}
	for _, tt := range tests {
		p := ok()
		tt.edit(p)
		assert.EqualError(t, p.Validate(), tt.want)
	}
	var nilProblem *Problem
	assert.EqualError(t, nilProblem.Validate(), "problem: is nil")
}

// Validate does not fill in the order; RequireOrder derives it.
func TestRequireAccessors(t *testing.T) {
	p := &Problem{Prior: mech.Prior{0.5, 0.5}, Utility: mech.Utility{{1, 1, 0}, {0, 2, 1}}}
	require.NoError(t, p.Validate())
	assert.Nil(t, p.Order)
	o, err := p.RequireOrder()
	require.NoError(t, err)
	assert.Equal(t, mech.Order{{3, 3, 1}, {1, 3, 2}}, o)
	assert.Equal(t, 2, p.N())
	assert.Equal(t, 3, p.M())

	empty := &Problem{Prior: mech.Prior{1}}
	assert.Equal(t, 0, empty.M())
	empty.Outputs = []string{"a", "b"}
	assert.Equal(t, 2, empty.M())
	_, err = empty.RequireUtility()
	assert.EqualError(t, err, "utility: is missing; this command needs a utility matrix")
	_, err = empty.RequireOrder()
	assert.EqualError(t, err, "order: is missing; this command needs a utility order (give order or utility)")
	_, err = empty.RequireMechanism()
	assert.EqualError(t, err, "mechanism: is missing; this command needs a mechanism")
	_, err = empty.RequirePrivacy()
	assert.EqualError(t, err, "privacy: is missing; this command needs a privacy budget (measure and epsilon)")

	withOrder := &Problem{Prior: mech.Prior{1}, Order: mech.Order{{1, 2}}, Mechanism: mech.Mechanism{{0.5, 0.5}}}
	assert.Equal(t, 2, withOrder.M())
	o, err = withOrder.RequireOrder()
	require.NoError(t, err)
	assert.Equal(t, withOrder.Order, o)
	m, err := withOrder.RequireMechanism()
	require.NoError(t, err)
	assert.Equal(t, withOrder.Mechanism, m)
	onlyMech := &Problem{Prior: mech.Prior{1}, Mechanism: mech.Mechanism{{0.5, 0.5}}}
	assert.Equal(t, 2, onlyMech.M())
}

func TestFormatOf(t *testing.T) {
	assert.Equal(t, YAML, FormatOf("a/b.yaml"))
	assert.Equal(t, YAML, FormatOf("b.YML"))
	assert.Equal(t, JSON, FormatOf("b.Json"))
	assert.Equal(t, Auto, FormatOf("b.txt"))
	assert.Equal(t, Auto, FormatOf("problem"))
}

// Auto reads JSON objects as JSON and everything else, including YAML flow
// mappings, as YAML.
func TestAutoSniffing(t *testing.T) {
	for _, doc := range []string{
		`{"prior": ["1/2", "1/2"], "order": [[1, 2], [2, 1]]}`,
		"{prior: [1/2, 1/2], order: [[1, 2], [2, 1]]}",
		"prior: [1/2, 1/2]\norder: [[1, 2], [2, 1]]\n",
	} {
		p, err := Parse([]byte(doc), Auto)
		require.NoError(t, err, doc)
		assert.Equal(t, mech.Order{{1, 2}, {2, 1}}, p.Order)
		assert.Equal(t, mech.Prior{0.5, 0.5}, p.Prior)
	}
}

func TestParseObjective(t *testing.T) {
	for _, o := range []Objective{WorstCaseOrder, WorstCaseValue, ExpectedUtility} {
		got, err := ParseObjective(string(o))
		require.NoError(t, err)
		assert.Equal(t, o, got)
	}
	_, err := ParseObjective("max")
	assert.EqualError(t, err, `unknown objective "max" (want worst-case-order, worst-case-value or expected-utility)`)
}
