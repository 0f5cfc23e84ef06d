package worstcase

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/internal/revised"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// TestGoProbesAgree runs every curve twice, with the LP probes only and
// with ipm.Probe or the column generation asked first, on random instances
// up to 14 letters: the same ε* to 1e-9 at every threshold, every bracket
// closed and audited, and the pure-Go probes doing most of the work.
func TestGoProbesAgree(t *testing.T) {
	for _, mode := range []Probes{ProbesIPM, ProbesColumns} {
		t.Run(map[Probes]string{ProbesIPM: "ipm", ProbesColumns: "columns"}[mode], func(t *testing.T) {
			probesAgree(t, mode)
		})
	}
}

func probesAgree(t *testing.T, mode Probes) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, s := range []solver.Solver{solver.Auto(), mustGet(t, "revised")} {
		probes, lps := 0, 0
		for trial := 0; trial < 8; trial++ {
			n, m := 4+rng.IntN(11), 3+rng.IntN(10)
			pi, o := randinst.Prior(rng, n, 0.01), randinst.StrictOrder(rng, n, m)
			ref, err := OrderCurve(context.Background(), pi, o, Options{Solver: s, Probes: ProbesLP})
			require.NoError(t, err)
			pts, err := OrderCurve(context.Background(), pi, o, Options{Solver: s, Probes: mode})
			require.NoError(t, err)
			require.Len(t, pts, m)
			for k, p := range pts {
				require.Zero(t, ref[k].GoProbes, "ProbesLP called ipm.Probe")
				pat := o.Pattern(p.H)
				audit(t, pi, pat, Result{OptimalEpsilonLower: p.OptimalEpsilonLower, OptimalEpsilon: p.OptimalEpsilon,
					Mechanism: p.Mechanism, Lower: p.Lower, Proof: p.Proof}, DefaultTol)
				assert.InDelta(t, ref[k].OptimalEpsilon, p.OptimalEpsilon, 1e-9, "%s, trial %d, h %d", s.Name(), trial, p.H)
				probes += p.GoProbes
				lps += p.LPSolves
			}
			// BestOrder, whose yes/no probes ask ipm.Probe too, picks the
			// same threshold as the LP-only search, at a budget between
			// two steps of the curve.
			h := 1 + rng.IntN(m)
			eps := ref[h-1].OptimalEpsilon + 1e-6
			hl, rl, err := BestOrder(context.Background(), pi, o, eps, Options{Solver: s, Probes: ProbesLP})
			require.NoError(t, err)
			hi, ri, err := BestOrder(context.Background(), pi, o, eps, Options{Solver: s, Probes: mode})
			require.NoError(t, err)
			assert.Equal(t, hl, hi, "%s, trial %d, ε %v", s.Name(), trial, eps)
			assert.InDelta(t, rl.OptimalEpsilon, ri.OptimalEpsilon, 1e-9)
			assert.Zero(t, rl.GoProbes)
			audit(t, pi, o.Pattern(hi), ri, DefaultTol)
		}
		t.Logf("%s: %d pure-Go probes, %d LPs", s.Name(), probes, lps)
		assert.Greater(t, probes, lps, "%s: the pure-Go probes settled too little", s.Name())
	}
}

// TestGoProbesAuto checks the size rule: below ipmLetters letters the
// default asks the column generation first, from it ipm.Probe.
func TestGoProbesAuto(t *testing.T) {
	c, err := Options{}.config()
	require.NoError(t, err)
	assert.False(t, c.ipmFor(ipmLetters-1))
	assert.True(t, c.colsFor(ipmLetters-1))
	assert.True(t, c.ipmFor(ipmLetters))
	assert.False(t, c.colsFor(ipmLetters))
	c, err = Options{Probes: ProbesLP}.config()
	require.NoError(t, err)
	assert.False(t, c.ipmFor(1000))
	assert.False(t, c.colsFor(2))
	c, err = Options{Probes: ProbesIPM}.config()
	require.NoError(t, err)
	assert.True(t, c.ipmFor(2))
	assert.False(t, c.colsFor(2))
	c, err = Options{Probes: ProbesColumns}.config()
	require.NoError(t, err)
	assert.True(t, c.colsFor(1000))
	assert.False(t, c.ipmFor(1000))
	_, err = Options{Probes: Probes(7)}.config()
	assert.Error(t, err)
}

func mustGet(t *testing.T, name string) solver.Solver {
	t.Helper()
	s, err := solver.Get(name)
	require.NoError(t, err)
	return s
}

