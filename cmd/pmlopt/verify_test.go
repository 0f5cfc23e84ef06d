package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/problem"
)

// Every testdata problem, solved for each objective it has the data for,
// writes with --out (YAML and JSON) and --json a certificate that verify
// accepts, exit 0.
func TestVerifyAcceptsEverySolve(t *testing.T) {
	files, _ := filepath.Glob(td + "*.yaml")
	js, _ := filepath.Glob(td + "*.json")
	files = append(files, js...)
	dir := t.TempDir()
	ran := 0
	for _, f := range files {
		p, err := problem.Load(f)
		require.NoError(t, err)
		if p.Privacy == nil || (testlong.Short() && len(p.Prior)*p.M() > 400) {
			continue
		}
		for _, obj := range []string{"worst-case-order", "worst-case-value", "expected-utility"} {
			if obj == "worst-case-order" && p.Order == nil || obj != "worst-case-order" && p.Utility == nil {
				continue
			}
			if obj != "expected-utility" && p.Privacy.Measure != "pml" {
				continue
			}
			for _, ext := range []string{".yaml", ".json"} {
				out := filepath.Join(dir, "solved"+ext)
				_, stderr, code := cli(t, "solve", f, "--objective", obj, "--out", out)
				require.Equal(t, 0, code, "%s %s: %s", f, obj, stderr)
				stdout, stderr, code := cli(t, "verify", out)
				require.Equal(t, 0, code, "%s %s %s: %s%s", f, obj, ext, stdout, stderr)
				require.Contains(t, stdout, "claims verified")
				require.NotContains(t, stdout, "FAILED")
				// The file with its certificate reads back as a problem.
				_, stderr, code = cli(t, "audit", out)
				require.Equal(t, 0, code, stderr)
			}
			js := filepath.Join(dir, "solve.json")
			stdout, stderr, code := cli(t, "solve", f, "--objective", obj, "--json")
			require.Equal(t, 0, code, stderr)
			require.NoError(t, os.WriteFile(js, []byte(stdout), 0o600))
			stdout, stderr, code = cli(t, "verify", js, "--problem", f)
			require.Equal(t, 0, code, "%s %s --json: %s%s", f, obj, stdout, stderr)
			ran++
		}
	}
	require.GreaterOrEqual(t, ran, 8)
}

// A problem file whose utility rule reads sites (points: [x, y] pairs)
// and which solve --out wrote with its certificate is verified like any
// other: its points are sites, not a curve's points.
func TestVerifyProblemWithSites(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "sites.yaml")
	require.NoError(t, os.WriteFile(f, []byte("prior: [0.5, 0.3, 0.2]\ninputs: [home, office, gym]\n"+
		"points: [[48.8566, 2.3522], [48.8738, 2.2950], [48.8606, 2.3376]]\n"+
		"utility_rule: {metric: haversine, cap: 10}\nprivacy: {measure: pml, epsilon: 1}\nobjective: expected-utility\n"), 0o644))
	for _, ext := range []string{".yaml", ".json"} {
		out := filepath.Join(dir, "solved"+ext)
		_, stderr, code := cli(t, "solve", f, "--out", out)
		require.Equal(t, 0, code, stderr)
		stdout, stderr, code := cli(t, "verify", out)
		require.Equal(t, 0, code, "%s: %s%s", ext, stdout, stderr)
		require.Contains(t, stdout, "all 8 claims verified", ext)
	}
}

