package polytope

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// --- independent audits, written from the definitions of Grosse et al. (2024) ---

// alipOf returns (ε_l, ε_u) = (max_y Λ, max_y ℓ) over used outputs.
func alipOf(pi mech.Prior, p mech.Mechanism) (lo, up float64) {
	q := p.Marginal(pi)
	for j, qj := range q {
		if qj <= 0 {
			continue
		}
		for i := range p {
			if p[i][j] == 0 {
				lo = math.Inf(1)
				continue
			}
			d := math.Log(p[i][j] / qj)
			up = math.Max(up, d)
			lo = math.Max(lo, -d)
		}
	}
	return lo, up
}

// ldpOf returns max_j max_{i,k} log p_ij / p_kj over used columns.
func ldpOf(p mech.Mechanism) float64 {
	_, m := p.Dims()
	e := 0.0
	for j := range m {
		mx, mn := 0.0, math.Inf(1)
		for i := range p {
			mx, mn = math.Max(mx, p[i][j]), math.Min(mn, p[i][j])
		}
		if mx == 0 {
			continue
		}
		e = math.Max(e, math.Log(mx/mn))
	}
	return e
}

// --- mechanisms built inline ---

func randomizedResponse(k int, eps float64) mech.Mechanism {
	p := mech.Zeros(k, k)
	d := float64(k-1) + math.Exp(eps)
	for i := range p {
		for j := range p[i] {
			p[i][j] = 1 / d
		}
		p[i][i] = math.Exp(eps) / d
	}
	return p
}

// extremal is Grosse et al. (2024), Cor 4: PML exactly eps for eps ≤ log 1/(1−p_min).
func extremal(pi mech.Prior, eps float64) mech.Mechanism {
	n := len(pi)
	p := mech.Zeros(n, n)
	for i := range p {
		for j := range p[i] {
			p[i][j] = math.Exp(eps) * pi[j]
		}
		p[i][i] = 1 - math.Exp(eps)*(1-pi[i])
	}
	return p
}

var (
	prior3 = mech.Prior{0.5, 0.3, 0.2}
	order3 = mech.Order{{3, 2, 1}, {1, 3, 2}, {2, 1, 3}} // Song & Oechtering (2026), Example 1
)

// violation builds the model for s and returns the max violation of p's point.
func violation(t *testing.T, s Spec, p mech.Mechanism) float64 {
	t.Helper()
	mod, err := Build(s)
	require.NoError(t, err)
	require.NoError(t, mod.LP.Validate())
	return mod.LP.MaxViolation(mustPoint(t, mod, p))
}

const (
	feasTol = 1e-9
	margin  = 1e-3 // how far inside/outside the budget the checks go
)

// checkPML asserts p is feasible at its own PML level and above it, and
// infeasible below it.
func checkPML(t *testing.T, pi mech.Prior, pat mech.Pattern, p mech.Mechanism, prune bool) {
	t.Helper()
	lvl := leakage.PML(pi, p)
	s := Spec{Prior: pi, Pattern: pat, Prune: prune, Outputs: len(p[0])}
	s.Budget = mech.Budget{Measure: mech.PML, Epsilon: lvl}
	assert.LessOrEqual(t, violation(t, s, p), feasTol, "at its level %g", lvl)
	s.Budget.Epsilon = lvl + margin
	assert.LessOrEqual(t, violation(t, s, p), feasTol, "above its level %g", lvl)
	if lvl > margin {
		s.Budget.Epsilon = lvl - margin
		assert.Greater(t, violation(t, s, p), 1e-7, "below its level %g", lvl)
	}
}

