package leakage

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
)

const tol = 1e-9

// eyeColour is Fernandes et al. (2022), Example 1.
var (
	eyeP  = mech.Mechanism{{3. / 4, 1. / 4}, {1. / 4, 3. / 4}, {19. / 20, 1. / 20}}
	eyePi = mech.Prior{1. / 4, 1. / 2, 1. / 4}
)

func TestEyeColour(t *testing.T) {
	q := eyeP.Marginal(eyePi)
	assert.InDelta(t, 11./20, q[0], tol)
	assert.InDelta(t, 9./20, q[1], tol)
	assert.InDelta(t, math.Log(15), LDP(eyePi, eyeP), tol)
	assert.InDelta(t, 19./11, Lift(eyePi, eyeP), tol)
	assert.InDelta(t, math.Log(19./11), PML(eyePi, eyeP), tol)
	assert.InDelta(t, 1.7, BayesCapacity(eyePi, eyeP), tol)
	assert.InDelta(t, math.Log(1.7), MaximalLeakage(eyePi, eyeP), tol)
	// Posterior vulnerability: max(3/16, 1/8, 19/80) + max(1/16, 3/8, 1/80).
	assert.InDelta(t, 19./80+3./8, PosteriorBayesVulnerability(eyePi, eyeP), tol)
	assert.InDelta(t, (19./80+3./8)/(1./2), BayesLeakage(eyePi, eyeP), tol)
	// PMC: column b min 1/4 → log((11/20)/(1/4)); column g min 1/20 → log 9.
	pmc := PMCPerOutput(eyePi, eyeP)
	assert.InDelta(t, math.Log(11./5), pmc[0], tol)
	assert.InDelta(t, math.Log(9), pmc[1], tol)
	l, u := ALIP(eyePi, eyeP)
	assert.InDelta(t, math.Log(9), l, tol)
	assert.InDelta(t, math.Log(19./11), u, tol)
	assert.InDelta(t, math.Log(9), LIP(eyePi, eyeP), tol)
}

func randomizedResponse(k int, eps float64) mech.Mechanism {
	p := mech.Zeros(k, k)
	for i := range p {
		for j := range p[i] {
			p[i][j] = 1 / (float64(k-1) + math.Exp(eps))
			if i == j {
				p[i][j] = math.Exp(eps) / (float64(k-1) + math.Exp(eps))
			}
		}
	}
	return p
}

func extremal(pi mech.Prior, eps float64) mech.Mechanism {
	n := len(pi)
	p := mech.Zeros(n, n)
	for i := range p {
		for j := range p[i] {
			p[i][j] = math.Exp(eps) * pi[j]
			if i == j {
				p[i][j] = 1 - math.Exp(eps)*(1-pi[i])
			}
		}
	}
	return p
}

func TestPMCClosedForms(t *testing.T) {
	pi := mech.Prior{0.1, 0.2, 0.3, 0.4}
	for _, eps := range []float64{0.1, 0.7, 2, 5} {
		// Saeidian et al. (2024), Ex. 3.
		rr := randomizedResponse(4, eps)
		assert.InDelta(t, math.Log(1+0.4*(math.Exp(eps)-1)), PMC(pi, rr), tol)
		assert.InDelta(t, eps, LDP(pi, rr), tol)
	}
	// Saeidian et al. (2024), Ex. 4: PML ε, PMC log(p_min/(1 − e^ε(1 − p_min))), q = π.
	for _, eps := range []float64{0.01, 0.05, 0.1} {
		p := extremal(pi, eps)
		assert.InDeltaSlice(t, []float64(pi), p.Marginal(pi), tol)
		assert.InDelta(t, eps, PML(pi, p), tol)
		assert.InDelta(t, math.Log(0.1/(1-math.Exp(eps)*0.9)), PMC(pi, p), tol)
	}
}

