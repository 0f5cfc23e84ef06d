package guarantee

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

const tol = 1e-9

func TestInverses(t *testing.T) {
	for _, pmin := range []float64{0.02, 0.1, 0.3, 0.5} {
		for _, eps := range []float64{0, 0.01, 0.3, 1, 3} {
			// Song & Oechtering (2026), Prop 1 inverts the ε2 of Saeidian et al. (2024), Prop 1.
			if eps < -math.Log(pmin) {
				assert.InDelta(t, eps, PMLFromLDP(LDPForPML(eps, pmin), pmin), tol)
			} else {
				assert.True(t, math.IsInf(LDPForPML(eps, pmin), 1))
			}
			// Binary uniform prior: ε_l* and ε_u* are inverse (Saeidian et al. (2024), Cor 4).
			if pmin == 0.5 && eps < math.Log(2) {
				assert.InDelta(t, eps, PMLFromPMC(PMCFromPML(eps, 0.5), 0.5), tol)
			}
		}
		assert.True(t, math.IsInf(PMCFromPML(HighPrivacyBound(pmin), pmin), 1))
	}
}

func TestImpliedRegime(t *testing.T) {
	imps, err := Implied(mech.Budget{Measure: mech.PML, Epsilon: 0.5}, 0.25) // log 4/3 ≈ 0.288
	require.NoError(t, err)
	require.Len(t, imps, 4)
	for _, im := range imps {
		assert.False(t, im.Holds, im.Implied.Measure)
		assert.NotEmpty(t, im.Regime)
	}
	imps, err = Implied(mech.Budget{Measure: mech.PML, Epsilon: 0.1}, 0.25)
	require.NoError(t, err)
	el := math.Log(0.25 / (1 - math.Exp(0.1)*0.75))
	want := map[mech.Measure]mech.Budget{
		mech.PMC:  {Measure: mech.PMC, Epsilon: el},
		mech.ALIP: {Measure: mech.ALIP, EpsilonLower: el, EpsilonUpper: 0.1},
		mech.LIP:  {Measure: mech.LIP, Epsilon: el},
		mech.LDP:  {Measure: mech.LDP, Epsilon: el + 0.1},
	}
	require.Len(t, imps, 4)
	for _, im := range imps {
		assert.True(t, im.Holds)
		w := want[im.Implied.Measure]
		assert.InDelta(t, w.Epsilon, im.Implied.Epsilon, tol)
		assert.InDelta(t, w.EpsilonLower, im.Implied.EpsilonLower, tol)
		assert.InDelta(t, w.EpsilonUpper, im.Implied.EpsilonUpper, tol)
	}
	for _, bad := range []mech.Budget{{Measure: "dp", Epsilon: 1}, {Measure: mech.PML, Epsilon: -1}, {Measure: mech.ALIP, EpsilonLower: math.NaN()}} {
		_, err := Implied(bad, 0.2)
		assert.Error(t, err)
	}
	_, err = Implied(mech.Budget{Measure: mech.PML, Epsilon: 1}, 0)
	assert.Error(t, err)
}

// satisfied asserts that (pi, p) meets guarantee g, as audited by leakage.
func satisfied(t *testing.T, g mech.Budget, pi mech.Prior, p mech.Mechanism) {
	t.Helper()
	l, u := leakage.ALIP(pi, p)
	switch g.Measure {
	case mech.PML:
		assert.LessOrEqual(t, u, g.Epsilon+tol, "pml")
	case mech.PMC:
		assert.LessOrEqual(t, l, g.Epsilon+tol, "pmc")
	case mech.ALIP:
		assert.LessOrEqual(t, l, g.EpsilonLower+tol, "alip lower")
		assert.LessOrEqual(t, u, g.EpsilonUpper+tol, "alip upper")
	case mech.LIP:
		assert.LessOrEqual(t, leakage.LIP(pi, p), g.Epsilon+tol, "lip")
	case mech.LDP:
		assert.LessOrEqual(t, leakage.LDP(pi, p), g.Epsilon+tol, "ldp")
	}
}