func TestPMLKnownMechanisms(t *testing.T) {
	pi := mech.Prior{0.4, 0.35, 0.25}
	// Extremal mechanism: PML is exactly ε in the high-privacy regime.
	for _, eps := range []float64{0.05, 0.1, 0.2, math.Log(1 / (1 - 0.25))} {
		p := extremal(pi, eps)
		require.InDelta(t, eps, leakage.PML(pi, p), 1e-12)
		checkPML(t, pi, nil, p, false)
		checkPML(t, pi, nil, p, true)
	}
	// Randomized response.
	for _, e := range []float64{0.1, 1, 3} {
		checkPML(t, pi, nil, randomizedResponse(3, e), false)
	}
	// Utility-safe mechanisms with their pattern: PML = ε_S(h) (Song & Oechtering (2026), Cor 1).
	for h := 1; h <= 3; h++ {
		pat := order3.Pattern(h)
		p := closedform.UniformOnAllowed(pat)
		epsS := map[int]float64{1: 0, 2: -math.Log(0.5), 3: -math.Log(0.2)}[h]
		require.InDelta(t, epsS, leakage.PML(prior3, p), 1e-12)
		checkPML(t, prior3, pat, p, false)
		checkPML(t, prior3, pat, p, true)
	}
	// Song & Oechtering (2026), eq. (9): for h = 2 with π_2 + π_3 ≤ 1/2 the optimum has PML
	// log 2 < ε_S(2) = −log(π_2 + π_3).
	pi9 := mech.Prior{0.6, 0.25, 0.15}
	p9 := mech.Mechanism{{(1 - 2*0.15) / (2 * 0.6), (1 - 2*0.25) / (2 * 0.6), 0}, {0, 1, 0}, {1, 0, 0}}
	lvl := leakage.PML(pi9, p9)
	require.InDelta(t, math.Log(2), lvl, 1e-12)
	checkPML(t, pi9, order3.Pattern(2), p9, false)
	checkPML(t, pi9, order3.Pattern(2), p9, true)
	assert.Less(t, lvl, -math.Log(0.25+0.15))
}

func TestPMLRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := range 200 {
		n, m := 2+r.IntN(4), 2+r.IntN(4)
		pi := randinst.Prior(r, n, 0.05)
		p := randinst.Mechanism(r, n, m, []float64{0, 0.3}[k%2])
		checkPML(t, pi, nil, p, k%3 == 0)
	}
}

func TestPatternViolationIsInfeasible(t *testing.T) {
	// Mass on a forbidden pair has no column: the sum row of x_1 fails by
	// exactly that mass, however large the budget.
	pat := order3.Pattern(2) // forbids (1,3), (2,1), (3,2)
	p := mech.Mechanism{{0.5, 0.3, 0.2}, {0, 0.5, 0.5}, {0.5, 0, 0.5}}
	for _, b := range []mech.Budget{
		{Measure: mech.PML, Epsilon: 10},
		{Measure: mech.LDP, Epsilon: 10},
		{Measure: mech.LIP, Epsilon: 10},
		{Measure: mech.ALIP, EpsilonLower: 10, EpsilonUpper: 10},
	} {
		mod, err := Build(Spec{Prior: prior3, Budget: b, Pattern: pat})
		require.NoError(t, err)
		ev := mod.LP.Eval(mustPoint(t, mod, p))
		switch b.Measure {
		case mech.PML:
			assert.InDelta(t, 0.2, ev.MaxViolation, 1e-15)
			assert.Equal(t, "row 0 (sum[1])", mod.LP.Where(ev))
		default:
			// Every output has a forbidden pair: all are dropped, and no
			// mechanism at all is feasible.
			assert.Equal(t, []bool{true, true, true}, mod.Dropped)
			assert.Equal(t, 0, mod.LP.NumCols())
			assert.InDelta(t, 1.0, ev.MaxViolation, 0)
		}
	}
}

func checkALIP(t *testing.T, pi mech.Prior, pat mech.Pattern, p mech.Mechanism) {
	t.Helper()
	lo, up := alipOf(pi, p)
	s := Spec{Prior: pi, Pattern: pat, Outputs: len(p[0])}
	at := func(l, u float64) float64 {
		s.Budget = mech.Budget{Measure: mech.ALIP, EpsilonLower: l, EpsilonUpper: u}
		return violation(t, s, p)
	}
	if math.IsInf(lo, 1) {
		assert.Greater(t, at(5, up+1), 1e-7, "a used column with a zero is never ALIP")
		return
	}
	assert.LessOrEqual(t, at(lo, up), feasTol)
	assert.LessOrEqual(t, at(lo+margin, up+margin), feasTol)
	if lo > margin {
		assert.Greater(t, at(lo-margin, up+margin), 1e-7, "ε_l below %g", lo)
	}
	if up > margin {
		assert.Greater(t, at(lo+margin, up-margin), 1e-7, "ε_u below %g", up)
	}
	// LIP = max(ε_l, ε_u).
	lip := math.Max(lo, up)
	s.Budget = mech.Budget{Measure: mech.LIP, Epsilon: lip}
	assert.LessOrEqual(t, violation(t, s, p), feasTol)
	if lip > margin {
		s.Budget.Epsilon = lip - margin
		assert.Greater(t, violation(t, s, p), 1e-7)
	}
}

