package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/worstcase"
)

// writeParts runs curve FILE --shard K/N --jsonl for K = 1..N and returns
// the parts' paths.
func writeParts(t *testing.T, dir, file string, n int, flags ...string) []string {
	t.Helper()
	var parts []string
	for k := 1; k <= n; k++ {
		args := append([]string{"curve", file, "--shard", fmt.Sprintf("%d/%d", k, n), "--jsonl", "--quiet"}, flags...)
		out, stderr, code := cli(t, args...)
		require.Equal(t, 0, code, "shard %d/%d: %s", k, n, stderr)
		path := filepath.Join(dir, fmt.Sprintf("part-%d-of-%d.jsonl", k, n))
		require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
		parts = append(parts, path)
	}
	return parts
}

// randomShardProblem writes the n-letter instance of the family "random"
// (Dirichlet prior, utilities uniform on [0, 1)).
func randomShardProblem(t *testing.T, n int) string {
	t.Helper()
	f, err := instance.Lookup("random")
	require.NoError(t, err)
	in, err := f.New(n, 7)
	require.NoError(t, err)
	b, err := problem.Marshal(&problem.Problem{Name: "random", Prior: in.Prior, Utility: in.Utility}, problem.JSON)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "random.json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// sameCurve checks a merged curve's --json against the unsharded one's:
// equal byte for byte once each point's lp_solves (the work depends on
// the neighbours a search starts from), bracket, mechanism (audited on
// its own where asked) and, on an order curve, worst_case_value are set
// aside; each
// bracket is at most tol wide and overlaps the other's, both being
// certified brackets of the same ε*.
func sameCurve(t *testing.T, want, got string, tol float64, what string) {
	t.Helper()
	var w, g map[string]any
	require.NoError(t, json.Unmarshal([]byte(want), &w))
	require.NoError(t, json.Unmarshal([]byte(got), &g), got)
	wp, gp := w["points"].([]any), g["points"].([]any)
	require.Equal(t, len(wp), len(gp), "%s: points", what)
	for k := range wp {
		a, b := wp[k].(map[string]any), gp[k].(map[string]any)
		for _, pt := range []map[string]any{a, b} {
			lo, up := jsonEps(t, pt["optimal_epsilon_lower"]), jsonEps(t, pt["optimal_epsilon"])
			require.LessOrEqual(t, lo, up)
			if _, failed := pt["failure"]; !failed && !math.IsInf(lo, 1) {
				require.LessOrEqual(t, up-lo, tol, "%s: point %d", what, k)
			}
		}
		require.LessOrEqual(t, jsonEps(t, a["optimal_epsilon_lower"]), jsonEps(t, b["optimal_epsilon"]), "%s: point %d", what, k)
		require.LessOrEqual(t, jsonEps(t, b["optimal_epsilon_lower"]), jsonEps(t, a["optimal_epsilon"]), "%s: point %d", what, k)
		keys := []string{"optimal_epsilon_lower", "optimal_epsilon", "lp_solves", "mechanism"}
		require.Equal(t, a["mechanism"] == nil, b["mechanism"] == nil)
		if _, ok := a["h"]; ok {
			// What the mechanism of an order's point reaches beyond
			// its threshold depends on which mechanism the search met.
			keys = append(keys, "worst_case_value")
			require.Equal(t, a["worst_case_value"] == nil, b["worst_case_value"] == nil)
		}
		for _, key := range keys {
			delete(a, key)
			delete(b, key)
		}
	}
	wb, _ := json.Marshal(w)
	gb, _ := json.Marshal(g)
	require.Equal(t, string(wb), string(gb), what)
}

// jsonEps reads an ε of --json: a number, or "inf" for +Inf.
func jsonEps(t *testing.T, v any) float64 {
	t.Helper()
	if v == "inf" {
		return math.Inf(1)
	}
	f, ok := v.(float64)
	require.True(t, ok, "ε %v", v)
	return f
}

// TestMergeEqualsCurve: the shards of a curve, merged, print the curve:
// byte for byte in every format for one shard (the same searches), and
// for 2, 3 and 5 shards the same thresholds, steps, utility-safe ε,
// worst cases and staircase, with brackets certified as the whole curve's;
// over a prior set too.
func TestMergeEqualsCurve(t *testing.T) {
	type job struct {
		file string
		obj  string
	}
	jobs := []job{
		{td + "counting-query.yaml", "worst-case-order"},
		{td + "counting-query.yaml", "worst-case-value"},
		{td + "example1.yaml", "worst-case-order"},
		{td + "grid.yaml", "worst-case-value"},
	}
	rnd := randomShardProblem(t, 24)
	jobs = append(jobs, job{rnd, "worst-case-order"}, job{rnd, "worst-case-value"})
	// Over a prior set: a ball, and a box in which two letters were never
	// seen (its top thresholds out of reach of every budget).
	ball := surveyFile(t, t.TempDir(), "ball.yaml", "--confidence", "0.95", "--prior-set", "l1")
	box := surveyFile(t, t.TempDir(), "unseen.yaml", "--labels", "0,1,2,3,4,5,6", "--smoothing", "0.5", "--confidence", "0.95")
	for _, f := range []string{ball, box} {
		jobs = append(jobs, job{f, "worst-case-order"}, job{f, "worst-case-value"})
	}
	for _, j := range jobs {
		dir := t.TempDir()
		whole, stderr, code := cli(t, "curve", j.file, "--objective", j.obj, "--json", "--quiet")
		require.Equal(t, 0, code, stderr)
		for _, n := range []int{1, 2, 3, 5} {
			what := fmt.Sprintf("%s %s N=%d", filepath.Base(j.file), j.obj, n)
			parts := writeParts(t, dir, j.file, n, "--objective", j.obj)
			got, stderr, code := cli(t, append([]string{"merge", j.file, "--json"}, parts...)...)
			require.Equal(t, 0, code, "%s: %s", what, stderr)
			if n == 1 {
				require.Equal(t, whole, got, what)
				for _, format := range []string{"--csv", "--table"} {
					args := []string{"curve", j.file, "--objective", j.obj, "--quiet"}
					margs := []string{"merge", j.file}
					if format != "--table" {
						args, margs = append(args, format), append(margs, format)
					}
					want, _, code := cli(t, args...)
					require.Equal(t, 0, code)
					got, stderr, code := cli(t, append(margs, parts...)...)
					require.Equal(t, 0, code, stderr)
					require.Equal(t, want, got, "%s %s", what, format)
				}
				// --plot draws the same picture.
				wantPlot, gotPlot := filepath.Join(dir, "curve.svg"), filepath.Join(dir, "merge.svg")
				_, stderr, code := cli(t, "curve", j.file, "--objective", j.obj, "--quiet", "--plot", wantPlot)
				require.Equal(t, 0, code, stderr)
				_, stderr, code = cli(t, append([]string{"merge", j.file, "--plot", gotPlot}, parts...)...)
				require.Equal(t, 0, code, stderr)
				wb, err := os.ReadFile(wantPlot)
				require.NoError(t, err)
				gb, err := os.ReadFile(gotPlot)
				require.NoError(t, err)
				require.Contains(t, string(gb), "<svg")
				require.Equal(t, string(wb), string(gb), "%s --plot", what)
				continue
			}
			sameCurve(t, whole, got, 1e-9, what)
		}
	}
}

// TestMergeMechanisms: with --mechanisms the parts carry every threshold's
// mechanism and merge prints each step's, as curve does.
func TestMergeMechanisms(t *testing.T) {
	for _, obj := range []string{"worst-case-order", "worst-case-value"} {
		file := td + "counting-query.yaml"
		whole, _, code := cli(t, "curve", file, "--objective", obj, "--json", "--mechanisms", "--quiet")
		require.Equal(t, 0, code)
		parts := writeParts(t, t.TempDir(), file, 1, "--objective", obj, "--mechanisms")
		got, stderr, code := cli(t, append([]string{"merge", file, "--json", "--mechanisms"}, parts...)...)
		require.Equal(t, 0, code, stderr)
		require.Equal(t, whole, got, obj)
		require.Contains(t, got, `"mechanism"`)

		// Three shards: every step's mechanism is audited here too.
		dir := t.TempDir()
		parts = writeParts(t, dir, file, 3, "--objective", obj, "--mechanisms")
		got, stderr, code = cli(t, append([]string{"merge", file, "--json", "--mechanisms"}, parts...)...)
		require.Equal(t, 0, code, stderr)
		sameCurve(t, whole, got, 1e-9, obj+" with mechanisms")
		p := loadOK(t, file)
		var c struct {
			Points []struct {
				H         int         `json:"h"`
				Threshold float64     `json:"threshold"`
				Upper     float64     `json:"optimal_epsilon"`
				Mechanism [][]float64 `json:"mechanism"`
			} `json:"points"`
		}
		require.NoError(t, json.Unmarshal([]byte(got), &c))
		for _, pt := range c.Points {
			m := mech.Mechanism(pt.Mechanism)
			pat := p.Order.Pattern(pt.H)
			if obj == "worst-case-value" {
				pat = p.Utility.Pattern(pt.Threshold)
			}
			require.True(t, pat.Holds(m), "h %d / threshold %v", pt.H, pt.Threshold)
			for _, row := range m {
				assert.InDelta(t, 1, floats.Sum(row), 1e-9)
			}
			assert.LessOrEqual(t, leakage.PML(p.Prior, m), pt.Upper+1e-9)
		}

		// A part whose mechanism was altered is refused.
		b, err := os.ReadFile(parts[2])
		require.NoError(t, err)
		line, _, _ := strings.Cut(string(b), "\n")
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		row := rec["mechanism"].([]any)[0].([]any)
		for j := range row {
			row[j] = row[j].(float64) * 2
		}
		edited, err := json.Marshal(rec)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(parts[2], append(edited, '\n'), 0o644))
		_, stderr, code = cli(t, append([]string{"merge", file, "--json", "--mechanisms"}, parts...)...)
		require.Equal(t, exitError, code)
		require.Contains(t, stderr, "mechanism")

		parts = writeParts(t, t.TempDir(), file, 2, "--objective", obj)
		_, stderr, code = cli(t, append([]string{"merge", file, "--json", "--mechanisms"}, parts...)...)
		require.Equal(t, exitError, code)
		require.Contains(t, stderr, "--mechanisms")
	}
}

