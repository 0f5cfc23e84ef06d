package ipm

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/pmlopt/pmlopt/internal/randinst"
)

// BenchmarkSolve times one solve of the bench's expected-utility instance
// (Dirichlet prior, uniform utilities, ε = 0.5) per size.
func BenchmarkSolve(b *testing.B) {
	for _, n := range []int{16, 64, 128, 256} {
		r := rand.New(rand.NewPCG(2026, uint64(n)))
		p := Problem{Prior: randinst.Dirichlet(r, n), Utility: randinst.Utility(r, n, n, 0), Epsilon: 0.5}
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			it := 0
			for b.Loop() {
				res, err := Solve(p, Options{})
				if err != nil {
					b.Fatal(err)
				}
				it = res.Iterations
			}
			b.ReportMetric(float64(it), "iterations")
		})
	}
}