func checkLDP(t *testing.T, pi mech.Prior, pat mech.Pattern, p mech.Mechanism) {
	t.Helper()
	lvl := ldpOf(p)
	s := Spec{Prior: pi, Pattern: pat, Outputs: len(p[0])}
	at := func(e float64) float64 {
		s.Budget = mech.Budget{Measure: mech.LDP, Epsilon: e}
		return violation(t, s, p)
	}
	if math.IsInf(lvl, 1) {
		// A zero next to an entry u misses its floor e^{−ε} u, by
		// 4.5e-5 u at ε = 10.
		assert.Greater(t, at(10), 1e-7)
		return
	}
	assert.LessOrEqual(t, at(lvl), feasTol)
	assert.LessOrEqual(t, at(lvl+margin), feasTol)
	if lvl > margin {
		assert.Greater(t, at(lvl-margin), 1e-7)
	}
}

func TestALIPLIPLDPKnownMechanisms(t *testing.T) {
	pi := mech.Prior{0.4, 0.35, 0.25}
	for _, e := range []float64{0.1, 1, 3} {
		rr := randomizedResponse(3, e)
		require.InDelta(t, e, ldpOf(rr), 1e-12)
		checkALIP(t, pi, nil, rr)
		checkLDP(t, pi, nil, rr)
		// RR's PMC is log(1 + max_j π_j (e^ε̄ − 1)) (Saeidian et al. (2024), Information Density Bounds for Privacy, Ex 3).
		lo, _ := alipOf(pi, rr)
		assert.InDelta(t, math.Log(1+0.4*(math.Expm1(e))), lo, 1e-12)
	}
	for _, eps := range []float64{0.05, 0.2} {
		p := extremal(pi, eps)
		lo, up := alipOf(pi, p)
		assert.InDelta(t, eps, up, 1e-12)
		// Its PMC is ε_l*(ε) = log(p_min / (1 − e^ε (1 − p_min))).
		assert.InDelta(t, math.Log(0.25/(1-math.Exp(eps)*0.75)), lo, 1e-12)
		checkALIP(t, pi, nil, p)
		checkLDP(t, pi, nil, p)
	}
	// A pattern that forbids (3,2) only: the utility-safe mechanism puts
	// q_2 > 0 with a zero, so it is neither ALIP nor LDP; the one that also
	// avoids output 2 is both, with levels of its remaining columns.
	pat := mech.Pattern{{true, true, true}, {true, true, true}, {true, false, true}}
	checkALIP(t, pi, pat, closedform.UniformOnAllowed(pat))
	checkLDP(t, pi, pat, closedform.UniformOnAllowed(pat))
	avoid := mech.Mechanism{{0.7, 0, 0.3}, {0.4, 0, 0.6}, {0.5, 0, 0.5}}
	checkALIP(t, pi, pat, avoid)
	checkLDP(t, pi, pat, avoid)
	mod, err := Build(Spec{Prior: pi, Pattern: pat, Budget: mech.Budget{Measure: mech.LDP, Epsilon: 1}})
	require.NoError(t, err)
	assert.Equal(t, []bool{false, true, false}, mod.Dropped)
	assert.Equal(t, []int{-1, -1, -1}, []int{mod.P[0][1], mod.P[1][1], mod.P[2][1]})
	assert.Equal(t, -1, mod.Aux[1])
	assert.Equal(t, -1, mod.Aux2[1])
}

func TestALIPLDPRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for k := range 200 {
		n, m := 2+r.IntN(4), 2+r.IntN(4)
		pi := randinst.Prior(r, n, 0.05)
		p := randinst.Mechanism(r, n, m, []float64{0, 0, 0.2}[k%3])
		checkALIP(t, pi, nil, p)
		checkLDP(t, pi, nil, p)
	}
	// Columns that are entirely zero are outside S_Y and allowed.
	pi := mech.Prior{0.5, 0.5}
	p := mech.Mechanism{{0.6, 0, 0.4}, {0.3, 0, 0.7}}
	checkALIP(t, pi, nil, p)
	checkLDP(t, pi, nil, p)
}