func TestZeros(t *testing.T) {
	pi := mech.Prior{0.5, 0.25, 0.25}
	// Column 3 unused; column 2 mixes zero and non-zero.
	p := mech.Mechanism{{1, 0, 0}, {0.5, 0.5, 0}, {0.5, 0.5, 0}}
	per := PMLPerOutput(pi, p)
	assert.True(t, math.IsInf(per[2], -1))
	assert.InDelta(t, math.Log(0.5/0.25), per[1], tol)
	assert.InDelta(t, math.Log(0.5/0.25), PML(pi, p), tol)
	pmc := PMCPerOutput(pi, p)
	assert.InDelta(t, math.Log(0.75/0.5), pmc[0], tol)
	assert.True(t, math.IsInf(pmc[1], 1))
	assert.True(t, math.IsInf(pmc[2], -1))
	assert.True(t, math.IsInf(PMC(pi, p), 1))
	assert.True(t, math.IsInf(LIP(pi, p), 1))
	assert.True(t, math.IsInf(LDP(pi, p), 1))
	// An all-zero column is ignored by LDP.
	q := mech.Mechanism{{0.5, 0.5, 0}, {0.25, 0.75, 0}, {0.5, 0.5, 0}}
	assert.InDelta(t, math.Log(2), LDP(pi, q), tol)
	assert.False(t, math.IsInf(PMC(pi, q), 0))
	lr, err := LRDP(p, 2)
	require.NoError(t, err)
	assert.True(t, math.IsInf(lr, 1))
	ab, err := MaximalAlphaBetaLeakage(pi, p, 3, 2)
	require.NoError(t, err)
	assert.True(t, math.IsInf(ab, 1))
	// β = 1 stays finite with zeros: maximal α-leakage ≤ maximal leakage.
	a, err := MaximalAlphaLeakage(pi, p, 3)
	require.NoError(t, err)
	assert.LessOrEqual(t, a, MaximalLeakage(pi, p)+tol)
}

func TestIndependent(t *testing.T) {
	pi := mech.Prior{0.2, 0.3, 0.5}
	p := mech.Mechanism{{0.1, 0.6, 0.3, 0}, {0.1, 0.6, 0.3, 0}, {0.1, 0.6, 0.3, 0}}
	r, err := Audit(pi, p, 2, 3)
	require.NoError(t, err)
	for name, v := range map[string]float64{"pml": r.PML, "pmc": r.PMC, "lip": r.LIP, "ldp": r.LDP,
		"ml": r.MaximalLeakage, "alpha": r.MaximalAlphaLeakage, "ab": r.MaximalAlphaBetaLeakage, "lrdp": r.LRDP} {
		assert.Equal(t, 0.0, v, name)
	}
	assert.Equal(t, 1.0, r.Lift)
	assert.InDelta(t, 1.0, r.BayesLeakage, 1e-15)
}

func TestArgumentErrors(t *testing.T) {
	pi := mech.Prior{0.5, 0.5}
	p := mech.Mechanism{{0.5, 0.5}, {0.2, 0.8}}
	for _, a := range []float64{1, 0.5, math.NaN(), math.Inf(-1)} {
		_, err := MaximalAlphaLeakage(pi, p, a)
		assert.Error(t, err, "alpha %v", a)
		_, err = LRDP(p, a)
		assert.Error(t, err)
		_, err = Audit(pi, p, a, 1)
		assert.Error(t, err)
	}
	for _, b := range []float64{0.99, math.NaN()} {
		_, err := MaximalAlphaBetaLeakage(pi, p, 2, b)
		assert.Error(t, err)
	}
	_, err := MaximalAlphaLeakage(mech.Prior{1}, p, 2)
	assert.Error(t, err)
	_, err = Audit(mech.Prior{0.2, 0.3, 0.5}, p, 2, 1)
	assert.Error(t, err)
}

// sibson evaluates I_α^S(w, P) directly.
func sibson(p mech.Mechanism, w []float64, alpha float64) float64 {
	_, m := p.Dims()
	s := 0.0
	for j := 0; j < m; j++ {
		in := 0.0
		for i := range p {
			in += w[i] * math.Pow(p[i][j], alpha)
		}
		s += math.Pow(in, 1/alpha)
	}
	return alpha / (alpha - 1) * math.Log(s)
}

