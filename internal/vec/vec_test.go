package vec

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestKernels checks both paths (the FMA kernels where the processor has
// them, and the fallback) against plain loops on every length up to 70 and
// on slices that do not start on a 32-byte boundary.
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

// TestKernelsDoNotOverrun checks that the kernels touch only the first
// len(x) entries of a longer y and never read past x.
func TestKernelsDoNotOverrun(t *testing.T) {
	if !useFMA {
		t.Skip("no FMA kernels on this processor")
	}
	buf := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	y := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	axpyFMA(2, buf[:5], y)
	if want := []float64{3, 5, 7, 9, 11, 1, 1, 1, 1, 1, 1, 1}; !floats.Equal(y, want) {
		t.Errorf("axpy touched %v, want %v", y, want)
	}
	if got := dotFMA(buf[:5], y); got != 3+10+21+36+55 {
		t.Errorf("dot = %v, want 125", got)
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
