package ipm_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/worstcase"
)

// TestProbeAgainstLP probes random patterns below, near and above the
// least ε that the LP search brackets: the evidence is always sound (a
// proof never above ε*, a mechanism with the pattern never below it), and
// away from ε* it settles the question the right way.
func TestProbeAgainstLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	settled := 0
	forms := map[string]func(mech.Prior, mech.Pattern, float64) (*ipm.ProbeResult, error){"every pair": ipm.ProbeWhole, "outlet": ipm.ProbeOutlet}
	for trial := 0; trial < 40; trial++ {
		n, m := 3+rng.IntN(10), 3+rng.IntN(10)
		pi, o := randinst.Prior(rng, n, 0.01), randinst.StrictOrder(rng, n, m)
		pat := o.Pattern(2 + rng.IntN(m-1))
		ref, err := worstcase.LeastEpsilon(context.Background(), pi, pat, worstcase.Options{Probes: worstcase.ProbesLP, Tol: 1e-10})
		require.NoError(t, err)
		star := ref.OptimalEpsilon
		for k := range 10 {
			form, d := []string{"every pair", "outlet"}[k%2], []float64{-0.05, -1e-3, 0, 1e-3, 0.05}[k/2]
			eps := star + d
			if eps < 0 {
				continue
			}
			r, err := forms[form](pi, pat, eps)
			require.NoError(t, err)
			if r.Alpha != nil {
				assert.LessOrEqual(t, r.Lower, ref.OptimalEpsilon+1e-12, "trial %d, %s: a proof above ε*", trial, form)
				lb, ok := certify.DualBound(pi, pat, r.Alpha)
				require.True(t, ok)
				assert.Equal(t, lb, r.Lower)
			}
			if r.Mechanism != nil {
				require.True(t, pat.Holds(r.Mechanism), "trial %d, %s: a forbidden pair used", trial, form)
				for i, row := range r.Mechanism {
					s := 0.0
					for _, v := range row {
						require.GreaterOrEqual(t, v, 0.0)
						s += v
					}
					require.InDelta(t, 1, s, 1e-12, "trial %d, row %d", trial, i)
				}
				assert.Equal(t, leakage.PML(pi, r.Mechanism), r.PML)
				assert.GreaterOrEqual(t, r.PML, ref.OptimalEpsilonLower-1e-12, "trial %d, %s: a mechanism below ε*", trial, form)
			}
			switch {
			case d < 0 && ref.OptimalEpsilonLower > 0 && eps > 0:
				// Below ε*: proven infeasible.
				if assert.NotNil(t, r.Alpha, "trial %d, %s, ε* %+g", trial, form, d) {
					assert.GreaterOrEqual(t, r.Lower, eps, "trial %d, %s, ε* %+g", trial, form, d)
					settled++
				}
			case d > 0:
				// Above ε*: a mechanism within the budget.
				if assert.NotNil(t, r.Mechanism, "trial %d, %s, ε* %+g", trial, form, d) {
					assert.LessOrEqual(t, r.PML, eps, "trial %d, %s, ε* %+g", trial, form, d)
					settled++
				}
			}
		}
	}
	assert.Greater(t, settled, 200)
}

// TestProbeErrors checks the input errors.
func TestProbeErrors(t *testing.T) {
	pi := []float64{0.5, 0.5}
	pat := [][]bool{{true, false}, {false, true}}
	_, err := ipm.Probe(pi, pat[:1], 1)
	assert.ErrorContains(t, err, "pattern")
	_, err = ipm.Probe(pi, [][]bool{{true, false}, {true}}, 1)
	assert.ErrorContains(t, err, "row 1")
	_, err = ipm.Probe(pi, [][]bool{{}, {}}, 1)
	assert.ErrorContains(t, err, "no columns")
	_, err = ipm.Probe(pi, [][]bool{{true, false}, {false, false}}, 1)
	assert.ErrorContains(t, err, "forbids every output")
	_, err = ipm.Probe(pi, pat, math.NaN())
	assert.Error(t, err)
	_, err = ipm.Probe([]float64{0.5, 0.6}, pat, 1)
	assert.Error(t, err)
}

// TestProbeWithoutMechanism checks the convention a caller relies on
// when no iterate gives a mechanism with the pattern (it happens where
// e^ε nears the end of the floating-point range, ε = 700, whose caps
// lifted onto the marginal rows are of order 1e303 and whose iterations
// break down at once): PML is +Inf, so that "the least ε is at most PML"
// still holds. Far above the least ε
// but within range (ε = 20, priors down to 1e-10) every probe finds one,
// its iterations started on the marginal rows (startOnMarginals).
func TestProbeWithoutMechanism(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	none := 0
	for trial := range 400 {
		n, m := 2+rng.IntN(8), 2+rng.IntN(8)
		pi := randinst.Prior(rng, n, []float64{0.01, 1e-4, 1e-7, 1e-10}[trial%4])
		pat := randinst.StrictOrder(rng, n, m).Pattern(1 + rng.IntN(m))
		for _, c := range []struct {
			eps   float64
			probe func(mech.Prior, mech.Pattern, float64) (*ipm.ProbeResult, error)
		}{{20, ipm.ProbeWhole}, {20, ipm.ProbeOutlet}, {700, ipm.ProbeWhole}, {700, ipm.ProbeOutlet}} {
			eps := c.eps
			r, err := c.probe(pi, pat, eps)
			require.NoError(t, err)
			if r.Mechanism == nil {
				require.Equal(t, 700.0, eps, "trial %d: no mechanism at ε = %v", trial, eps)
				none++
				assert.True(t, math.IsInf(r.PML, 1), "trial %d: PML %v without a mechanism", trial, r.PML)
			} else {
				assert.Equal(t, leakage.PML(pi, r.Mechanism), r.PML, "trial %d", trial)
				assert.LessOrEqual(t, r.PML, eps, "trial %d", trial)
			}
		}
	}
	require.Positive(t, none, "no probe without a mechanism: the test checks nothing")
}

