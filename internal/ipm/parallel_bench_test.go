package ipm

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/par"
)

// BenchmarkProbeWorkers times one probe of a 24×24 Euclidean grid's value
// pattern (uniform prior, distances up to 12, near the best worst case at
// ε = 1) with 1, 2, 4, … workers up to every CPU; the iterations are the same.
func BenchmarkProbeWorkers(b *testing.B) {
	u, err := instance.Grid(24, 24)
	if err != nil {
		b.Fatal(err)
	}
	pi, err := instance.Uniform(24 * 24)
	if err != nil {
		b.Fatal(err)
	}
	pat := u.Pattern(-12)
	for _, w := range par.Counts(runtime.NumCPU()) {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			its := 0
			for range b.N {
				r, err := ProbeWorkers(context.Background(), pi, pat, 1, w)
				if err != nil {
					b.Fatal(err)
				}
				its += r.Iterations
			}
			b.ReportMetric(float64(its)/float64(b.N), "iterations/op")
		})
	}
}