// curve --json --certificates carries one certificate per point, and
// verify accepts every point.
func TestVerifyCurveCertificates(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range [][]string{
		{"counting-query.yaml", "worst-case-order"},
		{"counting-query.yaml", "worst-case-value"},
		{"circulant-three-low.yaml", "worst-case-order"},
	} {
		stdout, stderr, code := cli(t, "curve", td+tc[0], "--objective", tc[1], "--json", "--certificates", "--quiet")
		require.Equal(t, 0, code, stderr)
		var doc struct {
			Points []struct {
				Certificate map[string]any `json:"certificate"`
			} `json:"points"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
		require.NotEmpty(t, doc.Points)
		for k, pt := range doc.Points {
			require.NotNil(t, pt.Certificate, "point %d", k)
		}
		path := filepath.Join(dir, "curve.json")
		require.NoError(t, os.WriteFile(path, []byte(stdout), 0o600))
		out, stderr, code := cli(t, "verify", path, "--problem", td+tc[0])
		require.Equal(t, 0, code, "%s %s: %s%s", tc[0], tc[1], out, stderr)
		require.Contains(t, out, "point 0: verified")
		require.Contains(t, out, "lower end")
	}
	// Without --certificates the points carry none.
	stdout, _, code := cli(t, "curve", td+"counting-query.yaml", "--json", "--quiet")
	require.Equal(t, 0, code)
	require.NotContains(t, stdout, "certificate")
}

// tamper solves file for obj with --json, changes the output with edit,
// and returns verify's stdout and exit code on it.
func tamper(t *testing.T, file, obj string, prob string, edit func(doc map[string]any)) (string, int) {
	t.Helper()
	stdout, stderr, code := cli(t, "solve", file, "--objective", obj, "--json")
	require.Equal(t, 0, code, stderr)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	edit(doc)
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "tampered.json")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	if prob == "" {
		prob = file
	}
	out, stderr, code := cli(t, "verify", path, "--problem", prob)
	require.Empty(t, stderr == "" && code != 0, stderr)
	return out, code
}

func cert(doc map[string]any) map[string]any { return doc["certificate"].(map[string]any) }

// Each tampering fails with exit 1 and names the claim.
func TestVerifyRefusesTampering(t *testing.T) {
	cq := td + "counting-query.yaml"
	// Untouched, it verifies.
	out, code := tamper(t, cq, "worst-case-order", "", func(map[string]any) {})
	require.Equal(t, 0, code, out)

	// A raised lower end (and upper end, so that only the multipliers
	// can refuse it).
	out, code = tamper(t, cq, "worst-case-order", "", func(doc map[string]any) {
		c := cert(doc)
		c["epsilon"] = c["epsilon"].(float64) + 1e-6
		l := c["lower"].(map[string]any)
		l["optimal_epsilon_lower"] = l["optimal_epsilon_lower"].(float64) + 1e-6
	})
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "FAILED    lower end: output")

	// A multiplier changed. (At ν = 0 only the signs of α matter: the
	// proof here is pruning's, and a sign flip breaks it.)
	out, code = tamper(t, cq, "worst-case-order", "", func(doc map[string]any) {
		a := cert(doc)["lower"].(map[string]any)["alpha"].([]any)
		a[0] = -a[0].(float64)
	})
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "FAILED    lower end: Σ_i α_i")

	// A forbidden pair made positive, the row still summing to 1.
	out, code = tamper(t, cq, "worst-case-order", "", func(doc map[string]any) {
		m := doc["mechanism"].([]any)
		h := int(cert(doc)["worst_case_order"].(float64))
		p, err := problem.Load(cq)
		require.NoError(t, err)
		for i, r := range m {
			row := r.([]any)
			for j := range row {
				if p.Order[i][j] >= h {
					continue
				}
				for j2, v := range row {
					if v.(float64) > 0.01 {
						row[j2] = v.(float64) - 0.01
						row[j] = row[j].(float64) + 0.01
						return
					}
				}
			}
		}
		t.Fatal("no forbidden pair")
	})
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "FAILED    zero pattern")

	// The prior changed after solving (still summing to 1: the seven
	// letters of mass 1/7 tilted by (i−3)·2%).
	p, err := problem.Load(cq)
	require.NoError(t, err)
	require.Len(t, p.Prior, 7)
	for i := range p.Prior {
		p.Prior[i] *= 1 + 0.02*float64(i-3)
	}
	data, err := problem.Marshal(p, problem.YAML)
	require.NoError(t, err)
	moved := filepath.Join(t.TempDir(), "moved.yaml")
	require.NoError(t, os.WriteFile(moved, data, 0o600))
	out, code = tamper(t, cq, "worst-case-order", moved, func(map[string]any) {})
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "FAILED")

	// A lowered expected-utility bound.
	eu := td + "expected-utility.yaml"
	out, code = tamper(t, eu, "expected-utility", "", func(doc map[string]any) {
		u := cert(doc)["utility"].(map[string]any)
		u["expected_utility_bound"] = u["expected_utility"].(float64) - 1e-3
	})
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "FAILED    expected utility bound")

	// A bound multiplier changed.
	out, code = tamper(t, eu, "expected-utility", "", func(doc map[string]any) {
		a := cert(doc)["utility"].(map[string]any)["alpha"].([]any)
		a[0] = a[0].(float64) - 0.5
	})
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "FAILED    expected utility bound")
}

func TestVerifyUsage(t *testing.T) {
	_, _, code := cli(t, "verify")
	require.Equal(t, 2, code)
	_, _, code = cli(t, "verify", td+"counting-query.yaml", "--bogus")
	require.Equal(t, 2, code)
	// A problem file without a certificate: exit 1, saying so.
	_, stderr, code := cli(t, "verify", td+"counting-query.yaml")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "no certificate")
	// solve --json output without --problem: a command-line error.
	stdout, _, code := cli(t, "solve", td+"counting-query.yaml", "--json")
	require.Equal(t, 0, code)
	path := filepath.Join(t.TempDir(), "s.json")
	require.NoError(t, os.WriteFile(path, []byte(stdout), 0o600))
	_, stderr, code = cli(t, "verify", path)
	require.Equal(t, 2, code)
	require.True(t, strings.Contains(stderr, "--problem"), stderr)
	// curve --certificates needs --json or --jsonl.
	_, _, code = cli(t, "curve", td+"counting-query.yaml", "--certificates")
	require.Equal(t, 2, code)
}

// solve --min-order / --min-value (a worst case kept) writes a certificate
// that verify accepts, with --out and with --json.
func TestVerifyJointSolve(t *testing.T) {
	dir := t.TempDir()
	for _, floor := range [][]string{{"--min-order", "6"}, {"--min-value", "-10"}} {
		out := filepath.Join(dir, "joint.yaml")
		args := append([]string{"solve", td + "counting-query.yaml", "--objective", "expected-utility", "--epsilon", "1.3", "--out", out}, floor...)
		_, stderr, code := cli(t, args...)
		require.Equal(t, 0, code, stderr)
		stdout, stderr, code := cli(t, "verify", out)
		require.Equal(t, 0, code, "%v: %s%s", floor, stdout, stderr)
		require.Contains(t, stdout, "verified  zero pattern")
		require.Contains(t, stdout, "verified  expected utility bound")
		require.Contains(t, stdout, "verified  lower end")
		js := filepath.Join(dir, "joint.json")
		stdout, stderr, code = cli(t, append(args[:len(args)-len(floor)-2], append(floor, "--json")...)...)
		require.Equal(t, 0, code, stderr)
		require.NoError(t, os.WriteFile(js, []byte(stdout), 0o600))
		stdout, stderr, code = cli(t, "verify", js, "--problem", td+"counting-query.yaml")
		require.Equal(t, 0, code, "%v --json: %s%s", floor, stdout, stderr)
	}
}

// curve --objective expected-utility --json --certificates: every point of
// every measure's series carries a certificate that verify accepts.
func TestVerifyExpectedCurveCertificates(t *testing.T) {
	f := td + "expected-utility.yaml"
	stdout, stderr, code := cli(t, "curve", f, "--objective", "expected-utility", "--measure", "pml,lip,alip,ldp", "--steps", "3", "--json", "--certificates", "--quiet")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 4*3, strings.Count(stdout, `"certificate"`))
	path := filepath.Join(t.TempDir(), "ecurve.json")
	require.NoError(t, os.WriteFile(path, []byte(stdout), 0o600))
	out, stderr, code := cli(t, "verify", path, "--problem", f)
	require.Equal(t, 0, code, "%s%s", out, stderr)
	for _, m := range []string{"curve 0, point 2: verified  expected utility bound", "curve 3, point 2: verified  expected utility bound"} {
		require.Contains(t, out, m)
	}
}

// TestVerifyReportedKeys: each number a --json answer reports beside its
// certificate is held to it, through the key its kind of document writes:
// solve's epsilon and a joint solve's least_epsilon_lower, a worst-case
// curve point's optimal_epsilon and optimal_epsilon_lower, an
// expected-utility curve point's audited_epsilon and expected_utility.
// Each edit fails the claim "reported" and exits 1; the honest document
// passes.
func TestVerifyReportedKeys(t *testing.T) {
	dir := t.TempDir()
	cq, eu := td+"counting-query.yaml", td+"expected-utility.yaml"
	// The survey's 95% box and L1 ball: over a set the reported level is
	// held to the certificate's as at one prior (1e-7 either way fails).
	box, ball := filepath.Join(dir, "box.yaml"), filepath.Join(dir, "ball.yaml")
	for f, extra := range map[string][]string{box: {"--objective", "expected-utility"}, ball: {"--objective", "worst-case-value", "--prior-set", "l1"}} {
		args := append([]string{"new", "--prior-from", td + "survey.csv", "--column", "children", "--utility", "abs", "--epsilon", "1", "--confidence", "0.95", "-o", f}, extra...)
		_, stderr, code := cli(t, args...)
		require.Equal(t, 0, code, stderr)
	}
	for _, c := range []struct {
		name    string
		problem string
		args    []string
		edit    func(v map[string]any)
	}{
		{"solve epsilon", cq, []string{"solve", cq, "--json"}, func(v map[string]any) { v["epsilon"] = v["epsilon"].(float64) - 1e-6 }},
		{"joint least_epsilon_lower", eu, []string{"solve", eu, "--objective", "expected-utility", "--min-order", "2", "--json"},
			func(v map[string]any) { v["least_epsilon_lower"] = v["least_epsilon_lower"].(float64) + 1e-3 }},
		{"curve optimal_epsilon", cq, []string{"curve", cq, "--json", "--certificates"}, func(v map[string]any) {
			pt := v["points"].([]any)[4].(map[string]any)
			pt["optimal_epsilon"] = pt["optimal_epsilon"].(float64) + 1e-6
		}},
		{"curve optimal_epsilon_lower", cq, []string{"curve", cq, "--json", "--certificates"}, func(v map[string]any) {
			pt := v["points"].([]any)[4].(map[string]any)
			pt["optimal_epsilon_lower"] = pt["optimal_epsilon_lower"].(float64) + 1e-3
		}},
		{"expected curve audited_epsilon", eu, []string{"curve", eu, "--objective", "expected-utility", "--json", "--certificates"}, func(v map[string]any) {
			pt := v["curves"].([]any)[0].(map[string]any)["points"].([]any)[2].(map[string]any)
			pt["audited_epsilon"] = pt["audited_epsilon"].(float64) * 0.5
		}},
		{"expected curve expected_utility", eu, []string{"curve", eu, "--objective", "expected-utility", "--json", "--certificates"}, func(v map[string]any) {
			pt := v["curves"].([]any)[0].(map[string]any)["points"].([]any)[2].(map[string]any)
			pt["expected_utility"] = pt["expected_utility"].(float64) + 0.1
		}},
		{"solve epsilon below, over a box", box, []string{"solve", box, "--json"}, func(v map[string]any) { v["epsilon"] = v["epsilon"].(float64) - 1e-7 }},
		{"solve epsilon above, over a box", box, []string{"solve", box, "--json"}, func(v map[string]any) { v["epsilon"] = v["epsilon"].(float64) + 1e-7 }},
		{"curve optimal_epsilon, over a ball", ball, []string{"curve", ball, "--json", "--certificates"}, func(v map[string]any) {
			pt := v["points"].([]any)[1].(map[string]any)
			pt["optimal_epsilon"] = pt["optimal_epsilon"].(float64) - 1e-7
		}},
		{"expected curve audited_epsilon, over a box", box, []string{"curve", box, "--json", "--certificates", "--epsilons", "0.5,1"}, func(v map[string]any) {
			pt := v["curves"].([]any)[0].(map[string]any)["points"].([]any)[1].(map[string]any)
			pt["audited_epsilon"] = pt["audited_epsilon"].(float64) * 0.5
		}},
	} {
		v := runJSON(t, c.args...)
		f := filepath.Join(dir, "answer.json")
		require.NoError(t, os.WriteFile(f, mustJSON(t, v), 0o644))
		stdout, stderr, code := cli(t, "verify", f, "--problem", c.problem, "--quiet")
		require.Equal(t, 0, code, "%s, honest: %s%s", c.name, stdout, stderr)
		c.edit(v)
		require.NoError(t, os.WriteFile(f, mustJSON(t, v), 0o644))
		stdout, stderr, code = cli(t, "verify", f, "--problem", c.problem, "--quiet")
		require.Equal(t, 1, code, "%s: %s%s", c.name, stdout, stderr)
		require.Contains(t, stdout, "FAILED    reported: ", c.name)
	}
}

// TestVerifyThresholdsNoBudgetReaches: an order curve over an L1 ball of
// radius 0.5 around binomial(5, 0.3) has thresholds no budget reaches
// (their bracket [+∞, +∞], no mechanism): verify checks the pattern's
// claim for them and accepts the curve, exit 0. A finite threshold
// rewritten as unreachable (its certificate dropped) fails that claim.
func TestVerifyThresholdsNoBudgetReaches(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "b6.yaml")
	_, stderr, code := cli(t, "new", "--letters", "6", "--utility", "abs", "--prior", "binomial:0.3", "--objective", "worst-case-order", "-o", f)
	require.Equal(t, 0, code, stderr)
	src, err := os.ReadFile(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(f, append(src, "prior_set: {l1_radius: 0.5}\n"...), 0o644))
	v := runJSON(t, "curve", f, "--json", "--certificates")
	pts := v["points"].([]any)
	none := 0
	for _, pt := range pts {
		if pt.(map[string]any)["optimal_epsilon_lower"] == "inf" {
			none++
		}
	}
	require.Equal(t, 2, none, "orders 5 and 6 over the ball")
	answer := filepath.Join(dir, "curve.json")
	require.NoError(t, os.WriteFile(answer, mustJSON(t, v), 0o644))
	stdout, stderr, code := cli(t, "verify", answer, "--problem", f)
	require.Equal(t, 0, code, "%s%s", stdout, stderr)
	assert.Equal(t, 2, strings.Count(stdout, "verified  no budget: "))
	forged := pts[3].(map[string]any) // order 4, ε* = 1.506 over the ball
	delete(forged, "certificate")
	forged["optimal_epsilon_lower"], forged["optimal_epsilon"] = "inf", "inf"
	require.NoError(t, os.WriteFile(answer, mustJSON(t, v), 0o644))
	stdout, _, code = cli(t, "verify", answer, "--problem", f, "--quiet")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "point 3: FAILED    no budget: ")
}

// A value of the wrong kind in an answer is named by its line (YAML) or
// field (JSON) and what belongs there, not by the decoder's Go types.
func TestVerifyWrongKindOfValue(t *testing.T) {
	dir := t.TempDir()
	cq := td + "counting-query.yaml"
	saved := filepath.Join(dir, "cq.yaml")
	_, stderr, code := cli(t, "solve", cq, "--out", saved)
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(saved)
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	line := -1
	for k, l := range lines {
		if strings.TrimSpace(l) == "alpha:" {
			line = k + 1 // the first multiplier's line, 0-based
			break
		}
	}
	require.Positive(t, line, "no multipliers in the saved answer")
	lines[line] = strings.Split(lines[line], "-")[0] + "- abc"
	require.NoError(t, os.WriteFile(saved, []byte(strings.Join(lines, "\n")), 0o644))
	stdout, stderr, code := cli(t, "verify", saved)
	refused(t, "a word for a multiplier", code, exitError, stdout, stderr, fmt.Sprintf(`%s: line %d: "abc" where a number belongs`, saved, line+1))

	v := runJSON(t, "solve", cq, "--json")
	v["certificate"].(map[string]any)["epsilon"] = "abc"
	f := filepath.Join(dir, "cq.json")
	require.NoError(t, os.WriteFile(f, mustJSON(t, v), 0o644))
	stdout, stderr, code = cli(t, "verify", f, "--problem", cq)
	refused(t, "a string for the level", code, exitError, stdout, stderr, f+": field certificate.epsilon: a JSON string where a number belongs")
}
