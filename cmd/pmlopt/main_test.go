package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

const td = "../../testdata/"

// cli runs one command line and returns stdout, stderr and the exit code.
func cli(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &env{stdout: &out, stderr: &errb, stdin: strings.NewReader("")})
	return out.String(), errb.String(), code
}

// runJSON runs a command that must succeed and decodes its JSON output.
func runJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, stderr, code := cli(t, args...)
	require.Equal(t, 0, code, "stderr: %s", stderr)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	return v
}

// toMechanism reads a mechanism of --json output, dense or as sparse rows
// (a large sparse one, jmech).
func toMechanism(t *testing.T, v any) mech.Mechanism {
	t.Helper()
	if _, sparse := v.(map[string]any); sparse {
		q, err := decodedMechanism(v, 0, 0)
		require.NoError(t, err)
		_, err = mech.NewMechanism(q)
		require.NoError(t, err)
		return q
	}
	rows := v.([]any)
	m := make(mech.Mechanism, len(rows))
	for i, r := range rows {
		for _, x := range r.([]any) {
			m[i] = append(m[i], x.(float64))
		}
	}
	_, err := mech.NewMechanism(m)
	require.NoError(t, err)
	return m
}

func TestSafeCountingQuery(t *testing.T) {
	// Song & Oechtering (2026), §IV-A: at ε = 1.3 the schedule is M*(5) with ε_S = log 7/2.
	v := runJSON(t, "safe", td+"counting-query.yaml", "--epsilon", "1.3", "--json")
	assert.Equal(t, 5.0, v["h"])
	assert.InDelta(t, math.Log(3.5), v["epsilon"].(float64), 1e-12)
	p, err := problem.Load(td + "counting-query.yaml")
	require.NoError(t, err)
	m := toMechanism(t, v["mechanism"])
	assert.InDelta(t, math.Log(3.5), leakage.PML(p.Prior, m), 1e-12)
	assert.True(t, p.Order.Pattern(5).Holds(m))

	// Flags may come before the file, and --h picks M*(3) with ε_S = log 7/3.
	v = runJSON(t, "safe", "--h", "3", "--json", td+"counting-query.yaml")
	assert.Equal(t, 3.0, v["h"])
	assert.InDelta(t, math.Log(7.0/3), v["epsilon"].(float64), 1e-12)

	out, _, code := cli(t, "safe", td+"counting-query.yaml", "--epsilon", "2")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "M*(7)")
}

func TestAuditEyeColour(t *testing.T) {
	// Fernandes et al. (2022), Example 1.
	v := runJSON(t, "audit", td+"eye-colour.json", "--json")
	assert.InDelta(t, math.Log(15), v["ldp"].(float64), 1e-12)
	assert.InDelta(t, 19.0/11, v["lift"].(float64), 1e-12)
	assert.InDelta(t, 1.7, v["bayes_capacity"].(float64), 1e-12)
	assert.InDelta(t, math.Log(1.7), v["maximal_leakage"].(float64), 1e-12)
	assert.InDelta(t, math.Log(19.0/11), v["pml"].(float64), 1e-12)
	for _, key := range []string{"pml_per_output", "pmc", "alip_lower", "alip_upper", "lip", "posterior_bayes_vulnerability",
		"bayes_leakage", "maximal_alpha_leakage", "maximal_alpha_beta_leakage", "lrdp", "implied"} {
		assert.Contains(t, v, key)
	}
	out, _, code := cli(t, "audit", td+"eye-colour.json")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "2.708050201") // log 15
	assert.Contains(t, out, "implied guarantees")
}

func TestAuditInfinityIsAString(t *testing.T) {
	// A mechanism with a zero in a used column has infinite PMC, LIP and LDP:
	// JSON writes them as "inf" (docs/cli.md, JSON output).
	dir := t.TempDir()
	f := filepath.Join(dir, "p.yaml")
	require.NoError(t, os.WriteFile(f, []byte("prior: [0.5, 0.5]\nmechanism: [[1, 0], [0.5, 0.5]]\n"), 0o644))
	v := runJSON(t, "audit", f, "--json")
	assert.Equal(t, "inf", v["pmc"])
	assert.Equal(t, "inf", v["ldp"])
	assert.InDelta(t, math.Log(2), v["pml"].(float64), 1e-12) // q = (3/4, 1/4): column 2 has ratio 1/2 ÷ 1/4
}

