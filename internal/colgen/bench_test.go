package colgen_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/internal/par"
)

// BenchmarkProbeWorkers times one cold probe at ε = 1 of a Euclidean
// grid's value pattern (uniform prior, distances up to half the side: near
// the best worst case at ε = 1) with 1, 2, 4, … workers up to every CPU;
// pivots/op is the same for every count.
func BenchmarkProbeWorkers(b *testing.B) {
	for _, side := range []int{16} {
		u, err := instance.Grid(side, side)
		if err != nil {
			b.Fatal(err)
		}
		pi, err := instance.Uniform(side * side)
		if err != nil {
			b.Fatal(err)
		}
		pat := u.Pattern(-float64(side) / 2)
		for _, w := range par.Counts(runtime.NumCPU()) {
			b.Run(fmt.Sprintf("%dx%d/workers=%d", side, side, w), func(b *testing.B) {
				pivots := 0
				for range b.N {
					g, err := colgen.New(pi, pat)
					if err != nil {
						b.Fatal(err)
					}
					g.SetWorkers(w)
					r, err := g.Probe(1)
					if err != nil {
						b.Fatal(err)
					}
					pivots += r.Pivots
				}
				b.ReportMetric(float64(pivots)/float64(b.N), "pivots/op")
			})
		}
	}
}
