package ipm

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
)

func TestSolveRandom(t *testing.T) {
	for _, n := range []int{4, 16, 64, 128, 256} {
		r := rand.New(rand.NewPCG(2026, uint64(n)))
		pi := randinst.Dirichlet(r, n)
		u := randinst.Utility(r, n, n, 0)
		t0 := time.Now()
		res, err := Solve(Problem{Prior: pi, Utility: u, Epsilon: 0.5}, Options{})
		if res != nil {
			t.Logf("n=%d it=%d value=%.12f bound=%.12f gap=%.2e pml=%.15f %v", n, res.Iterations, res.Value, res.Bound, res.Bound-res.Value, leakage.PML(pi, res.Mechanism), time.Since(t0))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