func TestSizes(t *testing.T) {
	const n, m = 50, 50
	pi := mech.Uniform(n)
	for _, tc := range []struct {
		b                 mech.Budget
		cols, rows, nnz   int
		epsDependentCoefs int
		anotherBudget     mech.Budget
	}{
		{mech.Budget{Measure: mech.PML, Epsilon: 1}, n*m + m, n + m + n*m, 4*n*m + m, m,
			mech.Budget{Measure: mech.PML, Epsilon: 0.5}},
		{mech.Budget{Measure: mech.ALIP, EpsilonLower: 0.5, EpsilonUpper: 1}, n*m + 2*m, n + 2*m + 2*n*m, 7*n*m + 2*m, 2 * m,
			mech.Budget{Measure: mech.ALIP, EpsilonLower: 0.7, EpsilonUpper: 1.2}},
		{mech.Budget{Measure: mech.LIP, Epsilon: 1}, n*m + 2*m, n + 2*m + 2*n*m, 7*n*m + 2*m, 2 * m,
			mech.Budget{Measure: mech.LIP, Epsilon: 2}},
		{mech.Budget{Measure: mech.LDP, Epsilon: 1}, n*m + 2*m, n + m + 2*n*m, 5*n*m + 2*m, m,
			mech.Budget{Measure: mech.LDP, Epsilon: 3}},
	} {
		t.Run(string(tc.b.Measure), func(t *testing.T) {
			mod, err := Build(Spec{Prior: pi, Budget: tc.b, Outputs: m})
			require.NoError(t, err)
			require.NoError(t, mod.LP.Validate())
			assert.Equal(t, tc.cols, mod.LP.NumCols())
			assert.Equal(t, tc.rows, mod.LP.NumRows())
			assert.Equal(t, tc.nnz, mod.LP.NumNonzeros())
			assert.LessOrEqual(t, mod.LP.NumNonzeros(), 7*n*m+2*m)
			if tc.b.Measure == mech.PML {
				assert.LessOrEqual(t, mod.LP.NumNonzeros(), 4*n*m+m)
			}
			// The coefficients that differ between two budgets are exactly
			// the ones SetBudget touches, and SetBudget reproduces Build.
			other, err := Build(Spec{Prior: pi, Budget: tc.anotherBudget, Outputs: m})
			require.NoError(t, err)
			diff := 0
			for k, e := range mod.LP.ConstMatrix {
				if e != other.LP.ConstMatrix[k] {
					diff++
				}
			}
			assert.Equal(t, tc.epsDependentCoefs, diff)
			rec := &recorder{}
			require.NoError(t, mod.SetBudget(rec, tc.anotherBudget))
			assert.Equal(t, tc.epsDependentCoefs, rec.coefs)
			assert.Zero(t, rec.other, "only coefficients change")
			assert.Equal(t, other.LP, mod.LP)
			assert.Equal(t, tc.anotherBudget, mod.Budget)
		})
	}
}

// recorder is a solver.Session that counts the changes it is asked for.
type recorder struct{ coefs, other int }

func (r *recorder) SetColBounds(int, float64, float64) { r.other++ }
func (r *recorder) SetRowBounds(int, float64, float64) { r.other++ }
func (r *recorder) SetCoef(int, int, float64)          { r.coefs++ }
func (r *recorder) SetColCost(int, float64)            { r.other++ }
func (r *recorder) Solve() (*solver.Solution, error)   { return nil, nil }
func (r *recorder) Close()                             {}

func TestForbiddenPairsAreNeverColumns(t *testing.T) {
	pat := order3.Pattern(2)
	mod, err := Build(Spec{Prior: prior3, Budget: mech.Budget{Measure: mech.PML, Epsilon: 1}, Pattern: pat})
	require.NoError(t, err)
	seen := map[int]bool{}
	for i := range 3 {
		for j := range 3 {
			c := mod.P[i][j]
			if !pat[i][j] {
				assert.Equal(t, -1, c)
				continue
			}
			require.GreaterOrEqual(t, c, 0)
			assert.False(t, seen[c])
			seen[c] = true
			assert.Equal(t, fmt.Sprintf("p[%d,%d]", i+1, j+1), mod.LP.ColNames[c])
		}
		assert.Equal(t, fmt.Sprintf("t[%d]", i+1), mod.LP.ColNames[mod.Aux[i]])
	}
	assert.Equal(t, 6+3, mod.LP.NumCols())
	assert.Nil(t, mod.Aux2)
}

