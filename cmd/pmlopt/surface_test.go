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
	"github.com/pmlopt/pmlopt/problem"
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
		{[]string{"new", "--labels", "a,b\tc", "--utility", "hamming", "--prior", "uniform"}, `--labels entry 2: "b\tc" holds the control character U+0009`},
		{[]string{"new", "--labels", "a,b", "--outputs", "x,\xff", "--utility", "hamming", "--prior", "uniform"}, "--outputs entry 2 is not valid UTF-8"},
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

// TestNewDefaultsLoadAndSolve: new without --objective or --epsilon writes
// a file that solve accepts, and says on stderr which defaults it used.
func TestNewDefaultsLoadAndSolve(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		flags     []string
		objective string
		measure   string
		eps       float64
		named     []string
	}{
		{nil, "worst-case-value", "pml", 1, []string{"--objective", "--epsilon"}},
		{[]string{"--epsilon", "0.5"}, "worst-case-value", "pml", 0.5, []string{"--objective"}},
		{[]string{"--measure", "ldp", "--epsilon", "2"}, "expected-utility", "ldp", 2, []string{"--objective"}},
		{[]string{"--objective", "worst-case-order"}, "worst-case-order", "pml", 1, []string{"--epsilon"}},
	} {
		f := filepath.Join(dir, "d.yaml")
		args := append([]string{"new", "--letters", "5", "--utility", "abs", "-o", f}, c.flags...)
		_, stderr, code := cli(t, args...)
		require.Equal(t, 0, code, stderr)
		for _, flag := range []string{"--objective", "--epsilon"} {
			named := strings.Contains(stderr, "no "+flag)
			want := false
			for _, n := range c.named {
				want = want || n == flag
			}
			assert.Equal(t, want, named, "%v: %s", c.flags, stderr)
		}
		p := loadOK(t, f)
		assert.Equal(t, c.objective, string(p.Objective), c.flags)
		assert.Equal(t, c.measure, string(p.Privacy.Measure), c.flags)
		assert.Equal(t, c.eps, p.Privacy.Epsilon, c.flags)
		v := runJSON(t, "solve", f, "--json")
		assert.LessOrEqual(t, v["epsilon"].(float64), c.eps+1e-7, c.flags)
	}
	// Every flag given: nothing on stderr.
	_, stderr, code := cli(t, "new", "--letters", "5", "--utility", "abs", "--epsilon", "1", "--objective", "worst-case-value", "-o", filepath.Join(dir, "e.yaml"))
	require.Equal(t, 0, code)
	assert.Empty(t, stderr)
}

// TestNewBins: --bins groups a numeric column into intervals, by width or
// by edges; the prior is the bins' share of the records, counted here
// from the CSV independently of new.
func TestNewBins(t *testing.T) {
	counts := countColumn(t, td+"survey.csv", "children")
	total := 0.0
	for _, c := range counts {
		total += c
	}
	for _, c := range []struct {
		bins   string
		labels []string
		groups [][]string
	}{
		{"2", []string{"0-1", "2-3", "4-5"}, [][]string{{"0", "1"}, {"2", "3"}, {"4"}}},
		{"0,1,3,5", []string{"0", "1-2", "3-4"}, [][]string{{"0"}, {"1", "2"}, {"3", "4"}}},
		{"0,2.5,5", []string{"[0,2.5)", "[2.5,5)"}, [][]string{{"0", "1", "2"}, {"3", "4"}}},
	} {
		out, stderr, code := cli(t, "new", "--prior-from", td+"survey.csv", "--column", "children", "--bins", c.bins,
			"--utility", "abs", "--epsilon", "1", "--objective", "worst-case-value")
		require.Equal(t, 0, code, stderr)
		p, err := problem.Parse([]byte(out), problem.YAML)
		require.NoError(t, err)
		assert.Equal(t, c.labels, p.Inputs, c.bins)
		for i, g := range c.groups {
			want := 0.0
			for _, v := range g {
				want += counts[v]
			}
			assert.InDelta(t, want/total, p.Prior[i], 1e-15, "%s: %s", c.bins, c.labels[i])
		}
	}

	// Ages in decades, with an empty decade that needs --smoothing, and a
	// width of 0.1 whose edge 0.3 holds the value 0.3.
	dir := t.TempDir()
	ages := filepath.Join(dir, "ages.csv")
	require.NoError(t, os.WriteFile(ages, []byte("age,x\n31,0.3\n39,0.25\n30,0.3\n52,0.3\n"), 0o644))
	_, stderr, code := cli(t, "new", "--prior-from", ages, "--column", "age", "--bins", "10", "--utility", "abs")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `"40-49" occurs 0 times`)
	out, stderr, code := cli(t, "new", "--prior-from", ages, "--column", "age", "--bins", "10", "--smoothing", "1", "--utility", "abs")
	require.Equal(t, 0, code, stderr)
	p, err := problem.Parse([]byte(out), problem.YAML)
	require.NoError(t, err)
	assert.Equal(t, []string{"30-39", "40-49", "50-59"}, p.Inputs)
	assert.InDeltaSlice(t, []float64{4.0 / 7, 1.0 / 7, 2.0 / 7}, []float64(p.Prior), 1e-15)
	out, stderr, code = cli(t, "new", "--prior-from", ages, "--column", "x", "--bins", "0.1", "--utility", "abs")
	require.Equal(t, 0, code, stderr)
	p, err = problem.Parse([]byte(out), problem.YAML)
	require.NoError(t, err)
	assert.Equal(t, []string{"[0.2,0.3)", "[0.3,0.4)"}, p.Inputs)
	assert.InDeltaSlice(t, []float64{0.25, 0.75}, []float64(p.Prior), 1e-15)

	// A value that is no number, or outside the edges, is refused with
	// its line, and nothing is written.
	f := filepath.Join(dir, "out.yaml")
	firstOver := 0 // the first line with 3 children or more
	data, err := os.ReadFile(td + "survey.csv")
	require.NoError(t, err)
	for k, l := range strings.Split(string(data), "\n")[1:] {
		if n, err := strconv.Atoi(l[strings.LastIndex(l, ",")+1:]); err == nil && n >= 3 {
			firstOver = k + 2
			break
		}
	}
	require.Greater(t, firstOver, 0)
	for _, c := range []struct{ column, bins, want string }{
		{"region", "1", `column "region", line 2: "west" is not a number`},
		{"children", "0,1,3", "line " + strconv.Itoa(firstOver) + ": 3 is outside the bins [0, 3)"},
	} {
		_, stderr, code := cli(t, "new", "--prior-from", td+"survey.csv", "--column", c.column, "--bins", c.bins, "--utility", "abs", "-o", f)
		assert.Equal(t, exitError, code, stderr)
		assert.Contains(t, stderr, c.want)
		assert.NoFileExists(t, f)
	}
	for _, args := range [][]string{
		{"--bins", "0"}, {"--bins", "3,1"}, {"--bins", "a"}, {"--bins", "NaN"}, {"--bins", "1,1"},
		{"--bins", "1", "--letters", "3"}, {"--bins", "1", "--labels", "a,b"},
	} {
		args = append([]string{"new", "--prior-from", td + "survey.csv", "--column", "children", "--utility", "abs"}, args...)
		_, stderr, code := cli(t, args...)
		assert.Equal(t, exitUsage, code, "%v: %s", args, stderr)
	}
	_, stderr, code = cli(t, "new", "--letters", "3", "--bins", "1", "--utility", "abs")
	assert.Equal(t, exitUsage, code, stderr)
}

