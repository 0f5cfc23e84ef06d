package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// cliIn runs one command line with stdin and returns stdout, stderr and
// the exit code.
func cliIn(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &env{stdout: &out, stderr: &errb, stdin: strings.NewReader(stdin)})
	return out.String(), errb.String(), code
}

// loadOK loads a problem file that must be valid.
func loadOK(t *testing.T, path string) *problem.Problem {
	t.Helper()
	p, err := problem.Load(path)
	require.NoError(t, err)
	return p
}

func TestNewGenerators(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "c.yaml")
	_, stderr, code := cli(t, "new", "--letters", "7", "--utility", "counting", "--prior", "binomial:0.3",
		"--epsilon", "1.3", "--objective", "worst-case-order", "-o", f)
	require.Equal(t, 0, code, stderr)
	p := loadOK(t, f)
	u, _ := instance.Counting(7)
	pi, _ := instance.Binomial(6, 0.3)
	assert.Equal(t, u, p.Utility)
	assert.Equal(t, pi, p.Prior)
	assert.Equal(t, &mech.Budget{Measure: mech.PML, Epsilon: 1.3}, p.Privacy)
	assert.Equal(t, problem.WorstCaseOrder, p.Objective)
	// The file round-trips: written again, it is the same bytes; and the
	// counting query of 7 letters is the paper's file.
	data, _ := os.ReadFile(f)
	again, err := problem.Marshal(p, problem.YAML)
	require.NoError(t, err)
	assert.Equal(t, string(data), string(again))
	paper := loadOK(t, td+"counting-query.yaml")
	assert.Equal(t, paper.Utility, p.Utility)

	// Stdout, JSON: a 3×2 grid with Euclidean loss, a Zipf prior.
	out, stderr, code := cli(t, "new", "--grid", "3x2", "--utility", "euclid", "--prior", "zipf:1", "--json")
	require.Equal(t, 0, code, stderr)
	q, err := problem.Parse([]byte(out), problem.JSON)
	require.NoError(t, err)
	g, _ := instance.Grid(3, 2)
	z, _ := instance.Zipf(6, 1)
	qu, err := q.RequireUtility() // written as a utility_rule
	require.NoError(t, err)
	assert.Equal(t, g, qu)
	assert.Equal(t, z, q.Prior)
	assert.Equal(t, "2,1", q.Inputs[5])

	// Labels with Hamming; --outputs a count gives an N×M line loss.
	out, _, code = cli(t, "new", "--labels", "a,b,c", "--utility", "hamming", "--prior", "geometric:0.5")
	require.Equal(t, 0, code)
	q, err = problem.Parse([]byte(out), problem.YAML)
	require.NoError(t, err)
	assert.Equal(t, mech.Utility{{0, -1, -1}, {-1, 0, -1}, {-1, -1, 0}}, q.Utility)
	assert.InDeltaSlice(t, []float64{4.0 / 7, 2.0 / 7, 1.0 / 7}, []float64(q.Prior), 1e-15)
	out, _, code = cli(t, "new", "--letters", "3", "--outputs", "2", "--utility", "square")
	require.Equal(t, 0, code)
	q, err = problem.Parse([]byte(out), problem.YAML)
	require.NoError(t, err)
	assert.Equal(t, mech.Utility{{0, -1}, {-1, 0}, {-4, -1}}, q.Utility)

	// Bad requests are usage errors.
	for _, args := range [][]string{
		{"new", "--utility", "abs"},
		{"new", "--letters", "3"},
		{"new", "--letters", "3", "--grid", "2x2", "--utility", "abs"},
		{"new", "--grid", "2x2", "--utility", "counting"},
		{"new", "--letters", "3", "--utility", "abs", "--prior", "zipf"},
		{"new", "--letters", "3", "--utility", "abs", "--measure", "ldp"},
	} {
		_, stderr, code := cli(t, args...)
		assert.Equal(t, exitUsage, code, "%v: %s", args, stderr)
	}
}

// countColumn counts the values of a CSV column independently of new.
func countColumn(t *testing.T, path, column string) map[string]float64 {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	col := -1
	for k, h := range rows[0] {
		if h == column {
			col = k
		}
	}
	require.GreaterOrEqual(t, col, 0)
	c := map[string]float64{}
	for _, r := range rows[1:] {
		c[r[col]]++
	}
	return c
}

