package certify_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// TestAuditMeasures audits one mechanism under each measure against its
// own level (passes) and a budget 1e-6 below it (fails).
func TestAuditMeasures(t *testing.T) {
	pi := mech.Prior{0.6, 0.25, 0.15}
	p := mech.Mechanism{{0.7, 0.3}, {0.4, 0.6}, {0.2, 0.8}}
	lo, up := leakage.ALIP(pi, p)
	for _, b := range []mech.Budget{
		{Measure: mech.PML, Epsilon: leakage.PML(pi, p)},
		{Measure: mech.LIP, Epsilon: leakage.LIP(pi, p)},
		{Measure: mech.LDP, Epsilon: leakage.LDP(pi, p)},
		{Measure: mech.ALIP, EpsilonLower: lo, EpsilonUpper: up},
	} {
		r, err := certify.Audit(pi, p, b)
		require.NoError(t, err, b.Measure)
		assert.InDelta(t, 0, r.Excess, 1e-15, b.Measure)
		tight := b
		tight.Epsilon -= 1e-6
		tight.EpsilonUpper -= 1e-6
		_, err = certify.Audit(pi, p, tight)
		assert.Error(t, err, b.Measure)
	}
	_, err := certify.Audit(pi, p, mech.Budget{Measure: "nope"})
	assert.Error(t, err)
}

// must returns p, the result of a call whose inputs are valid.
func must(p mech.Mechanism, err error) mech.Mechanism {
	if err != nil {
		panic(err)
	}
	return p
}