// TestWithoutLP checks when a pure-Go probe that left the question open
// stands without an LP: when its evidence closes the bracket, and
// nearStands times in a row when its mechanism audits within nearSlop of t;
// never without evidence.
func TestWithoutLP(t *testing.T) {
	m := mech.Mechanism{{1}}
	p := &prober{closes: func(lb, a float64) bool { return a-lb <= 1e-9 }}
	_, ok := p.withoutLP(0.5, nil)
	assert.False(t, ok, "no evidence")
	// Closes: a proof 3e-10 below t and a point 2e-10 above.
	o, ok := p.withoutLP(0.5, &evidence{Evidence: certify.Evidence{Mechanism: m, PML: 0.5 + 2e-10, Lower: 0.5 - 3e-10, Alpha: []float64{1}}})
	require.True(t, ok)
	assert.Equal(t, inconclusive, o.v)
	assert.Equal(t, 0.5-3e-10, o.Lower)
	assert.Zero(t, p.stands.near, "closing the bracket is not a near miss")
	// A proof alone, without a mechanism, does not close the bracket.
	_, ok = p.withoutLP(0.5, &evidence{Evidence: certify.Evidence{PML: math.Inf(1), Lower: 0.5 - 3e-10, Alpha: []float64{1}}})
	assert.False(t, ok)
	// Near: a point 5e-9 above t, no proof; stands nearStands times in a
	// row, then the LP.
	for k := range nearStands {
		o, ok = p.withoutLP(0.5, &evidence{Evidence: certify.Evidence{Mechanism: m, PML: 0.5 + 5e-9}})
		require.True(t, ok, "near miss %d", k+1)
		assert.Equal(t, 0.5+5e-9, o.PML)
	}
	assert.Equal(t, nearStands, p.stands.near)
	_, ok = p.withoutLP(0.5, &evidence{Evidence: certify.Evidence{Mechanism: m, PML: 0.5 + 5e-9}})
	assert.False(t, ok, "one near miss too many goes to the LP")
	p.stands.near = 0
	_, ok = p.withoutLP(0.5, &evidence{Evidence: certify.Evidence{Mechanism: m, PML: 0.5 + 2e-6}})
	assert.False(t, ok, "a point beyond nearSlop goes to the LP")
}

// columnsReference draws a random prior on n letters (randinst.Prior with
// floor) and a strict order over m outputs from the PCG
// seeds s1, s2, takes the pattern of threshold h, and returns them with
// the column-generation options and the search's result under them, which
// must need no LP: the reference the tests that break the master compare
// with.
func columnsReference(t *testing.T, s1, s2 uint64, n int, floor float64, m, h int) (mech.Prior, mech.Pattern, Options, Result) {
	t.Helper()
	rng := rand.New(rand.NewPCG(s1, s2))
	pi, o := randinst.Prior(rng, n, floor), randinst.StrictOrder(rng, n, m)
	pat := o.Pattern(h)
	opt := Options{Solver: solver.Auto(), Probes: ProbesColumns}
	ref, err := LeastEpsilon(context.Background(), pi, pat, opt)
	require.NoError(t, err)
	require.Zero(t, ref.LPSolves)
	return pi, pat, opt, ref
}

// TestMasterStall makes the column generation's master fail: one failure
// is absorbed by a fresh master (the same ε*, no LP), a master that keeps
// failing sends the probes to the interior point (ipm.Probe), which
// settles this search without an LP (the same ε* again); should that fail
// too, the LP answers.
func TestMasterStall(t *testing.T) {
	pi, pat, opt, ref := columnsReference(t, 23, 24, 9, 0.01, 7, 3)
	require.Greater(t, ref.GoProbes, 2)

	stall := errors.New("stalled")
	for _, c := range []struct {
		name  string
		fails func(call int) bool
		ipm   bool // every probe fails over to ipm.Probe
	}{
		{"first and third call", func(call int) bool { return call == 1 || call == 3 }, false},
		{"every call", func(int) bool { return true }, true},
	} {
		calls := 0
		stalling := hooks{master: func(m *colgen.Master, eps float64) (*colgen.Result, error) {
			if calls++; c.fails(calls) {
				return nil, stall
			}
			return m.Probe(eps)
		}}
		r, err := leastEpsilon(context.Background(), pi, pat, opt, stalling)
		require.NoError(t, err, c.name)
		assert.InDelta(t, ref.OptimalEpsilon, r.OptimalEpsilon, 1e-9, c.name)
		audit(t, pi, pat, r, DefaultTol)
		if c.ipm {
			assert.Zero(t, r.LPSolves, "%s: the interior point should have answered", c.name)
			assert.Equal(t, 2*r.GoProbes, calls, "%s: a fresh master per probe, then ipm.Probe", c.name)
		} else {
			assert.Zero(t, r.LPSolves, "%s: a fresh master should have answered", c.name)
			assert.Equal(t, ref.GoProbes+2, calls, "%s: one retry per failure", c.name)
		}
	}
}

