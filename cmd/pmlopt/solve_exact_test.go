package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/exact"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
)

// exactOf runs solve --exact --json on file (with extra flags) and returns
// the exact block, its mechanism re-checked from scratch at t_upper by
// exact.CheckUpper for the block's prior and the reported worst case.
func exactOf(t *testing.T, file string, flags ...string) map[string]any {
	t.Helper()
	v := runJSON(t, append([]string{"solve", file, "--exact", "--json"}, flags...)...)
	ex, ok := v["exact"].(map[string]any)
	require.True(t, ok, "no exact block")
	p, err := problem.Load(file)
	require.NoError(t, err)
	for _, blk := range []map[string]any{ex, asMap(ex["float64_prior"])} {
		if blk == nil {
			continue
		}
		assert.Equal(t, true, blk["proved"])
		pi := parseRats(t, blk["prior"])
		var mech [][]*big.Rat
		for _, row := range blk["mechanism"].([]any) {
			mech = append(mech, parseRats(t, row))
		}
		pat := p.Order.Pattern(int(v["worst_case_order"].(float64)))
		if wv, ok := v["worst_case_value"].(float64); ok && strings.Contains(strings.Join(flags, " "), "worst-case-value") {
			pat = p.Utility.Pattern(wv)
		}
		tu, ok := new(big.Rat).SetString(blk["t_upper"].(string))
		require.True(t, ok)
		require.NoError(t, exact.CheckUpper(pi, pat, mech, tu))
		// The exact value is inside the search's certified bracket
		// (the fractions reading differs from the float64 one by a
		// relative 1e-16 in the prior).
		f, _ := tu.Float64()
		assert.InDelta(t, v["epsilon"].(float64), math.Log(f), 2e-9)
	}
	return ex
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func parseRats(t *testing.T, v any) []*big.Rat {
	t.Helper()
	var out []*big.Rat
	for _, s := range v.([]any) {
		r, ok := new(big.Rat).SetString(s.(string))
		require.True(t, ok, s)
		out = append(out, r)
	}
	return out
}

// TestSolveExactPaper: the paper's closed-form optima come out exactly for
// the priors as the files write them (fractions and decimals), and for
// the float64 values the search solved for.
func TestSolveExactPaper(t *testing.T) {
	// Song & Oechtering (2026), §IV-A: the counting query reaches order 6
	// at log 7/2; for the float64 nearest 1/7 that is log 1/(2π).
	ex := exactOf(t, td+"counting-query.yaml")
	assert.Equal(t, "7/2", ex["t"])
	assert.Equal(t, "log(7/2)", ex["epsilon"])
	assert.Equal(t, "fractions", ex["prior_reading"])
	f64 := asMap(ex["float64_prior"])
	require.NotNil(t, f64)
	assert.Equal(t, "9007199254740992/2573485501354569", f64["t"]) // 2^53 / (2^54·π)
	// Example 1, mechanism (9): log 2, with the paper's matrix.
	ex = exactOf(t, td+"example1.yaml")
	assert.Equal(t, "2", ex["t"])
	assert.Equal(t, []any{[]any{"7/12", "5/12", "0"}, []any{"0", "1", "0"}, []any{"1", "0", "0"}}, ex["mechanism"])
	// Fig. 2 (one low, p_min 0.1): ε_S(3) = −log 0.4 is optimal.
	ex = exactOf(t, td+"circulant-one-low.yaml")
	assert.Equal(t, "5/2", ex["t"])
	// Fig. 3 (three low, p_min 0.1): for h = 2 the optimum log 3/2 is
	// below ε_S(2) = −log 0.3; for h = 3, ε_S(3) = −log 0.2 is optimal.
	ex = exactOf(t, td+"circulant-three-low.yaml", "--epsilon", "0.5")
	assert.Equal(t, "3/2", ex["t"])
	ex = exactOf(t, td+"circulant-three-low.yaml", "--epsilon", "1.7")
	assert.Equal(t, "5", ex["t"])
}

// TestSolveExactValue: the worst-case-value objective takes its pattern
// from the value reached.
func TestSolveExactValue(t *testing.T) {
	ex := exactOf(t, td+"counting-query.yaml", "--objective", "worst-case-value")
	assert.Equal(t, true, ex["rational"])
}

func TestSolveExactTable(t *testing.T) {
	out, stderr, code := cli(t, "solve", td+"counting-query.yaml", "--exact")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "exact      ε* = log(7/2) = 1.252762968, proven in rationals for the prior read as fractions (1/7, 1/7, 1/7, 1/7, …)\n")
	assert.Contains(t, out, "exact      ε* = log(9007199254740992/2573485501354569) = 1.252762968, proven in rationals for the prior's float64 values\n")
	assert.Contains(t, out, "    5  0  0  0  0  0  1/2  1/2\n")
}

