package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// surveyCounts are the counts of the children column of
// testdata/survey.csv (40 answers), counted by hand.
var surveyCounts = []float64{9, 12, 11, 5, 3}

// vertexLP is the best expected utility Σ π̂_i u_ij p_ij of a mechanism p
// with p_ij ≤ e^ε Σ_k v_k p_kj for every prior v of vertices (and, for
// lip, p_ij ≥ e^−ε Σ_k v_k p_kj), as a plain LP. A linear function's
// least and largest values over a polytope are at its vertices, so with
// the vertices of a prior set this is the robust problem, written without
// the dualisation pmlopt uses; with the unit vectors it is LDP.
func vertexLP(t *testing.T, prior mech.Prior, u mech.Utility, vertices [][]float64, eps float64, lip bool) float64 {
	t.Helper()
	n, m := len(prior), len(u[0])
	x := &lp.Model{Maximize: true}
	col := make([][]int, n)
	for i := range n {
		col[i] = make([]int, m)
		var row []lp.Nonzero
		for j := range m {
			col[i][j] = x.AddCol(prior[i]*u[i][j], 0, 1, "")
			row = append(row, lp.Entry(col[i][j], 1))
		}
		x.AddRow(1, 1, "", row...)
	}
	for _, v := range vertices {
		for j := range m {
			for i := range n {
				up := []lp.Nonzero{lp.Entry(col[i][j], 1)}
				lo := []lp.Nonzero{lp.Entry(col[i][j], 1)}
				for k := range n {
					if v[k] != 0 {
						up = append(up, lp.Entry(col[k][j], -math.Exp(eps)*v[k]))
						lo = append(lo, lp.Entry(col[k][j], -math.Exp(-eps)*v[k]))
					}
				}
				x.AddRow(-lp.Inf, 0, "", mergeEntries(up)...)
				if lip {
					x.AddRow(0, lp.Inf, "", mergeEntries(lo)...)
				}
			}
		}
	}
	sol, err := solver.Revised().Solve(x)
	require.NoError(t, err)
	require.Equal(t, solver.Optimal, sol.Status)
	return sol.Objective
}

// mergeEntries adds up the entries of one column (p_ij appears on both
// sides of its own constraint).
func mergeEntries(es []lp.Nonzero) []lp.Nonzero {
	var out []lp.Nonzero
	at := map[int]int{}
	for _, e := range es {
		if k, ok := at[e.Col]; ok {
			out[k].Val += e.Val
			continue
		}
		at[e.Col] = len(out)
		out = append(out, e)
	}
	return out
}

func unitVectors(n int) [][]float64 {
	out := make([][]float64, n)
	for k := range out {
		out[k] = make([]float64, n)
		out[k][k] = 1
	}
	return out
}

func jsonFloats(t *testing.T, v any) []float64 {
	t.Helper()
	var out []float64
	for _, x := range v.([]any) {
		out = append(out, x.(float64))
	}
	return out
}

// surveyFile writes the README's survey problem with the prior set of new
// --confidence level (and extra flags), returning its path.
func surveyFile(t *testing.T, dir, name string, extra ...string) string {
	t.Helper()
	f := filepath.Join(dir, name)
	args := append([]string{"new", "--prior-from", td + "survey.csv", "--column", "children", "--utility", "abs",
		"--epsilon", "1", "--objective", "expected-utility", "-o", f}, extra...)
	_, stderr, code := cli(t, args...)
	require.Equal(t, 0, code, stderr)
	return f
}

