package worstcase

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPlacements checks where each placement puts its probes, against the
// rules of their doc comments, on a bracket [1, 2] with tol 1e-3.
func TestPlacements(t *testing.T) {
	const tol = 1e-3
	fresh := func() *bracket { return &bracket{lo: 1, hi: 2, sl: 1, hv: 2} }

	// proofPlacement: first at lo; with a proof, just above its prediction
	// (one proof: the proof itself), once; then sl + tol/2.
	var pp proofPlacement
	assert.Equal(t, 1.0, pp.first(fresh()))
	b := fresh()
	b.sl = 1.2
	st := &steer{proofs: []proofPoint{{t: 1.2, lb: 1.5}}}
	assert.InDelta(t, 1.5+tol/4, pp.next(b, st, tol), 1e-15, "the prediction")
	assert.InDelta(t, 1.2+tol/2, pp.next(b, st, tol), 1e-15, "the prediction is used once")
	// Two proofs on a line of slope 0.5 through ε* = 1.6: lb = 0.8 + t/2.
	st = &steer{proofs: []proofPoint{{t: 1.2, lb: 1.4}, {t: 1.4, lb: 1.5}}}
	assert.InDelta(t, 1.6+tol/4, pp.next(b, st, tol), 1e-12, "the secant's fixed point")
	// Predicted at the upper end: a proof just below it.
	st = &steer{proofs: []proofPoint{{t: 1.2, lb: 2}}}
	assert.InDelta(t, 2-0.75*tol, pp.next(b, st, tol), 1e-15)

	// columnPlacement: first in the middle; then a proof just below a
	// polished mechanism, a Newton estimate a hair below, else bisection
	// (the exactness test only within exactRange).
	var cp columnPlacement
	assert.Equal(t, 1.5, cp.first(fresh()))
	b = fresh()
	st = &steer{closeIn: true, newton: 1.3}
	assert.Equal(t, 2-tol/2, cp.next(b, st, tol))
	assert.False(t, st.closeIn)
	assert.Equal(t, 1.3-tol/4, cp.next(b, st, tol))
	assert.Zero(t, st.newton)
	assert.Equal(t, 1.5, cp.next(b, st, tol), "bisect")
	b.sl, b.hv = 1.5, 1.5+exactRange/2
	st = &steer{}
	assert.InDelta(t, 1.5+exactRange/4, cp.next(b, st, tol), 1e-15, "the exactness test at sl + min((hv-sl)/2, tol/2)")
	assert.True(t, st.exactTried)
	assert.InDelta(t, 1.5+exactRange/4, cp.next(b, st, tol), 1e-15, "then bisection")
}

// TestBracket checks the bracket's rules: a proof raises lo only when
// higher, capped at hi; closed and closes compare with tol.
func TestBracket(t *testing.T) {
	b := &bracket{lo: 1, lower: BoundPruning, hi: 2, sl: 1, hv: 2}
	b.raise(0.5, []float64{1})
	assert.Equal(t, 1.0, b.lo)
	assert.Equal(t, BoundPruning, b.lower)
	b.raise(3, []float64{2})
	assert.Equal(t, 2.0, b.lo, "capped at the audited upper end")
	assert.Equal(t, BoundInfeasible, b.lower)
	assert.Equal(t, []float64{2}, b.proof)
	assert.True(t, b.closed(1e-9))

	b = &bracket{lo: 1, hi: 2, sl: 1, hv: 2}
	assert.False(t, b.closed(0.5))
	assert.True(t, b.closes(1.8, 1.9, 0.1+1e-12))
	assert.False(t, b.closes(1.8, 2.5, 0.1), "a mechanism above hi counts as hi")
	b.sl, b.hv = 1.5, 1.5+1e-3
	assert.True(t, b.closed(0.1), "the steering interval within tol/64")
}