// TestBlindInteriorPoint: with a master that fails at every point and an
// interior point that settles none (no mechanism, no proof), the search
// asks the interior point ipmBlind times, then only the LP, and ends on
// the reference's ε*. TestMasterStall's "every call" is the converse: an
// interior point that settles every point is asked at every probe.
func TestBlindInteriorPoint(t *testing.T) {
	pi, pat, opt, ref := columnsReference(t, 23, 24, 9, 0.01, 7, 3)
	asked := 0
	blind := hooks{
		master: func(*colgen.Master, float64) (*colgen.Result, error) {
			return nil, errors.New("stalled")
		},
		ipm: func(mech.Prior, mech.Pattern, float64) (*ipm.ProbeResult, error) {
			asked++
			return &ipm.ProbeResult{Evidence: certify.Evidence{PML: math.Inf(1)}, Iterations: 200}, nil
		},
	}
	r, err := leastEpsilon(context.Background(), pi, pat, opt, blind)
	require.NoError(t, err)
	assert.InDelta(t, ref.OptimalEpsilon, r.OptimalEpsilon, 1e-9)
	audit(t, pi, pat, r, DefaultTol)
	assert.Positive(t, r.LPSolves, "the LP settles what neither pure-Go probe did")
	assert.Greater(t, r.GoProbes, ipmBlind, "the search went on probing")
	assert.Equal(t, ipmBlind, asked, "a blind interior point is asked ipmBlind times")
}

// TestProbeLPStops: a prober whose search's context is done ends the
// pure-Go LP it is in (warm or cold, the feasibility and the infeasibility
// LP) with revised.ErrStopped instead of finishing it, and its master
// probe with colgen.ErrStopped; under a context never done the same probe
// answers.
func TestProbeLPStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pi, o := randinst.Prior(rng, 24, 0.05), randinst.StrictOrder(rng, 24, 24)
	pat := o.Pattern(12)
	c, _ := columnBounds(pi, pat)
	slv := mustGet(t, "revised")
	done, cancel := context.WithCancel(context.Background())
	cancel()
	p := &prober{pi: pi, pat: pat, c: c, slv: slv, ctx: done}
	defer p.close()
	_, err := p.lpProbe(0.5, 5, true)
	require.ErrorIs(t, err, revised.ErrStopped)
	_, err = p.solveInfeasibility(0.5)
	require.ErrorIs(t, err, revised.ErrStopped)

	// The pure-Go probes stop too: the master ends its round loop, and
	// the interior point is not asked.
	ipmAsked := false
	g := &prober{pi: pi, pat: pat, c: c, slv: slv, cols: true, ctx: done,
		eng: hooks{ipm: func(mech.Prior, mech.Pattern, float64) (*ipm.ProbeResult, error) {
			ipmAsked = true
			return nil, errors.New("asked")
		}}}
	defer g.close()
	out, ev := g.goProbe(0.5)
	assert.Equal(t, unproven, out.v)
	assert.Nil(t, ev)
	assert.False(t, ipmAsked)
	_, err = g.masterProbe(0.5)
	require.ErrorIs(t, err, colgen.ErrStopped)

	q := &prober{pi: pi, pat: pat, c: c, slv: slv, ctx: context.Background()}
	defer q.close()
	res, err := q.lpProbe(0.5, 5, true)
	require.NoError(t, err)
	assert.Contains(t, []verdict{feasible, infeasible}, res.v)
}