// The price of robustness on the README's survey: the curve at the
// estimate, over the 90% and 99% Clopper–Pearson boxes rebuilt from the
// file, and LDP, each against a plain LP of its own, ordered from the
// estimate down to LDP, with every mechanism audited over its set.
func TestCurveRobustnessSurvey(t *testing.T) {
	dir := t.TempDir()
	for _, measure := range []string{"pml", "lip"} {
		f := surveyFile(t, dir, "survey-"+measure+".yaml", "--confidence", "0.95", "--measure", measure)
		eps := []float64{0, 0.25, 0.5, 1, 1.5, 2}
		v := runJSON(t, "curve", f, "--robustness", "0.99,0.9", "--epsilons", "0,0.25,0.5,1,1.5,2", "--json", "--mechanisms")
		curves := v["curves"].([]any)
		require.Len(t, curves, 4)
		p, err := problem.Load(f)
		require.NoError(t, err)
		u := p.Utility
		prior := mech.Prior{0.225, 0.3, 0.275, 0.125, 0.075}
		require.Equal(t, prior, p.Prior)

		// The sets, in increasing order of level, are Clopper–Pearson
		// boxes at level 1 − (1 − L)/5 on the counts, and nested.
		var boxes [][2][]float64
		for k, level := range []float64{0.9, 0.99} {
			c := curves[1+k].(map[string]any)
			assert.Equal(t, "prior_set", c["over"])
			assert.Equal(t, level, c["confidence"])
			ps := c["prior_set"].(map[string]any)
			assert.Equal(t, "clopper-pearson-bonferroni", ps["method"])
			assert.Equal(t, 40.0, ps["samples"])
			assert.Equal(t, level, ps["confidence"])
			lo, up := jsonFloats(t, ps["lower"]), jsonFloats(t, ps["upper"])
			for i, cnt := range surveyCounts {
				l, h := instance.ClopperPearson(int(cnt), 40, (1-level)/5)
				assert.InDelta(t, l, lo[i], 1e-15, "level %g letter %d", level, i)
				assert.InDelta(t, h, up[i], 1e-15, "level %g letter %d", level, i)
			}
			boxes = append(boxes, [2][]float64{lo, up})
		}
		for i := range prior {
			assert.Less(t, boxes[1][0][i], boxes[0][0][i])
			assert.Greater(t, boxes[1][1][i], boxes[0][1][i])
		}
		est, ldp := curves[0].(map[string]any), curves[3].(map[string]any)
		assert.Equal(t, "estimate", est["over"])
		assert.Equal(t, measure, est["measure"])
		assert.Equal(t, "simplex", ldp["over"])
		assert.Equal(t, "ldp", ldp["measure"])
		assert.Nil(t, est["prior_set"])
		assert.Nil(t, ldp["confidence"])

		// The estimate's series is the nominal curve, point for point.
		nominal := *p
		nominal.PriorSet, nominal.PriorSetSource = nil, nil
		budgets := make([]mech.Budget, len(eps))
		for k, e := range eps {
			budgets[k] = mech.Budget{Measure: mech.Measure(measure), Epsilon: e}
		}
		want, err := pmlopt.ExpectedCurve(context.Background(), &nominal, budgets, pmlopt.Options{})
		require.NoError(t, err)

		lip := measure == "lip"
		values := make([][]float64, 4)
		for s, cv := range curves {
			pts := cv.(map[string]any)["points"].([]any)
			require.Len(t, pts, len(eps))
			for k, x := range pts {
				pt := x.(map[string]any)
				e, got := eps[k], pt["expected_utility"].(float64)
				assert.Equal(t, e, pt["epsilon"])
				values[s] = append(values[s], got)
				m := toMechanism(t, pt["mechanism"])
				assert.InDelta(t, got, u.ExpectedUtility(prior, m), 1e-9)
				var lpv float64
				switch s {
				case 0:
					assert.InDelta(t, want[k].ExpectedUtility, got, 1e-12, "%s ε = %g", measure, e)
					lpv = vertexLP(t, prior, u, [][]float64{prior}, e, lip)
				case 1, 2:
					set, err := mech.NewBoxSet(prior, boxes[s-1][0], boxes[s-1][1])
					require.NoError(t, err)
					level := leakage.PMLOver(set, m)
					if lip {
						level = leakage.LIPOver(set, m)
					}
					assert.LessOrEqual(t, level, e+1e-7, "%s over box %d at ε = %g", measure, s, e)
					assert.InDelta(t, level, pt["audited_epsilon"].(float64), 1e-9)
					lpv = vertexLP(t, prior, u, randinst.SetVertices(set), e, lip)
				case 3:
					assert.LessOrEqual(t, leakage.LDP(prior, m), e+1e-7)
					// LDP: p_ij ≤ e^ε p_kj for every i, k, j.
					lpv = vertexLP(t, prior, u, unitVectors(len(prior)), e, false)
				}
				assert.InDelta(t, lpv, got, 1e-7, "%s series %d at ε = %g", measure, s, e)
			}
		}
		// From the estimate down to LDP: each set holds the estimate and
		// the 99% box holds the 90% one, and every set lies in the
		// simplex.
		for k := range eps {
			for s := 1; s < 4; s++ {
				assert.LessOrEqual(t, values[s][k], values[s-1][k]+1e-9, "%s ε = %g, series %d", measure, eps[k], s)
			}
		}
		// The price is real: at 1 nat the 99% box costs more than the
		// 90% one, and LDP more still.
		assert.Less(t, values[2][3], values[1][3]-1e-3)
		assert.Less(t, values[3][3], values[2][3]-1e-3)
	}
}