func TestPruning(t *testing.T) {
	// Order pattern h = 3 for prior3: output j is allowed only for x_j, so
	// −log Σ π = −log π_j: 0.693, 1.204, 1.609. At ε = 1.3, output 3 goes.
	pat := order3.Pattern(3)
	s := Spec{Prior: prior3, Budget: mech.Budget{Measure: mech.PML, Epsilon: 1.3}, Pattern: pat, Prune: true}
	mod, err := Build(s)
	require.NoError(t, err)
	assert.Equal(t, []bool{false, false, true}, mod.Dropped)
	assert.Equal(t, -1, mod.P[2][2])
	assert.Equal(t, -1, mod.Aux[2])
	for _, name := range mod.LP.ColNames {
		assert.NotEqual(t, "p[3,3]", name)
		assert.NotEqual(t, "t[3]", name)
	}
	// x_3 has no usable output: every point violates sum[3] by 1.
	ev := mod.LP.Eval(mustPoint(t, mod, closedform.UniformOnAllowed(pat)))
	assert.Equal(t, "row 2 (sum[3])", mod.LP.Where(ev))

	// SetBudget may lower ε but not raise it past 1.609.
	require.NoError(t, mod.SetBudget(nil, mech.Budget{Measure: mech.PML, Epsilon: 1}))
	err = mod.SetBudget(nil, mech.Budget{Measure: mech.PML, Epsilon: 1.7})
	assert.ErrorContains(t, err, "pruned output 3")
	assert.Equal(t, 1.0, mod.Budget.Epsilon)

	// Without pruning the same point is feasible only at ε ≥ −log 0.2.
	s.Prune = false
	full, err := Build(s)
	require.NoError(t, err)
	assert.Equal(t, []bool{false, false, false}, full.Dropped)
	assert.Greater(t, full.LP.MaxViolation(mustPoint(t, full, closedform.UniformOnAllowed(pat))), 1e-3)
	s.Budget.Epsilon = -math.Log(0.2)
	full, err = Build(s)
	require.NoError(t, err)
	assert.LessOrEqual(t, full.LP.MaxViolation(mustPoint(t, full, closedform.UniformOnAllowed(pat))), feasTol)
}

func TestMechanismExtraction(t *testing.T) {
	mod, err := Build(Spec{Prior: prior3, Budget: mech.Budget{Measure: mech.PML, Epsilon: 1}, Pattern: order3.Pattern(2)})
	require.NoError(t, err)
	x := make([]float64, mod.LP.NumCols())
	x[mod.P[0][0]], x[mod.P[0][1]] = 0.5, 0.5+1e-10
	x[mod.P[1][1]], x[mod.P[1][2]] = 1, 5e-13 // clipped
	x[mod.P[2][0]], x[mod.P[2][2]] = -1e-9, 2 // negative clipped, renormalised
	p := mustMechanism(t, mod, x)
	assert.InDelta(t, 0.5, p[0][0], 1e-10)
	assert.Equal(t, 1.0, p[0][0]+p[0][1])
	assert.Equal(t, []float64{0, 1, 0}, []float64(p[1]))
	assert.Equal(t, []float64{0, 0, 1}, []float64(p[2]))
	// Point and Mechanism are inverse on the p columns.
	q := mech.Mechanism{{0.25, 0.75, 0}, {0, 0.5, 0.5}, {0.125, 0, 0.875}}
	assert.Equal(t, q, mustMechanism(t, mod, mustPoint(t, mod, q)))
	_, err = mod.Mechanism(x[:2])
	assert.ErrorContains(t, err, "solution: has 2 entries, the LP has")
	_, err = mod.Point(q[:2])
	assert.ErrorContains(t, err, "mechanism: is 2×3, the model is 3×3")
	_, err = mod.Point(mech.Mechanism{q[0], q[1], q[2][:2]})
	assert.ErrorContains(t, err, "mechanism row 3: has 2 entries, the model has 3 outputs")
}

// mustMechanism is mod.Mechanism(x), which must succeed.
func mustMechanism(t testing.TB, mod *Model, x []float64) mech.Mechanism {
	t.Helper()
	p, err := mod.Mechanism(x)
	require.NoError(t, err)
	return p
}

