package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// TestSolveSaysWhenItFallsBackOnTheFullLP: on the counting query with a
// binomial prior on 12 letters at ε = 1e-9 the interior point does not
// certify its answer, and solve says on stderr, before solving it, that
// the full LP decides, with its size (N + M + N·M rows, N·M + M columns)
// and backend. Stdout has the solution alone.
func TestSolveSaysWhenItFallsBackOnTheFullLP(t *testing.T) {
	fam, err := instance.Lookup("counting-binomial")
	require.NoError(t, err)
	in, err := fam.New(12, 1)
	require.NoError(t, err)
	b := mech.Budget{Measure: mech.PML, Epsilon: 1e-9}
	data, err := problem.Marshal(&problem.Problem{Prior: in.Prior, Utility: in.Utility, Privacy: &b, Objective: problem.ExpectedUtility}, problem.YAML)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "counting-binomial-12.yaml")
	require.NoError(t, os.WriteFile(path, data, 0o644))

	stdout, stderr, code := cli(t, "solve", path, "--json")
	require.Equal(t, 0, code, stderr)
	n, m := 12, 12
	assert.Equal(t, fmt.Sprintf("pmlopt solve: the interior point was not certified: solving the full LP (%d rows × %d columns) with %s\n",
		n+m+n*m, n*m+m, solver.Auto().Name()), stderr)
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &out), stdout)
	assert.Equal(t, solver.Auto().Name(), out["solver"])
	p := toMechanism(t, out["mechanism"])
	assert.LessOrEqual(t, leakage.PML(in.Prior, p), b.Epsilon+1e-9)
}