// The L1 ball of Weissman et al. (2003) is rebuilt at other levels too,
// with radius sqrt(2/n · log((2^N − 2)/δ)).
func TestCurveRobustnessBall(t *testing.T) {
	dir := t.TempDir()
	f := surveyFile(t, dir, "ball.yaml", "--confidence", "0.95", "--prior-set", "l1")
	v := runJSON(t, "curve", f, "--robustness", "0.5,0.9", "--epsilons", "0.5,1", "--json", "--mechanisms")
	curves := v["curves"].([]any)
	require.Len(t, curves, 4)
	prior := mech.Prior{0.225, 0.3, 0.275, 0.125, 0.075}
	for k, level := range []float64{0.5, 0.9} {
		c := curves[1+k].(map[string]any)
		ps := c["prior_set"].(map[string]any)
		assert.Equal(t, "weissman-l1", ps["method"])
		r := math.Sqrt(2.0 / 40 * math.Log((math.Pow(2, 5)-2)/(1-level)))
		assert.InDelta(t, r, ps["l1_radius"].(float64), 1e-12)
		assert.Nil(t, ps["lower"])
		set, err := mech.NewL1Set(prior, r)
		require.NoError(t, err)
		for _, x := range c["points"].([]any) {
			pt := x.(map[string]any)
			assert.LessOrEqual(t, leakage.PMLOver(set, toMechanism(t, pt["mechanism"])), pt["epsilon"].(float64)+1e-7)
		}
	}
	for k := range 2 {
		for s := 1; s < 4; s++ {
			prev := curves[s-1].(map[string]any)["points"].([]any)[k].(map[string]any)["expected_utility"].(float64)
			cur := curves[s].(map[string]any)["points"].([]any)[k].(map[string]any)["expected_utility"].(float64)
			assert.LessOrEqual(t, cur, prev+1e-9)
		}
	}
}

// The table, --csv and --plot of --robustness: one series per set of
// priors, named in the first column, the CSV's over and confidence
// columns, and a plot.
func TestCurveRobustnessOutputs(t *testing.T) {
	dir := t.TempDir()
	f := surveyFile(t, dir, "survey.yaml", "--confidence", "0.95")
	plot := filepath.Join(dir, "price.png")
	out, stderr, code := cli(t, "curve", f, "--robustness", "0.9,0.99", "--epsilons", "0,1", "--plot", plot)
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 1+8+2)
	assert.True(t, strings.HasPrefix(lines[0], "priors "), lines[0])
	for k, first := range []string{"estimate ", "estimate ", "90% box ", "90% box ", "99% box ", "99% box ", "every prior (ldp) ", "every prior (ldp) "} {
		assert.True(t, strings.HasPrefix(lines[1+k], first), lines[1+k])
	}
	r, err := os.Open(plot)
	require.NoError(t, err)
	img, err := png.Decode(r)
	r.Close()
	require.NoError(t, err)
	assert.Greater(t, img.Bounds().Dx(), 600)

	out, stderr, code = cli(t, "curve", f, "--robustness", "0.9", "--epsilons", "0,1", "--csv")
	require.Equal(t, 0, code, stderr)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 1+6)
	assert.Equal(t, []string{"over", "confidence", "measure", "epsilon"}, recs[0][:4])
	assert.Equal(t, []string{"estimate", "", "pml", "0"}, recs[1][:4])
	assert.Equal(t, []string{"prior_set", "0.9", "pml", "1"}, recs[4][:4])
	assert.Equal(t, []string{"simplex", "", "ldp", "1"}, recs[6][:4])

	// The SVG's legend names every series.
	svg := filepath.Join(dir, "price.svg")
	_, stderr, code = cli(t, "curve", f, "--robustness", "0.9,0.99", "--epsilons", "0,1", "--plot", svg, "--json")
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	for _, name := range []string{"pml at the estimate", "pml over the 90% box", "pml over the 99% box", "ldp (every prior)", "price of robustness"} {
		assert.Contains(t, string(data), name)
	}
}

