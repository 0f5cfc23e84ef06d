package mech

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOutputBounds(t *testing.T) {
	pi := Prior{0.5, 0.3, 0.2}
	pat := Pattern{{true, true, false}, {true, false, false}, {true, true, false}}
	c := pat.OutputBounds(pi)
	assert.Equal(t, 0.0, c[0], "every input may use output 1: exactly 0")
	assert.InDelta(t, -math.Log(0.7), c[1], 1e-15)
	assert.True(t, math.IsInf(c[2], 1))
	// 7 × 1/7 rounds below 1, the bound is still exactly 0.
	u := Uniform(7)
	all := Pattern{{true}, {true}, {true}, {true}, {true}, {true}, {true}}
	assert.Equal(t, 0.0, all.OutputBounds(u)[0])
}
