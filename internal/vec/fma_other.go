//go:build !amd64 || purego

package vec

var useFMA = false

func axpyFMA(a float64, x, y []float64) { panic("vec: no FMA kernel") }

func dotFMA(x, y []float64) float64 { panic("vec: no FMA kernel") }
