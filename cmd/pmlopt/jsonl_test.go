package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// curve --jsonl writes every threshold once, as it settles, with the same
// bracket as the whole-curve JSON.
func TestCurveJSONLines(t *testing.T) {
	for _, obj := range []string{"worst-case-order", "worst-case-value"} {
		whole := runJSON(t, "curve", td+"counting-query.yaml", "--objective", obj, "--json", "--solver", "revised")
		out, stderr, code := cli(t, "curve", td+"counting-query.yaml", "--objective", obj, "--jsonl", "--solver", "revised")
		require.Equal(t, 0, code, stderr)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		key := "h"
		if obj == "worst-case-value" {
			key = "threshold"
		}
		byKey := map[float64]map[string]any{}
		for _, l := range lines {
			var v map[string]any
			require.NoError(t, json.Unmarshal([]byte(l), &v), l)
			k := v[key].(float64)
			require.NotContains(t, byKey, k, "%s %v written twice", key, k)
			byKey[k] = v
		}
		if obj == "worst-case-order" {
			require.Len(t, byKey, 7)
		}
		// Every point of the whole curve is among the lines with the same
		// bracket: the order curve's at its h, the value curve's at some
		// threshold of its step (a step is reported by its last one).
		for _, p := range whole["points"].([]any) {
			pt := p.(map[string]any)
			_, ok := byKey[pt[key].(float64)]
			require.True(t, ok, "%s %v missing from the lines", key, pt[key])
			found := false
			for _, line := range byKey {
				if line["optimal_epsilon"] == pt["optimal_epsilon"] && line["optimal_epsilon_lower"] == pt["optimal_epsilon_lower"] {
					found = true
				}
			}
			require.True(t, found, "no line has the bracket of %s %v", key, pt[key])
			if obj == "worst-case-order" {
				require.Equal(t, pt["optimal_epsilon"], byKey[pt[key].(float64)]["optimal_epsilon"])
			}
		}
	}
	_, _, code := cli(t, "curve", td+"counting-query.yaml", "--jsonl", "--json")
	require.Equal(t, exitUsage, code)
}
