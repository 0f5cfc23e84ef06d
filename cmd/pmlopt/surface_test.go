package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/leakage"
)

// withObjective copies a testdata file into dir with its objective line
// replaced.
func withObjective(t *testing.T, dir, name, objective string) string {
	t.Helper()
	data, err := os.ReadFile(td + name)
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	found := false
	for k, l := range lines {
		if strings.HasPrefix(l, "objective:") {
			lines[k], found = "objective: "+objective, true
		}
	}
	require.True(t, found, name)
	f := filepath.Join(dir, objective+"-"+name)
	require.NoError(t, os.WriteFile(f, []byte(strings.Join(lines, "\n")), 0o644))
	return f
}

// TestCurveFollowsTheFileObjective: curve computes the curve of the file's
// objective, as solve does, and --objective overrides it; the file's
// measure is the expected-utility curve's default measure.
func TestCurveFollowsTheFileObjective(t *testing.T) {
	dir := t.TempDir()
	byValue := withObjective(t, dir, "counting-query.yaml", "worst-case-value")
	v := runJSON(t, "curve", byValue, "--json")
	assert.Equal(t, "worst-case-value", v["objective"])
	flag := runJSON(t, "curve", td+"counting-query.yaml", "--objective", "worst-case-value", "--json")
	assert.Equal(t, flag["points"], v["points"], "the file's objective and the flag give one curve")
	v = runJSON(t, "curve", byValue, "--objective", "worst-case-order", "--json")
	assert.Equal(t, "worst-case-order", v["objective"], "the flag overrides the file")
	assert.Len(t, v["points"], 7)

	// A file without an objective gets the order curve.
	noObjective := filepath.Join(dir, "none.yaml")
	data, err := os.ReadFile(td + "counting-query.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(noObjective, []byte(strings.Replace(string(data), "objective: worst-case-order", "", 1)), 0o644))
	v = runJSON(t, "curve", noObjective, "--json")
	assert.Equal(t, "worst-case-order", v["objective"])

	// expected-utility-lip.yaml asks for expected utility under LIP.
	v = runJSON(t, "curve", td+"expected-utility-lip.yaml", "--epsilons", "1", "--json")
	assert.Equal(t, "expected-utility", v["objective"])
	pts := curvePoints(t, v, "lip")
	require.Len(t, pts, 1)
	s := runJSON(t, "solve", td+"expected-utility-lip.yaml", "--epsilon", "1", "--json")
	assert.InDelta(t, s["expected_utility"].(float64), pts[0]["expected_utility"].(float64), 1e-8)
	// and its bound is proven under LIP too, at or above the utility.
	assert.GreaterOrEqual(t, pts[0]["expected_utility_bound"].(float64), pts[0]["expected_utility"].(float64)-1e-12)

	_, stderr, code := cli(t, "curve", byValue, "--objective", "")
	assert.Equal(t, exitUsage, code, stderr)
}

// TestCurveCSVWorstCaseValue: the order curve's CSV has what each point's
// mechanism reaches, as --json does, recomputed from the mechanisms; a
// file with an order and no utility has no such column.
func TestCurveCSVWorstCaseValue(t *testing.T) {
	p := loadTD(t, "counting-query.yaml")
	out, stderr, code := cli(t, "curve", td+"counting-query.yaml", "--csv")
	require.Equal(t, 0, code, stderr)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"h", "worst_case_value", "safe_epsilon", "optimal_epsilon_lower", "optimal_epsilon", "lp_solves"}, recs[0])
	v := runJSON(t, "curve", td+"counting-query.yaml", "--json", "--mechanisms")
	pts := v["points"].([]any)
	require.Len(t, recs, 1+len(pts))
	for k, x := range pts {
		m := toMechanism(t, x.(map[string]any)["mechanism"])
		got, err := strconv.ParseFloat(recs[1+k][1], 64)
		require.NoError(t, err)
		assert.Equal(t, p.Utility.WorstCaseValue(m), got, "h = %s", recs[1+k][0])
	}

	out, stderr, code = cli(t, "curve", td+"circulant-three-low.yaml", "--csv")
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(out, "h,safe_epsilon,"), out)
}

// TestSolveJointOut: solve --min-order --out writes the solved problem
// file, which reads back with the mechanism solve printed.
func TestSolveJointOut(t *testing.T) {
	p := loadTD(t, "counting-query.yaml")
	dir := t.TempDir()
	for _, floor := range [][]string{{"--min-order", "6"}, {"--min-value", "-2"}} {
		f := filepath.Join(dir, "joint"+floor[0]+".yaml")
		args := append([]string{"solve", td + "counting-query.yaml", "--objective", "expected-utility", "--epsilon", "1.3", "--out", f, "--json"}, floor...)
		v := runJSON(t, args...)
		q := loadOK(t, f)
		require.NotNil(t, q.Mechanism, floor)
		assert.Equal(t, toMechanism(t, v["mechanism"]), q.Mechanism)
		assert.LessOrEqual(t, leakage.PML(q.Prior, q.Mechanism), 1.3+1e-7)
		if floor[0] == "--min-order" {
			assert.GreaterOrEqual(t, p.Order.WorstCaseOrder(q.Mechanism), 6)
		} else {
			assert.GreaterOrEqual(t, p.Utility.WorstCaseValue(q.Mechanism), -2.0)
		}
		assert.Equal(t, "expected-utility", string(q.Objective))
		assert.InDelta(t, 1.3, q.Privacy.Epsilon, 0)
		_, stderr, code := cli(t, "audit", f)
		assert.Equal(t, 0, code, stderr)
	}
}