func TestConvert(t *testing.T) {
	v := runJSON(t, "convert", "--from", "pml", "--epsilon", "0.1", "--pmin", "0.2", "--json")
	epsL := math.Log(0.2 / (1 - math.Exp(0.1)*0.8)) // ε_l*(0.1), docs/theory.md §3
	got := map[string]map[string]any{}
	for _, x := range v["implied"].([]any) {
		im := x.(map[string]any)
		got[im["measure"].(string)] = im
		assert.Equal(t, true, im["holds"])
	}
	assert.InDelta(t, epsL, got["pmc"]["epsilon"].(float64), 1e-12)
	assert.InDelta(t, epsL, got["alip"]["epsilon_lower"].(float64), 1e-12)
	assert.InDelta(t, 0.1, got["alip"]["epsilon_upper"].(float64), 1e-12)
	assert.InDelta(t, math.Max(epsL, 0.1), got["lip"]["epsilon"].(float64), 1e-12)
	assert.InDelta(t, epsL+0.1, got["ldp"]["epsilon"].(float64), 1e-12)

	out, _, code := cli(t, "convert", "--from", "pml", "--epsilon", "0.5", "--pmin", "0.2")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "no pmc, alip, lip, ldp guarantee")
}

func TestSolveExpectedUtilityAcrossBackends(t *testing.T) {
	for _, f := range []string{"expected-utility", "expected-utility-alip", "expected-utility-lip", "expected-utility-ldp"} {
		p, err := problem.Load(td + f + ".yaml")
		require.NoError(t, err)
		var first map[string]any
		for _, name := range solver.Names() {
			v := runJSON(t, "solve", td+f+".yaml", "--solver", name, "--json")
			assert.Equal(t, "optimal", v["status"])
			assert.Equal(t, name, v["solver"])
			m := toMechanism(t, v["mechanism"])
			eu := v["expected_utility"].(float64)
			assert.InDelta(t, p.Utility.ExpectedUtility(p.Prior, m), eu, 1e-9)
			// The reported level is the audited one and within budget.
			switch p.Privacy.Measure {
			case mech.PML:
				assert.InDelta(t, leakage.PML(p.Prior, m), v["epsilon"].(float64), 1e-12)
				assert.LessOrEqual(t, v["epsilon"].(float64), p.Privacy.Epsilon+1e-7)
			case mech.LDP:
				assert.LessOrEqual(t, leakage.LDP(p.Prior, m), p.Privacy.Epsilon+1e-7)
			case mech.LIP:
				assert.LessOrEqual(t, leakage.LIP(p.Prior, m), p.Privacy.Epsilon+1e-7)
			case mech.ALIP:
				lo, up := leakage.ALIP(p.Prior, m)
				assert.LessOrEqual(t, lo, p.Privacy.EpsilonLower+1e-7)
				assert.LessOrEqual(t, up, p.Privacy.EpsilonUpper+1e-7)
			}
			if first == nil {
				first = v
				continue
			}
			assert.InDelta(t, first["expected_utility"].(float64), eu, 1e-7, "%s: %s vs %s", f, name, first["solver"])
		}
	}
}

func TestSolveCountingQuery(t *testing.T) {
	// At ε = 1.3 the general optimum reaches worst-case order 6 at
	// PML log 7/2, one order above the utility-safe schedule's M*(5).
	p, err := problem.Load(td + "counting-query.yaml")
	require.NoError(t, err)
	v := runJSON(t, "solve", td+"counting-query.yaml", "--json")
	assert.Equal(t, 6.0, v["worst_case_order"])
	m := toMechanism(t, v["mechanism"])
	eps := v["epsilon"].(float64)
	assert.InDelta(t, math.Log(3.5), eps, 1e-9)
	assert.InDelta(t, leakage.PML(p.Prior, m), eps, 1e-12)
	assert.LessOrEqual(t, v["optimal_epsilon_lower"].(float64), eps)
	assert.True(t, p.Order.Pattern(6).Holds(m))
	assert.Equal(t, 6, p.Order.WorstCaseOrder(m))
}

func TestSolveExample1(t *testing.T) {
	// Song & Oechtering (2026), Example 1 with π_2 + π_3 ≤ 1/2 and ε = 1: h = 2 at PML log 2.
	v := runJSON(t, "solve", td+"example1.yaml", "--json")
	assert.Equal(t, 2.0, v["worst_case_order"])
	lo, hi := v["optimal_epsilon_lower"].(float64), v["epsilon"].(float64)
	assert.InDelta(t, math.Log(2), hi, 1e-9)
	assert.GreaterOrEqual(t, hi, math.Log(2)-1e-12, "an audited PML can not be below the optimum")
	assert.LessOrEqual(t, lo, math.Log(2)+1e-12, "the certified lower bound is below the optimum")
	assert.LessOrEqual(t, hi-lo, 2e-9)
	// --epsilon overrides the file: below log 2 only h = 1 is reachable.
	v = runJSON(t, "solve", td+"example1.yaml", "--epsilon", "0.6", "--json")
	assert.Equal(t, 1.0, v["worst_case_order"])
}

