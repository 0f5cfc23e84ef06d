package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFloatFlagsOfIssue33: the cases of issue 33 §3 and §5, each refused
// with exit 2 and the flag's name, nothing on stdout.
func TestFloatFlagsOfIssue33(t *testing.T) {
	eu := td + "expected-utility.yaml"
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"curve", eu, "--objective", "expected-utility", "--epsilons", "800", "--measure", "lip"}, "--epsilons must be a number in [0, 700], got 800"},
		{[]string{"curve", eu, "--objective", "expected-utility", "--epsilons", "0.5,800", "--measure", "alip"}, "--epsilons must be a number in [0, 700], got 800"},
		{[]string{"curve", eu, "--objective", "expected-utility", "--from", "0", "--to", "701"}, "--to must be a number in [0, 700], got 701"},
		{[]string{"curve", eu, "--objective", "expected-utility", "--from", "800", "--to", "900"}, "--from must be a number in [0, 700], got 800"},
		{[]string{"curve", eu, "--objective", "expected-utility", "--to", "NaN"}, "--to must be a number, got NaN"},
		{[]string{"curve", eu, "--objective", "expected-utility", "--measure", "alip", "--alip-ratio", "NaN"}, "--alip-ratio must be a number, got NaN"},
		{[]string{"new", "--letters", "3", "--utility", "abs", "--epsilon", "701"}, "--epsilon must be a number in [0, 700], got 701"},
		{[]string{"new", "--letters", "3", "--utility", "abs", "--measure", "alip", "--epsilon", "1", "--epsilon-lower", "701"}, "--epsilon-lower must be a number in [0, 700], got 701"},
		{[]string{"convert", "--from", "pml", "--epsilon", "1", "--pmin", "NaN"}, "--pmin must be a number, got NaN"},
		{[]string{"convert", "--from", "ldp", "--epsilon", "800", "--pmin", "5e-324"}, "--epsilon must be a number in [0, 700], got 800"},
		{[]string{"solve", td + "counting-query.yaml", "--epsilon", "inf"}, "--epsilon must be a finite number, got +Inf"},
		{[]string{"safe", td + "counting-query.yaml", "--epsilon", "701"}, "--epsilon must be a number in [0, 700], got 701"},
		{[]string{"baseline", eu, "--mechanism", "randomized-response", "--epsilon", "-1"}, "--epsilon must be a number in [0, 700], got -1"},
		{[]string{"audit", td + "eye-colour.json", "--alpha", "-inf"}, "--alpha must be a number or +Inf, got -Inf"},
	} {
		out, stderr, code := cli(t, c.args...)
		assert.Equal(t, exitUsage, code, "%v: %s", c.args, stderr)
		assert.Contains(t, stderr, c.msg, "%v", c.args)
		assert.Empty(t, out, "%v", c.args)
	}
	// +Inf is an order of audit; 700 is a budget; 5e-324 a p_min.
	_, stderr, code := cli(t, "audit", td+"eye-colour.json", "--alpha", "inf", "--beta", "inf")
	assert.Equal(t, exitOK, code, stderr)
	_, stderr, code = cli(t, "convert", "--from", "ldp", "--epsilon", "700", "--pmin", "5e-324")
	assert.Equal(t, exitOK, code, stderr)
}

// floatFlagDef finds the float flags a command file defines.
var floatFlagDef = regexp.MustCompile(`fs\.(Float64|budgetFloat64|infiniteFloat64)\("([a-z-]+)"`)

// TestEveryFloatFlagRefusesNaNAndInf reads the float flags each command's
// files define, and those of flags_shared.go for every command that takes
// them, and gives each NaN, −Inf and (unless +Inf is a value) +Inf, and a
// budget 700.5: exit 2, the flag named. A NaN taken as "not given" would
// run the command on a default nobody asked for.
func TestEveryFloatFlagRefusesNaNAndInf(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		cmds := names // the shared flags: every command that takes them
		if f != "flags_shared.go" {
			cmd, _, _ := strings.Cut(strings.TrimSuffix(f, ".go"), "_")
			if !slices.Contains(names, cmd) {
				continue
			}
			cmds = []string{cmd}
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range floatFlagDef.FindAllStringSubmatch(string(src), -1) {
			for _, cmd := range cmds {
				if _, ok := helpFlags(t, cmd)[m[2]]; ok {
					seen++
					refuseFloat(t, cmd, m[1], "--"+m[2])
				}
			}
		}
	}
	// audit's α and β, new's smoothing, curve's tol and the budgets at least.
	assert.GreaterOrEqual(t, seen, 15)
}

// refuseFloat gives the float flag of cmd, defined by kind, the values it
// must refuse.
func refuseFloat(t *testing.T, cmd, kind, flag string) {
	t.Helper()
	bad := []string{"NaN", "-inf"}
	if kind != "infiniteFloat64" {
		bad = append(bad, "inf")
	}
	if kind == "budgetFloat64" {
		bad = append(bad, "700.5")
	}
	for _, v := range bad {
		out, stderr, code := cli(t, cmd, flag, v)
		assert.Equal(t, exitUsage, code, "%s %s %s: %s", cmd, flag, v, stderr)
		assert.Contains(t, stderr, flag+" must be a ", "%s %s %s", cmd, flag, v)
		assert.Empty(t, out)
	}
}