func TestNewPriorFromCSV(t *testing.T) {
	counts := countColumn(t, td+"records.csv", "count")
	total := 0.0
	for _, c := range counts {
		total += c
	}
	out, stderr, code := cli(t, "new", "--prior-from", td+"records.csv", "--column", "count", "--utility", "abs")
	require.Equal(t, 0, code, stderr)
	p, err := problem.Parse([]byte(out), problem.YAML)
	require.NoError(t, err)
	require.Len(t, p.Inputs, len(counts))
	for i, s := range p.Inputs {
		assert.InDelta(t, counts[s]/total, p.Prior[i], 1e-15, s)
		if i > 0 {
			a, _ := strconv.Atoi(p.Inputs[i-1])
			b, _ := strconv.Atoi(s)
			assert.Less(t, a, b, "inputs sorted numerically")
		}
	}

	// Ten letters 0..9: the values 7, 8, 9 never occur. Without smoothing
	// that is refused, naming --smoothing; with it each count gains A.
	_, stderr, code = cli(t, "new", "--letters", "10", "--prior-from", td+"records.csv", "--column", "count", "--utility", "abs")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `"7" occurs 0 times`)
	assert.Contains(t, stderr, "--smoothing")
	out, stderr, code = cli(t, "new", "--letters", "10", "--prior-from", td+"records.csv", "--column", "count",
		"--smoothing", "0.5", "--utility", "abs")
	require.Equal(t, 0, code, stderr)
	p, err = problem.Parse([]byte(out), problem.YAML)
	require.NoError(t, err)
	for i, s := range p.Inputs {
		assert.InDelta(t, (counts[s]+0.5)/(total+5), p.Prior[i], 1e-15, s)
	}

	// Text values sort as text; the CSV comes from stdin.
	out, stderr, code = cliIn(t, "k,v\nb,1\na,2\nb,3\n", "new", "--prior-from", "-", "--column", "k", "--utility", "hamming")
	require.Equal(t, 0, code, stderr)
	p, err = problem.Parse([]byte(out), problem.YAML)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, p.Inputs)
	assert.InDeltaSlice(t, []float64{1.0 / 3, 2.0 / 3}, []float64(p.Prior), 1e-15)
}

func TestSolveOutReadsBack(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "solved.yaml")
	v := runJSON(t, "solve", td+"counting-query.yaml", "--json", "--out", out)
	p := loadOK(t, out)
	orig := loadOK(t, td+"counting-query.yaml")
	assert.Equal(t, toMechanism(t, v["mechanism"]), p.Mechanism)
	assert.Equal(t, orig.Prior, p.Prior)
	assert.Equal(t, orig.Utility, p.Utility)
	assert.Equal(t, orig.Privacy, p.Privacy)
	assert.Equal(t, []any{"0", "1", "2", "3", "4", "5", "6"}, v["inputs"], "labels in solve --json")

	// audit and sample read it as it is; solve solves it again.
	a := runJSON(t, "audit", out, "--json")
	assert.Equal(t, true, a["within_budget"])
	assert.InDelta(t, v["epsilon"].(float64), a["pml"].(float64), 1e-12)
	_, stderr, code := cli(t, "sample", out, "--input", td+"records.csv", "--column", "count")
	assert.Equal(t, 0, code, stderr)
	again := runJSON(t, "solve", out, "--json")
	assert.Equal(t, v["worst_case_order"], again["worst_case_order"])

	// The budget written is the one solved for: the override's.
	out2 := filepath.Join(dir, "solved.json")
	runJSON(t, "solve", td+"counting-query.yaml", "--json", "--epsilon", "0.5", "--out", out2)
	assert.Equal(t, &mech.Budget{Measure: mech.PML, Epsilon: 0.5}, loadOK(t, out2).Privacy)
	_, _, code = cli(t, "audit", out2)
	assert.Equal(t, 0, code)

	// safe --out: M*(h) with the budget it was chosen for.
	out3 := filepath.Join(dir, "safe.yaml")
	s := runJSON(t, "safe", td+"counting-query.yaml", "--epsilon", "1.3", "--json", "--out", out3)
	q := loadOK(t, out3)
	assert.Equal(t, toMechanism(t, s["mechanism"]), q.Mechanism)
	assert.Equal(t, &mech.Budget{Measure: mech.PML, Epsilon: 1.3}, q.Privacy)
	assert.Equal(t, true, runJSON(t, "audit", out3, "--json")["within_budget"])
}

