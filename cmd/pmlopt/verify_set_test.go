package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// setProblemFile writes a three-letter problem over a prior set (a box or
// a ball) with the budget privacy and returns its path.
func setProblemFile(t *testing.T, set, privacy string) string {
	t.Helper()
	body := fmt.Sprintf(`prior: [0.5, 0.3, 0.2]
prior_set: %s
utility: [[3, 1, 0], [1, 3, 1], [0, 1, 3]]
privacy: %s
objective: expected-utility
`, set, privacy)
	path := filepath.Join(t.TempDir(), "robust.yaml")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	return path
}

var (
	testBox  = "{lower: [0.4, 0.25, 0.15], upper: [0.6, 0.35, 0.3]}"
	testBall = "{l1_radius: 0.1}"
)

// Over a box and a ball, under pml, lip and alip, every objective's answer
// written by solve --out (YAML, JSON) and solve --json carries a
// certificate that verify accepts, its claims over the set.
func TestVerifyAcceptsSolvesOverPriorSets(t *testing.T) {
	dir := t.TempDir()
	for _, set := range []string{testBox, testBall} {
		for _, privacy := range []string{"{measure: pml, epsilon: 0.4}", "{measure: lip, epsilon: 1}",
			"{measure: alip, epsilon_lower: 0.5, epsilon_upper: 1}", "{measure: ldp, epsilon: 1.5}"} {
			f := setProblemFile(t, set, privacy)
			objs := []string{"expected-utility"}
			if strings.Contains(privacy, "pml") {
				objs = append(objs, "worst-case-order", "worst-case-value")
			}
			for _, obj := range objs {
				for _, ext := range []string{".yaml", ".json"} {
					out := filepath.Join(dir, "solved"+ext)
					_, stderr, code := cli(t, "solve", f, "--objective", obj, "--out", out)
					require.Equal(t, 0, code, "%s %s %s: %s", set, privacy, obj, stderr)
					stdout, stderr, code := cli(t, "verify", out)
					require.Equal(t, 0, code, "%s %s %s %s: %s%s", set, privacy, obj, ext, stdout, stderr)
					require.Contains(t, stdout, "verified  prior set")
					if !strings.Contains(privacy, "ldp") {
						require.Contains(t, stdout, "over the prior set")
					}
				}
				stdout, stderr, code := cli(t, "solve", f, "--objective", obj, "--json")
				require.Equal(t, 0, code, stderr)
				js := filepath.Join(dir, "solve.json")
				require.NoError(t, os.WriteFile(js, []byte(stdout), 0o600))
				stdout, stderr, code = cli(t, "verify", js, "--problem", f)
				require.Equal(t, 0, code, "%s %s %s --json: %s%s", set, privacy, obj, stdout, stderr)
			}
		}
	}
}

// curve --certificates over a set: worst-case and expected-utility curves
// verify point by point, with a positive lower end proven somewhere.
func TestVerifyCurveOverPriorSet(t *testing.T) {
	dir := t.TempDir()
	for _, set := range []string{testBox, testBall} {
		f := setProblemFile(t, set, "{measure: pml, epsilon: 1}")
		for _, args := range [][]string{{"--objective", "worst-case-order"}, {"--objective", "worst-case-value"},
			{"--objective", "expected-utility", "--epsilons", "0.5,1", "--measure", "pml,lip"}} {
			stdout, stderr, code := cli(t, append([]string{"curve", f, "--json", "--certificates", "--quiet"}, args...)...)
			require.Equal(t, 0, code, stderr)
			path := filepath.Join(dir, "curve.json")
			require.NoError(t, os.WriteFile(path, []byte(stdout), 0o600))
			out, stderr, code := cli(t, "verify", path, "--problem", f)
			require.Equal(t, 0, code, "%s %v: %s%s", set, args, out, stderr)
			require.Contains(t, out, "verified  prior set")
			if args[1] == "worst-case-order" {
				require.Regexp(t, `verified  lower end: ε\* ≥ [1-9]|verified  lower end: ε\* ≥ 0\.[0-9]*[1-9]`, out)
			}
		}
	}
}

