package jsonout

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

// TestFloat: the spellings of docs/cli.md ("inf", "-inf", null for NaN),
// numbers in the shortest form that reads back exactly, and null read
// back as no change.
func TestFloat(t *testing.T) {
	b, err := json.Marshal([]Float{1.5, Float(math.Inf(1)), Float(math.Inf(-1)), Float(math.NaN()), Float(math.Nextafter(0.3, 1))})
	require.NoError(t, err)
	assert.Equal(t, `[1.5,"inf","-inf",null,0.30000000000000004]`, string(b))
	got := []Float{7, 7, 7, 7, 7}
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, []Float{1.5, Float(math.Inf(1)), Float(math.Inf(-1)), 7, Float(math.Nextafter(0.3, 1))}, got)
	var f Float
	assert.EqualError(t, json.Unmarshal([]byte(`"nan"`), &f), "not a number: \"nan\"")
	assert.Nil(t, Opt(math.NaN()))
	assert.Equal(t, Float(2), *Opt(2))
}

// TestBudgetOf: ALIP writes its two ends, the others epsilon; a level of 0
// is written, not left out.
func TestBudgetOf(t *testing.T) {
	b, err := json.Marshal(BudgetOf(mech.Budget{Measure: mech.ALIP, EpsilonLower: 0, EpsilonUpper: 1}))
	require.NoError(t, err)
	assert.Equal(t, `{"measure":"alip","epsilon_lower":0,"epsilon_upper":1}`, string(b))
	b, err = json.Marshal(BudgetOf(mech.Budget{Measure: mech.PML, Epsilon: math.Inf(1)}))
	require.NoError(t, err)
	assert.Equal(t, `{"measure":"pml","epsilon":"inf"}`, string(b))
}