// coinFile writes randomized response on a fair coin, P(truth) = 3/4, whose
// PML is log(3/4 / 1/2) = log 1.5, under a pml budget eps.
func coinFile(t *testing.T, eps string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "coin.yaml")
	doc := "inputs: [\"no\", \"yes\"]\noutputs: [\"no\", \"yes\"]\nprior: [0.5, 0.5]\n" +
		"mechanism: [[0.75, 0.25], [0.25, 0.75]]\nprivacy: {measure: pml, epsilon: " + eps + "}\n"
	require.NoError(t, os.WriteFile(f, []byte(doc), 0o644))
	return f
}

func TestBudgetVerdicts(t *testing.T) {
	records := "id,answer\n1,yes\n2,no\n"
	over := coinFile(t, "0.1")
	out, stderr, code := cli(t, "audit", over)
	assert.Equal(t, exitBudget, code)
	assert.Contains(t, out, "exceeds the budget by "+num(math.Log(1.5)-0.1))
	assert.Contains(t, stderr, "exceeds the budget")
	v := map[string]any{}
	out, _, code = cli(t, "audit", over, "--json")
	assert.Equal(t, exitBudget, code)
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	assert.Equal(t, false, v["within_budget"])
	assert.InDelta(t, math.Log(1.5)-0.1, v["budget_excess"].(float64), 1e-15)

	out, stderr, code = cliIn(t, records, "sample", over, "--input", "-", "--column", "answer")
	assert.Equal(t, exitBudget, code, stderr)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "--force")
	out, stderr, code = cliIn(t, records, "sample", over, "--input", "-", "--column", "answer", "--force")
	assert.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(out, "id,answer\n"))

	within := coinFile(t, "0.5")
	out, _, code = cli(t, "audit", within)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "within budget")
	_, _, code = cliIn(t, records, "sample", within, "--input", "-", "--column", "answer")
	assert.Equal(t, 0, code)
	// sample --json: one object per record, keyed by the header.
	out, _, code = cliIn(t, records, "sample", within, "--input", "-", "--column", "answer", "--json")
	require.Equal(t, 0, code)
	var recs []map[string]string
	require.NoError(t, json.Unmarshal([]byte(out), &recs))
	require.Len(t, recs, 2)
	assert.Equal(t, "1", recs[0]["id"])
	assert.Contains(t, []string{"yes", "no"}, recs[0]["answer"])
}

func TestMeasureOverrideNeedsItsBudget(t *testing.T) {
	// The file's budget is (0.3, 0.5)-ALIP: no PML level carries over.
	out, stderr, code := cli(t, "solve", td+"expected-utility-alip.yaml", "--measure", "pml")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "give --epsilon")
	_, stderr, code = cli(t, "solve", td+"expected-utility.yaml", "--measure", "ldp")
	assert.Equal(t, exitUsage, code, stderr)
	v := runJSON(t, "solve", td+"expected-utility-alip.yaml", "--measure", "pml", "--epsilon", "0.5", "--json")
	assert.Equal(t, "pml", v["measure"])
	assert.LessOrEqual(t, v["epsilon"].(float64), 0.5+1e-7)
	assert.Greater(t, v["epsilon"].(float64), 0.4, "solved at the given ε, not at 0")
	// A file without a budget: --measure alone is not enough.
	f := filepath.Join(t.TempDir(), "nobudget.yaml")
	require.NoError(t, os.WriteFile(f, []byte("prior: [0.5, 0.5]\nutility: [[0, -1], [-1, 0]]\nobjective: worst-case-order\n"), 0o644))
	_, _, code = cli(t, "solve", f, "--measure", "pml")
	assert.Equal(t, exitUsage, code)
}