// Bad --robustness values and files it can not rebuild sets for: one
// message naming the flag, nothing on stdout, no plot.
func TestCurveRobustnessErrors(t *testing.T) {
	dir := t.TempDir()
	f := surveyFile(t, dir, "survey.yaml", "--confidence", "0.95")
	plot := filepath.Join(dir, "price.svg")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--robustness", "0"}, `--robustness: "0" is not a confidence level strictly between 0 and 1`},
		{[]string{"--robustness", "1"}, `--robustness: "1" is not a confidence level strictly between 0 and 1`},
		{[]string{"--robustness", "0.9,abc"}, `--robustness: "abc" is not a confidence level`},
		{[]string{"--robustness", "NaN"}, `--robustness: "NaN" is not a confidence level`},
		{[]string{"--robustness", ""}, `--robustness: "" is not a confidence level`},
		{[]string{"--robustness", "0.9,0.90"}, "--robustness: 0.90 is given twice"},
		{[]string{"--robustness", "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9"}, "--robustness gives 9 levels, more than 8"},
		{[]string{"--robustness", "0.9", "--measure", "ldp"}, "--robustness: ldp does not depend on the prior"},
		{[]string{"--robustness", "0.9", "--measure", "alip"}, "--robustness is for --measure pml or lip, got alip"},
		{[]string{"--robustness", "0.9", "--measure", "pml,lip"}, "--robustness draws one measure"},
		{[]string{"--robustness", "0.9", "--objective", "worst-case-value"}, "--robustness is for --objective expected-utility"},
	} {
		args := append([]string{"curve", f, "--plot", plot}, c.args...)
		out, stderr, code := cli(t, args...)
		assert.Equal(t, exitUsage, code, "%v: %s", c.args, stderr)
		assert.Contains(t, stderr, c.want, "%v", c.args)
		assert.Empty(t, out)
		assert.NoFileExists(t, plot)
	}

	// Files whose sets can not be rebuilt: exit 1.
	plain := surveyFile(t, dir, "plain.yaml")
	smoothed := surveyFile(t, dir, "smoothed.yaml", "--confidence", "0.95", "--smoothing", "1")
	handSet := filepath.Join(dir, "hand.yaml")
	require.NoError(t, os.WriteFile(handSet, []byte(`prior: [0.225, 0.3, 0.275, 0.125, 0.075]
utility: [[0, -1], [0, -1], [-1, 0], [-1, 0], [-1, 0]]
prior_set: {l1_radius: 0.2}
privacy: {measure: pml, epsilon: 1}
objective: expected-utility
`), 0o644))
	data, err := os.ReadFile(f)
	require.NoError(t, err)
	edited := filepath.Join(dir, "edited.yaml")
	require.NoError(t, os.WriteFile(edited, []byte(strings.Replace(string(data), "confidence: 0.95", "confidence: 0.9", 1)), 0o644))
	for _, c := range []struct {
		file, want string
	}{
		{plain, "--robustness needs the prior_set that new --prior-from --confidence writes"},
		{handSet, "--robustness needs the prior_set that new --prior-from --confidence writes"},
		{smoothed, "--robustness: prior entry 1 (0.2222222222222222) is not a count out of prior_set.samples = 40"},
		{edited, "--robustness: the file's prior_set is not the clopper-pearson-bonferroni set of its 40 samples at level 0.9"},
	} {
		out, stderr, code := cli(t, "curve", c.file, "--robustness", "0.9", "--plot", plot)
		assert.Equal(t, 1, code, "%s: %s", c.file, stderr)
		assert.Contains(t, stderr, c.want, c.file)
		assert.Empty(t, out)
		assert.NoFileExists(t, plot)
	}
}

