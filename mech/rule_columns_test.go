package mech

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRuleColumnsAndSummaries: a rule's columns, largest magnitude and
// worst-case order are those of its dense matrix (MaxAbs visiting only
// grid corners, WorstCaseOrder without sorting a row), for grids with
// other output grids, caps, transforms and scales, and for points.
func TestRuleColumnsAndSummaries(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	grid := func(w, h int, c float64) *Grid { return &Grid{Width: w, Height: h, Cell: c} }
	rules := []*UtilityRule{
		{Metric: Euclidean, Inputs: Sites{Grid: grid(5, 4, 1)}},
		{Metric: Manhattan, Inputs: Sites{Grid: grid(3, 6, 0.5)}, Outputs: &Sites{Grid: grid(2, 2, 3)}, Transform: Square, Scale: 2},
		{Metric: Chebyshev, Inputs: Sites{Grid: grid(7, 1, 1)}, Outputs: &Sites{Grid: grid(1, 5, 2)}, Cap: 2.5},
		{Metric: Euclidean, Inputs: Sites{Grid: grid(1, 1, 1)}},
		{Metric: Haversine, Inputs: Sites{Points: [][2]float64{{59.3, 18.1}, {48.9, 2.35}, {-33.9, 151.2}}}},
		{Metric: Euclidean, Inputs: Sites{Points: [][2]float64{{0, 0}, {3, 4}, {-1, 2}, {3, 4.5}}}, Outputs: &Sites{Grid: grid(3, 3, 1)}},
	}
	for k, r := range rules {
		u := r.Dense()
		n, m := r.Dims()
		assert.Equal(t, [2]int{len(u), len(u[0])}, [2]int{n, m}, k)
		col, dcol := make([]float64, n), make([]float64, n)
		mx := 0.0
		for j := range m {
			r.Column(j, col)
			u.Column(j, dcol)
			assert.Equal(t, dcol, col, "rule %d column %d", k, j)
			for i := range n {
				mx = math.Max(mx, math.Abs(u[i][j]))
			}
		}
		assert.Equal(t, mx, r.MaxAbs(), k)
		o := u.Order()
		for range 20 {
			p := Zeros(n, m)
			for i := range p {
				// One to three outputs a row, at random.
				for range 1 + rng.IntN(3) {
					p[i][rng.IntN(m)] = 1
				}
				Normalise(p[i])
			}
			if rng.IntN(4) == 0 {
				p[rng.IntN(n)] = make([]float64, m) // a row left unused
			}
			assert.Equal(t, o.WorstCaseOrder(p), r.WorstCaseOrder(p), k)
		}
	}
}