// TestProbeTinyMasses probes the value thresholds of a counting query
// under a binomial(63, 0.3) prior (masses down to 1e-33) a hair below and
// above the ε* that the LP search brackets: the proofs and mechanisms are
// checked on their own, and they settle each question the test names:
// the forbidden mass of the tiniest letters must count in the objective
// (penalty).
func TestProbeTinyMasses(t *testing.T) {
	pi, err := instance.Binomial(63, 0.3)
	require.NoError(t, err)
	u, err := instance.Counting(64)
	require.NoError(t, err)
	vs := u.ReachableValues()
	for _, c := range []struct {
		k            int
		below, above bool // the probe below ε* must prove it, the one above find a mechanism
	}{{70, true, false}, {80, true, false}, {90, true, true}, {110, true, false}} {
		pat := u.Pattern(vs[c.k])
		ref, err := worstcase.LeastEpsilon(context.Background(), pi, pat, worstcase.Options{Probes: worstcase.ProbesColumns, Tol: 1e-10})
		require.NoError(t, err)
		require.Positive(t, ref.OptimalEpsilonLower)
		// The reference bracket on its own evidence: its mechanism audits
		// at its upper end, its proof (when it is one) at its lower end.
		require.True(t, pat.Holds(ref.Mechanism))
		require.Equal(t, leakage.PML(pi, ref.Mechanism), ref.OptimalEpsilon)
		if ref.Lower == worstcase.BoundInfeasible {
			lb, ok := certify.DualBound(pi, pat, ref.Proof)
			require.True(t, ok)
			require.GreaterOrEqual(t, lb, ref.OptimalEpsilonLower-1e-12)
		}
		lo, hi := ref.OptimalEpsilonLower-1e-6, ref.OptimalEpsilon+1e-6
		for _, probe := range []func(mech.Prior, mech.Pattern, float64) (*ipm.ProbeResult, error){ipm.ProbeWhole, ipm.ProbeOutlet} {
			r, err := probe(pi, pat, lo)
			require.NoError(t, err)
			if r.Alpha != nil {
				lb, ok := certify.DualBound(pi, pat, r.Alpha)
				require.True(t, ok)
				assert.Equal(t, lb, r.Lower)
			}
			assert.LessOrEqual(t, r.Lower, ref.OptimalEpsilon+1e-12, "k = %d: a proof above ε*", c.k)
			if c.below {
				assert.GreaterOrEqual(t, r.Lower, lo, "k = %d: ε* = %v not proven at %v", c.k, ref.OptimalEpsilonLower, lo)
			}
			r, err = probe(pi, pat, hi)
			require.NoError(t, err)
			if r.Mechanism != nil {
				require.True(t, pat.Holds(r.Mechanism))
				assert.Equal(t, leakage.PML(pi, r.Mechanism), r.PML)
				assert.GreaterOrEqual(t, r.PML, ref.OptimalEpsilonLower-1e-12, "k = %d: a mechanism below ε*", c.k)
			}
			if c.above {
				assert.LessOrEqual(t, r.PML, hi, "k = %d: no mechanism at %v", c.k, hi)
			}
		}
	}
}

// doneContext is a context whose Done channel is closed while Err says
// nil: only a poll of Done inside an iteration sees it end.
type doneContext struct{ context.Context }

func (doneContext) Done() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

func (doneContext) Err() error { return nil }

// TestProbeWatchesItsContext: a probe of a 64×64 random instance watches
// its context inside each iteration's Newton updates (seconds at a
// thousand letters), not only between iterations, and a cancelled
// context ends the probe with its error and no result.
func TestProbeWatchesItsContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pi, o := randinst.Prior(rng, 64, 0.01), randinst.StrictOrder(rng, 64, 64)
	pat := o.Pattern(2)
	r, err := ipm.ProbeWorkers(context.Background(), pi, pat, 1, 1)
	require.NoError(t, err)
	require.Greater(t, r.Iterations, 1)
	r, err = ipm.ProbeWorkers(doneContext{context.Background()}, pi, pat, 1, 1)
	require.NoError(t, err)
	assert.Zero(t, r.Iterations, "the first iteration's updates went on after Done")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err = ipm.ProbeWorkers(ctx, pi, pat, 1, 1)
	require.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, r)
}