func TestImplicationsHoldOnRandomMechanisms(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	checked := map[string]int{}
	for trial := 0; trial < 2000; trial++ {
		n, m := 2+rng.IntN(3), 2+rng.IntN(4)
		pi := make(mech.Prior, n)
		s := 0.0
		for i := range pi {
			pi[i] = 0.05 + rng.Float64()
			s += pi[i]
		}
		for i := range pi {
			pi[i] /= s
		}
		p := mech.Zeros(n, m)
		// Mostly near-independent mechanisms, so that high-privacy PML
		// guarantees occur; some with zeros.
		mix := rng.Float64() * rng.Float64() * rng.Float64()
		base := make([]float64, m)
		for j := range base {
			base[j] = rng.Float64()
		}
		for i := range p {
			rs := 0.0
			for j := range p[i] {
				v := rng.Float64()
				if rng.Float64() < 0.1 {
					v = 0
				}
				p[i][j] = (1-mix)*base[j] + mix*v
				rs += p[i][j]
			}
			for j := range p[i] {
				p[i][j] /= rs
			}
		}
		l, u := leakage.ALIP(pi, p)
		sources := []mech.Budget{
			{Measure: mech.PML, Epsilon: u},
			{Measure: mech.ALIP, EpsilonLower: l, EpsilonUpper: u},
			{Measure: mech.LIP, Epsilon: math.Max(l, u)},
			{Measure: mech.LDP, Epsilon: leakage.LDP(pi, p)},
			{Measure: mech.PMC, Epsilon: l},
		}
		for _, src := range sources {
			if math.IsInf(src.Epsilon, 0) || math.IsInf(src.EpsilonLower, 0) {
				continue
			}
			imps, err := Implied(src, pi.Min())
			require.NoError(t, err)
			for _, im := range imps {
				if im.Holds {
					satisfied(t, im.Implied, pi, p)
					checked[string(src.Measure)+"->"+string(im.Implied.Measure)]++
				}
			}
		}
	}
	// Every arrow was exercised.
	for _, from := range []mech.Measure{mech.PML, mech.PMC, mech.ALIP, mech.LIP, mech.LDP} {
		for _, to := range []mech.Measure{mech.PML, mech.PMC, mech.ALIP, mech.LIP, mech.LDP} {
			if from != to {
				assert.Positive(t, checked[string(from)+"->"+string(to)], string(from)+"->"+string(to))
			}
		}
	}
}

// Saeidian et al. (2024), Cor 4: binary uniform prior, ε-PML ⇔ ε_l*-PMC ⇔ (ε_l*, ε)-ALIP
// ⇔ (ε_l* + ε)-LDP; the PML-extremal mechanism is randomized response.
func TestBinaryUniform(t *testing.T) {
	pi := mech.Uniform(2)
	for _, eps := range []float64{0.05, 0.3, 0.6} {
		el := PMCFromPML(eps, 0.5)
		p := mech.Mechanism{{1 - math.Exp(eps)/2, math.Exp(eps) / 2}, {math.Exp(eps) / 2, 1 - math.Exp(eps)/2}}
		assert.InDelta(t, eps, leakage.PML(pi, p), tol)
		assert.InDelta(t, el, leakage.PMC(pi, p), tol)
		assert.InDelta(t, el+eps, leakage.LDP(pi, p), tol)
		assert.InDelta(t, el, leakage.LIP(pi, p), tol)
		// And the reverse arrows give back ε exactly.
		assert.InDelta(t, eps, PMLFromPMC(el, 0.5), tol)
		_, e2 := FromLDP(el+eps, 0.5)
		assert.InDelta(t, eps, e2, tol)
		e1, _ := FromLDP(el+eps, 0.5)
		assert.InDelta(t, el, e1, tol)
	}
}

// TestImpliedSubnormalPMin: a smallest prior probability below 2^-1022.
// ε-LDP implies ε2-PML with ε2 = −log(p_min + e^{−ε}(1 − p_min)), which
// for p_min ≪ e^{−ε} is ε up to p_min(e^ε − 1) < 1e-309: the PML level is ε
// (not 0, which math.Log's −709.085 for log 1e-310 gave). ε-PMC implies
// −log p_min + log1p(−e^{−ε}(1 − p_min)) ≈ −log p_min − e^{−ε}, with
// −log 1e-310 = 310·log 10 = 713.80137882815...
func TestImpliedSubnormalPMin(t *testing.T) {
	for _, pmin := range []float64{1e-310, 5e-324} {
		imps, err := Implied(mech.Budget{Measure: mech.LDP, Epsilon: 0.2877}, pmin)
		require.NoError(t, err)
		for _, im := range imps {
			require.True(t, im.Holds)
			switch im.Implied.Measure {
			case mech.PML:
				assert.InDelta(t, 0.2877, im.Implied.Epsilon, 1e-14)
				assert.GreaterOrEqual(t, im.Implied.Epsilon, 0.2877)
			case mech.ALIP:
				assert.InDelta(t, 0.2877, im.Implied.EpsilonUpper, 1e-14)
			}
		}
	}
	// ε_l = 5: −log p_min + log(1 − e^{−5}(1 − p_min)).
	want := 310*2.302585092994045684 + math.Log1p(-math.Exp(-5))
	assert.InDelta(t, want, PMLFromPMC(5, 1e-310), 1e-11)
	// The cap: every mechanism is (−log p_min)-PML; −log 2^-1074 = 1074·log 2.
	assert.InDelta(t, 1074*math.Ln2, PMLFromPMC(math.Inf(1), 5e-324), 1e-11)
}

