package certify_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
)

// TestBoundsByColumns: the bounds proven from a utility read a column at
// a time (a rule) are those proven from its dense matrix, bit for bit, for
// random multipliers and every measure; shapes that do not match the
// prior give +Inf.
func TestBoundsByColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	budgets := []mech.Budget{{Measure: mech.LIP, Epsilon: 0.7}, {Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 0.4}, {Measure: mech.LDP, Epsilon: 1.3}}
	for trial := range 100 {
		n := 1 + rng.IntN(8)
		pts := make([][2]float64, n)
		for k := range pts {
			pts[k] = [2]float64{rng.NormFloat64(), rng.NormFloat64()}
		}
		rule := &mech.UtilityRule{Metric: mech.Manhattan, Inputs: mech.Sites{Points: pts}, Cap: 1.5, Transform: mech.Square}
		u := rule.Dense()
		pi := randinst.Prior(rng, n, 0.02)
		alpha := make([]float64, n)
		for i := range alpha {
			alpha[i] = rng.NormFloat64()
		}
		eps := rng.ExpFloat64()
		want := certify.UpperBound(pi, u, nil, eps, alpha)
		assert.False(t, math.IsInf(want, 0), trial)
		assert.Equal(t, want, certify.UpperBoundColumns(pi, rule, eps, alpha), trial)
		for _, b := range budgets {
			assert.Equal(t, certify.RatioUpperBound(pi, u, b, alpha), certify.RatioUpperBoundColumns(pi, rule, b, alpha), "%d %v", trial, b)
		}
		short := pi[:max(0, n-1)]
		if len(short) > 0 {
			assert.True(t, math.IsInf(certify.UpperBoundColumns(short, rule, eps, alpha[:n-1]), 1))
			assert.True(t, math.IsInf(certify.RatioUpperBoundColumns(short, rule, budgets[0], alpha[:n-1]), 1))
		}
	}
	assert.True(t, math.IsInf(certify.UpperBoundColumns(mech.Prior{1}, nil, 1, []float64{0}), 1))
}