// TestMasterUnsettled: a column-generation probe that stops at its round
// limit without settling (colgen.Result.Unsettled: no mechanism, a weak
// proof) is asked again of the interior point, which settles it without
// an LP. Should the interior point fail too, a probe below ε* steers the
// search above it, up to unsettledStands times, without an LP, and every
// probe below ε* unsettled sends the rest to the LP. Unsettled probes
// above ε* steer the search the wrong way (two of them left the bracket
// [0.28, 0.84] open around ε* = 0.51): the second pass over the whole
// bracket closes it: the master goes on from its round limit, and the LP
// settles whatever stays open. Every search reaches the same ε*, and the
// searches misled from above in at most 2.5 times the probes of the
// unbroken one.
func TestMasterUnsettled(t *testing.T) {
	pi, pat, opt, ref := columnsReference(t, 3, 4, 24, 0.05, 24, 12)
	atOpening := func(eps float64) bool {
		for _, c := range openings(pi, pat) {
			if math.Abs(eps-c) < 1e-12 {
				return true
			}
		}
		return false
	}
	failIPM := func(mech.Prior, mech.Pattern, float64) (*ipm.ProbeResult, error) {
		return nil, errors.New("no interior point")
	}

	for _, c := range []struct {
		name     string
		above    bool               // the probes that tail lie above ε* (else below)
		unsettle func(nth int) bool // whether the nth probe on that side tails
		probeIPM func(mech.Prior, mech.Pattern, float64) (*ipm.ProbeResult, error)
		goesOn   bool // a master asked again at the same ε settles
		lps      bool
	}{
		{"every probe below ε*, the interior point answering", false, func(int) bool { return true }, nil, false, false},
		{"the first search probe below ε*", false, func(nth int) bool { return nth == 1 }, failIPM, false, false},
		{"every probe below ε*", false, func(int) bool { return true }, failIPM, false, true},
		{"the first two probes above ε*", true, func(nth int) bool { return nth <= 2 }, failIPM, false, false},
		{"every probe above ε*", true, func(int) bool { return true }, failIPM, false, true},
		{"every probe above ε*, the master settling when it goes on", true, func(int) bool { return true }, failIPM, true, false},
	} {
		nth, unsettled, last := 0, 0, -1.0
		tailing := hooks{ipm: c.probeIPM}
		tailing.master = func(m *colgen.Master, eps float64) (*colgen.Result, error) {
			r, err := m.Probe(eps)
			again := eps == last
			last = eps
			if err != nil || atOpening(eps) || (eps >= ref.OptimalEpsilonLower) != c.above || (c.above && eps <= ref.OptimalEpsilon) || (again && c.goesOn) {
				return r, err // the probes at openings never ask the LP
			}
			if nth++; !c.unsettle(nth) {
				return r, nil
			}
			unsettled++
			weak := make([]float64, len(r.Alpha))
			return &colgen.Result{Evidence: certify.Evidence{PML: math.Inf(1), Alpha: weak}, Unsettled: true}, nil
		}
		r, err := leastEpsilon(context.Background(), pi, pat, opt, tailing)
		require.NoError(t, err, c.name)
		require.Positive(t, unsettled, "%s: no probe tailed: the test proves nothing", c.name)
		assert.InDelta(t, ref.OptimalEpsilon, r.OptimalEpsilon, 1e-9, c.name)
		audit(t, pi, pat, r, DefaultTol)
		if c.lps {
			assert.Positive(t, r.LPSolves, c.name)
		} else {
			assert.Zero(t, r.LPSolves, c.name)
		}
		if c.above {
			// The probe above a stand that finds a mechanism sends the
			// next one a hair above the stand (standTest), rather than
			// bisecting down onto it.
			assert.LessOrEqual(t, r.GoProbes, 5*ref.GoProbes/2, c.name)
		}
	}
}

// TestMasterFailedPointMoves: a probe whose master fails, fresh as well,
// and which the interior point does not settle either, is left to other
// points of the bracket rather than to the LP, up to stalledStands times
// in a search; a master that always fails sends the rest to the LP. Every
// search reaches the same ε*.
func TestMasterFailedPointMoves(t *testing.T) {
	pi, pat, opt, ref := columnsReference(t, 23, 24, 9, 0.01, 7, 3)
	require.Greater(t, ref.GoProbes, 3)
	failIPM := func(mech.Prior, mech.Pattern, float64) (*ipm.ProbeResult, error) {
		return nil, errors.New("no interior point")
	}
	for _, c := range []struct {
		name  string
		fails func(nth int) bool // whether the master fails at the nth distinct ε it is asked
		lps   bool
	}{
		{"the first point", func(nth int) bool { return nth == 1 }, false},
		{"the first two points", func(nth int) bool { return nth <= 2 }, false},
		{"the first three points", func(nth int) bool { return nth <= 3 }, false},
		{"every point", func(int) bool { return true }, true},
	} {
		nth, failed, last := 0, 0, math.NaN()
		failing := hooks{ipm: failIPM}
		failing.master = func(m *colgen.Master, eps float64) (*colgen.Result, error) {
			if eps != last {
				nth, last = nth+1, eps
			}
			if c.fails(nth) {
				failed++
				return nil, errors.New("stalled")
			}
			return m.Probe(eps)
		}
		r, err := leastEpsilon(context.Background(), pi, pat, opt, failing)
		require.NoError(t, err, c.name)
		require.Positive(t, failed, c.name)
		assert.InDelta(t, ref.OptimalEpsilon, r.OptimalEpsilon, 1e-9, c.name)
		audit(t, pi, pat, r, DefaultTol)
		if c.lps {
			assert.Positive(t, r.LPSolves, c.name)
		} else {
			assert.Zero(t, r.LPSolves, "%s: the failed points should have moved", c.name)
		}
	}
}