// TestImpliedNeverNaN: every implied level is a number ≥ 0 (or +Inf) for
// every level and p_min, the extremes of float64 included.
func TestImpliedNeverNaN(t *testing.T) {
	levels := []float64{0, 5e-324, 1e-310, 1e-12, 0.2877, 1, 700, 709.8, 745, 800, 1e300, math.Inf(1)}
	for _, pmin := range []float64{5e-324, 1e-320, 1e-310, 0x1p-1022, 1e-300, 1e-12, 0.3, 0.5, 1} {
		for _, eps := range levels {
			for _, m := range []mech.Measure{mech.PML, mech.PMC, mech.LIP, mech.LDP, mech.ALIP} {
				g := mech.Budget{Measure: m, Epsilon: eps, EpsilonLower: eps / 2, EpsilonUpper: eps}
				imps, err := Implied(g, pmin)
				require.NoError(t, err)
				for _, im := range imps {
					for _, v := range []float64{im.Implied.Epsilon, im.Implied.EpsilonLower, im.Implied.EpsilonUpper} {
						assert.True(t, v >= 0, "%v at p_min %g implies %v", g, pmin, im.Implied)
					}
				}
			}
			assert.False(t, math.IsNaN(LDPForPML(eps, pmin)), "LDPForPML(%g, %g)", eps, pmin)
		}
	}
}

// TestImpliedALIPLevelsAreTheTightenedPair: from ALIP, LIP and PMC, the
// implied ALIP, LIP and LDP levels are those of the implied PMC and PML
// levels, which a mechanism meeting both satisfies by definition (ALIP)
// and by Zarrabian et al. (2023), Prop 1 (LDP ≤ ε_l + ε_u). On
// (0.05, 2)-ALIP at p_min = 0.2 the PML level is 0.178, not 2: LIP 0.178
// and LDP 0.228 rather than 2 and 2.05.
func TestImpliedALIPLevelsAreTheTightenedPair(t *testing.T) {
	for _, from := range []mech.Budget{
		{Measure: mech.ALIP, EpsilonLower: 0.05, EpsilonUpper: 2},
		{Measure: mech.ALIP, EpsilonLower: 3, EpsilonUpper: 0.1},
		{Measure: mech.LIP, Epsilon: 1},
		{Measure: mech.PMC, Epsilon: 0.4},
		{Measure: mech.PML, Epsilon: 0.1},
	} {
		for _, pmin := range []float64{0.5, 0.2, 0.01} {
			imps, err := Implied(from, pmin)
			require.NoError(t, err)
			got := map[mech.Measure]mech.Budget{}
			for _, im := range imps {
				if im.Holds {
					got[im.Implied.Measure] = im.Implied
				}
			}
			if _, ok := got[mech.LIP]; !ok {
				continue // PML outside the high-privacy regime implies none
			}
			pml, pmc := got[mech.PML].Epsilon, got[mech.PMC].Epsilon
			if from.Measure == mech.PML {
				pml = from.Epsilon
			}
			if from.Measure == mech.PMC {
				pmc = from.Epsilon
			}
			if from.Measure != mech.ALIP {
				assert.Equal(t, mech.Budget{Measure: mech.ALIP, EpsilonLower: pmc, EpsilonUpper: pml}, got[mech.ALIP], "%v at %g", from, pmin)
			}
			assert.Equal(t, math.Max(pmc, pml), got[mech.LIP].Epsilon, "%v at %g", from, pmin)
			assert.InDelta(t, pmc+pml, got[mech.LDP].Epsilon, 1e-15*(1+pmc+pml), "%v at %g", from, pmin)
			assert.GreaterOrEqual(t, got[mech.LDP].Epsilon, pmc+pml, "rounded up")
		}
	}
	// Two closed forms (Saeidian et al. (2024), Thm 4.2: ε_u*(ε_l) =
	// log((1 − e^{−ε_l}(1 − p))/p)), where the other level stays as
	// given (ε_u = 2 and ε = 1 lie outside the high-privacy regime
	// log 1/(1 − p) of p = 0.2 and 0.5, so PMCFromPML is +∞ there).
	for _, c := range []struct {
		from    mech.Budget
		pmin    float64
		pmc     float64
		pmlFrom float64
	}{
		{mech.Budget{Measure: mech.ALIP, EpsilonLower: 0.05, EpsilonUpper: 2}, 0.2, 0.05, 0.05},
		{mech.Budget{Measure: mech.LIP, Epsilon: 1}, 0.5, 1, 1},
	} {
		pml := math.Log((1 - math.Exp(-c.pmlFrom)*(1-c.pmin)) / c.pmin)
		imps, err := Implied(c.from, c.pmin)
		require.NoError(t, err)
		for _, im := range imps {
			switch im.Implied.Measure {
			case mech.PML:
				assert.InDelta(t, pml, im.Implied.Epsilon, 1e-12, "%v", c.from)
			case mech.ALIP:
				assert.InDelta(t, c.pmc, im.Implied.EpsilonLower, 1e-12, "%v", c.from)
				assert.InDelta(t, pml, im.Implied.EpsilonUpper, 1e-12, "%v", c.from)
			case mech.LIP:
				assert.InDelta(t, math.Max(c.pmc, pml), im.Implied.Epsilon, 1e-12, "%v", c.from)
			case mech.LDP:
				assert.InDelta(t, c.pmc+pml, im.Implied.Epsilon, 1e-12, "%v", c.from)
			}
		}
	}
}