// TestGridLabelsBothConventions: new --grid labels cells "x,y" as
// testdata/grid.yaml does; cells labelled "x:y" are read as the same cells
// by plot's --input and its map, and by new --grid --prior-from.
func TestGridLabelsBothConventions(t *testing.T) {
	out, stderr, code := cli(t, "new", "--grid", "4x4", "--utility", "euclid", "--epsilon", "1")
	require.Equal(t, 0, code, stderr)
	p, err := problem.Parse([]byte(out), problem.YAML)
	require.NoError(t, err)
	assert.Equal(t, loadTD(t, "grid.yaml").Inputs, p.Inputs, "the labels of testdata/grid.yaml")

	comma := loadTD(t, "grid.yaml")
	colon := loadTD(t, "grid.yaml")
	colon.Inputs, colon.Outputs = make([]string, 16), make([]string, 16)
	for k, l := range comma.Inputs {
		colon.Inputs[k] = strings.Replace(l, ",", ":", 1)
		colon.Outputs[k] = colon.Inputs[k]
	}
	m := make([][]float64, 16)
	for i := range m {
		m[i] = make([]float64, 16)
		for j := range m[i] {
			m[i][j] = float64(100*i + j)
		}
	}
	want, err := whereMap(comma, m, "1,2", 0)
	require.NoError(t, err)
	for _, in := range []string{"1,2", "1:2"} {
		got, err := whereMap(colon, m, in, 0)
		require.NoError(t, err, in)
		assert.Equal(t, want.Z, got.Z, in)
		assert.Equal(t, want.Marks, got.Marks, in)
	}
	got, err := whereMap(comma, m, "1:2", 0)
	require.NoError(t, err)
	assert.Equal(t, want.Z, got.Z)

	// A CSV of cells in either convention counts toward the same inputs.
	out, stderr, code = cliIn(t, "cell\n0:0\n\"1,0\"\n1:0\n0:1\n\"1,1\"\n", "new", "--grid", "2x2", "--prior-from", "-", "--column", "cell",
		"--utility", "euclid", "--epsilon", "1")
	require.Equal(t, 0, code, stderr)
	p, err = problem.Parse([]byte(out), problem.YAML)
	require.NoError(t, err)
	assert.Equal(t, []string{"0,0", "1,0", "0,1", "1,1"}, p.Inputs)
	assert.InDeltaSlice(t, []float64{0.2, 0.4, 0.2, 0.2}, []float64(p.Prior), 1e-15)
}

// TestHelpNamesWhatCommandsDo: a command that plots says it writes PDF,
// and one that takes --objective names all three objectives, in its help.
func TestHelpNamesWhatCommandsDo(t *testing.T) {
	for _, c := range commands {
		help, _, code := cli(t, c.name, "--help")
		require.Equal(t, 0, code, c.name)
		if strings.Contains(help, "\n  -plot ") || strings.Contains(help, "\n  -heatmap ") {
			assert.Contains(t, help, ".pdf", c.name)
		}
		if k := strings.Index(help, "\n  -objective "); k >= 0 {
			flag := help[k+1:]
			flag = flag[:strings.Index(flag[3:], "\n  -")+3]
			for _, o := range []string{"worst-case-order", "worst-case-value", "expected-utility"} {
				assert.Contains(t, flag, o, "%s --objective", c.name)
			}
		}
	}
	help, _, _ := cli(t, "curve", "--help")
	assert.Contains(t, help, "SVG, PNG or PDF")
	assert.Contains(t, help, "With --objective expected-utility")
}