// TestMergeMechanismsOverASet: over a prior set merge audits each
// mechanism over the set: a record whose upper end is its mechanism's PML
// at the estimate, below that over the set, is refused.
func TestMergeMechanismsOverASet(t *testing.T) {
	file := surveyFile(t, t.TempDir(), "ball.yaml", "--confidence", "0.95", "--prior-set", "l1")
	p := loadOK(t, file)
	parts := writeParts(t, t.TempDir(), file, 2, "--objective", "worst-case-order", "--mechanisms")
	_, stderr, code := cli(t, append([]string{"merge", file, "--json", "--mechanisms"}, parts...)...)
	require.Equal(t, 0, code, stderr)
	edited := false
	for k, part := range parts {
		b, err := os.ReadFile(part)
		require.NoError(t, err)
		lines := strings.SplitAfter(string(b), "\n")
		for i, line := range lines {
			var rec map[string]any
			if edited || json.Unmarshal([]byte(line), &rec) != nil || rec["mechanism"] == nil {
				continue
			}
			var m mech.Mechanism
			for _, row := range rec["mechanism"].([]any) {
				var r []float64
				for _, v := range row.([]any) {
					r = append(r, v.(float64))
				}
				m = append(m, r)
			}
			at := leakage.PML(p.Prior, m)
			if leakage.PMLOver(p.PriorSet, m) < at+1e-6 {
				continue
			}
			rec["optimal_epsilon"], rec["optimal_epsilon_lower"] = at, 0.0
			out, err := json.Marshal(rec)
			require.NoError(t, err)
			lines[i] = string(out) + "\n"
			require.NoError(t, os.WriteFile(parts[k], []byte(strings.Join(lines, "")), 0o644))
			edited = true
		}
	}
	require.True(t, edited, "no mechanism whose PML over the set exceeds its PML at the estimate")
	_, stderr, code = cli(t, append([]string{"merge", file, "--json", "--mechanisms"}, parts...)...)
	require.Equal(t, exitError, code)
	require.Contains(t, stderr, "over the prior set")
}

