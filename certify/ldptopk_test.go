package certify_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/certify"
)

// TestLDPTopKAgainstEverySubset checks LDPTopK's scan of the top-k sets
// against the largest value over every subset S of the inputs of
// Σ_i y_i g_i with y ∝ 1 + (λ−1) 1_S (the vertices of an ε-LDP column's
// face, λ = e^ε), enumerated without any order.
func TestLDPTopKAgainstEverySubset(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 7))
	for trial := range 300 {
		n := 1 + r.IntN(8)
		lam := math.Exp(0.1 + 3*r.Float64())
		g := make([]float64, n)
		for i := range g {
			g[i] = 4*r.Float64() - 2
			if trial%5 == 0 {
				g[i] = math.Round(g[i]) // ties
			}
		}
		want, wantK := math.Inf(-1), -1
		for s := range 1 << n {
			num, k := 0.0, 0
			for i := range n {
				w := 1.0
				if s&(1<<i) != 0 {
					w, k = lam, k+1
				}
				num += w * g[i]
			}
			if v := num / (float64(n) + (lam-1)*float64(k)); v > want {
				want, wantK = v, k
			}
		}
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		certify.SortByGain(order, g)
		for c := 1; c < n; c++ {
			if g[order[c]] > g[order[c-1]] {
				t.Fatalf("trial %d: order %v not by decreasing gain %v", trial, order, g)
			}
		}
		best, k := certify.LDPTopK(g, order, lam)
		if math.Abs(best-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Fatalf("trial %d: LDPTopK %.15g (k %d), every subset %.15g (k %d)", trial, best, k, want, wantK)
		}
		// The k LDPTopK names reaches its value.
		top := 0.0
		total := 0.0
		for c, i := range order {
			total += g[i]
			if c < k {
				top += g[i]
			}
		}
		if v := (total + (lam-1)*top) / (float64(n) + (lam-1)*float64(k)); math.Abs(v-best) > 1e-12*math.Max(1, math.Abs(best)) {
			t.Fatalf("trial %d: the top %d reach %.15g, LDPTopK says %.15g", trial, k, v, best)
		}
	}
}
