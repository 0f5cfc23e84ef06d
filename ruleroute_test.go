package pmlopt_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/problem"
)

// TestSolveByRuleMatchesDense: an expected-utility problem given by a
// utility_rule, large enough for the active set (23×23 cells), is solved
// reading the rule a column at a time, without its N×M utility, and the
// solution is the one of the same problem with its dense utility built
// first: the same mechanism, levels, bound, certificate and summaries.
func TestSolveByRuleMatchesDense(t *testing.T) {
	if testlong.Short() {
		t.Skip("a 529×529 active set: seconds")
	}
	doc := []byte("prior: uniform\nutility_rule: {metric: euclidean, grid: {width: 23, height: 23}}\n" +
		"privacy: {measure: pml, epsilon: 1}\nobjective: expected-utility\n")
	byRule, err := problem.Parse(doc, problem.YAML)
	require.NoError(t, err)
	dense, err := problem.Parse(doc, problem.YAML)
	require.NoError(t, err)
	require.NoError(t, dense.Materialize())
	assert.True(t, pmlopt.SolvesByRule(byRule, pmlopt.Options{}))
	assert.False(t, pmlopt.SolvesByRule(dense, pmlopt.Options{}), "a dense utility is used as it is")

	got, err := pmlopt.Solve(context.Background(), byRule, pmlopt.Options{})
	require.NoError(t, err)
	assert.Nil(t, byRule.Utility, "the rule's matrix is never built")
	want, err := pmlopt.Solve(context.Background(), dense, pmlopt.Options{})
	require.NoError(t, err)
	assert.Equal(t, want.Mechanism, got.Mechanism)
	assert.Equal(t, want.ExpectedUtility, got.ExpectedUtility)
	assert.Equal(t, want.ExpectedUtilityBound, got.ExpectedUtilityBound)
	assert.Equal(t, want.Epsilon, got.Epsilon)
	assert.Equal(t, want.WorstCaseOrder, got.WorstCaseOrder)
	assert.Equal(t, want.WorstCaseValue, got.WorstCaseValue)
	assert.Equal(t, want.Certificate, got.Certificate)
	assert.Greater(t, got.ExpectedUtilityBound-got.ExpectedUtility, -1e-12)
	assert.Less(t, got.ExpectedUtilityBound-got.ExpectedUtility, 1e-8)
}