// A stopped --robustness curve says which budgets each series left, by
// the series' name, and draws what it has under a title saying so. A
// robust LP over a box of 24 letters takes the pure-Go simplex most of a
// second, so the signal comes while the box's series runs.
func TestCurveRobustnessStoppedBySignal(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("v\n")
	for k := range 24 {
		for range 1 + k*7%5 {
			fmt.Fprintf(&b, "%d\n", k)
		}
	}
	data := filepath.Join(dir, "letters.csv")
	require.NoError(t, os.WriteFile(data, []byte(b.String()), 0o644))
	f := filepath.Join(dir, "letters.yaml")
	_, stderr, code := cli(t, "new", "--prior-from", data, "--column", "v", "--utility", "abs", "--epsilon", "1",
		"--objective", "expected-utility", "--confidence", "0.95", "-o", f)
	require.Equal(t, 0, code, stderr)
	plot := filepath.Join(dir, "price.svg")
	stdout, stderr, code := stopMidCurve(t, bin, syscall.SIGINT, "curve", f, "--robustness", "0.9", "--from", "0.5", "--to", "2",
		"--steps", "20", "--solver", "revised", "--json", "--plot", plot)
	require.Equal(t, exitStopped, code, "stderr: %s", stderr)
	var out struct {
		Complete *bool `json:"complete"`
		Curves   []struct {
			Over   string `json:"over"`
			Points []struct {
				Epsilon float64 `json:"epsilon"`
			} `json:"points"`
			Left []float64 `json:"epsilons_left"`
		} `json:"curves"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out), stdout)
	require.NotNil(t, out.Complete)
	assert.False(t, *out.Complete)
	require.Len(t, out.Curves, 3)
	left := 0
	for k, c := range out.Curves {
		assert.Equal(t, []string{"estimate", "prior_set", "simplex"}[k], c.Over)
		assert.Len(t, c.Left, 20-len(c.Points), c.Over)
		left += len(c.Left)
	}
	assert.Empty(t, out.Curves[0].Left, "the estimate's curve ends before the signal")
	assert.NotEmpty(t, out.Curves[1].Left)
	svg, err := os.ReadFile(plot)
	require.NoError(t, err, "the plot of the points is drawn")
	assert.Contains(t, string(svg), fmt.Sprintf("price of robustness (partial: %d of 60 budgets left)", left))

	// --csv's comment line names each series' budgets left by the series.
	stdout, stderr, code = stopMidCurve(t, bin, syscall.SIGINT, "curve", f, "--robustness", "0.9", "--from", "0.5", "--to", "2",
		"--steps", "20", "--solver", "revised", "--csv")
	require.Equal(t, exitStopped, code, "stderr: %s", stderr)
	first, _, _ := strings.Cut(stdout, "\n")
	assert.Regexp(t, `^# partial curve, stopped by SIGINT: \d+ of 60 budgets left \(90% box pml ε = [0-9., ]+; every prior \(ldp\) ldp ε = 0\.5, `, first)
}

// A level is written in percent with up to six decimals, and one that
// would round to 0% or 100% in twelve digits.
func TestPercent(t *testing.T) {
	for _, c := range []struct {
		level float64
		want  string
	}{{0.9, "90%"}, {0.995, "99.5%"}, {0.95, "95%"}, {1e-10, "1e-08%"}, {5e-324, "4.94065645841e-322%"}, {0, "0%"}, {0.9999999999, "99.99999999%"}, {1, "100%"}} {
		if got := percent(c.level); got != c.want {
			t.Errorf("percent(%g) = %q, want %q", c.level, got, c.want)
		}
	}
}
