package worstcase

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// plantedSplit returns a 0/1 utility on n letters (n even) in which a
// deterministic mechanism sends half the letters to output 0 and the other
// half to output 1, each to an output of value 1. Under a uniform prior that
// mechanism has PML exactly log 2 (each output has mass 1/2) and worst-case
// order n, the largest there is: log 2 is a breakpoint of the order curve.
func plantedSplit(rng *rand.Rand, n int) mech.Utility {
	u := make(mech.Utility, n)
	perm := rng.Perm(n)
	for k, i := range perm {
		u[i] = make([]float64, n)
		for j := 2; j < n; j++ {
			if rng.Float64() < 0.3 {
				u[i][j] = 1
			}
		}
		if k < n/2 {
			u[i][0] = 1
		} else {
			u[i][1] = 1
		}
	}
	return u
}

// A budget typed as a breakpoint selects it: the search must not call a
// threshold unreachable because its bracket, closed to the tolerance,
// straddles the budget. On each planted instance the best order at log 2 is
// n (the planted mechanism reaches it); every engine and probe kind must
// find it, with a mechanism whose audited PML is within the budget's
// relative slack.
func TestBestOrderAtBreakpoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	eps := math.Log(2)
	kinds := []Probes{ProbesAuto, ProbesLP, ProbesIPM}
	for trial := 0; trial < 6; trial++ {
		n := 10
		u := plantedSplit(rng, n)
		pi := make(mech.Prior, n)
		for i := range pi {
			pi[i] = 1 / float64(n)
		}
		o := u.Order()
		for _, slv := range backends(t) {
			for _, kind := range kinds {
				if slv.Name() == "gonum" {
					continue // gonum's Simplex can cycle on degenerate feasibility LPs
				}
				h, r, err := BestOrder(context.Background(), pi, o, eps, Options{Solver: slv, Probes: kind})
				require.NoError(t, err, "trial %d %s", trial, slv.Name())
				require.Equal(t, n, h, "trial %d %s probes %d", trial, slv.Name(), kind)
				audit(t, pi, o.Pattern(h), r, DefaultTol)
				require.LessOrEqual(t, leakage.PML(pi, r.Mechanism), eps+budgetSlack*math.Max(1, eps)+1e-15)

				v, _, err := BestValue(context.Background(), pi, u, eps, Options{Solver: slv, Probes: kind})
				require.NoError(t, err)
				require.Equal(t, 1.0, v, "trial %d %s probes %d", trial, slv.Name(), kind)
			}
		}
	}
}

// The five-letter instance where ε*(6) = log(5/3) exactly: the mechanism
// with rows (0,0,0,1/3,2/3,0,0), (0,1/3,0,0,2/3,0,0), (0,1/3,0,1/3,0,0,1/3)
// twice and (0,0,0,0,2/3,0,1/3) reaches order 6 at that PML, and no
// mechanism reaches order 6 below it (the search's proof says so).
func TestBestOrderAtRationalBreakpoint(t *testing.T) {
	u := mech.Utility{
		{0, 0, 0, 1, 1, 0, 0},
		{0, 1, 0, 0, 1, 0, 0},
		{0, 0, 0, 0, 0, 1, 0},
		{1, 1, 0, 1, 0, 0, 1},
		{0, 0, 1, 0, 1, 1, 1},
	}
	pi := mech.Prior{0.2, 0.2, 0.2, 0.2, 0.2}
	witness := mech.Mechanism{
		{0, 0, 0, 1.0 / 3, 2.0 / 3, 0, 0},
		{0, 1.0 / 3, 0, 0, 2.0 / 3, 0, 0},
		{0, 1.0 / 3, 0, 1.0 / 3, 0, 0, 1.0 / 3},
		{0, 1.0 / 3, 0, 1.0 / 3, 0, 0, 1.0 / 3},
		{0, 0, 0, 0, 2.0 / 3, 0, 1.0 / 3},
	}
	o := u.Order()
	eps := math.Log(5.0 / 3)
	require.Equal(t, 6, o.WorstCaseOrder(witness))
	require.InDelta(t, eps, leakage.PML(pi, witness), 1e-15)
	for _, slv := range backends(t) {
		if slv.Name() == "gonum" {
			continue // gonum's Simplex can cycle on degenerate feasibility LPs
		}
		for _, kind := range []Probes{ProbesAuto, ProbesLP, ProbesIPM} {
			h, r, err := BestOrder(context.Background(), pi, o, eps, Options{Solver: slv, Probes: kind})
			require.NoError(t, err)
			require.Equal(t, 6, h, "%s probes %d", slv.Name(), kind)
			require.LessOrEqual(t, leakage.PML(pi, r.Mechanism), eps+budgetSlack*math.Max(1, eps)+1e-15)
			require.GreaterOrEqual(t, r.OptimalEpsilonLower, eps-1e-12, "the proof must show ε*(6) = log 5/3")
		}
		// Just below the breakpoint the threshold is out of reach.
		h, _, err := BestOrder(context.Background(), pi, o, eps-1e-9, Options{Solver: slv})
		require.NoError(t, err)
		require.Equal(t, 5, h, slv.Name())
	}
}