func TestCurve(t *testing.T) {
	v := runJSON(t, "curve", td+"circulant-three-low.yaml", "--json", "--quiet")
	assert.Equal(t, "worst-case-order", v["objective"])
	pts := v["points"].([]any)
	require.Len(t, pts, 4)
	for _, x := range pts {
		pt := x.(map[string]any)
		lo, hi, safe := pt["optimal_epsilon_lower"].(float64), pt["optimal_epsilon"].(float64), pt["safe_epsilon"].(float64)
		assert.LessOrEqual(t, lo, hi)
		assert.LessOrEqual(t, hi-lo, 1e-9)
		assert.LessOrEqual(t, hi, safe+1e-9)
	}
	// Figure 3's gap at h = 2 for three-low-one-high priors.
	h2 := pts[1].(map[string]any)
	assert.Greater(t, h2["safe_epsilon"].(float64)-h2["optimal_epsilon"].(float64), 0.1)

	out, _, code := cli(t, "curve", td+"circulant-three-low.yaml", "--csv", "--quiet")
	require.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assert.Equal(t, "h,safe_epsilon,optimal_epsilon_lower,optimal_epsilon,lp_solves", lines[0])
	assert.Len(t, lines, 5)
}

func TestExportMPS(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.mps")
	_, stderr, code := cli(t, "export", td+"expected-utility.yaml", "--mps", out)
	require.Equal(t, 0, code, stderr)
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	m, err := lp.ReadMPS(f)
	require.NoError(t, err)
	assert.True(t, m.Maximize)
	p, err := problem.Load(td + "expected-utility.yaml")
	require.NoError(t, err)
	// The exported LP's optimum is the solve command's.
	res, err := solver.Auto().Solve(m)
	require.NoError(t, err)
	v := runJSON(t, "solve", td+"expected-utility.yaml", "--json")
	assert.InDelta(t, v["expected_utility"].(float64), res.Objective, 1e-7)
	assert.Equal(t, p.N()*p.M(), countPrefix(m.ColNames, "p["))
}

func countPrefix(names []string, prefix string) int {
	n := 0
	for _, s := range names {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

func TestSample(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "rr.yaml")
	// A mechanism that maps each count to itself is the identity, so the
	// output must equal the input; a second run with the same seed must
	// reproduce a randomised one exactly.
	id := "prior: [\"1/7\",\"1/7\",\"1/7\",\"1/7\",\"1/7\",\"1/7\",\"1/7\"]\nmechanism:\n"
	for i := 0; i < 7; i++ {
		row := make([]string, 7)
		for j := range row {
			row[j] = "0"
		}
		row[i] = "1"
		id += "  - [" + strings.Join(row, ", ") + "]\n"
	}
	require.NoError(t, os.WriteFile(f, []byte(id), 0o644))
	in, err := os.ReadFile(td + "records.csv")
	require.NoError(t, err)
	out, stderr, code := cli(t, "sample", f, "--input", td+"records.csv", "--column", "count", "--seed", "3")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, strings.TrimSpace(string(in)), strings.TrimSpace(out))

	safe := runJSON(t, "safe", td+"counting-query.yaml", "--h", "5", "--json")
	mfile := filepath.Join(dir, "safe.json")
	mj, _ := json.Marshal(map[string]any{"prior": []string{"1/7", "1/7", "1/7", "1/7", "1/7", "1/7", "1/7"}, "mechanism": safe["mechanism"]})
	require.NoError(t, os.WriteFile(mfile, mj, 0o644))
	a, _, code := cli(t, "sample", mfile, "--input", td+"records.csv", "--column", "count", "--seed", "9")
	require.Equal(t, 0, code)
	b, _, _ := cli(t, "sample", mfile, "--input", td+"records.csv", "--column", "count", "--seed", "9")
	assert.Equal(t, a, b)
	assert.NotEqual(t, strings.TrimSpace(string(in)), strings.TrimSpace(a))
}