// TestSolveExactRefused: --exact where it does not apply is a command-line
// error (exit 2) that names the flag, before any work and with nothing
// written.
func TestSolveExactRefused(t *testing.T) {
	dir := t.TempDir()
	large := filepath.Join(dir, "large.yaml")
	var b strings.Builder
	b.WriteString("prior: [")
	for i := range 21 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"1/21"`)
	}
	b.WriteString("]\norder:\n")
	for range 21 {
		b.WriteString("  - [2, 1]\n")
	}
	b.WriteString("privacy: {measure: pml, epsilon: 1}\nobjective: worst-case-order\n")
	require.NoError(t, os.WriteFile(large, []byte(b.String()), 0o644))
	// Example 1 with a box of priors around its prior: the exact pass
	// proves ε* for one prior, not for every prior of a set.
	set := filepath.Join(dir, "set.yaml")
	require.NoError(t, os.WriteFile(set, []byte("prior: [0.6, 0.25, 0.15]\n"+
		"prior_set: {lower: [0.5, 0.2, 0.1], upper: [0.7, 0.3, 0.2]}\n"+
		"order: [[3, 2, 1], [1, 3, 2], [2, 1, 3]]\n"+
		"privacy: {measure: pml, epsilon: 1}\nobjective: worst-case-order\n"), 0o644))
	outFile := filepath.Join(dir, "solved.yaml")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{large}, "--exact is for problems of at most 20 inputs and 20 outputs; this one has 21×2"},
		{[]string{td + "expected-utility.yaml"}, "--exact is for the worst-case objectives"},
		{[]string{set}, "--exact is for one prior; the file gives a prior_set"},
		{[]string{td + "counting-query.yaml", "--objective", "expected-utility", "--min-order", "6"}, "--exact is for the worst-case objectives, not for --min-order"},
	} {
		out, stderr, code := cli(t, append([]string{"solve", "--exact", "--out", outFile}, c.args...)...)
		assert.Equal(t, 2, code, stderr)
		assert.Empty(t, out)
		assert.Contains(t, stderr, c.msg)
		assert.NoFileExists(t, outFile)
	}
}

// TestSolveExactRandomVerifies: on random small problems (the prior as
// float64 values, so read as written), the exact ε* agrees with the
// search's bracket at --tol 1e-12, and the exact mechanism, rounded to
// float64 and put in place of the answer's, passes every claim of
// pmlopt verify's certificate.
func TestSolveExactRandomVerifies(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 50))
	dir := t.TempDir()
	for trial := range 4 {
		n, m := 3+rng.IntN(4), 3+rng.IntN(4)
		pi := randinst.Prior(rng, n, 0.05)
		o := randinst.StrictOrder(rng, n, m)
		var b strings.Builder
		b.WriteString("prior: [")
		for i, x := range pi {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
		b.WriteString("]\norder:\n")
		for _, row := range o {
			b.WriteString("  - " + strings.ReplaceAll(fmt.Sprint(row), " ", ", ") + "\n")
		}
		fmt.Fprintf(&b, "privacy: {measure: pml, epsilon: %v}\nobjective: worst-case-order\n", 0.2+rng.Float64())
		file := filepath.Join(dir, fmt.Sprintf("p%d.yaml", trial))
		require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o644))

		v := runJSON(t, "solve", file, "--exact", "--json", "--tol", "1e-12")
		ex := asMap(v["exact"])
		if f := asMap(ex["float64_prior"]); f != nil {
			ex = f // the reading the search and the certificate are for
		}
		require.Equal(t, "float64", ex["prior_reading"])
		eps, lo := v["epsilon"].(float64), v["optimal_epsilon_lower"].(float64)
		exEps := ex["epsilon_value"].(float64)
		assert.InDelta(t, eps, exEps, 1e-12, "trial %d", trial)
		assert.GreaterOrEqual(t, exEps, lo-1e-15, "trial %d", trial)

		var cert verify.Certificate
		raw, err := json.Marshal(v["certificate"])
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &cert))
		cert.Mechanism = nil
		var pm [][]float64
		for _, row := range ex["mechanism"].([]any) {
			var r []float64
			for _, x := range parseRats(t, row) {
				f, _ := x.Float64()
				r = append(r, f)
			}
			pm = append(pm, r)
		}
		ord := make([][]int, len(o))
		for i, row := range o {
			ord[i] = row
		}
		claims := verify.Check(verify.Problem{Prior: pi, Order: ord, Mechanism: pm}, cert)
		names := map[string]bool{}
		for _, c := range claims {
			assert.True(t, c.OK, "trial %d: %s", trial, c)
			names[c.Name] = true
		}
		assert.True(t, names["rows"] && names["level"], "trial %d: %v", trial, claims)
	}
}

// TestSolveExactIrrational: an optimum with t* = (54 − 4√23)/13 =
// 2.678205685134547833354634441… (internal/exact/exact_test.go derives it) is
// printed as a proven bracket around that value.
func TestSolveExactIrrational(t *testing.T) {
	file := filepath.Join(t.TempDir(), "irr.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`prior: ["6/49", "6/49", "3/49", "9/49", "10/49", "6/49", "4/49", "5/49"]
order:
  - [2, 5, 1, 4, 3]
  - [3, 5, 2, 1, 4]
  - [2, 5, 3, 4, 1]
  - [4, 2, 5, 3, 1]
  - [3, 5, 1, 2, 4]
  - [1, 2, 5, 4, 3]
  - [1, 2, 3, 4, 5]
  - [1, 2, 5, 4, 3]
privacy: {measure: pml, epsilon: 0.99}
objective: worst-case-order
`), 0o644))
	out, stderr, code := cli(t, "solve", file, "--exact")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "exact      ε* = log t, t in [2.678205685134547833354634, 2.678205685134547833354635], proven in rationals for the prior read as fractions (6/49, 6/49, 3/49, 9/49, …); the optimal basis's polynomial of degree 3 has an irrational root in it\n")
	ex := exactOf(t, file)
	assert.Nil(t, ex["t"])
	assert.Equal(t, false, ex["rational"])
	assert.Equal(t, true, ex["irrational_root"])
}

// TestSolveExactPriorAboveOne: a prior whose float64 values sum to just
// above 1 in exact arithmetic is solved for those values divided by their
// sum: ε* is never negative, is what the float route reports to 1e-9, and
// the papers' closed form of Example 1 (log 2 in its regime) holds exactly.
func TestSolveExactPriorAboveOne(t *testing.T) {
	dir := t.TempDir()
	write := func(name, prior string, eps float64) string {
		file := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf("prior: [%s]\n"+
			"order: [[3, 2, 1], [1, 3, 2], [2, 1, 3]]\n"+
			"privacy: {measure: pml, epsilon: %v}\nobjective: worst-case-order\n", prior, eps)), 0o644))
		return file
	}
	sumOf := func(pi ...float64) *big.Rat {
		s := new(big.Rat)
		for _, x := range pi {
			s.Add(s, new(big.Rat).SetFloat64(x))
		}
		return s
	}
	// checked asserts what every float64 block must hold: a prior that sums
	// to 1 exactly, the file's values divided by sum, ε* ≥ 0 proven by the
	// block's multipliers, and the float route's ε within 1e-9.
	checked := func(blk map[string]any, file string, sum *big.Rat, floatEps float64) {
		t.Helper()
		require.NotNil(t, blk)
		assert.Equal(t, "float64", blk["prior_reading"])
		assert.Equal(t, sum.RatString(), blk["prior_sum"])
		pi := parseRats(t, blk["prior"])
		p, err := problem.Load(file)
		require.NoError(t, err)
		total := new(big.Rat)
		for i, x := range pi {
			total.Add(total, x)
			assert.Equal(t, new(big.Rat).Quo(new(big.Rat).SetFloat64(p.Prior[i]), sum).RatString(), x.RatString())
		}
		assert.Equal(t, "1", total.RatString())
		tl, ok := new(big.Rat).SetString(blk["t_lower"].(string))
		require.True(t, ok)
		assert.GreaterOrEqual(t, tl.Cmp(big.NewRat(1, 1)), 0, "t_lower %s", tl.RatString())
		pat := p.Order.Pattern(1)
		if blk["t"] != "1" {
			pat = p.Order.Pattern(2)
		}
		_, err = exact.CheckLower(pi, pat, parseRats(t, blk["alpha"]), tl)
		require.NoError(t, err)
		ev := blk["epsilon_value"].(float64)
		assert.GreaterOrEqual(t, ev, 0.0)
		assert.InDelta(t, floatEps, ev, 1e-9)
	}

	// 0.3 + 0.3 + 0.40000000001 sums to 1 + 1e-11: no fractions reading.
	// At budget 0 the constant mechanism is the answer, ε* = 0, never
	// the log(1/S) ≈ −1e-11 of the values read as written.
	file := write("above.yaml", "0.3, 0.3, 0.40000000001", 0)
	v := runJSON(t, "solve", file, "--exact", "--json")
	require.Equal(t, 1.0, v["worst_case_order"])
	ex := exactOf(t, file)
	assert.Equal(t, "1", ex["t"])
	checked(ex, file, sumOf(0.3, 0.3, 0.40000000001), v["epsilon"].(float64))
	out, stderr, code := cli(t, "solve", file, "--exact")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "exact      ε* = log(1) = 0, proven in rationals for the prior's float64 values divided by their sum S > 1\n")

	// 0.33 + 0.56 + 0.11: 1 as decimals (the fractions reading) and 1 +
	// 2^-56 as float64 values.
	file = write("ulp.yaml", "0.33, 0.56, 0.11", 0)
	v = runJSON(t, "solve", file, "--exact", "--json")
	ex = exactOf(t, file)
	assert.Equal(t, "fractions", ex["prior_reading"])
	assert.Equal(t, "1", ex["t"])
	f64 := asMap(ex["float64_prior"])
	checked(f64, file, sumOf(0.33, 0.56, 0.11), v["epsilon"].(float64))
	assert.Equal(t, "1", f64["t"])

	// Example 1 with π_3 raised by 1e-11: mechanism (9) at log 2, exactly.
	file = write("example1.yaml", "0.6, 0.25, 0.15000000001", 1)
	v = runJSON(t, "solve", file, "--exact", "--json")
	require.Equal(t, 2.0, v["worst_case_order"])
	ex = exactOf(t, file)
	assert.Equal(t, "2", ex["t"])
	checked(ex, file, sumOf(0.6, 0.25, 0.15000000001), v["epsilon"].(float64))
}

// solve --exact says what it does on stderr, one line an exact LP, and
// warns first when a tiny mass makes the rationals long.
func TestSolveExactShowsProgress(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.yaml")
	require.NoError(t, os.WriteFile(file, []byte("prior: [0.6, 0.4, 1e-30]\n"+
		"order: [[3, 2, 1], [1, 3, 2], [2, 1, 3]]\n"+
		"privacy: {measure: pml, epsilon: 1}\nobjective: worst-case-order\n"), 0o644))
	_, stderr, code := cli(t, "solve", file, "--exact")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "pmlopt solve: --exact: the prior read as float64 has denominators of up to 148 bits;")
	assert.Contains(t, stderr, "pmlopt solve: --exact, the prior as float64: exact LP 1 at ε = ")
	_, stderr, code = cli(t, "solve", "../../testdata/example1.yaml", "--exact")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "denominators")
	assert.Contains(t, stderr, "pmlopt solve: --exact, the prior as fractions: exact LP 1 at ε = ")
	assert.Contains(t, stderr, "pmlopt solve: --exact, the prior as float64: exact LP 1 at ε = ")
}