// gridMax brute-forces sup_w I_α^S on a simplex grid with step 1/k (N = 2, 3).
func gridMax(p mech.Mechanism, alpha float64, k int) float64 {
	best := math.Inf(-1)
	n := len(p)
	for a := 0; a <= k; a++ {
		if n == 2 {
			best = math.Max(best, sibson(p, []float64{float64(a) / float64(k), 1 - float64(a)/float64(k)}, alpha))
			continue
		}
		for b := 0; a+b <= k; b++ {
			w := []float64{float64(a) / float64(k), float64(b) / float64(k), float64(k-a-b) / float64(k)}
			best = math.Max(best, sibson(p, w, alpha))
		}
	}
	return best
}

func TestMaximalAlphaLeakageBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 40; trial++ {
		n := 2 + trial%2
		p := randinst.Mechanism(rng, n, 2+rng.IntN(3), 0.2)
		pi := randinst.Prior(rng, n, 0.05)
		alpha := []float64{1.5, 2, 4, 10}[trial%4]
		lo, up, err := MaximalAlphaLeakageBounds(pi, p, alpha)
		require.NoError(t, err)
		assert.LessOrEqual(t, up-lo, tol)
		k := 2000
		if n == 3 {
			k = 300
		}
		grid := gridMax(p, alpha, k)
		// The grid is feasible, so it is a lower bound; the optimiser must be
		// at least as good, and not much better than a fine grid.
		assert.GreaterOrEqual(t, up+tol, grid, "trial %d", trial)
		assert.InDelta(t, grid, lo, 5e-4, "trial %d", trial)
	}
}

func TestMaximalAlphaLeakageClosedForms(t *testing.T) {
	pi := mech.Uniform(4)
	rr := randomizedResponse(4, 1.3)
	// Symmetric channel: the uniform P̃ is optimal by symmetry and concavity.
	for _, alpha := range []float64{1.2, 2, 7} {
		got, err := MaximalAlphaLeakage(pi, rr, alpha)
		require.NoError(t, err)
		assert.InDelta(t, sibson(rr, []float64{0.25, 0.25, 0.25, 0.25}, alpha), got, tol)
	}
	// α = ∞ is maximal leakage; large α approaches it.
	inf, err := MaximalAlphaLeakage(eyePi, eyeP, math.Inf(1))
	require.NoError(t, err)
	assert.InDelta(t, math.Log(1.7), inf, tol)
	big, err := MaximalAlphaLeakage(eyePi, eyeP, 1e6)
	require.NoError(t, err)
	assert.InDelta(t, math.Log(1.7), big, 1e-5)
	// α → 1: Shannon capacity; for a binary symmetric channel log 2 − h(δ).
	const delta = 0.1
	bsc := mech.Mechanism{{1 - delta, delta}, {delta, 1 - delta}}
	capacity := math.Log(2) + delta*math.Log(delta) + (1-delta)*math.Log(1-delta)
	near1, err := MaximalAlphaLeakage(mech.Uniform(2), bsc, 1+1e-7)
	require.NoError(t, err)
	assert.InDelta(t, capacity, near1, 1e-6)
}

