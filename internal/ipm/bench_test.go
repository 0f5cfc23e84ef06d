package ipm

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
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

// BenchmarkSolveVertex times the default ε-PML expected-utility solve
// (SolveVertex, ε = 1) on the bench's random instance, on a counting
// query (−(x−y)² − [y < x]) with a uniform and a Dirichlet prior, the
// families whose interior points stopped short of the gap, and on the
// instance families slowest against the random one (package instance,
// seed 2026): a line loss with a Zipf or a geometric prior, and the
// Hamming utility, whose optimal face is nearly the whole polytope.
func BenchmarkSolveVertex(b *testing.B) {
	for _, n := range []int{101, 128, 256} {
		cases := benchFamilies(n)
		for _, name := range []string{"abs-zipf", "square-geometric", "hamming"} {
			f, err := instance.Lookup(name)
			if err != nil {
				b.Fatal(err)
			}
			in, err := f.New(n, 2026)
			if err != nil {
				b.Fatal(err)
			}
			cases = append(cases, benchFamily{name, in.Prior, in.Utility})
		}
		for _, c := range cases {
			p := Problem{Prior: c.pi, Utility: c.u, Epsilon: 1}
			b.Run(c.name+"/"+strconv.Itoa(n), func(b *testing.B) {
				for b.Loop() {
					if _, err := SolveVertex(p, Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSolveRatio times SolveRatio under LIP (ε = 1), ALIP (ε_l = 1,
// ε_u = 0.5) and LDP (ε = 1) on the same instances at 128 letters.
func BenchmarkSolveRatio(b *testing.B) {
	budgets := []mech.Budget{{Measure: mech.LIP, Epsilon: 1}, {Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 0.5},
		{Measure: mech.LDP, Epsilon: 1}}
	for _, c := range benchFamilies(128) {
		for _, bu := range budgets {
			p := RatioProblem{Prior: c.pi, Utility: c.u, Budget: bu}
			b.Run(string(bu.Measure)+"/"+c.name+"/128", func(b *testing.B) {
				for b.Loop() {
					if _, err := SolveRatio(p, Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

type benchFamily struct {
	name string
	pi   mech.Prior
	u    mech.Utility
}

// benchFamilies returns the random instance (Dirichlet prior, uniform
// utilities) and the counting query with a uniform and a Dirichlet prior
// on n letters.
func benchFamilies(n int) []benchFamily {
	r := rand.New(rand.NewPCG(2026, uint64(n)))
	return []benchFamily{
		{"random", randinst.Dirichlet(r, n), randinst.Utility(r, n, n, 0)},
		{"counting-uniform", uniformPrior(n), countingQuery(n)},
		{"counting-dirichlet", randinst.Dirichlet(r, n), countingQuery(n)},
	}
}