// mustPoint is mod.Point(p), which must succeed.
func mustPoint(t testing.TB, mod *Model, p mech.Mechanism) []float64 {
	t.Helper()
	x, err := mod.Point(p)
	require.NoError(t, err)
	return x
}

// A tiny output that meets the budget only thanks to an entry below the
// rounding threshold keeps that entry: clearing it alone would break the
// budget. (Clearing first and checking after let Clp's optimum of the
// row-scaled 128×128 expected-utility LP, with four outputs of mass 1e-12,
// audit at PML 1.67 for a budget of 0.5.)
func TestMechanismKeepsEntriesWhoseClearingBreaksTheBudget(t *testing.T) {
	pi := mech.Prior{0.5, 0.5}
	mod, err := Build(Spec{Prior: pi, Budget: mech.Budget{Measure: mech.PML, Epsilon: 0.5}, Outputs: 3})
	require.NoError(t, err)
	x := make([]float64, mod.LP.NumCols())
	x[mod.P[0][0]], x[mod.P[1][0]] = 1, 1
	// Output 1: max 2e-12 ≤ e^0.5 q = 1.65 × 1.45e-12; without the
	// 0.9e-12 its ratio would be 2.
	x[mod.P[0][1]], x[mod.P[1][1]] = 2e-12, 0.9e-12
	// Output 2: nothing left after clearing, which breaks nothing.
	x[mod.P[0][2]], x[mod.P[1][2]] = 0.5e-12, 0.3e-12
	p := mustMechanism(t, mod, x)
	assert.InEpsilon(t, 0.9e-12, p[1][1], 1e-9)
	assert.InEpsilon(t, 2e-12, p[0][1], 1e-9)
	assert.Zero(t, p[0][2])
	assert.Zero(t, p[1][2])
	assert.LessOrEqual(t, leakage.PML(pi, p), 0.5)
}

// Dropping a noisy output renormalises its rows, which can push a second
// tiny output over the budget: it is dropped in a second pass.
func TestMechanismDropsOutputsBrokenByRenormalising(t *testing.T) {
	pi := mech.Prior{0.5, 0.5}
	const eps = 0.5
	mod, err := Build(Spec{Prior: pi, Budget: mech.Budget{Measure: mech.PML, Epsilon: eps}, Outputs: 3})
	require.NoError(t, err)
	// Output 1 breaks the budget (ratio 2): noise. Output 2 sits at the
	// budget up to half the 1e-9 slack of breaks; once row 0 loses output
	// 1's 5e-7 and is renormalised, its ratio is a relative 2.2e-7 higher.
	r := math.Exp(eps) * (1 + 0.5e-9) / 2 // x/(x+y) = r gives ratio e^ε(1+0.5e-9)
	x2 := 5e-7
	y2 := x2 * (1 - r) / r
	x := make([]float64, mod.LP.NumCols())
	x[mod.P[0][1]] = 5e-7
	x[mod.P[0][2]], x[mod.P[1][2]] = x2, y2
	x[mod.P[0][0]], x[mod.P[1][0]] = 1-5e-7-x2, 1-y2
	raw := mech.Mechanism{{x[mod.P[0][0]], 5e-7, x2}, {x[mod.P[1][0]], 0, y2}}
	q := 0.5 * (x2 + y2)
	require.LessOrEqual(t, x2/q, math.Exp(eps)*(1+1e-9), "output 2 meets the budget before")
	require.Greater(t, leakage.PML(pi, raw), eps+0.1, "output 1 breaks it")
	p := mustMechanism(t, mod, x)
	assert.Zero(t, p[0][1])
	assert.Zero(t, p[0][2], "output 2 is dropped in the second pass")
	assert.Zero(t, p[1][2])
	assert.LessOrEqual(t, leakage.PML(pi, p), eps)
}

