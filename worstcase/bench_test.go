package worstcase

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/internal/randinst"
)

// BenchmarkOrderCurve solves the whole order curve of a seeded random
// instance on every backend and reports the LPs solved per curve.
func BenchmarkOrderCurve(b *testing.B) {
	for _, size := range []int{16, 32} {
		rng := rand.New(rand.NewPCG(uint64(size), 1))
		pi, o := randinst.Prior(rng, size, 0.05), randinst.StrictOrder(rng, size, size)
		for _, s := range backends(b) {
			b.Run(s.Name()+"/"+string(rune('0'+size/10))+string(rune('0'+size%10)), func(b *testing.B) {
				lps := 0
				for b.Loop() {
					pts, err := OrderCurve(context.Background(), pi, o, Options{Solver: s, Workers: 1})
					if err != nil {
						b.Fatal(err)
					}
					lps = 0
					for _, p := range pts {
						lps += p.LPSolves
					}
				}
				b.ReportMetric(float64(lps), "LPs/curve")
			})
		}
	}
}
