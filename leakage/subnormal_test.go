package leakage

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

// Subnormal masses and entries: 1e-310 is below the smallest normal float64
// (2^-1022 ≈ 2.2e-308), where Go's amd64 math.Log errs by up to 36 nats
// (math.Log(1e-310) = −709.085). The expected values are worked out by hand
// from log 1e-310 = −310·log 10 (the float 1e-310 differs from 10^-310 by a
// relative 2.5e-14 at most, far below the tolerance) and log 2.
const (
	sub      = 1e-310
	logSub   = -310 * 2.302585092994045684017991454684364 // log 1e-310
	subDelta = 1e-11
)

// TestSubnormalPriorMass: π = (1 − s, s), P = [[1, 0], [½, ½]]. Then
// q = (1 − s/2, s/2): output 2 has PML log(½ / (s/2)) = −log s (an
// overflow of the quotient 1/s to +Inf before), output 1 log 1/(1 − s/2)
// < 1e-309; the PMC of output 1 is log(q_1/½) = log(2 − s) = log 2, of
// output 2 (a zero entry) +Inf.
func TestSubnormalPriorMass(t *testing.T) {
	pi := mech.Prior{1 - sub, sub}
	p := mech.Mechanism{{1, 0}, {0.5, 0.5}}
	per := PMLPerOutput(pi, p)
	assert.InDelta(t, 0, per[0], 1e-300)
	assert.InDelta(t, -logSub, per[1], subDelta)
	assert.InDelta(t, -logSub, PML(pi, p), subDelta)
	pmc := PMCPerOutput(pi, p)
	assert.InDelta(t, math.Ln2, pmc[0], 1e-15)
	assert.True(t, math.IsInf(pmc[1], 1))
	lo, up := ALIP(pi, p)
	assert.True(t, math.IsInf(lo, 1))
	assert.InDelta(t, -logSub, up, subDelta)

	d := p.InformationDensity(pi)
	assert.InDelta(t, 0, d[0][0], 1e-300)
	assert.True(t, math.IsInf(d[0][1], -1))
	assert.InDelta(t, -math.Ln2, d[1][0], 1e-15)
	assert.InDelta(t, -logSub, d[1][1], subDelta)

	r, err := Audit(pi, p, 2, 2)
	require.NoError(t, err)
	assert.InDelta(t, -logSub, r.PML, subDelta)
	assert.InDelta(t, -logSub, r.ALIPUpper, subDelta)
	// The lift e^PML = 2/s is above the largest float64.
	assert.True(t, math.IsInf(r.Lift, 1))
	assert.Equal(t, 1.5, r.BayesCapacity)
	assert.InDelta(t, math.Log(1.5), r.MaximalLeakage, 1e-15)
}

// TestSubnormalEntry: π = (½, ½), P = [[1 − t, t], [½, ½]] with t = 1e-310.
// q = ((3/2 − t)/2, (½ + t)/2) = (¾, ¼) up to t.
//
//   - PML: output 1 log((1−t)/¾) = log 4/3, output 2 log(½/¼) = log 2.
//   - PMC: output 1 log(¾/½) = log 3/2, output 2 log(¼/t) = −log t − 2 log 2
//     (its quotient overflowed to +Inf before).
//   - LIP = max(PMC, PML) = −log t − 2 log 2.
//   - LDP: column 2, log(½/t) = −log t − log 2.
//   - LRDP of order 2: D_2(row 2‖row 1) = log(¼/(1−t) + ¼/t) = −log t − 2 log 2
//     up to t; D_2(row 1‖row 2) = log(2(1−t)² + 2t²) = log 2.
//   - Maximal (∞, 2)-leakage (Gilani et al. (2022), eq. 15):
//     max_k ½ log Σ_j p_kj^{−1} max_i p_ij², with column maxima (1−t, ½):
//     k = 1 gives ½ log((1−t) + ¼/t) = ½(−log t − 2 log 2), k = 2 ½ log 5/2.
//   - Maximal (2, 2)-leakage (eq. 11, β ≥ α):
//     max_{k,i} log Σ_j p_kj^{−1} p_ij² = log(¼/(1−t) + ¼/t) (k = 1, i = 2).
func TestSubnormalEntry(t *testing.T) {
	pi := mech.Prior{0.5, 0.5}
	p := mech.Mechanism{{1 - sub, sub}, {0.5, 0.5}}
	big := -logSub - 2*math.Ln2
	assert.InDelta(t, math.Ln2, PML(pi, p), 1e-15)
	pmc := PMCPerOutput(pi, p)
	assert.InDelta(t, math.Log(1.5), pmc[0], 1e-15)
	assert.InDelta(t, big, pmc[1], subDelta)
	assert.InDelta(t, big, LIP(pi, p), subDelta)
	assert.InDelta(t, -logSub-math.Ln2, LDP(pi, p), subDelta)

	l, err := LRDP(p, 2)
	require.NoError(t, err)
	assert.InDelta(t, big, l, subDelta)

	ab, err := MaximalAlphaBetaLeakage(pi, p, math.Inf(1), 2)
	require.NoError(t, err)
	assert.InDelta(t, big/2, ab, subDelta)
	ab, err = MaximalAlphaBetaLeakage(pi, p, 2, 2)
	require.NoError(t, err)
	assert.InDelta(t, big, ab, subDelta)

	d := p.InformationDensity(pi)
	// log(t/¼): the quotient t/q_2 is itself subnormal.
	assert.InDelta(t, -big, d[0][1], subDelta)

	r, err := Audit(pi, p, 2, 2)
	require.NoError(t, err)
	assert.InDelta(t, big, r.PMC, subDelta)
	assert.InDelta(t, big, r.LIP, subDelta)
	assert.InDelta(t, -logSub-math.Ln2, r.LDP, subDelta)
	assert.InDelta(t, big, r.LRDP, subDelta)
	assert.InDelta(t, big, r.MaximalAlphaBetaLeakage, subDelta)
}

// TestSubnormalEntryAlphaLeakage: maximal α-leakage of order 2 sums
// p_ij^α, in which t² = 0: it is that of P with t = 0,
// 2 log max_w (√(w + (1−w)/4) + √((1−w)/4)) (Gilani et al. (2022), eq. 6),
// maximised here by a golden-section search (the function is concave).
func TestSubnormalEntryAlphaLeakage(t *testing.T) {
	f := func(w float64) float64 { return math.Sqrt(w+(1-w)/4) + math.Sqrt((1-w)/4) }
	a, b := 0.0, 1.0
	g := (math.Sqrt(5) - 1) / 2
	for range 200 {
		c, d := b-g*(b-a), a+g*(b-a)
		if f(c) < f(d) {
			a = c
		} else {
			b = d
		}
	}
	want := 2 * math.Log(f((a+b)/2))
	got, err := MaximalAlphaLeakage(mech.Prior{0.5, 0.5}, mech.Mechanism{{1 - sub, sub}, {0.5, 0.5}}, 2)
	require.NoError(t, err)
	assert.InDelta(t, want, got, 1e-9)
}