// TestMergeRefuses: merge names what is missing and refuses parts that
// disagree, belong to another problem or another run.
func TestMergeRefuses(t *testing.T) {
	file := td + "counting-query.yaml" // 7 order thresholds
	dir := t.TempDir()
	parts := writeParts(t, dir, file, 3)
	merge := func(args ...string) (string, int) {
		_, stderr, code := cli(t, append([]string{"merge", file}, args...)...)
		return stderr, code
	}

	// Shard 2 of 3 holds h = 3 and 4 (indices ⌊7/3⌋ = 2 to ⌊14/3⌋ − 1 = 3).
	require.Equal(t, []int{2, 3}, worstcase.Shard{K: 2, N: 3}.Indices(7))
	stderr, code := merge(parts[0], parts[2])
	require.Equal(t, exitError, code)
	assert.Contains(t, stderr, "2 of 7 thresholds missing: h 3, h 4")
	assert.Contains(t, stderr, "no part of shard 2/3")

	// A part cut short while its shard wrote: the cut line is dropped
	// with a warning, and its threshold named as missing.
	b, err := os.ReadFile(parts[1])
	require.NoError(t, err)
	cut := filepath.Join(dir, "cut.jsonl")
	require.NoError(t, os.WriteFile(cut, b[:len(b)-20], 0o644))
	stderr, code = merge(parts[0], cut, parts[2])
	require.Equal(t, exitError, code)
	assert.Contains(t, stderr, "cut short")
	assert.Contains(t, stderr, "1 of 7 thresholds missing")
	assert.Contains(t, stderr, "shard 2/3 incomplete")

	// The same part twice is no conflict; an edited bracket is.
	_, code = merge(parts[0], parts[1], parts[2], parts[1])
	require.Equal(t, 0, code)
	lines := strings.SplitAfter(string(b), "\n")
	var rec map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &rec))
	rec["optimal_epsilon"] = rec["optimal_epsilon"].(float64) + 0.25
	edited, err := json.Marshal(rec)
	require.NoError(t, err)
	other := filepath.Join(dir, "edited.jsonl")
	require.NoError(t, os.WriteFile(other, append(edited, '\n'), 0o644))
	stderr, code = merge(parts[0], parts[1], parts[2], other)
	require.Equal(t, exitError, code)
	assert.Contains(t, stderr, "disagree on threshold h "+fmt.Sprint(rec["h"]))

	// A bracket upside down.
	rec["optimal_epsilon_lower"] = rec["optimal_epsilon"].(float64) + 1
	edited, err = json.Marshal(rec)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(other, append(edited, '\n'), 0o644))
	stderr, code = merge(parts[0], other, parts[2])
	require.Equal(t, exitError, code)
	assert.Contains(t, stderr, "no bracket")

	// Parts of another problem, another tolerance, another split.
	foreign := writeParts(t, t.TempDir(), td+"example1.yaml", 3)
	stderr, code = merge(foreign...)
	require.Equal(t, exitError, code)
	assert.Contains(t, stderr, "another problem")
	loose := writeParts(t, t.TempDir(), file, 3, "--tol", "1e-8")
	stderr, code = merge(parts[0], parts[1], loose[2])
	require.Equal(t, exitError, code)
	assert.Contains(t, stderr, "--tol")
	split := writeParts(t, t.TempDir(), file, 2)
	stderr, code = merge(parts[0], parts[1], split[1])
	require.Equal(t, exitError, code)
	assert.Contains(t, stderr, "different splits")
	// The same estimate over another prior set, or over none, is another
	// problem: its curve is another curve.
	ball := surveyFile(t, t.TempDir(), "ball.yaml", "--confidence", "0.95", "--prior-set", "l1")
	wider := surveyFile(t, t.TempDir(), "wider.yaml", "--confidence", "0.99", "--prior-set", "l1")
	estimate := surveyFile(t, t.TempDir(), "estimate.yaml")
	for _, f := range []string{wider, estimate} {
		_, stderr, code := cli(t, append([]string{"merge", ball}, writeParts(t, t.TempDir(), f, 2, "--objective", "worst-case-order")...)...)
		require.Equal(t, exitError, code, f)
		assert.Contains(t, stderr, "another problem", f)
	}

	// Not a part at all.
	plain, _, _ := cli(t, "curve", file, "--jsonl", "--quiet")
	require.NoError(t, os.WriteFile(other, []byte(plain), 0o644))
	stderr, code = merge(other)
	require.Equal(t, exitError, code)
	assert.Contains(t, stderr, "without the keys problem and shard")

	// A part on standard input, read once.
	in, err := os.ReadFile(parts[2])
	require.NoError(t, err)
	_, stderr, code = cliIn(t, string(in), "merge", file, parts[0], parts[1], "-")
	require.Equal(t, 0, code, stderr)
	_, _, code = cliIn(t, string(in), "merge", file, "-", "-")
	require.Equal(t, exitUsage, code)
	_, _, code = cli(t, "merge", file)
	require.Equal(t, exitUsage, code)
}