func TestBadFilesFailCleanly(t *testing.T) {
	bad, err := filepath.Glob(td + "bad/*")
	require.NoError(t, err)
	require.NotEmpty(t, bad)
	for _, f := range bad {
		for _, cmd := range [][]string{{"audit", f}, {"solve", f}, {"safe", f, "--h", "1"}} {
			out, stderr, code := cli(t, cmd...)
			assert.Equal(t, exitError, code, "%v: %s", cmd, stderr)
			assert.Empty(t, out, "%v wrote to stdout", cmd)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			assert.Len(t, lines, 1, "%v: %s", cmd, stderr)
			assert.Contains(t, stderr, filepath.Base(f), "the message names the file")
			assert.NotContains(t, stderr, "goroutine")
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{nil, exitUsage, "Usage"},
		{[]string{"frobnicate"}, exitUsage, "unknown command"},
		{[]string{"safe"}, exitUsage, "missing problem FILE"},
		{[]string{"safe", td + "counting-query.yaml", "--h", "2", "--epsilon", "1"}, exitUsage, "not both"},
		{[]string{"safe", td + "counting-query.yaml", "--h", "9"}, exitUsage, "--h"},
		{[]string{"safe", td + "counting-query.yaml", "--bogus"}, exitUsage, "bogus"},
		{[]string{"solve", td + "counting-query.yaml", "--solver", "nope"}, exitUsage, "--solver"},
		{[]string{"convert", "--from", "pml", "--epsilon", "0.1"}, exitUsage, "--pmin"},
		{[]string{"audit", td + "counting-query.yaml"}, exitError, "mechanism"},
		{[]string{"audit", "does-not-exist.yaml"}, exitError, "does-not-exist.yaml"},
		{[]string{"curve", td + "counting-query.yaml", "--plot", "x.gif"}, exitUsage, ".png or .pdf"},
	} {
		out, stderr, code := cli(t, c.args...)
		assert.Equal(t, c.code, code, "%v: %s", c.args, stderr)
		assert.Contains(t, stderr, c.msg, "%v", c.args)
		if c.args != nil {
			assert.Empty(t, out, "%v", c.args)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, c := range commands {
		out, _, code := cli(t, c.name, "--help")
		assert.Equal(t, 0, code, c.name)
		assert.Contains(t, out, "Usage: pmlopt "+c.name, c.name)
	}
	out, _, code := cli(t, "help")
	assert.Equal(t, 0, code)
	for _, c := range commands {
		assert.Contains(t, out, c.name)
	}
	// Help asked of help is the usage itself, not a call of help by help
	// without end.
	for _, args := range [][]string{{"help", "help"}, {"--help", "--help"}, {"-h", "help", "solve"}} {
		again, _, code := cli(t, args...)
		assert.Equal(t, 0, code, args)
		assert.Equal(t, out, again, args)
	}
}

func TestStaircase(t *testing.T) {
	// ε_S need not be monotone in h: the staircase takes the best h
	// reachable at each budget.
	xs, ys := staircase([]float64{0, math.Log(10), 0}, []float64{1, 2, 3}, 3)
	assert.Equal(t, []float64{0, math.Log(10), 3}, xs)
	assert.Equal(t, []float64{3, 3, 3}, ys)
	xs, ys = staircase([]float64{0, 0.5, 0.5, 1}, []float64{1, 2, 3, 4}, 2)
	assert.Equal(t, []float64{0, 0.5, 1, 2}, xs)
	assert.Equal(t, []float64{1, 3, 4, 4}, ys)
	// A threshold no budget reaches (ε = +∞, over a prior set) is off it.
	xs, ys = staircase([]float64{0, 1, math.Inf(1)}, []float64{-2, -1, 0}, 2)
	assert.Equal(t, []float64{0, 1, 2}, xs)
	assert.Equal(t, []float64{-2, -1, -1}, ys)
}

func TestCurvePlot(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"c.svg", "c.png"} {
		path := filepath.Join(dir, name)
		_, stderr, code := cli(t, "curve", td+"counting-query.yaml", "--plot", path, "--quiet")
		require.Equal(t, 0, code, stderr)
		st, err := os.Stat(path)
		require.NoError(t, err)
		assert.Greater(t, st.Size(), int64(1000))
	}
	svg, err := os.ReadFile(filepath.Join(dir, "c.svg"))
	require.NoError(t, err)
	assert.Contains(t, string(svg), "utility-safe")
}

func TestWarnOpenBrackets(t *testing.T) {
	var b strings.Builder
	warnOpen(&b, "curve", []pmlopt.Point{
		{H: 1, OptimalEpsilonLower: 0.5, OptimalEpsilon: 0.5 + 1e-10},
		{H: 2, OptimalEpsilonLower: 0.5, OptimalEpsilon: 0.5 + 1e-6},
	}, 1e-9)
	assert.NotContains(t, b.String(), "threshold 1:")
	assert.Contains(t, b.String(), "pmlopt curve: warning: threshold 2: ε* in [0.5, 0.500001], wider than --tol 1e-09")
}

func TestAuditKeepsAnUncertifiedBracket(t *testing.T) {
	// Maximal α-leakage of this mechanism is not certified within 1e-7:
	// the report is printed anyway, with the certified bracket and a note.
	v := runJSON(t, "audit", td+"alpha-uncertified.yaml", "--json")
	lo, up := v["maximal_alpha_leakage"].(float64), v["maximal_alpha_leakage_upper"].(float64)
	assert.Less(t, lo, up)
	assert.InDelta(t, 0.4379642, lo, 1e-6)
	notes := v["notes"].([]any)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "maximal α-leakage not certified")
	out, _, code := cli(t, "audit", td+"alpha-uncertified.yaml")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "(not certified closer)")
	assert.Contains(t, out, "note: maximal α-leakage not certified")
}
