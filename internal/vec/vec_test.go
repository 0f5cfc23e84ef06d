package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKernels checks both paths (the FMA kernels where the processor has
// them, and the fallback) against plain loops on every length up to 70 and
// on slices that do not start on a 32-byte boundary, and that neither
// reads nor writes past the end of a slice.
func TestKernels(t *testing.T) {
	const guard = 20
	paths := []bool{false}
	if useFMA {
		paths = append(paths, true)
	}
	saved := useFMA
	defer func() { useFMA = saved }()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, fma := range paths {
		useFMA = fma
		for n := 0; n <= 70; n++ {
			for off := range 3 {
				// Guards after each slice: NaN after x (a read past
				// the end poisons the result), 7 after y (a write past
				// the end shows).
				xb := make([]float64, n+off+guard)
				yb := make([]float64, n+off+guard)
				for k := n + off; k < len(xb); k++ {
					xb[k], yb[k] = math.NaN(), 7
				}
				x, y := xb[off:off+n], yb[off:off+n]
				for i := range x {
					x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
				}
				want, mag := 0.0, 0.0
				for i := range x {
					want += x[i] * y[i]
					mag += math.Abs(x[i] * y[i])
				}
				if got := Dot(x, y); !(math.Abs(got-want) <= 1e-14*(1+mag)) {
					t.Errorf("fma=%v n=%d off=%d: Dot = %v, want %v", fma, n, off, got, want)
				}
				a := rng.NormFloat64()
				wantY := make([]float64, n)
				for i := range y {
					wantY[i] = y[i] + a*x[i]
				}
				AddScaled(y, a, x)
				for i := range y {
					if !(math.Abs(y[i]-wantY[i]) <= 1e-15*(1+math.Abs(a*x[i])+math.Abs(wantY[i]))) {
						t.Errorf("fma=%v n=%d off=%d: AddScaled[%d] = %v, want %v", fma, n, off, i, y[i], wantY[i])
					}
				}
				for k := n + off; k < len(yb); k++ {
					if yb[k] != 7 {
						t.Errorf("fma=%v n=%d off=%d: AddScaled wrote past the end", fma, n, off)
					}
				}
			}
		}
	}
}

func TestLengthMismatchPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"AddScaled": func() { AddScaled(make([]float64, 2), 1, make([]float64, 3)) },
		"Dot":       func() { Dot(make([]float64, 2), make([]float64, 3)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic on mismatched lengths", name)
				}
			}()
			f()
		}()
	}
}

func BenchmarkAddScaled256(b *testing.B) {
	x, y := make([]float64, 256), make([]float64, 256)
	for b.Loop() {
		AddScaled(y, 1e-9, x)
	}
}

func BenchmarkDot256(b *testing.B) {
	x, y := make([]float64, 256), make([]float64, 256)
	for b.Loop() {
		Dot(x, y)
	}
}