// Tampering with an answer over a set fails with exit 1, naming the claim:
// a per-output prior outside the set, a raised lower end, a multiplier
// changed, the set changed in the problem after solving.
func TestVerifyRefusesTamperingOverPriorSet(t *testing.T) {
	// At 2.5 nats the best order over the box is 3, whose least ε over
	// the box has a positive lower end.
	f := setProblemFile(t, testBox, "{measure: pml, epsilon: 2.5}")
	lower := func(doc map[string]any) map[string]any { return cert(doc)["lower"].(map[string]any) }
	out, code := tamper(t, f, "worst-case-order", "", func(doc map[string]any) {
		require.Greater(t, lower(doc)["optimal_epsilon_lower"].(float64), 0.0)
	})
	require.Equal(t, 0, code, out)
	for _, tc := range []struct {
		name, claim string
		edit        func(doc map[string]any)
	}{
		{"a prior below the box", "lower end", func(doc map[string]any) {
			ps := lower(doc)["priors"].([]any)
			ps[0].([]any)[0] = 0.1
		}},
		{"a raised lower end", "lower end", func(doc map[string]any) {
			l := lower(doc)
			l["optimal_epsilon_lower"] = l["optimal_epsilon_lower"].(float64) + 1e-4
		}},
		{"a multiplier changed", "lower end", func(doc map[string]any) {
			a := lower(doc)["alpha"].([]any)
			for i := range a {
				a[i] = -a[i].(float64)
			}
		}},
		{"the certificate's set widened", "prior set", func(doc map[string]any) {
			cert(doc)["prior_set"].(map[string]any)["lower"] = []any{0.3, 0.25, 0.15}
		}},
	} {
		out, code := tamper(t, f, "worst-case-order", "", tc.edit)
		require.Equal(t, 1, code, "%s: %s", tc.name, out)
		require.Contains(t, out, "FAILED    "+tc.claim, tc.name)
	}
	// The problem's set narrowed after solving.
	narrowed := setProblemFile(t, "{lower: [0.45, 0.25, 0.15], upper: [0.6, 0.35, 0.3]}", "{measure: pml, epsilon: 2.5}")
	out, code = tamper(t, f, "worst-case-order", narrowed, func(map[string]any) {})
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "FAILED    prior set")
}

// curve --robustness --certificates: each series is checked over the
// priors it names (the estimate, the simplex, its own set), and a series'
// set or confidence edited after the curve is refused: the set must be
// the one its confidence names, rebuilt from the file's samples.
func TestVerifyRobustnessCurve(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "c95.yaml")
	_, stderr, code := cli(t, "new", "--prior-from", td+"survey.csv", "--column", "children", "--utility", "abs",
		"--epsilon", "1", "--objective", "expected-utility", "--confidence", "0.95", "-o", f)
	require.Equal(t, 0, code, stderr)
	stdout, stderr, code := cli(t, "curve", f, "--objective", "expected-utility", "--robustness", "0.9",
		"--epsilons", "0.5,1", "--json", "--certificates", "--quiet")
	require.Equal(t, 0, code, stderr)
	path := filepath.Join(dir, "rob.json")
	require.NoError(t, os.WriteFile(path, []byte(stdout), 0o600))
	out, stderr, code := cli(t, "verify", path, "--problem", f)
	require.Equal(t, 0, code, "%s%s", out, stderr)
	require.Contains(t, out, "(over the series' own prior set)")
	require.Contains(t, out, "(at the estimate)")
	// The 90% series' set widened in the document: refused.
	edited := strings.Replace(stdout, `"confidence": 0.9,
      "prior_set": {
        "lower": [
          0.`, `"confidence": 0.9,
      "prior_set": {
        "lower": [
          0.0`, 1)
	require.NotEqual(t, stdout, edited, "the 90%% series' lower bounds")
	require.NoError(t, os.WriteFile(path, []byte(edited), 0o600))
	out, stderr, code = cli(t, "verify", path, "--problem", f)
	require.Equal(t, 1, code, out)
	require.Contains(t, stderr, "curve 1: its prior_set is not the clopper-pearson-bonferroni set of the problem's 40 samples at its confidence 0.9")
	// Its label, or its label and its set's level, edited to 50%: the
	// set is not the 50% one (nor the label the set's).
	for _, c := range []struct{ from, to, want string }{
		{`"confidence": 0.9,
      "prior_set"`, `"confidence": 0.5,
      "prior_set"`, "curve 1: its confidence label is not its prior_set's confidence 0.9"},
		{`"confidence": 0.9`, `"confidence": 0.5`, "curve 1: its prior_set is not the clopper-pearson-bonferroni set of the problem's 40 samples at its confidence 0.5"},
	} {
		edited := strings.ReplaceAll(stdout, c.from, c.to)
		require.NotEqual(t, stdout, edited, c.want)
		require.NoError(t, os.WriteFile(path, []byte(edited), 0o600))
		out, stderr, code = cli(t, "verify", path, "--problem", f)
		require.Equal(t, 1, code, out)
		require.Contains(t, stderr, c.want)
	}
	// A series that sheds its set, names other priors, or labels a
	// series at the estimate: refused, before any claim.
	for _, c := range []struct {
		edit func(series []any)
		want string
	}{
		{func(v []any) { delete(v[1].(map[string]any), "prior_set") }, "curve 1: over prior_set, but no prior_set"},
		{func(v []any) { v[1].(map[string]any)["over"] = "bogus" }, `curve 1: over "bogus" (want estimate, prior_set or simplex)`},
		{func(v []any) { v[0].(map[string]any)["confidence"] = 0.99 }, `curve 0: a confidence or prior_set on a series over "estimate"`},
		{func(v []any) {
			s := v[1].(map[string]any)
			delete(s, "over")
			delete(s, "prior_set")
		}, `curve 1: a confidence or prior_set on a series over ""`},
	} {
		var doc map[string]any
		require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
		c.edit(doc["curves"].([]any))
		data, err := json.Marshal(doc)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, data, 0o600))
		out, stderr, code = cli(t, "verify", path, "--problem", f)
		require.Equal(t, 1, code, out)
		require.Contains(t, stderr, c.want)
	}
}
