package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRows checks DotRows and SubRows on both paths against Dot and
// AddScaled row by row, bit for bit, zeros of either sign among the
// entries and the coefficients, and that SubRows skips the zero ones.
func TestRows(t *testing.T) {
	paths := []bool{false}
	if useFMA {
		paths = append(paths, true)
	}
	saved := useFMA
	defer func() { useFMA = saved }()
	rng := rand.New(rand.NewPCG(7, 8))
	entry := func() float64 {
		switch rng.IntN(8) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		}
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
	}
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for _, fma := range paths {
		useFMA = fma
		for n := 0; n <= 37; n++ {
			for rows := 0; rows <= 6; rows++ {
				stride := n + rng.IntN(3)
				a := make([]float64, max(0, (rows-1)*stride+n))
				for i := range a {
					a[i] = entry()
				}
				x := make([]float64, n)
				for i := range x {
					x[i] = entry()
				}
				dst := make([]float64, rows)
				for i := range dst {
					dst[i] = math.NaN()
				}
				DotRows(dst, a, stride, x)
				for i := range dst {
					if want := Dot(a[i*stride:i*stride+n], x); !same(dst[i], want) {
						t.Errorf("fma=%v n=%d rows=%d: DotRows[%d] = %v, Dot %v", fma, n, rows, i, dst[i], want)
					}
				}
				c := make([]float64, rows)
				for i := range c {
					c[i] = entry()
				}
				y, want := make([]float64, n), make([]float64, n)
				for i := range y {
					y[i] = entry()
					want[i] = y[i]
				}
				SubRows(y, c, a, stride)
				for i, ci := range c {
					if ci != 0 {
						AddScaled(want, -ci, a[i*stride:i*stride+n])
					}
				}
				for i := range y {
					if !same(y[i], want[i]) {
						t.Errorf("fma=%v n=%d rows=%d: SubRows[%d] = %v, AddScaled %v", fma, n, rows, i, y[i], want[i])
					}
				}
			}
		}
	}
}

func TestRowsPanic(t *testing.T) {
	for name, f := range map[string]func(){
		"DotRows": func() { DotRows(make([]float64, 2), make([]float64, 4), 3, make([]float64, 2)) },
		"SubRows": func() { SubRows(make([]float64, 2), make([]float64, 2), make([]float64, 4), 3) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic on a short matrix", name)
				}
			}()
			f()
		}()
	}
}
