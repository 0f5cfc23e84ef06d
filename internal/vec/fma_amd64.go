//go:build !purego

package vec

import "golang.org/x/sys/cpu"

// useFMA selects the AVX2 kernels; tests switch it off to check the
// fallback. HasAVX2 includes the operating system's support for the YMM
// registers (XGETBV); HasFMA alone would not.
var useFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// axpyFMA performs y += a·x; len(y) ≥ len(x).
//
//go:noescape
func axpyFMA(a float64, x, y []float64)

// dotFMA returns x·y over len(x) entries; len(y) ≥ len(x).
//
//go:noescape
func dotFMA(x, y []float64) float64
