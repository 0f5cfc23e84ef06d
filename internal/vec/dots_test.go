package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDots2x4 checks both paths against plain dot products on every
// length up to 70, on slices that do not start on a 32-byte boundary and
// are followed by NaN (a read past the end poisons a result), and that
// mismatched lengths panic.
func TestDots2x4(t *testing.T) {
	paths := []bool{false}
	if useFMA {
		paths = append(paths, true)
	}
	saved := useFMA
	defer func() { useFMA = saved }()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, fma := range paths {
		useFMA = fma
		for n := 0; n <= 70; n++ {
			for off := range 3 {
				v := make([][]float64, 6)
				for r := range v {
					b := make([]float64, n+off+8)
					for k := range b {
						b[k] = math.NaN()
					}
					v[r] = b[off : off+n]
					for k := range v[r] {
						v[r][k] = rng.NormFloat64()
					}
				}
				out := [8]float64{1, 2, 3, 4, 5, 6, 7, 8} // overwritten, not added to
				Dots2x4(v[0], v[1], v[2], v[3], v[4], v[5], &out)
				for r := range 2 {
					for s := range 4 {
						want, mag := 0.0, 0.0
						for k := range n {
							want += v[r][k] * v[2+s][k]
							mag += math.Abs(v[r][k] * v[2+s][k])
						}
						if got := out[4*r+s]; !(math.Abs(got-want) <= 1e-14*(1+mag)) {
							t.Errorf("fma=%v n=%d off=%d: out[%d] = %v, want %v", fma, n, off, 4*r+s, got, want)
						}
					}
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Dots2x4: no panic on mismatched lengths")
		}
	}()
	var out [8]float64
	x := make([]float64, 4)
	Dots2x4(x, x, x, x, x, make([]float64, 5), &out)
}

func BenchmarkDots2x4(b *testing.B) {
	v := make([]float64, 6*512)
	for k := range v {
		v[k] = float64(k%7) - 3
	}
	var out [8]float64
	for b.Loop() {
		Dots2x4(v[:512], v[512:1024], v[1024:1536], v[1536:2048], v[2048:2560], v[2560:], &out)
	}
}