func TestAlphaBetaIdentities(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := 0; trial < 30; trial++ {
		n, m := 2+rng.IntN(3), 2+rng.IntN(3)
		p := randinst.Mechanism(rng, n, m, 0)
		pi := randinst.Prior(rng, n, 0.05)
		for _, a := range []float64{1.5, 3, 8} {
			// α = β: LRDP (Gilani et al. (2022), eq. 12).
			ab, err := MaximalAlphaBetaLeakage(pi, p, a, a)
			require.NoError(t, err)
			lr, err := LRDP(p, a)
			require.NoError(t, err)
			assert.InDelta(t, lr, ab, tol)
			// β = 1: maximal α-leakage.
			ab1, err := MaximalAlphaBetaLeakage(pi, p, a, 1)
			require.NoError(t, err)
			al, err := MaximalAlphaLeakage(pi, p, a)
			require.NoError(t, err)
			assert.InDelta(t, al, ab1, tol)
			// Monotone in β (Gilani et al. (2022), Thm 2.1), and the (α,β) sup for β < α
			// is at least its value at every vertex.
			ab2, err := MaximalAlphaBetaLeakage(pi, p, a, (1+a)/2)
			require.NoError(t, err)
			assert.GreaterOrEqual(t, ab2+tol, ab1)
			assert.GreaterOrEqual(t, ab+tol, ab2)
		}
		// α = β = ∞: LDP; β = 1, α = ∞: maximal leakage.
		ldp, err := MaximalAlphaBetaLeakage(pi, p, math.Inf(1), math.Inf(1))
		require.NoError(t, err)
		assert.InDelta(t, LDP(pi, p), ldp, tol)
		ml, err := MaximalAlphaBetaLeakage(pi, p, math.Inf(1), 1)
		require.NoError(t, err)
		assert.InDelta(t, MaximalLeakage(pi, p), ml, tol)
		// LRDP tends to LDP as α grows.
		lr, err := LRDP(p, 1e7)
		require.NoError(t, err)
		assert.InDelta(t, LDP(pi, p), lr, 1e-5)
	}
}

func TestPropertiesRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		n, m := 1+rng.IntN(5), 1+rng.IntN(5)
		p := randinst.Mechanism(rng, n, m, 0.25)
		pi := randinst.Prior(rng, n, 0.05)
		r, err := Audit(pi, p, 2, 1.5)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, r.PML, 0.0)
		assert.LessOrEqual(t, r.PML, -math.Log(pi.Min())+tol)
		assert.InDelta(t, math.Exp(r.PML), r.Lift, tol)
		assert.LessOrEqual(t, r.PML, r.LDP+tol)
		assert.LessOrEqual(t, r.PMC, r.LDP+tol)
		assert.LessOrEqual(t, r.MaximalAlphaLeakage, r.MaximalLeakage+tol)
		assert.LessOrEqual(t, r.BayesLeakage, r.BayesCapacity+tol)
		assert.LessOrEqual(t, r.BayesCapacity, r.Lift+tol) // Fernandes et al. (2022), Lem 1
		assert.LessOrEqual(t, r.MaximalAlphaBetaLeakage, r.LRDP+tol)
	}
}

func FuzzAudit(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6}, uint8(2), 2.0, 1.0)
	f.Add([]byte{0, 0, 9, 0, 0, 1, 255, 0, 3}, uint8(3), 1.5, 4.0)
	f.Fuzz(func(t *testing.T, data []byte, cols uint8, alpha, beta float64) {
		m := int(cols%5) + 1
		n := len(data) / m
		if n == 0 || n > 6 {
			return
		}
		p := mech.Zeros(n, m)
		pi := make(mech.Prior, n)
		for i := range p {
			s := 0.0
			for j := range p[i] {
				p[i][j] = float64(data[i*m+j])
				s += p[i][j]
			}
			if s == 0 {
				p[i][0], s = 1, 1
			}
			for j := range p[i] {
				p[i][j] /= s
			}
			pi[i] = 1 / float64(n)
		}
		r, err := Audit(pi, p, alpha, beta)
		if err != nil {
			return
		}
		for _, v := range []float64{r.PML, r.PMC, r.ALIPLower, r.ALIPUpper, r.LIP, r.LDP, r.Lift, r.BayesCapacity,
			r.MaximalLeakage, r.PosteriorBayesVulnerability, r.BayesLeakage, r.MaximalAlphaLeakage,
			r.MaximalAlphaBetaLeakage, r.LRDP} {
			if math.IsNaN(v) {
				t.Fatalf("NaN in %+v", r)
			}
		}
	})
}
