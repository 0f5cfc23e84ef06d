package figure

import (
	"bytes"
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
	assert.Equal(t, [2]float64{math.Log10(1.5), math.Log10(30)}, [2]float64{p.Y.Min, p.Y.Max}, "drawn in log10 of the values")
}

// TestLogTicks: the powers of ten of a log axis are written as a reader
// writes them, and an axis spanning less than three powers of ten gets its
// multiples 2 and 5 labelled too.
func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (logTicks{}).Ticks(math.Log10(lo), math.Log10(hi)) {
			v := math.Pow(10, tk.Value)
			if tk.Label != "" && v >= lo*(1-1e-12) && v <= hi*(1+1e-12) {
				out = append(out, tk.Label)
				// The label names the tick's value.
				lv, err := strconv.ParseFloat(tk.Label, 64)
				require.NoError(t, err)
				assert.InDelta(t, 1, v/lv, 1e-12, tk.Label)
			}
		}
		return out
	}
	assert.Equal(t, []string{"1e-6", "1e-5", "0.0001", "0.001", "0.01", "0.1", "1", "10", "100", "1000", "10000", "1e5", "1e6"}, labels(1e-6, 1e6))
	assert.Equal(t, []string{"10", "20", "50", "100", "200"}, labels(8, 200))
	assert.Equal(t, []string{"2e-6", "5e-6", "1e-5", "2e-5", "5e-5"}, labels(1.5e-6, 6e-5))
	assert.Equal(t, []string{"3", "4"}, labels(3, 4))
	wide := labels(1e-300, 1e300)
	assert.LessOrEqual(t, len(wide), 12, "%v", wide)
	assert.GreaterOrEqual(t, len(wide), 6, "%v", wide)
	assert.Equal(t, "2.5e-7", logLabel(2.5e-7))
	assert.Equal(t, "-3e12", logLabel(-3e12))
}

// TestLogAxisExtremes: a log axis from the least subnormal to near the
// largest float64 is drawn with a handful of labelled powers of ten.
func TestLogAxisExtremes(t *testing.T) {
	f := Figure{LogY: true, Series: []Series{{X: []float64{0, 1, 2}, Y: []float64{5e-324, 1e-300, 1.7e308}, Marks: true}}}
	p, err := f.Plot()
	require.NoError(t, err)
	n := 0
	for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		if tk.Label != "" {
			n++
		}
	}
	assert.GreaterOrEqual(t, n, 4)
	assert.LessOrEqual(t, n, 12)
	var buf bytes.Buffer
	require.NoError(t, f.Write(&buf, PNG))
}

// TestTicksLabelBothEndsBelowZero: an axis that ends at a negative whole
// number (worst-case values −6 to −1) labels that end as it labels a
// positive one.
func TestTicksLabelBothEndsBelowZero(t *testing.T) {
	for _, r := range [][2]float64{{-6, -1}, {1, 6}, {-0.5, -0.1}} {
		var first, last string
		for _, tk := range (niceTicks{}).Ticks(r[0], r[1]) {
			if tk.Label != "" {
				if first == "" {
					first = tk.Label
				}
				last = tk.Label
			}
		}
		want := [2]string{strconv.FormatFloat(r[0], 'f', -1, 64), strconv.FormatFloat(r[1], 'f', -1, 64)}
		assert.Equal(t, want, [2]string{first, last}, "range %v", r)
	}
}
