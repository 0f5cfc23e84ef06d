package decimal

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOutward(t *testing.T) {
	x := math.Log(3.5) // 1.2527629684953681
	assert.Equal(t, "1.252762968", Down(x, 10))
	assert.Equal(t, "1.252762969", Up(x, 10))
	assert.Equal(t, "0.5", Up(0.5, 10), "exact values stay as they are")
	assert.Equal(t, "-1.252762969", Down(-x, 10))
	assert.Equal(t, "-1.252762968", Up(-x, 10))
	assert.Equal(t, "1e+10", Up(9999999999.5, 10), "a carry into a new digit")
	assert.Equal(t, "+Inf", Up(math.Inf(1), 10))
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		x := (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(30)-15))
		d := 1 + rng.IntN(15)
		lo, err := strconv.ParseFloat(Down(x, d), 64)
		require.NoError(t, err)
		hi, err := strconv.ParseFloat(Up(x, d), 64)
		require.NoError(t, err)
		require.LessOrEqual(t, lo, x, "Down(%v, %d)", x, d)
		require.GreaterOrEqual(t, hi, x, "Up(%v, %d)", x, d)
		// At most one unit of the last digit away.
		require.LessOrEqual(t, hi-lo, 2.000001*math.Pow(10, math.Floor(math.Log10(math.Abs(x)))-float64(d-1)), "x = %v, %d digits", x, d)
	}
}

// TestOutwardSubnormal: the unit of the last digit of a subnormal x is
// found from its true decimal exponent (math.Log10(1.2e-310) on amd64
// gives −307.9, a unit a hundred times too large).
func TestOutwardSubnormal(t *testing.T) {
	x := 1.2345678912345e-310
	assert.Equal(t, "1.234567892e-310", Up(x, 10))
	assert.Equal(t, "1.234567891e-310", Down(x, 10))
}
