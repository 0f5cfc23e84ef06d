package golden

import (
	"math"
	"testing"
)

// Section finds the minimum of convex functions, smooth and with a kink,
// to the width its steps leave, and keeps its points inside the interval.
func TestSectionFindsTheMinimum(t *testing.T) {
	for _, c := range []struct {
		name   string
		f      func(float64) float64
		lo, hi float64
		want   float64
	}{
		{"parabola", func(x float64) float64 { return (x - 0.3) * (x - 0.3) }, -2, 5, 0.3},
		{"kink", func(x float64) float64 { return math.Abs(x-1e-9) + 2*math.Max(0, x-1e-9) }, 0, 1e-6, 1e-9},
		{"at the end", func(x float64) float64 { return x }, 1, 2, 1},
	} {
		x1, f1, x2, f2 := Section(c.f, c.lo, c.hi, 80)
		x := x1
		if f2 < f1 {
			x = x2
		}
		if math.Abs(x-c.want) > 1e-12*(c.hi-c.lo) || x < c.lo || x > c.hi {
			t.Errorf("%s: minimum at %v, want %v", c.name, x, c.want)
		}
	}
}
