package mech

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A prior mass of 1e-310, below the smallest normal float64, where Go's
// amd64 math.Log errs by up to 36 nats: the output only x_2 may use has
// c_2 = −log 1e-310 = 310·log 10, and its information density
// log(p_22/q_2) = log(½/(s/2)) is the same (the quotient 1/s overflows).
func TestSubnormalMass(t *testing.T) {
	const s = 1e-310
	want := 310 * 2.302585092994045684017991454684364
	pi := Prior{1 - s, s}
	c := Pattern{{true, false}, {true, true}}.OutputBounds(pi)
	require.Len(t, c, 2)
	assert.Zero(t, c[0])
	assert.InDelta(t, want, c[1], 1e-11)

	d := Mechanism{{1, 0}, {0.5, 0.5}}.InformationDensity(pi)
	assert.InDelta(t, want, d[1][1], 1e-11)
	assert.InDelta(t, -math.Ln2, d[1][0], 1e-15)
	// log(s/½) for an entry s: the quotient 2s is still subnormal.
	d = Mechanism{{1 - s, s}, {0.5, 0.5}}.InformationDensity(Prior{0.5, 0.5})
	assert.InDelta(t, -want+2*math.Ln2, d[0][1], 1e-11)
}