// TestMergeEmptyShards: a shard with no threshold (more shards than
// thresholds) writes nothing, and the merge of all of them is the curve.
func TestMergeEmptyShards(t *testing.T) {
	dir := t.TempDir()
	parts := writeParts(t, dir, td+"example1.yaml", 12)
	whole, _, code := cli(t, "curve", td+"example1.yaml", "--json", "--quiet")
	require.Equal(t, 0, code)
	got, stderr, code := cli(t, append([]string{"merge", td + "example1.yaml", "--json"}, parts...)...)
	require.Equal(t, 0, code, stderr)
	sameCurve(t, whole, got, 1e-9, "example1 in 12 shards")
}

// A merged bracket wider than --tol is warned about on stderr in merge's
// name, not curve's.
func TestMergeWarnsInItsName(t *testing.T) {
	file := td + "counting-query.yaml"
	dir := t.TempDir()
	parts := writeParts(t, dir, file, 2)
	b, err := os.ReadFile(parts[1])
	require.NoError(t, err)
	var out []string
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		if rec["h"] == 5.0 {
			rec["optimal_epsilon_lower"] = 0.5 // ε* = log 2: still a bracket, wider than 1e-9
		}
		j, err := json.Marshal(rec)
		require.NoError(t, err)
		out = append(out, string(j)+"\n")
	}
	wide := filepath.Join(dir, "wide.jsonl")
	require.NoError(t, os.WriteFile(wide, []byte(strings.Join(out, "")), 0o644))
	_, stderr, code := cli(t, "merge", file, parts[0], wide)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "pmlopt merge: warning: threshold 5: ε* in [0.5, 0.69314718056], wider than --tol 1e-09 (the solver proved no closer lower bound)\n", stderr)
}
