package ipm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/solver"
)

// TestPurifiedVertexMatchesTheLP: the purified vertex of Solve's point
// on grids with Euclidean loss (uniform and random priors, more inputs
// than outputs as the active set's restricted problems have, and square)
// and on random instances is an audited vertex of the ε-PML polytope
// (checkVertex: rows, dust, budget, certificate, rank of the active
// constraints) with the full LP's optimum to 1e-9.
func TestPurifiedVertexMatchesTheLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 2))
	type inst struct {
		name string
		p    Problem
	}
	var cases []inst
	for _, k := range []int{3, 5, 7} {
		u := gridEuclid(k)
		cases = append(cases, inst{"grid uniform", Problem{Prior: uniformPrior(k * k), Utility: u, Epsilon: 1}})
		cases = append(cases, inst{"grid random prior", Problem{Prior: randinst.Prior(rng, k*k, 0.01), Utility: u, Epsilon: 0.5}})
		// The first k outputs only: many inputs, few outputs.
		narrow := make([][]float64, len(u))
		for i := range u {
			narrow[i] = u[i][:k]
		}
		cases = append(cases, inst{"grid narrow", Problem{Prior: uniformPrior(k * k), Utility: narrow, Epsilon: 2}})
	}
	for trial := range 40 {
		n, m := 2+rng.IntN(14), 1+rng.IntN(8)
		cases = append(cases, inst{"random", Problem{Prior: randinst.Prior(rng, n, 0.01),
			Utility: randinst.Utility(rng, n, m, []int{0, 3}[trial%2]), Epsilon: []float64{0.3, 1, 3}[trial%3]}})
	}
	for c, in := range cases {
		r, err := Solve(in.p, Options{})
		if err != nil {
			t.Fatalf("case %d (%s): %v", c, in.name, err)
		}
		v, err := PurifiedVertex(in.p, r, Options{})
		if err != nil {
			t.Fatalf("case %d (%s, %d×%d, ε = %g): %v", c, in.name, len(in.p.Prior), len(in.p.Utility[0]), in.p.Epsilon, err)
		}
		checkVertex(t, in.p, v)
		want := lpOptimum(t, solver.Revised(), in.p)
		if math.Abs(v.Value-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("case %d (%s): purified vertex %.15g, LP %.15g", c, in.name, v.Value, want)
		}
	}
}

// TestComponentsRootAtHeaviestNode: each tree of the purification's
// forest is rooted at its node of largest mass (π_i of an input, q_j of an
// output), where the rounding its equation is left with weighs least, and
// the trees are numbered by their lowest node. (Rooted at input 0, of
// mass 1e-6, the row of that input would carry the tree's rounding
// divided by 1e-6.)
func TestComponentsRootAtHeaviestNode(t *testing.T) {
	pu := &purifier{n: 5, m: 3, pi: []float64{1e-6, 0.3, 0.3, 0.2, 0.2 - 1e-6}, q: []float64{0.2, 0.7, 0.1},
		adj: make([][]int, 8)}
	// Tree A: input 0 – output 0 – input 1 – output 1 – input 2 (output
	// 1 heaviest); tree B: input 3 alone; tree C: output 2 – input 4
	// (the input heavier).
	for _, e := range [][2]int{{0, 0}, {1, 0}, {1, 1}, {2, 1}, {4, 2}} {
		pu.link(e[0], pu.n+e[1])
	}
	comp, order, parent, count := pu.components()
	if count != 3 {
		t.Fatalf("%d trees, want 3", count)
	}
	roots := map[int]int{}
	for _, v := range order {
		if parent[v] < 0 {
			roots[comp[v]] = v
		}
	}
	if comp[0] != 0 || comp[3] != 1 || comp[4] != 2 {
		t.Errorf("trees numbered %d, %d, %d, want 0, 1, 2 (by their lowest node)", comp[0], comp[3], comp[4])
	}
	for _, c := range [][2]int{{0, pu.n + 1}, {3, 3}, {pu.n + 2, 4}} {
		if got := roots[comp[c[0]]]; got != c[1] {
			t.Errorf("the tree of node %d is rooted at node %d, want %d", c[0], got, c[1])
		}
	}
	for k, v := range order {
		if p := parent[v]; p >= 0 && !slices.Contains(order[:k], p) {
			t.Errorf("node %d comes before its parent %d", v, p)
		}
	}
}