func TestValueCurveReportsWhatEachStepReaches(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c21.yaml")
	_, _, code := cli(t, "new", "--letters", "21", "--utility", "counting", "-o", f)
	require.Equal(t, 0, code)
	p := loadOK(t, f)
	v := runJSON(t, "curve", f, "--objective", "worst-case-value", "--json", "--quiet")
	pts := v["points"].([]any)
	require.NotEmpty(t, pts)
	// At ε = 0 every row is the same distribution, so the best worst case
	// is the best constant release: y = 10, worst at x = 20, −(10²) − 1.
	first := pts[0].(map[string]any)
	assert.Equal(t, -101.0, first["worst_case_value"])
	assert.Equal(t, 0.0, first["optimal_epsilon"])
	for k, x := range pts {
		pt := x.(map[string]any)
		thr, reach := pt["threshold"].(float64), pt["worst_case_value"].(float64)
		assert.GreaterOrEqual(t, reach, thr)
		if k+1 < len(pts) {
			assert.Less(t, reach, pts[k+1].(map[string]any)["threshold"].(float64), "the next step needs a larger ε")
		}
	}
	// The utility-safe staircase on its own steps: at every reachable
	// value, the step at or below it has the PML of the mechanism uniform
	// over the entries at least that value.
	steps := v["safe_steps"].([]any)
	reach := 0.0
	for _, v := range p.Utility.Values() {
		if v > reach {
			break
		}
		want := leakage.PML(p.Prior, closedform.UniformOnAllowed(p.Utility.Pattern(v)))
		got := math.NaN()
		for _, s := range steps {
			st := s.(map[string]any)
			if st["threshold"].(float64) <= v {
				got = st["safe_epsilon"].(float64)
			}
		}
		assert.InDelta(t, want, got, 1e-12, "value %g", v)
	}
	// CSV and the table carry the reached value too.
	out, _, code := cli(t, "curve", f, "--objective", "worst-case-value", "--csv", "--quiet")
	require.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "threshold,worst_case_value,safe_epsilon"))
	assert.Contains(t, out, "\n-401,-101,")
	out, _, _ = cli(t, "curve", f, "--objective", "worst-case-value", "--quiet")
	assert.Contains(t, out, "reaches")
	// The plot draws the safe staircase on its own steps.
	svg := filepath.Join(t.TempDir(), "c.svg")
	_, stderr, code := cli(t, "curve", f, "--objective", "worst-case-value", "--quiet", "--plot", svg)
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.Contains(t, string(data), "<svg")
}

func TestStdinVersionHelpAndSolvers(t *testing.T) {
	doc, err := os.ReadFile(td + "counting-query.yaml")
	require.NoError(t, err)
	out, stderr, code := cliIn(t, string(doc), "solve", "-", "--json")
	require.Equal(t, 0, code, stderr)
	fromFile := runJSON(t, "solve", td+"counting-query.yaml", "--json")
	assert.Equal(t, fromFile["mechanism"], runJSONText(t, out)["mechanism"])
	_, stderr, code = cliIn(t, "prior: [1]\nbogus: 1\n", "audit", "-")
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "standard input")

	out, _, code = cli(t, "--version")
	assert.Equal(t, 0, code)
	assert.Regexp(t, `^pmlopt (devel|v\S+)\n$`, out)

	for _, c := range commands {
		out, _, code := cli(t, c.name, "--help")
		assert.Equal(t, 0, code, c.name)
		assert.Contains(t, out, "Example:\n\n\tpmlopt "+c.name, "help of %s", c.name)
	}

	if _, err := solver.Get("clp"); err != nil {
		_, stderr, code := cli(t, "solve", td+"counting-query.yaml", "--solver", "clp")
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, stderr, "-tags clp")
	}
}

func runJSONText(t *testing.T, s string) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &v), s)
	return v
}

func TestLargeMechanismSummary(t *testing.T) {
	f := filepath.Join(t.TempDir(), "a25.yaml")
	_, _, code := cli(t, "new", "--letters", "25", "--utility", "abs", "--epsilon", "1", "-o", f)
	require.Equal(t, 0, code)
	out, stderr, code := cli(t, "safe", f, "--h", "23")
	require.Equal(t, 0, code, stderr)
	// M*(23) of −|x−y|: each input keeps its three best outputs.
	assert.Contains(t, out, "outputs used")
	assert.Regexp(t, `\n\s*0\s+3\s+0.3333333333\s+0\.\.2\n`, out)
	assert.Regexp(t, `\n\s*12\s+3\s+0.3333333333\s+11\.\.13\n`, out)
	assert.NotContains(t, out, "x\\y")
	out, _, code = cli(t, "safe", f, "--h", "23", "--full")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "x\\y")
	out, stderr, code = cli(t, "solve", f, "--objective", "worst-case-value")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "outputs used")
}

func TestExportJSON(t *testing.T) {
	mps := filepath.Join(t.TempDir(), "e.mps")
	v := runJSON(t, "export", td+"example1.yaml", "--mps", mps, "--h", "2", "--json")
	assert.Equal(t, mps, v["file"])
	assert.Greater(t, v["rows"].(float64), 0.0)
	assert.Equal(t, "pml", v["privacy"].(map[string]any)["measure"])
	_, err := os.Stat(mps)
	assert.NoError(t, err)
}
