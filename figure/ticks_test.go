package figure

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIntegerTicks: on an integer axis every tick, labelled or not, is at
// an integer, every label reads as its tick's value, and short and long
// ranges get between two and eleven labels.
func TestIntegerTicks(t *testing.T) {
	for _, r := range [][2]float64{{1, 7}, {1, 4}, {1, 2}, {0, 2.6}, {-37, 0}, {1, 16}, {0, 1000}, {3, 3e6}, {-5, 5}, {1, 1.5}} {
		var labels []string
		for _, tk := range (niceTicks{integer: true}).Ticks(r[0], r[1]) {
			assert.Equal(t, math.Round(tk.Value), tk.Value, "%v: tick at %v", r, tk.Value)
			if tk.Label == "" {
				continue
			}
			labels = append(labels, tk.Label)
			v, err := strconv.ParseFloat(tk.Label, 64)
			require.NoError(t, err, "%v: label %q", r, tk.Label)
			assert.Equal(t, tk.Value, v, "%v: label %q", r, tk.Label)
		}
		if r[1]-r[0] >= 1 {
			assert.GreaterOrEqual(t, len(labels), 2, "%v: %v", r, labels)
		}
		assert.LessOrEqual(t, len(labels), 11, "%v: %v", r, labels)
	}
	// One value: one label.
	ticks := (niceTicks{integer: true}).Ticks(4, 4)
	require.Len(t, ticks, 1)
	assert.Equal(t, "4", ticks[0].Label)
	// Without integer, a short axis gets fractional ticks.
	frac := false
	for _, tk := range (niceTicks{}).Ticks(1, 4) {
		frac = frac || tk.Value != math.Round(tk.Value)
	}
	assert.True(t, frac)
}

// TestIntegerAxisSpansWholeNumbers: an integer axis ends at integers, so
// that both ends carry a label; a logarithmic axis is left alone.
func TestIntegerAxisSpansWholeNumbers(t *testing.T) {
	f := Figure{IntegerY: true, Series: []Series{{X: []float64{0, 1.3}, Y: []float64{1.2, 3.5}, Step: true}}}
	p, err := f.Plot()
	require.NoError(t, err)
	assert.Equal(t, 1.0, p.Y.Min)
	assert.Equal(t, 4.0, p.Y.Max)
	assert.Equal(t, 0.0, p.X.Min)
	assert.Equal(t, 1.3, p.X.Max, "the x axis is not an integer axis")
	f.Series[0].Y = []float64{3, 3}
	p, err = f.Plot()
	require.NoError(t, err)
	assert.Equal(t, [2]float64{3, 4}, [2]float64{p.Y.Min, p.Y.Max})
	f.LogY = true
	f.Series[0].Y = []float64{1.5, 30}
	p, err = f.Plot()
	require.NoError(t, err)
	assert.Equal(t, [2]float64{1.5, 30}, [2]float64{p.Y.Min, p.Y.Max})
}
