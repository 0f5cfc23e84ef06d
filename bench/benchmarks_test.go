package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/worstcase"
)

// The hot paths, timed by `go test -run '^$' -bench . ./bench/` (add
// -tags clp for the Clp backend). Instances are the scaling study's.

func BenchmarkSafeCurve1000(b *testing.B) {
	in := randomInstance(1000, 2026)
	for b.Loop() {
		if _, err := closedform.SafeCurve(in.Prior, in.Order); err != nil {
			b.Fatal(err)
		}
	}
}

// pureOrClp lists the backends worth timing: gonum's dense Simplex is a
// reference for tiny models only.
func pureOrClp() []string {
	var out []string
	for _, n := range solver.Names() {
		if n != "gonum" {
			out = append(out, n)
		}
	}
	return out
}

// BenchmarkExpectedUtilityLP times one ε-PML expected-utility solve per
// method: ipm alone, ipm finished by each backend on its support, and each
// backend's full LP.
func BenchmarkExpectedUtilityLP(b *testing.B) {
	for _, n := range []int{16, 64, 128} {
		in := randomInstance(n, 2026)
		b.Run(fmt.Sprintf("%s/N=%d", ipmName, n), func(b *testing.B) {
			for b.Loop() {
				if _, err := euSolve(in, nil, false); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, name := range pureOrClp() {
			s, _ := solver.Get(name)
			for _, full := range []bool{false, true} {
				b.Run(fmt.Sprintf("%s%s/N=%d", name, strings.ReplaceAll(fullSuffix(full), " ", "-"), n), func(b *testing.B) {
					for b.Loop() {
						if _, err := euSolve(in, s, full); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

func BenchmarkLeastEpsilon32(b *testing.B) {
	in := randomInstance(32, 2026)
	pat := in.Order.Pattern(16)
	for _, name := range pureOrClp() {
		s, _ := solver.Get(name)
		b.Run(name, func(b *testing.B) {
			lps := 0
			for b.Loop() {
				r, err := worstcase.LeastEpsilon(context.Background(), in.Prior, pat, worstcase.Options{Solver: s})
				if err != nil {
					b.Fatal(err)
				}
				lps = r.LPSolves
			}
			b.ReportMetric(float64(lps), "LPs")
		})
	}
}

func BenchmarkOrderCurve16(b *testing.B) {
	in := randomInstance(16, 2026)
	for _, name := range pureOrClp() {
		s, _ := solver.Get(name)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := worstcase.OrderCurve(context.Background(), in.Prior, in.Order, worstcase.Options{Solver: s, Workers: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFamilyOrderCurve times the order curve of every instance family
// at N = 32 per backend; `-bench FamilyOrderCurve/counting-binomial
// -cpuprofile cpu.out` profiles one family.
func BenchmarkFamilyOrderCurve(b *testing.B) {
	for _, f := range instance.Families() {
		in, err := f.New(32, 2026)
		if err != nil {
			b.Fatal(err)
		}
		o := in.Order()
		for _, name := range pureOrClp() {
			s, _ := solver.Get(name)
			b.Run(f.Name+"/"+name, func(b *testing.B) {
				for b.Loop() {
					// An engine error is what the families study
					// reports; the time until it is still measured.
					_, _ = worstcase.OrderCurve(context.Background(), in.Prior, o, worstcase.Options{Solver: s, Workers: 1})
				}
			})
		}
	}
}