func TestBuildErrors(t *testing.T) {
	ok := mech.Budget{Measure: mech.PML, Epsilon: 1}
	for _, tc := range []struct {
		s     Spec
		field string
	}{
		{Spec{Prior: mech.Prior{0.5, 0.6}, Budget: ok, Outputs: 2}, "prior"},
		{Spec{Prior: mech.Prior{1, 0}, Budget: ok, Outputs: 2}, "prior"},
		{Spec{Prior: prior3, Budget: mech.Budget{Measure: mech.PML, Epsilon: -1}, Outputs: 2}, "budget.epsilon"},
		{Spec{Prior: prior3, Budget: mech.Budget{Measure: mech.LDP, Epsilon: math.NaN()}, Outputs: 2}, "budget.epsilon"},
		{Spec{Prior: prior3, Budget: mech.Budget{Measure: mech.LIP, Epsilon: math.Inf(1)}, Outputs: 2}, "budget.epsilon"},
		{Spec{Prior: prior3, Budget: mech.Budget{Measure: mech.ALIP, EpsilonLower: -1, EpsilonUpper: 1}, Outputs: 2}, "budget.epsilon_lower"},
		{Spec{Prior: prior3, Budget: mech.Budget{Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: math.NaN()}, Outputs: 2}, "budget.epsilon_upper"},
		{Spec{Prior: prior3, Budget: mech.Budget{Measure: "dp", Epsilon: 1}, Outputs: 2}, "budget.measure"},
		{Spec{Prior: prior3, Budget: ok}, "outputs"},
		{Spec{Prior: prior3, Budget: ok, Outputs: -1}, "outputs"},
		{Spec{Prior: prior3, Budget: ok, Pattern: mech.Pattern{{true}, {true}}}, "pattern"},
		{Spec{Prior: prior3, Budget: ok, Pattern: mech.Pattern{{true, true}, {true}, {true, false}}}, "pattern"},
		{Spec{Prior: prior3, Budget: ok, Pattern: mech.Pattern{{true}, {true}, {true}}, Outputs: 2}, "pattern"},
		{Spec{Prior: prior3, Budget: ok, Outputs: 2, Objective: ExpectedUtility}, "utility"},
		{Spec{Prior: prior3, Budget: ok, Objective: "bogus", Outputs: 2}, "objective"},
		{Spec{Prior: prior3, Budget: ok, Utility: mech.Utility{{1, 2}, {3, math.NaN()}, {0, 0}}}, "utility"},
		{Spec{Prior: prior3, Budget: ok, Utility: mech.Utility{{1, 2}, {3, 4}}}, "utility"},
		{Spec{Prior: prior3, Budget: ok, Utility: mech.Utility{{1, 2}, {3, 4}, {5, 6}}, Outputs: 3}, "utility"},
	} {
		_, err := Build(tc.s)
		var fe *mech.FieldError
		if assert.ErrorAs(t, err, &fe, "%+v", tc.s) {
			assert.Equal(t, tc.field, fe.Field, err.Error())
		}
	}
	mod, err := Build(Spec{Prior: prior3, Budget: ok, Outputs: 3})
	require.NoError(t, err)
	var fe *mech.FieldError
	require.ErrorAs(t, mod.SetBudget(nil, mech.Budget{Measure: mech.LDP, Epsilon: 1}), &fe)
	assert.Equal(t, "budget.measure", fe.Field)
	require.ErrorAs(t, mod.SetBudget(nil, mech.Budget{Measure: mech.PML, Epsilon: -2}), &fe)
	assert.Equal(t, "budget.epsilon", fe.Field)
}

// TestBuildStops: Build polls Spec.Stop over the pairs' rows and the
// outputs and ends with errStopped once it reports true, at either step;
// a Stop that never does builds the same model as none.
func TestBuildStops(t *testing.T) {
	n := 70
	pi := make(mech.Prior, n)
	u := make(mech.Utility, n)
	for i := range pi {
		pi[i] = 1 / float64(n)
		u[i] = make([]float64, n)
		for j := range u[i] {
			u[i][j] = -math.Abs(float64(i - j))
		}
	}
	s := Spec{Prior: pi, Utility: u, Objective: ExpectedUtility, Budget: mech.Budget{Measure: mech.PML, Epsilon: 1}}
	want, err := Build(s)
	require.NoError(t, err)
	calls := 0
	s.Stop = func() bool { calls++; return false }
	got, err := Build(s)
	require.NoError(t, err)
	assert.Equal(t, want.LP, got.LP)
	polls := calls
	assert.Equal(t, n+2, polls, "a poll a row of pairs and one every 64 outputs")
	for _, after := range []int{1, n - 1, n, polls - 1} {
		calls = 0
		s.Stop = func() bool { calls++; return calls > after }
		_, err := Build(s)
		assert.ErrorIs(t, err, errStopped, "stopped after %d polls", after)
		assert.Equal(t, after+1, calls)
	}
}
