package problem

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const priorSetHead = "prior: [0.5, 0.3, 0.2]\nutility: [[1, 0], [0, 1], [1, 1]]\n"

func TestPriorSetBoxAndBall(t *testing.T) {
	p, err := Parse([]byte(priorSetHead+"prior_set: {lower: [0.4, 0.2, 0.1], upper: [0.6, 0.4, 0.3], method: clopper-pearson-bonferroni, samples: 40, confidence: 0.95}\n"), YAML)
	require.NoError(t, err)
	require.NotNil(t, p.PriorSet)
	assert.True(t, p.PriorSet.IsBox())
	assert.Equal(t, []float64{0.4, 0.2, 0.1}, p.PriorSet.Lower)
	assert.Equal(t, []float64{0.6, 0.4, 0.3}, p.PriorSet.Upper)
	require.NotNil(t, p.PriorSetSource)
	assert.Equal(t, PriorSetSource{Method: "clopper-pearson-bonferroni", Samples: 40, Confidence: 0.95}, *p.PriorSetSource)

	// The file reads back what Marshal writes, in both formats, a count
	// of a million samples (1e+06 in a float's shortest form) included.
	for _, samples := range []int{40, 1000000, 123456789} {
		p.PriorSetSource.Samples = samples
		for _, f := range []Format{YAML, JSON} {
			data, err := Marshal(p, f)
			require.NoError(t, err)
			q, err := Parse(data, f)
			require.NoError(t, err, "%s", data)
			assert.Equal(t, p.PriorSet, q.PriorSet)
			assert.Equal(t, p.PriorSetSource, q.PriorSetSource)
		}
	}
	// A count in a float's form reads as that count; a fraction does not.
	q, err := Parse([]byte(priorSetHead+"prior_set: {l1_radius: 0.1, samples: 1e+06}\n"), YAML)
	require.NoError(t, err)
	assert.Equal(t, 1000000, q.PriorSetSource.Samples)
	_, err = Parse([]byte(priorSetHead+"prior_set: {l1_radius: 0.1, samples: 2.5}\n"), YAML)
	assert.ErrorContains(t, err, `prior_set.samples: "2.5" is not an integer`)

	p, err = Parse([]byte(`{"prior": [0.5, 0.5], "utility": [[1, 0], [0, 1]], "prior_set": {"l1_radius": 0.25}}`), JSON)
	require.NoError(t, err)
	assert.False(t, p.PriorSet.IsBox())
	assert.Equal(t, 0.25, p.PriorSet.Radius)
	assert.Nil(t, p.PriorSetSource)

	p, err = Parse([]byte(priorSetHead), YAML)
	require.NoError(t, err)
	assert.Nil(t, p.PriorSet)
}

func TestPriorSetBadFiles(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"{lower: [0.4, 0.35, 0.1], upper: [0.6, 0.4, 0.3]}", "prior_set.lower entry 2: is 0.35, above the prior's 0.3"},
		{"{lower: [0.4, 0.2, 0.1], upper: [0.6, 0.4, 0.15]}", "prior_set.upper entry 3: is 0.15, below the prior's 0.2"},
		{"{lower: [0.4, 0.2], upper: [0.6, 0.4, 0.3]}", "prior_set.lower: has 2 entries, but the prior has 3 letters"},
		{"{lower: [0.4, x, 0.1], upper: [0.6, 0.4, 0.3]}", `prior_set.lower entry 2: "x" is not a number`},
		{"{lower: [0.4, 0.2, 0.1]}", "prior_set.upper: is missing"},
		{"{upper: [0.6, 0.4, 0.3]}", "prior_set.lower: is missing"},
		{"{l1_radius: 3}", "prior_set.l1_radius: is 3; want 0 ≤ r ≤ 2"},
		{"{l1_radius: -1}", "prior_set.l1_radius: is -1"},
		{"{l1_radius: .nan}", "prior_set.l1_radius: is NaN"},
		{"{l1_radius: 0.1, lower: [0, 0, 0]}", "prior_set: gives both a box"},
		{"{l1_radius: 0.1, radius: 2}", `prior_set: unknown key "radius"`},
		{"{l1_radius: 0.1, samples: 0}", "prior_set.samples: is 0; want a positive number"},
		{"{l1_radius: 0.1, confidence: 1}", "prior_set.confidence: is 1; want a level strictly between 0 and 1"},
		{"{l1_radius: 0.1, method: guess}", `prior_set.method: "guess" is not one of`},
		{"{l1_radius: 0.1, method: clopper-pearson-bonferroni}", "prior_set.method: is clopper-pearson-bonferroni, a box's method, but the set is an L1 ball"},
		{"{lower: [0.4, 0.2, 0.1], upper: [0.6, 0.4, 0.3], method: weissman-l1}", "prior_set.method: is weissman-l1, an L1 ball's method, but the set is a box"},
		{"[0.1]", "prior_set: is a list"},
	} {
		_, err := Parse([]byte(priorSetHead+"prior_set: "+tc.set+"\n"), YAML)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("prior_set %s: got %v, want one line with %q", tc.set, err, tc.want)
		}
	}
}

// A problem built in code is held to the rule a file is: a recorded method
// names its set's shape, so Marshal never writes a file Parse refuses.
func TestPriorSetMethodOfItsShape(t *testing.T) {
	p, err := Parse([]byte(priorSetHead+"prior_set: {l1_radius: 0.1, method: weissman-l1}\n"), YAML)
	require.NoError(t, err)
	require.NoError(t, p.Validate())
	p.PriorSetSource.Method = "clopper-pearson-bonferroni"
	assert.ErrorContains(t, p.Validate(), "prior_set.method: is clopper-pearson-bonferroni, a box's method")
}