// TestCommandLineErrorsExitTwo: flags that can not be right exit 2, with
// one message naming the flag, before any work.
func TestCommandLineErrorsExitTwo(t *testing.T) {
	f := td + "counting-query.yaml"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"solve", f, "--objective", "expected-utility", "--min-order", "0"}, "--min-order must be in 1..7, got 0"},
		{[]string{"solve", f, "--objective", "expected-utility", "--min-order", "8"}, "--min-order must be in 1..7, got 8"},
		{[]string{"baseline", f, "--mechanism", "foo"}, `--mechanism: unknown mechanism "foo"`},
		{[]string{"compare", f, "--baseline", "randomized-response,foo"}, `--baseline: unknown mechanism "foo"`},
		{[]string{"compare", f, "--objective", "expected-utility", "--baseline", "exponential"}, "--objective is for --optimum"},
		{[]string{"compare", f, "--optimum", "--measure", "ldp"}, "--measure ldp replaces the file's pml budget"},
		{[]string{"compare", f, "--optimum", "--epsilon", "-1"}, "--epsilon must be a number in [0, 700]"},
		{[]string{"solve", f, "--solver", "foo"}, `--solver: unknown backend "foo"`},
	} {
		out, stderr, code := cli(t, c.args...)
		assert.Equal(t, exitUsage, code, "%v: %s", c.args, stderr)
		assert.Contains(t, stderr, c.want, c.args)
		assert.Empty(t, out, c.args)
	}
	// The backends are listed once.
	_, stderr, _ := cli(t, "solve", f, "--solver", "foo")
	assert.Equal(t, 1, strings.Count(stderr, "revised"), stderr)
}

// TestExportRefusesAnInfeasibleValue: a --value above every utility of a
// row leaves that row no output; export says which row and writes
// nothing. In the counting query the best utility of every row is 0.
func TestExportRefusesAnInfeasibleValue(t *testing.T) {
	dir := t.TempDir()
	mps := filepath.Join(dir, "x.mps")
	_, stderr, code := cli(t, "export", td+"counting-query.yaml", "--mps", mps, "--value", "1")
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, `input "0" (utility row 1 has no entry ≥ 1)`)
	assert.NoFileExists(t, mps)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "no temporary file is left")

	// At 0 every row keeps its diagonal: one column per row.
	_, stderr, code = cli(t, "export", td+"counting-query.yaml", "--mps", mps, "--value", "0", "--json")
	require.Equal(t, 0, code, stderr)
	assert.FileExists(t, mps)
}

// TestCompareBudgetFlags: --measure and --epsilon replace the first
// file's budget as in solve: the optimum and the baselines are computed
// for it, and every column is judged against it.
func TestCompareBudgetFlags(t *testing.T) {
	f := td + "counting-query.yaml"
	v := runJSON(t, "compare", f, "--optimum", "--objective", "expected-utility", "--baseline", "randomized-response",
		"--measure", "ldp", "--epsilon", "2", "--json")
	b := v["budget"].(map[string]any)
	assert.Equal(t, "ldp", b["measure"])
	assert.Equal(t, 2.0, b["epsilon"])
	s := runJSON(t, "solve", f, "--objective", "expected-utility", "--measure", "ldp", "--epsilon", "2", "--json")
	rr := runJSON(t, "baseline", f, "--mechanism", "randomized-response", "--measure", "ldp", "--epsilon", "2", "--json")
	ms := v["mechanisms"].([]any)
	require.Len(t, ms, 2)
	opt, base := ms[0].(map[string]any), ms[1].(map[string]any)
	assert.InDelta(t, s["expected_utility"].(float64), opt["expected_utility"].(float64), 1e-9)
	assert.InDelta(t, rr["expected_utility"].(float64), base["expected_utility"].(float64), 1e-9)
	for _, c := range []map[string]any{opt, base} {
		assert.LessOrEqual(t, jsonNum(c["ldp"]), 2+1e-7, c["name"])
		assert.Equal(t, true, c["within_budget"], c["name"])
	}
}

// TestAuditNumbersAndBudgetInWords: the audit prints every number with the
// CLI's 10 significant digits, implied guarantees included, and ends with
// the budget in compare's words.
func TestAuditNumbersAndBudgetInWords(t *testing.T) {
	dir := t.TempDir()
	solved := filepath.Join(dir, "solved.yaml")
	_, stderr, code := cli(t, "solve", td+"counting-query.yaml", "--out", solved)
	require.Equal(t, 0, code, stderr)
	for _, f := range []string{solved, td + "eye-colour.json"} {
		out, stderr, code := cli(t, "audit", f)
		require.Equal(t, 0, code, stderr)
		for _, w := range regexp.MustCompile(`[0-9]+\.[0-9]+`).FindAllString(out, -1) {
			digits := strings.TrimLeft(strings.Replace(w, ".", "", 1), "0")
			assert.LessOrEqual(t, len(digits), 10, "%s: %s", f, w)
		}
	}
	out, _, _ := cli(t, "audit", solved)
	// log 7/2 = 1.2527629684953681, the PML of the optimum at h = 6.
	assert.Contains(t, out, "\nwithin budget: pml 1.252762968 against the budget pml ε = 1.3\n")
	assert.Contains(t, out, "none: ε = 1.252762968 is not below log 1/(1−p_min) = 0.1541506798")
}
